/// One wheel of a picker: a list of `count` items, a selected index, and the rows a host
/// shows around the selection. A wheel that wraps has no end: scrolling past the last item
/// goes on with the first, by any number of rows, in either direction.
///
/// ```swift
/// var hours = CircularWheel(count: 12, wrap: .always, visibleRows: 5)
/// hours.scroll(by: -1)              // from 0 to 11: the wheel went round
/// hours.select(1)                   // turns 2 rows forward, the shortest way
/// hours.rows().map(\.item)          // [11, 0, 1, 2, 3]; rows()[2].isSelected
/// ```
///
/// The state is three integers and the settings, whatever the scrolling: the selection is
/// kept reduced modulo the count, so 10^12 rows of scrolling cost what one row costs.
/// Indices are 0-based.
public struct CircularWheel: Sendable, Equatable {
    /// The number of items; 0 for an empty wheel.
    public private(set) var count: Int
    /// The selected item: nil exactly when the wheel is empty.
    public private(set) var selection: Int?
    /// When the wheel wraps around.
    public var wrapMode: WrapMode
    /// How many rows a host shows, the selection among them (at least 1). The rows above
    /// the selection are `(visibleRows - 1) / 2`; an even count shows one more below.
    public var visibleRows: Int {
        didSet { visibleRows = max(1, visibleRows) }
    }

    /// Whether the wheel wraps now: always, never, or (auto) when the list is longer
    /// than the visible rows, so that no item shows twice on screen.
    public var wraps: Bool {
        switch wrapMode {
        case .always: count > 0
        case .never: false
        case .auto: count > visibleRows
        }
    }

    /// A wheel of `count` items (negative counts are empty) with `selection` selected,
    /// clamped into the items.
    public init(count: Int, selection: Int = 0, wrap: WrapMode = .auto, visibleRows: Int = 7) {
        self.count = max(0, count)
        self.wrapMode = wrap
        self.visibleRows = max(1, visibleRows)
        self.selection = self.count == 0 ? nil : min(max(0, selection), self.count - 1)
    }

    /// Turns the wheel by `rows` (positive: down the list, towards higher indices). A
    /// wrapping wheel never stops; one that does not wrap stops at its first and last item.
    /// Returns the change, or nil when the selection stays (an empty wheel, a zero turn,
    /// a wheel already at its end, or whole turns of a wrapping wheel).
    @discardableResult
    public mutating func scroll(by rows: Int) -> WheelChange? {
        guard let current = selection, rows != 0 else { return nil }
        let target: Int
        let turned: Int
        if wraps {
            target = Self.advance(current, by: rows, modulo: count)
            turned = rows
        } else {
            let (sum, overflow) = current.addingReportingOverflow(rows)
            target = overflow ? (rows > 0 ? count - 1 : 0) : min(max(0, sum), count - 1)
            turned = target - current
        }
        return move(from: current, to: target, turned: turned)
    }

    /// Selects `index` (clamped into the items), turning a wrapping wheel the shortest way
    /// round. Returns the change, or nil when `index` was already selected.
    @discardableResult
    public mutating func select(_ index: Int) -> WheelChange? {
        guard let current = selection else { return nil }
        let target = min(max(0, index), count - 1)
        return move(from: current, to: target, turned: distance(from: current, to: target))
    }

    /// Gives the wheel a new item count and keeps the selected index, clamped to the last
    /// item when it no longer exists. An empty wheel that gains items selects the first.
    /// Returns the change of the selected index, if any.
    @discardableResult
    public mutating func reload(count newCount: Int) -> WheelChange? {
        let previous = selection
        count = max(0, newCount)
        selection = count == 0 ? nil : min(previous ?? 0, count - 1)
        guard previous != selection else { return nil }
        let turned = previous.flatMap { from in selection.map { $0 - from } } ?? 0
        return WheelChange(from: previous, to: selection, rows: turned)
    }

    /// The signed number of rows from the selection to `index`: the shortest way round
    /// when the wheel wraps (forward on a tie). 0 for an empty wheel.
    public func distance(to index: Int) -> Int {
        guard let current = selection else { return 0 }
        return distance(from: current, to: min(max(0, index), count - 1))
    }

