import Testing
import WheelCore

/// Properties of the picker core over seeded random cases: counts from 1 to `Int.max`, turns
/// from 0 to `Int.min` and `Int.max`, every wrap mode and adapter strategy. Each test stops
/// at its first counterexample and names the case (see `forEachRandomCase`).
///
/// The oracles reduce every value into the items before adding, in unsigned arithmetic, so
/// that they cannot overflow where the wheel must not.
@Suite struct PickerPropertyTests {
    @Test func generatorGivesTheReferenceSplitMix64Sequence() {
        // The first outputs of Vigna's splitmix64.c for seed 1234567: a case seed replays
        // the same case on every platform and compiler.
        var random = SplitMix64(seed: 1_234_567)
        #expect((0..<3).map { _ in random.next() } == [6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423])
    }

    // MARK: Scrolling

    @Test func wrappingScrollsAddUpModuloTheCount() throws {
        try forEachRandomCase(2_000, seed: 0x5C2011) { random, label in
            var wheel = random.wrappingWheel()
            let start = wheel.selection!
            var expected = start
            var turns: [Int] = []
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                let turn = random.turn(count: wheel.count)
                turns.append(turn)
                wheel.scroll(by: turn)
                expected = sum(expected, turn, modulo: wheel.count)
                try #require(wheel.selection == expected, "\(label): \(wheel.count) items from \(start), turns \(turns)")
            }
        }
    }

    @Test func wrappingScrollReportsTheRequestedTurn() throws {
        try forEachRandomCase(2_000, seed: 0x7E2A) { random, label in
            var wheel = random.wrappingWheel()
            let before = wheel.selection!
            let turn = random.turn(count: wheel.count)
            let change = wheel.scroll(by: turn)
            let after = wheel.selection!
            let expected = after == before ? nil : WheelChange(from: before, to: after, rows: turn)
            try #require(change == expected, "\(label): \(wheel.count) items from \(before), turn \(turn)")
        }
    }

    @Test func nonWrappingScrollsFollowTheClampedRunningSum() throws {
        try forEachRandomCase(2_000, seed: 0xC1A3) { random, label in
            var wheel = random.nonWrappingWheel()
            let start = wheel.selection!
            var expected = start
            var turns: [Int] = []
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                let turn = random.turn(count: wheel.count)
                turns.append(turn)
                wheel.scroll(by: turn)
                expected = clampedSum(expected, turn, count: wheel.count)
                try #require(wheel.selection == expected, "\(label): \(wheel.count) items from \(start), turns \(turns)")
            }
        }
    }

    @Test func nonWrappingScrollReportsTheClampedTurn() throws {
        try forEachRandomCase(2_000, seed: 0xC1A4) { random, label in
            var wheel = random.nonWrappingWheel()
            let before = wheel.selection!
            let turn = random.turn(count: wheel.count)
            let after = clampedSum(before, turn, count: wheel.count)
            let expected = after == before ? nil : WheelChange(from: before, to: after, rows: after - before)
            let change = wheel.scroll(by: turn)
            try #require(change == expected, "\(label): \(wheel.count) items from \(before), turn \(turn)")
        }
    }

    // MARK: Visible rows

    @Test func visibleRowsShowTheItemsAroundTheSelection() throws {
        try forEachRandomCase(2_000, seed: 0x2035) { random, label in
            var wheel = random.anyWheel()
            for _ in 0..<Int.random(in: 0...3, using: &random) { wheel.scroll(by: random.turn(count: wheel.count)) }
            let above = (wheel.visibleRows - 1) / 2
            let offsets = Array(-above..<(wheel.visibleRows - above))
            let expected = offsets.map { WheelRow(offset: $0, item: expectedItem(of: wheel, atOffset: $0)) }
            try #require(wheel.rows() == expected, "\(label): \(wheel)")
        }
    }

    @Test func itemAtAnyOffsetIsInTheItemsOrBlankOnlyWithoutWrapping() throws {
        try forEachRandomCase(2_000, seed: 0x0FF5E7) { random, label in
            let wheel = random.anyWheel()
            let offset = random.turn(count: max(1, wheel.count))
            let item = wheel.item(atOffset: offset)
            try #require(item == expectedItem(of: wheel, atOffset: offset), "\(label): \(wheel), offset \(offset)")
            if let item { try #require((0..<wheel.count).contains(item), "\(label): \(wheel), offset \(offset)") }
            if wheel.wraps { try #require(item != nil, "\(label): \(wheel), offset \(offset)") }
        }
    }

    @Test func exactlyTheSelectedRowIsSelected() throws {
        try forEachRandomCase(2_000, seed: 0x5E1EC7) { random, label in
            let wheel = random.anyWheel()
            let selected = wheel.rows().filter(\.isSelected)
            let expected = wheel.selection.map { [WheelRow(offset: 0, item: $0)] } ?? []
            try #require(selected == expected, "\(label): \(wheel)")
        }
    }

    // MARK: Selecting

    @Test func selectTurnsAWrappingWheelTheShortestWayRoundForwardOnATie() throws {
        try forEachRandomCase(2_000, seed: 0x5407) { random, label in
            var wheel = random.wrappingWheel()
            let before = wheel.selection!
            let target = random.index(below: wheel.count)
            let forward = reduced(target - before, modulo: wheel.count)
            let backward = wheel.count - forward
            let expected = forward == 0 ? nil
                : WheelChange(from: before, to: target, rows: forward <= backward ? forward : -backward)
            try #require(wheel.select(target) == expected, "\(label): \(wheel.count) items from \(before) to \(target)")
            try #require(wheel.selection == target, "\(label): \(wheel.count) items from \(before) to \(target)")
        }
    }

    @Test func selectTurnsANonWrappingWheelTheDirectWay() throws {
        try forEachRandomCase(2_000, seed: 0xD12EC7) { random, label in
            var wheel = random.nonWrappingWheel()
            let before = wheel.selection!
            let target = random.index(below: wheel.count)
            let expected = target == before ? nil : WheelChange(from: before, to: target, rows: target - before)
            try #require(wheel.select(target) == expected, "\(label): \(wheel.count) items from \(before) to \(target)")
        }
    }

    @Test func distanceIsTheTurnThatSelectReports() throws {
        try forEachRandomCase(2_000, seed: 0xD157) { random, label in
            var wheel = random.anyWheel()
            let index = random.turn(count: max(1, wheel.count))
            let distance = wheel.distance(to: index)
            let change = wheel.select(index)
            try #require(distance == (change?.rows ?? 0), "\(label): \(wheel), index \(index)")
        }
    }

    // MARK: Reloading

    @Test func reloadKeepsTheSelectionOrClampsItToTheLastItem() throws {
        try forEachRandomCase(2_000, seed: 0x2E10AD) { random, label in
            var wheel = random.anyWheel()
            var counts: [Int] = []
            for _ in 0..<Int.random(in: 1...10, using: &random) {
                let before = wheel.selection
                let newCount = random.oneIn(4) ? Int.random(in: -2...0, using: &random) : random.itemCount()
                counts.append(newCount)
                let after: Int? = newCount <= 0 ? nil : min(before ?? 0, newCount - 1)
                let turned = if let before, let after { after - before } else { 0 }
                let expected = before == after ? nil : WheelChange(from: before, to: after, rows: turned)
                let change = wheel.reload(count: newCount)
                try #require(change == expected, "\(label): reloads \(counts), \(wheel)")
                try #require(wheel.count == max(0, newCount), "\(label): reloads \(counts)")
                try #require(wheel.selection == after, "\(label): reloads \(counts)")
            }
        }
    }

    // MARK: FiniteRowAdapter

    @Test func settleKeepsTheSelectedItem() throws {
        try forEachRandomCase(5_000, seed: 0x5E771E) { random, label in
            let rows = random.adapter()
            let row = random.row(of: rows)
            let settled = rows.settle(atRow: row) ?? row
            try #require(rows.item(atRow: settled) == rows.item(atRow: row), "\(label): \(rows), row \(row)")
        }
    }

    @Test func settledRowIsInsideTheRows() throws {
        try forEachRandomCase(5_000, seed: 0x1751DE) { random, label in
            let rows = random.adapter()
            let row = random.row(of: rows)
            let settled = rows.settle(atRow: row) ?? row
            try #require((0..<rows.rowCount).contains(settled), "\(label): \(rows), row \(row)")
        }
    }

    @Test func settledRowStaysWhenItSettlesAgain() throws {
        try forEachRandomCase(5_000, seed: 0x57A75) { random, label in
            let rows = random.adapter()
            let row = random.row(of: rows)
            let settled = rows.settle(atRow: row) ?? row
            try #require(rows.settle(atRow: settled) == nil, "\(label): \(rows), row \(row)")
        }
    }

    @Test func initialRowShowsTheItemInTheMiddleCopy() throws {
        try forEachRandomCase(5_000, seed: 0x1417) { random, label in
            let rows = random.adapter()
            let item = random.index(below: rows.count)
            let row = rows.initialRow(for: item)
            try #require(row / rows.count == rows.copies / 2, "\(label): \(rows), item \(item)")
            try #require(rows.item(atRow: row) == item, "\(label): \(rows), item \(item)")
        }
    }

    @Test func hostThatSettlesAfterEveryMoveNeverReachesAnEnd() throws {
        // A host moves less than one copy's rows between settles; with a middle copy between
        // two others, that never takes it to the first or the last row.
        try forEachRandomCase(500, seed: 0x3A1C) { random, label in
            let rows = random.adapter(count: random.walkCount(), strategy: random.strategy(atLeastThree: true))
            try #require(rows.copies >= 3, "\(label): \(rows)")
            var row = rows.initialRow(for: random.index(below: rows.count))
            var moves: [Int] = []
            for _ in 0..<200 {
                let move = random.move(count: rows.count)
                moves.append(move)
                row += move
                try #require(row > 0 && row < rows.rowCount - 1, "\(label): \(rows), moves \(moves)")
                row = rows.settle(atRow: row) ?? row
            }
        }
    }

    @Test func hostRowsShowTheSelectionOfTheWheel() throws {
        try forEachRandomCase(500, seed: 0x5A3E) { random, label in
            var wheel = CircularWheel(count: random.walkCount(), wrap: .always)
            wheel.select(random.index(below: wheel.count))
            let rows = FiniteRowAdapter(wheel: wheel, strategy: random.strategy(atLeastThree: true))
            var row = rows.initialRow(for: wheel.selection!)
            var moves: [Int] = []
            for _ in 0..<200 {
                let move = random.move(count: rows.count)
                moves.append(move)
                wheel.scroll(by: move)
                row += move
                try #require(rows.item(atRow: row) == wheel.selection, "\(label): \(rows), moves \(moves)")
                row = rows.settle(atRow: row) ?? row
                try #require(rows.item(atRow: row) == wheel.selection, "\(label): \(rows), moves \(moves)")
            }
        }
    }

    @Test func nonWrappingAdapterHasOneCopyAndNeverRecentres() throws {
        try forEachRandomCase(5_000, seed: 0x0AE) { random, label in
            let rows = FiniteRowAdapter(count: random.itemCount(), wraps: false, strategy: random.strategy())
            let row = random.row(of: rows)
            try #require(rows.rowCount == rows.count, "\(label): \(rows)")
            try #require(rows.item(atRow: row) == row, "\(label): \(rows), row \(row)")
            try #require(rows.settle(atRow: row) == nil, "\(label): \(rows), row \(row)")
            try #require(rows.initialRow(for: row) == row, "\(label): \(rows), row \(row)")
        }
    }

    @Test func rowCountIsTheCopiesAskedUnlessTheyWouldNotFitAnInt() throws {
        try forEachRandomCase(5_000, seed: 0xF17) { random, label in
            let rows = random.adapter()
            let asked = switch rows.strategy {
            case .threeCopies: 3
            case .multiplied(let copies): max(1, copies)
            }
            let fits = Int.max / rows.count
            try #require(rows.copies == min(asked, fits), "\(label): \(rows)")
            try #require(rows.rowCount / rows.copies == rows.count, "\(label): \(rows)")
        }
    }
}

// MARK: Oracles

/// `value` reduced into `0..<count`.
private func reduced(_ value: Int, modulo count: Int) -> Int {
    let remainder = value % count
    return remainder < 0 ? remainder + count : remainder
}

/// `(index + turn) mod count` for `index` in `0..<count`: both terms below `count`, added as
/// `UInt`, cannot overflow.
private func sum(_ index: Int, _ turn: Int, modulo count: Int) -> Int {
    Int((UInt(index) + UInt(reduced(turn, modulo: count))) % UInt(count))
}

/// `index + turn` clamped into `0..<count`, for `index` in `0..<count`, compared before adding.
private func clampedSum(_ index: Int, _ turn: Int, count: Int) -> Int {
    if turn >= count - index { return count - 1 }
    if turn <= -index { return 0 }
    return index + turn
}

/// The item `offset` rows from the wheel's selection, as its documentation says.
private func expectedItem(of wheel: CircularWheel, atOffset offset: Int) -> Int? {
    guard let selection = wheel.selection else { return nil }
    if wheel.wraps { return sum(selection, offset, modulo: wheel.count) }
    return offset >= wheel.count - selection || offset < -selection ? nil : selection + offset
}

// MARK: Random wheels and adapters

extension SplitMix64 {
    /// An index in `0..<count`, often the first or the last.
    mutating func index(below count: Int) -> Int {
        switch Int.random(in: 0..<8, using: &self) {
        case 0: 0
        case 1: count - 1
        default: Int.random(in: 0..<count, using: &self)
        }
    }

    /// A wheel that wraps: `.always`, or `.auto` with fewer visible rows than items.
    mutating func wrappingWheel() -> CircularWheel {
        let count = itemCount()
        let auto = count > 1 && Bool.random(using: &self)
        let visibleRows = Int.random(in: 1...(auto ? min(9, count - 1) : 9), using: &self)
        return CircularWheel(count: count, selection: index(below: count), wrap: auto ? .auto : .always,
                             visibleRows: visibleRows)
    }

    /// A wheel that does not wrap: `.never`, or `.auto` with at least as many visible rows
    /// as items.
    mutating func nonWrappingWheel() -> CircularWheel {
        let count = itemCount()
        let auto = count <= 9 && Bool.random(using: &self)
        let visibleRows = Int.random(in: (auto ? count : 1)...(auto ? count + 3 : 9), using: &self)
        return CircularWheel(count: count, selection: index(below: count), wrap: auto ? .auto : .never,
                             visibleRows: visibleRows)
    }

    /// Any wheel, empty ones among them.
    mutating func anyWheel() -> CircularWheel {
        let count = oneIn(10) ? 0 : itemCount()
        return CircularWheel(count: count, selection: index(below: max(1, count)), wrap: wrapMode(),
                             visibleRows: Int.random(in: 1...9, using: &self))
    }

    /// A wrapping adapter of any count and strategy.
    mutating func adapter() -> FiniteRowAdapter {
        adapter(count: itemCount(), strategy: strategy())
    }

    mutating func adapter(count: Int, strategy: FiniteRowAdapter.Strategy) -> FiniteRowAdapter {
        FiniteRowAdapter(count: count, wraps: true, strategy: strategy)
    }

    /// A count small enough for three copies: mostly small, up to 2^31 and beyond, and up
    /// to `Int.max / 3`.
    mutating func walkCount() -> Int {
        switch Int.random(in: 0..<10, using: &self) {
        case 0..<6: Int.random(in: 1...12, using: &self)
        case 6..<8: Int.random(in: 13...(1 << 31), using: &self)
        default: Int.random(in: (1 << 31)...(Int.max / 3), using: &self)
        }
    }

    /// A row of the adapter: anywhere, or at an edge of the rows or of a copy.
    mutating func row(of rows: FiniteRowAdapter) -> Int {
        switch Int.random(in: 0..<6, using: &self) {
        case 0: return 0
        case 1: return rows.rowCount - 1
        case 2:
            let copy = Int.random(in: 0..<rows.copies, using: &self)
            return copy * rows.count + (Bool.random(using: &self) ? 0 : rows.count - 1)
        default: return Int.random(in: 0..<rows.rowCount, using: &self)
        }
    }

    /// A host's move between two settles: less than one copy's rows, often the most.
    mutating func move(count: Int) -> Int {
        let most = count - 1
        return switch Int.random(in: 0..<4, using: &self) {
        case 0: most
        case 1: -most
        default: Int.random(in: -most...most, using: &self)
        }
    }
}
