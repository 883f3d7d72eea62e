/// Rows for hosts whose picker widget needs a fixed row count (a `UIPickerView`-style
/// widget): the widget gets `rowCount` virtual rows, each showing `item(atRow:)`, and
/// after each selection settles it jumps to `settle(atRow:)`, a row that shows the same
/// item nearer the middle, so that the user never reaches an end.
///
/// ```swift
/// let rows = FiniteRowAdapter(count: 10, wraps: true, strategy: .threeCopies)
/// rows.rowCount                  // 30
/// rows.initialRow(for: 4)        // 14: item 4 in the middle copy
/// rows.item(atRow: 27)           // 7
/// rows.settle(atRow: 27)         // 17: jump there, without animation, the same item 7
/// ```
///
/// Both classic strategies are here: many copies started in the middle, and three copies
/// re-centred after every selection. A wheel that does not wrap gets its items once.
public struct FiniteRowAdapter: Sendable, Equatable {
    public enum Strategy: Sendable, Equatable {
        /// `copies` copies of the items (the classic uses 10,000), started in the middle
        /// one; a selection that settles in the outer quarters of the copies jumps back to
        /// the middle copy, so the list's ends are never reached, with few jumps.
        case multiplied(copies: Int)
        /// Three copies; a selection that settles outside the middle copy jumps back to it.
        /// The user can reach an end only by moving more than one copy's rows before the
        /// widget settles (a long fling through a short list); use `multiplied` when that
        /// can happen. A list too long for three copies to fit an `Int` gets fewer.
        case threeCopies

        /// The classic multiple: 10,000 copies.
        public static let tenThousandCopies = Strategy.multiplied(copies: 10_000)
    }

    /// The number of items.
    public let count: Int
    /// Whether the items repeat. When false there is one copy and no re-centring.
    public let wraps: Bool
    public let strategy: Strategy
    /// The copies of the items the virtual rows hold (1 when the wheel does not wrap).
    /// `multiplied` gets fewer copies than asked when the row count would not fit an `Int`.
    public let copies: Int

    public init(count: Int, wraps: Bool, strategy: Strategy = .tenThousandCopies) {
        self.count = max(0, count)
        self.wraps = wraps && count > 0
        self.strategy = strategy
        guard self.wraps else {
            copies = 1
            return
        }
        switch strategy {
        case .multiplied(let asked): copies = min(max(1, asked), Int.max / self.count)
        case .threeCopies: copies = min(3, Int.max / self.count)
        }
    }

    /// Rows for a wheel, with its count and whether it wraps now.
    public init(wheel: CircularWheel, strategy: Strategy = .tenThousandCopies) {
        self.init(count: wheel.count, wraps: wheel.wraps, strategy: strategy)
    }

    /// The row count the widget is given.
    public var rowCount: Int { count * copies }

    /// The item a virtual row shows: `row mod count`; nil outside the rows.
    public func item(atRow row: Int) -> Int? {
        guard row >= 0, row < rowCount else { return nil }
        return row % count
    }

    /// The row that shows `item` in the middle copy: where the widget starts.
    public func initialRow(for item: Int) -> Int {
        guard count > 0 else { return 0 }
        return middleCopy * count + min(max(0, item), count - 1)
    }

    /// After the selection settles on `row`: the row to jump to, which shows the same
    /// item in the middle copy, or nil when the row may stay (it is near enough to the
    /// middle, or the wheel does not wrap).
    public func settle(atRow row: Int) -> Int? {
        guard wraps, let item = item(atRow: row) else { return nil }
        let copy = row / count
        let stays: Bool
        switch strategy {
        case .threeCopies:
            stays = copy == middleCopy
        case .multiplied:
            let margin = copies / 4
            stays = margin > 0 ? copy >= margin && copy < copies - margin : copy == middleCopy
        }
        return stays ? nil : initialRow(for: item)
    }

    /// The copy in the middle of the rows.
    var middleCopy: Int { copies / 2 }
}
