// wheel-bench: what Wheel's bridge costs over the same work written against the Lua C API.
//
//     swift build -c release --product wheel-bench
//     .build/release/wheel-bench [--quick] [--check] [--only TEXT]
//
// Each case runs its Wheel version and its reference version (CLuaReference: the plain C
// API on a plain luaL_newstate state) in this process, taking turns, for a number of
// rounds. The table shows the median ns/op of each side and the ratio of the two medians:
// the machine may be shared and noisy, and medians of interleaved rounds let both sides
// see the same noise. `--check` exits with status 1 when a ratio misses its target.
//
// Every measured loop returns a checksum of what it computed, so the optimizer cannot
// drop the work, and before timing a case both sides run once on the same input and must
// agree on the checksum: they did the same work.
import CLuaReference
import Lua
import Wheel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Settings

struct Settings {
    var rounds = 9
    /// How long one measurement of the reference side should take.
    var roundTime: Duration = .milliseconds(100)
    var check = false
    /// Runs only the cases whose name contains this text (to profile one case).
    var only: String?

    static let usage = """
        usage: wheel-bench [--quick] [--check] [--only TEXT]
          --quick       5 rounds of ~20 ms instead of 9 rounds of ~100 ms
          --check       exit with status 1 if a case misses its target
          --only TEXT   run only the cases whose name contains TEXT
        """

    init(arguments: [String]) throws(UsageError) {
        var arguments = arguments[...]
        while let argument = arguments.popFirst() {
            switch argument {
            case "--quick":
                rounds = 5
                roundTime = .milliseconds(20)
            case "--check":
                check = true
            case "--only":
                guard let text = arguments.popFirst() else { throw UsageError("--only needs a text") }
                only = text
            case "-h", "--help":
                throw UsageError(message: Settings.usage, status: 0)
            default:
                throw UsageError("unknown argument '\(argument)'")
            }
        }
    }
}

struct UsageError: Error {
    var message: String
    var status: Int32

    init(message: String, status: Int32) {
        self.message = message
        self.status = status
    }

    init(_ problem: String) {
        self.init(message: "wheel-bench: \(problem)\n\(Settings.usage)", status: 2)
    }
}

// MARK: - Cases

/// One row of the table: the same work done by Wheel and by the reference.
struct BenchCase {
    var name: String
    /// The highest acceptable Wheel/reference ratio; nil for a row that only informs.
    var target: Double?
    /// Each side does `operations` units of work and returns a checksum of its results.
    var wheel: (_ operations: Int) throws -> UInt64
    var reference: (_ operations: Int) throws -> UInt64
    /// What one operation is ("frames"), for a row whose rate is also printed per second.
    var operation: String? = nil
}

/// The scripts, the same text on both sides (CLuaReference compiles identical copies).
enum Script {
    static let title = "return function(row) return 'row ' .. row end"
    static let functionLoop = "return function(f, n) for i = 1, n do f(i) end end"
    static let methodLoop = "return function(obj, n) for i = 1, n do obj:add(1) end end"
    static let sumLoop = "return function(n) local x = 0 for i = 1, n do x = x + i end return x end"

    /// Four wheels of a million rows whose titles come from a title function (the
    /// reference compiles the same function).
    static let titlePicker = """
        local function title(p, i) return 'row ' .. i end
        picker "rows" {
          components = {
            { id = "a", count = 1000000, title = title },
            { id = "b", count = 1000000, title = title },
            { id = "c", count = 1000000, title = title },
            { id = "d", count = 1000000, title = title },
          },
        }
        """

    /// The resistor's four wheels (examples/resistor.lua), without its `on_change`: a
    /// frame of them calls no Lua.
    static let itemsPicker = """
        local colors = { "black", "brown", "red", "orange", "yellow",
                         "green", "blue", "violet", "grey", "white" }
        local multipliers = { "black", "brown", "red", "orange", "yellow", "green",
                              "blue", "violet", "grey", "white", "gold", "silver" }
        picker "resistor" {
          components = {
            { id = "band1", items = colors, selected = 5 },
            { id = "band2", items = colors, selected = 8 },
            { id = "multiplier", items = multipliers, selected = 3 },
            { id = "tolerance", items = { "brown", "red", "gold", "silver" }, selected = 3 },
          },
        }
        """
}

/// A Swift object exposed to Lua with one method, like the reference's C counter.
final class Counter: LuaUserdata {
    var value = 0
    static let luaTypeName = "Counter"
    static func describe(_ type: inout LuaUserdataType<Counter>) {
        type.method("add") { (counter: Counter, amount: Int) in counter.value += amount }
    }
}

