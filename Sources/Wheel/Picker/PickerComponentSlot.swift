/// A picker component as the picker keeps it: where its items come from, its wheel, and
/// the titles already computed.
import Lua
import WheelCore

struct ComponentSlot {
    enum Source {
        /// `items = {...}`: copied into Swift at the declaration.
        case items([String])
        /// `count = n` or `count = function(p)`, and `title = function(p, i)` (row
        /// numbers when there is no title function).
        case computed(count: Count, title: LuaFunction?)
    }

    enum Count {
        case fixed(Int)
        case function(LuaFunction)
    }

    let id: String
    let source: Source

    /// Whether a frame calls the script for this component's titles.
    var hasTitleFunction: Bool {
        if case .computed(_, _?) = source { return true }
        return false
    }
    var wheel: CircularWheel
    /// The selection asked for at the declaration (0-based), applied once the count is known.
    let initialSelection: Int
    var cache: TitleCache
    /// Problems already reported for this component since its last reload.
    var reported: Set<String> = []
    /// The error marker while the component's `count` has failed.
    var failure: String?
    /// Counts reloads: a frame that took the cache out knows whether to clear it.
    var generation = 0
    var isResolved = false
    var isResolving = false

    init(id: String, source: Source, wrap: WrapMode, visibleRows: Int, initialSelection: Int) {
        self.id = id
        self.source = source
        self.initialSelection = initialSelection
        self.wheel = CircularWheel(count: 0, wrap: wrap, visibleRows: visibleRows)
        self.cache = TitleCache(rows: visibleRows)
    }
}

/// The titles of recently shown rows: direct-mapped on the item index, so a lookup is
/// one compare, storing never allocates, and memory stays flat however far the wheel
/// turns. It holds at least four screens of rows, so a frame's rows never evict each other.
struct TitleCache {
    /// Entry `item & mask` holds that item's title, or an item of -1 when empty. One array
    /// of plain entries (a string and a flag, no enum): a frame checks it for uniqueness
    /// once and copies a title with one retain.
    private var entries: [Entry]
    private var mask: Int

    struct Entry {
        var item: Int
        var text: String
        /// The text is the error marker of a failed title.
        var failed: Bool

        static var empty: Entry { Entry(item: -1, text: "", failed: false) }
    }

    init(rows: Int) {
        let capacity = TitleCache.capacity(rows: rows)
        entries = Array(repeating: .empty, count: capacity)
        mask = capacity - 1
    }

    /// What a component holds while a frame has its cache out: nothing, and it keeps
    /// nothing (titles asked for meanwhile, by `p:item`, are computed again).
    static var detached: TitleCache { TitleCache() }

    private init() {
        entries = []
        mask = 0
    }

    static func capacity(rows: Int) -> Int {
        var capacity = 64
        while capacity < 4 * rows, capacity < 1 << 20 { capacity <<= 1 }
        return capacity
    }

    /// The number of titles held; never more than the capacity.
    var count: Int { entries.reduce(0) { $0 + ($1.item >= 0 ? 1 : 0) } }
    var capacity: Int { entries.count }

    subscript(item: Int) -> PickerTitle? {
        get {
            let slot = item & mask
            guard slot < entries.count, entries[slot].item == item else { return nil }
            let entry = entries[slot]
            return entry.failed ? .failed(entry.text) : .text(entry.text)
        }
        set {
            guard !entries.isEmpty else { return }
            entries[item & mask] = newValue.map { Entry(item: item, text: $0.text, failed: $0.isFailure) } ?? .empty
        }
    }

    /// Lookups and stores for a frame's rows: `body` gets the entries, checked for
    /// uniqueness once, as a `Slots` that finds an item's entry.
    @inline(__always)
    mutating func withSlots<R>(_ body: (Slots) throws -> R) rethrows -> R {
        let mask = mask
        return try entries.withUnsafeMutableBufferPointer { try body(Slots(entries: $0, mask: mask)) }
    }

    /// The cache's entries for the length of `withSlots`.
    struct Slots {
        let entries: UnsafeMutableBufferPointer<Entry>
        let mask: Int

        /// The entry that holds `item`'s title when it is cached; nil for a detached cache.
        @inline(__always)
        func entry(for item: Int) -> UnsafeMutablePointer<Entry>? {
            let slot = item & mask
            guard slot < entries.count else { return nil }
            return entries.baseAddress! + slot
        }
    }

    mutating func clear() {
        for slot in entries.indices { entries[slot] = .empty }
    }

    /// Grows (and clears) the cache when a host shows more rows.
    mutating func reserve(rows: Int) {
        if TitleCache.capacity(rows: rows) > capacity { self = TitleCache(rows: rows) }
    }
}

/// Checks a count given by a script: a whole number from 0 to 2^31.
enum ComponentCount {
    static let maximum = 1 << 31

    static func validate(_ value: LuaValue) -> Result<Int, Reason> {
        let expected = "expected a whole number from 0 to \(maximum)"
        switch value {
        case .integer(let count) where count >= 0 && count <= maximum:
            return .success(Int(count))
        case .integer(let count):
            return .failure(Reason("\(count), \(expected)"))
        case .number(let number) where number.isNaN:
            return .failure(Reason("nan, \(expected)"))
        case .number(let number) where number.rounded() == number && number >= 0 && number <= Double(maximum):
            return .success(Int(number))
        case .number(let number):
            return .failure(Reason("\(luaNumber(number)), \(expected)"))
        case .nil:
            return .failure(Reason("nil, \(expected)"))
        default:
            return .failure(Reason("a \(value.typeName), \(expected)"))
        }
    }

    /// A float as Lua prints it (`%.14g`) for the common cases in messages.
    static func luaNumber(_ number: Double) -> String {
        if number.isInfinite { return number > 0 ? "inf" : "-inf" }
        return "\(number)"
    }

    struct Reason: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

extension LuaValue {
    /// The Lua type name of the value, for messages.
    var typeName: String {
        switch self {
        case .nil: "nil"
        case .boolean: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .table: "table"
        case .function: "function"
        case .userdata, .lightUserdata: "userdata"
        case .thread: "thread"
        }
    }
}