    /// The visible rows, top to bottom, the selection among them. A wrapping wheel fills
    /// every row (a short list with `wrap: .always` repeats items); one that does not wrap
    /// shows blank rows (`item == nil`) beyond its ends, and an empty wheel only blanks.
    public func rows() -> [WheelRow] {
        var rows: [WheelRow] = []
        rows.reserveCapacity(visibleRows)
        forEachRow { rows.append($0) }
        return rows
    }

    /// Calls `body` with each visible row, top to bottom: the rows of `rows()`, without
    /// building the array, for a host that draws every frame.
    @inlinable
    public func forEachRow(_ body: (WheelRow) throws -> Void) rethrows {
        let above = (visibleRows - 1) / 2
        let offsets = -above..<(visibleRows - above)
        guard let current = selection, wraps else {
            for offset in offsets { try body(WheelRow(offset: offset, item: item(atOffset: offset))) }
            return
        }
        // A wrapping wheel shows consecutive items, the last followed by the first: one
        // division finds the top row's item, and each row below steps on from it.
        var item = Self.advance(current, by: offsets.lowerBound, modulo: count)
        for offset in offsets {
            try body(WheelRow(offset: offset, item: item))
            item = item + 1 == count ? 0 : item + 1
        }
    }

    /// The item `offset` rows from the selection, or nil for a blank row.
    public func item(atOffset offset: Int) -> Int? {
        item(at: offset, wrapping: wraps)
    }

    private func item(at offset: Int, wrapping: Bool) -> Int? {
        guard let current = selection else { return nil }
        if wrapping { return Self.advance(current, by: offset, modulo: count) }
        let (index, overflow) = current.addingReportingOverflow(offset)
        return !overflow && index >= 0 && index < count ? index : nil
    }

    private func distance(from current: Int, to target: Int) -> Int {
        let direct = target - current
        guard wraps else { return direct }
        // The other way round is `direct ∓ count`; take the shorter, forward on a tie.
        if direct > 0 { return direct <= count - direct ? direct : direct - count }
        if direct < 0 { return -direct < count + direct ? direct : direct + count }
        return 0
    }

    private mutating func move(from current: Int, to target: Int, turned: Int) -> WheelChange? {
        guard target != current else { return nil }
        selection = target
        return WheelChange(from: current, to: target, rows: turned)
    }

    /// `(index + rows) mod count`, for `0 <= index < count`, without overflow for any `rows`.
    @usableFromInline static func advance(_ index: Int, by rows: Int, modulo count: Int) -> Int {
        let step = rows % count                       // in -(count - 1)...(count - 1)
        if step >= 0 { return index >= count - step ? index - (count - step) : index + step }
        return index + step < 0 ? index + step + count : index + step
    }
}

/// When a wheel wraps around.
public enum WrapMode: String, Sendable, CaseIterable {
    /// Always: a list shorter than the visible rows shows some items twice.
    case always
    /// Never: the wheel stops at its first and last item.
    case never
    /// Only when the list is longer than the visible rows.
    case auto
}

/// One visible row of a wheel.
public struct WheelRow: Sendable, Equatable {
    /// Rows from the selection: 0 is the selected row, negative rows are above it.
    public var offset: Int
    /// The item shown, or nil for a blank row (beyond the end of a wheel that does not
    /// wrap, or in an empty wheel).
    public var item: Int?

    public init(offset: Int, item: Int?) {
        self.offset = offset
        self.item = item
    }

    /// The selected row, which a host highlights; the others are dimmed.
    public var isSelected: Bool { offset == 0 && item != nil }
}

/// A change of a wheel's selection.
public struct WheelChange: Sendable, Equatable {
    /// The selected item before and after; nil for an empty wheel.
    public var from: Int?
    public var to: Int?
    /// The rows the wheel turned, positive forward: the requested turn for a wrapping
    /// scroll, the shortest way round for a selection, and the clamped distance for a
    /// wheel that stopped at an end. A host animates by it.
    public var rows: Int

    public init(from: Int?, to: Int?, rows: Int) {
        self.from = from
        self.to = to
        self.rows = rows
    }
}