/// A CLuaReference state, closed with the case that uses it.
final class ReferenceState {
    let pointer: OpaquePointer
    init() throws {
        guard let pointer = clr_open() else { throw BenchFailure("clr_open failed") }
        self.pointer = pointer
    }
    deinit { clr_close(pointer) }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The checksum of one title, computed as the reference's C loop computes it.
@inline(__always) func titleChecksum(_ text: String) -> UInt64 {
    let utf8 = text.utf8
    return UInt64(utf8.count) &+ UInt64(utf8.last ?? 0)
}

/// Case 1: a held script function called from Swift, its string result read.
func swiftToLuaCall(name: String, target: Double?, options: LuaState.Options = .init()) throws -> BenchCase {
    let state = try LuaState(options: options)
    let title = try state.load(Script.title, name: "titles").call(returning: LuaFunction.self)
    let reference = try ReferenceState()
    return BenchCase(
        name: name, target: target,
        wheel: { operations in
            var sink: UInt64 = 0
            for row in 0..<operations {
                sink &+= titleChecksum(try title.call(row, returning: String.self))
            }
            return sink
        },
        reference: { operations in clr_call_title(reference.pointer, 0, Int64(operations)) }
    )
}

/// Case 1 without reading the result: the call path alone, without the String.
func swiftToLuaCallDiscarding() throws -> BenchCase {
    let state = try LuaState()
    let title = try state.load(Script.title, name: "titles").call(returning: LuaFunction.self)
    let reference = try ReferenceState()
    return BenchCase(
        name: "info: Swift→Lua call, result not read", target: nil,
        wheel: { operations in
            for row in 0..<operations { try title.call(row) }
            return UInt64(operations)
        },
        reference: { operations in clr_call_title_discarding(reference.pointer, 0, Int64(operations)) }
    )
}

/// Case 2: a Lua loop calling a host function.
func luaToSwiftCall() throws -> BenchCase {
    let state = try LuaState()
    let loop = try state.load(Script.functionLoop, name: "function loop").call(returning: LuaFunction.self)
    let increment = state.function { (x: Int) -> Int in x + 1 }
    let reference = try ReferenceState()
    return BenchCase(
        name: "Lua→Swift call", target: 1.3,
        wheel: { operations in
            try loop.call(increment, operations)
            return UInt64(operations)
        },
        reference: { operations in
            clr_call_function_loop(reference.pointer, Int64(operations))
            return UInt64(operations)
        }
    )
}

/// Case 3: a Lua loop calling a userdata method.
func userdataMethod() throws -> BenchCase {
    let state = try LuaState()
    let loop = try state.load(Script.methodLoop, name: "method loop").call(returning: LuaFunction.self)
    let counter = Counter()
    let reference = try ReferenceState()
    // Each side's checksum is how much its counter grew during the run: `operations` if
    // every call arrived.
    var wheelTotal = 0
    var referenceTotal: Int64 = 0
    return BenchCase(
        name: "userdata method", target: 1.3,
        wheel: { operations in
            try loop.call(counter, operations)
            defer { wheelTotal = counter.value }
            return UInt64(counter.value - wheelTotal)
        },
        reference: { operations in
            let total = clr_call_method_loop(reference.pointer, Int64(operations))
            defer { referenceTotal = total }
            return UInt64(total - referenceTotal)
        }
    )
}

/// Case 4: a tight loop with and without a CPU deadline. The reference is Wheel itself.
func deadlineArmed() throws -> BenchCase {
    let timed = try LuaState(options: .init(timeout: .seconds(60)))
    let untimed = try LuaState()
    let timedLoop = try timed.load(Script.sumLoop, name: "sum loop").call(returning: LuaFunction.self)
    let untimedLoop = try untimed.load(Script.sumLoop, name: "sum loop").call(returning: LuaFunction.self)
    return BenchCase(
        name: "CPU deadline armed, not reached (ref: Wheel without timeout)", target: 1.05,
        wheel: { operations in UInt64(bitPattern: Int64(try timedLoop.call(operations, returning: Int.self))) },
        reference: { operations in UInt64(bitPattern: Int64(try untimedLoop.call(operations, returning: Int.self))) }
    )
}

/// The tight loop on a sandboxed Wheel state and on a plain one: script code itself runs
/// at the interpreter's speed in Wheel.
func tightLoop() throws -> BenchCase {
    let state = try LuaState()
    let loop = try state.load(Script.sumLoop, name: "sum loop").call(returning: LuaFunction.self)
    let reference = try ReferenceState()
    return BenchCase(
        name: "info: tight Lua loop, no timeout", target: nil,
        wheel: { operations in UInt64(bitPattern: Int64(try loop.call(operations, returning: Int.self))) },
        reference: { operations in UInt64(bitPattern: clr_run_sum_loop(reference.pointer, Int64(operations))) }
    )
}

/// A picker declared by a script run in a `Runtime`, as a host gets it. The runtime closes
/// its state when it goes, so a case keeps the whole `DeclaredPicker`, not just the picker.
final class DeclaredPicker {
    let runtime: Runtime
    let picker: Picker

