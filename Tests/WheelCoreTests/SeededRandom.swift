// Seeded randomness for the property tests: SplitMix64, a runner that gives every case a
// generator of its own, and the values the cases draw.
//
// A failure message names the test's seed, the case number and the case's own seed; the
// case replays alone with `SplitMix64(seed: caseSeed)` and the same draws.

import WheelCore

/// SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit state advanced by the golden gamma and
/// mixed on output. Deterministic for a seed on every platform, unlike the system generator.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Runs `body` for `cases` cases, each with its own generator and a label for failure messages.
func forEachRandomCase(
    _ cases: Int, seed: UInt64, _ body: (inout SplitMix64, String) throws -> Void
) rethrows {
    var seeds = SplitMix64(seed: seed)
    for index in 0..<cases {
        let caseSeed = seeds.next()
        var random = SplitMix64(seed: caseSeed)
        try body(&random, "case \(index) of seed \(hex(seed)) (case seed \(hex(caseSeed)))")
    }
}

private func hex(_ value: UInt64) -> String { "0x" + String(value, radix: 16) }

extension SplitMix64 {
    /// A true one time in `n`.
    mutating func oneIn(_ n: Int) -> Bool { Int.random(in: 0..<n, using: &self) == 0 }

    /// An item count, mostly small, sometimes in the billions, now and then near `Int.max`
    /// where `count * copies` and `index + rows` would overflow.
    mutating func itemCount() -> Int {
        switch Int.random(in: 0..<20, using: &self) {
        case 0..<10: Int.random(in: 1...12, using: &self)
        case 10..<15: Int.random(in: 13...10_000, using: &self)
        case 15..<18: Int.random(in: 10_001...(1 << 40), using: &self)
        default: [Int.max, Int.max - 1, Int.max / 2 + 1, Int.random(in: (1 << 62)...Int.max, using: &self)]
            .randomElement(using: &self)!
        }
    }

    /// A number of rows to scroll a wheel of `count` items by: small turns, turns of a few
    /// laps, whole laps and their neighbours, the extremes of `Int`, and anything at all.
    mutating func turn(count: Int) -> Int {
        switch Int.random(in: 0..<6, using: &self) {
        case 0:
            return Int.random(in: -3...3, using: &self)
        case 1:
            let reach = count.multipliedReportingOverflow(by: 3)
            let bound = reach.overflow ? Int.max : reach.partialValue
            return Int.random(in: -bound...bound, using: &self)
        case 2:
            let laps = Int.random(in: -4...4, using: &self)
            let (whole, overflow) = count.multipliedReportingOverflow(by: laps)
            guard !overflow else { return laps < 0 ? .min : .max }
            let (near, nearOverflow) = whole.addingReportingOverflow(Int.random(in: -1...1, using: &self))
            return nearOverflow ? whole : near
        case 3:
            return [Int.max, Int.min, Int.max - 1, Int.min + 1].randomElement(using: &self)!
        default:
            return Int.random(in: Int.min...Int.max, using: &self)
        }
    }

    /// A wrap mode.
    mutating func wrapMode() -> WrapMode { WrapMode.allCases.randomElement(using: &self)! }

    /// A strategy of `FiniteRowAdapter`: three copies, a few copies, the classic 10,000, or
    /// many; with `atLeastThree` only those with a middle copy between two others.
    mutating func strategy(atLeastThree: Bool = false) -> FiniteRowAdapter.Strategy {
        switch Int.random(in: 0..<4, using: &self) {
        case 0: .threeCopies
        case 1: .multiplied(copies: Int.random(in: (atLeastThree ? 3 : -1)...12, using: &self))
        case 2: .tenThousandCopies
        default: .multiplied(copies: Int.random(in: 13...1_000_000, using: &self))
        }
    }
}