    /// Writes `script` to a temporary file and runs it. `Runtime.run(file:)` is async and
    /// the benchmark is not; what it does is load the file (`state.load(file:)`, the
    /// script's own sandboxed environment with the `picker` declaration) and call the
    /// chunk, which is done here with a plain call: the script calls no async function.
    init(script: String, named name: String, options: Runtime.Options) throws {
        runtime = try Runtime(options: options)
        var template = Array("/tmp/wheel-bench-XXXXXX.lua".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
        guard descriptor >= 0 else { throw BenchFailure("cannot create a temporary script file") }
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        var text = script
        let written = text.withUTF8 { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == script.utf8.count else { throw BenchFailure("cannot write \(path)") }
        try runtime.state.load(file: path).call()
        guard let picker = runtime.picker(named: name) else { throw BenchFailure("the script declared no picker '\(name)'") }
        self.picker = picker
    }
}

/// A frame's shape in both cases: four wheels of seven rows.
enum PickerShape {
    static let components = 4
    static let rows = 7
}

/// The target case of pickers: frames of four `count`/`title` wheels whose 28 titles are
/// all computed by the script's title function, against a C host calling the same
/// function for the same rows.
///
/// Every wheel turns by 7 rows before each frame, so each frame shows 7 items per wheel
/// that the previous frames did not: a direct-mapped title cache of 64 entries (the size
/// for 7 rows) keyed by item never holds them, since the most recent item in a cache
/// slot is at most 63 items back, and the wheels of 1,000,000 items only come back to an
/// item after 142,857 frames. No `reload` is needed, and the wheel turning is what a
/// user's fling does; the reference turns its selections the same way.
func pickerFramesWithTitles() throws -> BenchCase {
    // No CPU deadline and no memory ceiling: the raw C side has neither (the row
    // "Swift→Lua call, timeout + memoryLimit set" shows what they add to a call).
    let declared = try DeclaredPicker(script: Script.titlePicker, named: "rows",
                                      options: .init(memoryLimit: nil, timeout: nil))
    let reference = try ReferenceState()
    let ids = declared.picker.components.map(\.id)
    let step = PickerShape.rows
    // The C host's selections, 0-based, where the script's wheels start (`selected = 1`).
    var selections = [Int64](repeating: 0, count: PickerShape.components)
    return BenchCase(
        name: "picker frame, title functions", target: 1.2,
        wheel: { operations in
            let picker = declared.picker
            var sink: UInt64 = 0
            for _ in 0..<operations {
                for id in ids { try picker.scroll(id, by: step) }
                for column in picker.frame().columns {
                    for row in column.rows { sink &+= titleChecksum(row.title) }
                }
            }
            return sink
        },
        reference: { operations in
            clr_picker_frames(reference.pointer, &selections, Int32(PickerShape.components), Int32(PickerShape.rows),
                              1_000_000, Int64(step), Int64(operations))
        },
        operation: "frames"
    )
}

/// Frames of four `items` wheels (the resistor's), one of them turning by a row before
/// each frame: titles are read from Swift arrays and no Lua runs. The reference is the C
/// host's 28 title calls per frame, as in the case above, to show what the items save.
/// The titles differ between the sides, so the checksum is the number of frames drawn.
func pickerFramesWithItems() throws -> BenchCase {
    let declared = try DeclaredPicker(script: Script.itemsPicker, named: "resistor",
                                      options: .init(memoryLimit: nil, timeout: nil))
    let reference = try ReferenceState()
    var selections = [Int64](repeating: 0, count: PickerShape.components)
    return BenchCase(
        name: "info: picker frame, items components", target: nil,
        wheel: { operations in
            let picker = declared.picker
            for _ in 0..<operations {
                try picker.scroll("band1", by: 1)
                let frame = picker.frame()
                guard frame.columns.count == PickerShape.components else { throw BenchFailure("wrong frame") }
            }
            return UInt64(operations)
        },
        reference: { operations in
            _ = clr_picker_frames(reference.pointer, &selections, Int32(PickerShape.components), Int32(PickerShape.rows),
                                  1_000_000, Int64(PickerShape.rows), Int64(operations))
            return UInt64(operations)
        },
        operation: "frames"
    )
}

/// Every case, in table order; each call builds the case's states.
func allCases() -> [() throws -> BenchCase] {
    [
        { try swiftToLuaCall(name: "Swift→Lua call", target: 1.15) },
        luaToSwiftCall,
        userdataMethod,
        deadlineArmed,
        {
            try swiftToLuaCall(name: "info: Swift→Lua call, timeout + memoryLimit set", target: nil,
                               options: .init(memoryLimit: 64 << 20, timeout: .seconds(60)))
        },
        swiftToLuaCallDiscarding,
        tightLoop,
        pickerFramesWithTitles,
        pickerFramesWithItems,
        // Pagers (PagerBench.swift).
        PagerBench.bindingWithPaths,
        PagerBench.bindingWithFunction,
    ]
}

// MARK: - Measuring

struct Measurement {
    var nanosecondsPerOperation: Double
    var checksum: UInt64
}

func measure(_ operations: Int, _ body: (Int) throws -> UInt64) rethrows -> Measurement {
    let clock = ContinuousClock()
    let start = clock.now
    let checksum = try body(operations)
    let elapsed = clock.now - start
    return Measurement(nanosecondsPerOperation: elapsed.nanoseconds / Double(operations), checksum: checksum)
}

/// How many operations make one run of `body` last about `roundTime`.
func calibrate(_ body: (Int) throws -> UInt64, roundTime: Duration) rethrows -> Int {
    let goal = roundTime.nanoseconds
    var operations = 16
    while true {
        let spent = try measure(operations, body).nanosecondsPerOperation * Double(operations)
        if spent >= goal / 8 || operations >= 1 << 40 {
            return max(1, Int(Double(operations) * goal / max(spent, 1)))
        }
        operations *= 4
    }
}

struct Row {
    var name: String
    var target: Double?
    var wheel: Double
    var reference: Double
    var operation: String?
    var ratio: Double { wheel / reference }
    /// Judged on the ratio as printed (two decimals), so the verdict matches the table.
    var met: Bool { target.map { (ratio * 100).rounded() / 100 <= $0 } ?? true }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

func run(_ benchCase: BenchCase, settings: Settings, checksum: inout UInt64) throws -> Row {
    // Warms both sides up on the same input; they must agree on what they computed.
    let probe = 1000
    let wheelProbe = try benchCase.wheel(probe)
    let referenceProbe = try benchCase.reference(probe)
    guard wheelProbe == referenceProbe else {
        throw BenchFailure("\(benchCase.name): Wheel's checksum is \(wheelProbe), the reference's \(referenceProbe)")
    }
    // A round is `slices` short runs of each side, taking turns, so that both sides see
    // the same changes in the machine's load; its ns/op is each side's total over the round.
    // Both sides do the same number of operations, sized by the reference.
    let slices = 8
    let operations = try calibrate(benchCase.reference, roundTime: settings.roundTime / slices)
    // One round of each side that is not counted: calibration ran only the reference, and
    // a fresh state's heap and collector take a while to reach their steady state.
    for _ in 0..<slices {
        checksum &+= try measure(operations, benchCase.wheel).checksum
        checksum &+= try measure(operations, benchCase.reference).checksum
    }
    var wheel: [Double] = []
    var reference: [Double] = []
    for round in 0..<settings.rounds {
        var wheelTime = 0.0
        var referenceTime = 0.0
        for slice in 0..<slices {
            // Alternates which side goes first, so that neither always follows the other.
            for wheelTurn in (round + slice) % 2 == 0 ? [true, false] : [false, true] {
                let result = try measure(operations, wheelTurn ? benchCase.wheel : benchCase.reference)
                checksum &+= result.checksum
                if wheelTurn {
                    wheelTime += result.nanosecondsPerOperation
                } else {
                    referenceTime += result.nanosecondsPerOperation
                }
            }
        }
        wheel.append(wheelTime / Double(slices))
        reference.append(referenceTime / Double(slices))
    }
    return Row(name: benchCase.name, target: benchCase.target, wheel: median(wheel), reference: median(reference),
               operation: benchCase.operation)
}

// MARK: - Output

extension Duration {
    var nanoseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}

/// `value` with `decimals` digits after the point, without Foundation.
func fixed(_ value: Double, _ decimals: Int) -> String {
    var scale = 1
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int((abs(value) * Double(scale)).rounded())
    let fraction = String(scaled % scale)
    let digits = "\(scaled / scale)" + (decimals > 0 ? "." + String(repeating: "0", count: decimals - fraction.count) + fraction : "")
    return value < 0 ? "-" + digits : digits
}

func table(_ rows: [Row], settings: Settings) -> String {
    var lines = [
        "| case | Wheel ns/op | raw C ns/op | ratio | target | ok? |",
        "|---|---:|---:|---:|---:|:---:|",
    ]
    for row in rows {
        let target = row.target.map { "≤ \(fixed($0, 2))x" } ?? "—"
        let verdict = row.target == nil ? "—" : row.met ? "yes" : "**no**"
        lines.append("| \(row.name) | \(fixed(row.wheel, 1)) | \(fixed(row.reference, 1)) | \(fixed(row.ratio, 2))x | \(target) | \(verdict) |")
    }
    let rates = rows.filter { $0.operation != nil }
    if !rates.isEmpty { lines.append("") }
    for row in rates {
        let operation = row.operation ?? ""
        lines.append("\(row.name): \(fixed(1e9 / row.wheel, 0)) \(operation)/s (Wheel), "
            + "\(fixed(1e9 / row.reference, 0)) \(operation)/s (raw C)")
    }
    lines.append("")
    lines.append("Median of \(settings.rounds) rounds per side; a round is ~\(Int(settings.roundTime.nanoseconds / 1e6)) ms "
        + "of the reference in 8 slices, Wheel and reference taking turns (ContinuousClock); "
        + "ratio = Wheel median / reference median.")
    return lines.joined(separator: "\n")
}

/// Writes `text` and a newline straight to a file descriptor, so that the table and any
/// message on standard error come out in the order they were written.
func writeLine(_ text: String, to descriptor: Int32 = 1) {
    var line = text + "\n"
    line.withUTF8 { _ = write(descriptor, $0.baseAddress, $0.count) }
}

func writeError(_ text: String) { writeLine(text, to: 2) }

// MARK: - Main

@MainActor func main() async -> Int32 {
    let settings: Settings
    do {
        settings = try Settings(arguments: Array(CommandLine.arguments.dropFirst()))
    } catch {
        if error.status == 0 { writeLine(error.message) } else { writeError(error.message) }
        return error.status
    }
    var checksum: UInt64 = 0
    var rows: [Row] = []
    do {
        for makeCase in allCases() {
            // A case's states live only while it runs.
            let benchCase = try makeCase()
            if let only = settings.only, !benchCase.name.contains(only) { continue }
            rows.append(try run(benchCase, settings: settings, checksum: &checksum))
        }
    } catch {
        writeError("wheel-bench: \(error)")
        return 2
    }
    let feedCases = FeedBench.selected(by: settings.only)
    let pagerMemory = PagerBench.memorySelected(by: settings.only)
    let terminal = TerminalBench.selected(by: settings.only)
    if rows.isEmpty && feedCases.isEmpty && !pagerMemory && !terminal {
        writeError("wheel-bench: no case's name contains '\(settings.only ?? "")'")
        return 2
    }
    if !rows.isEmpty {
        writeLine(table(rows, settings: settings))
        // Never true in practice; reading the checksum keeps every loop's work observable.
        if checksum == 0 { writeLine("(all checksums were zero: the loops did no work)") }
    }
    var missed = rows.filter { !$0.met }.map(\.name)
    // Feeds (FeedBench.swift): a section of their own after the table.
    if !feedCases.isEmpty {
        do {
            missed += try await FeedBench.run(feedCases, settings: settings, afterTable: !rows.isEmpty)
        } catch {
            writeError("wheel-bench: \(error)")
            return 2
        }
    }
    // Pagers' memory (PagerBench.swift): a section of its own after the feeds.
    if pagerMemory {
        do {
            missed += try PagerBench.runMemory(afterOutput: !rows.isEmpty || !feedCases.isEmpty)
        } catch {
            writeError("wheel-bench: \(error)")
            return 2
        }
    }
    // The terminal (TerminalBench.swift): a section of its own, last.
    if terminal {
        do {
            missed += try TerminalBench.run(settings: settings, afterOutput: !rows.isEmpty || !feedCases.isEmpty || pagerMemory)
        } catch {
            writeError("wheel-bench: \(error)")
            return 2
        }
    }
    if settings.check && !missed.isEmpty {
        writeError("wheel-bench: missed target: " + missed.joined(separator: ", "))
        return 1
    }
    return 0
}

exit(await main())
