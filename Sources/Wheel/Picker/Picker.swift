/// A picker a script declared: wheels the user spins, one per component, whose items come
/// from the script. A host reads frames and sends scrolls and selections; the script's
/// `on_change` hears every change of a selection.
///
/// ```swift
/// let runtime = try Runtime()
/// try await runtime.run(file: "examples/resistor.lua")
/// let picker = runtime.picker(named: "resistor")!
/// picker.observe { event in print(event) }
/// try picker.scroll("band1", by: 3)           // on_change(p, "band1", 5, "yellow") runs
/// let frame = picker.frame()                  // the visible rows of every wheel, and the status
/// ```
///
/// Indices are 0-based in Swift and 1-based in scripts. `items` components are copied
/// into Swift once, so drawing them never calls Lua; `count`/`title` components call
/// `title` only for rows that are shown, and keep the titles until the component is
/// reloaded. A script error in `count`, `title` or `on_change` does not stop the picker:
/// the row shows an error marker, the problem is reported (a failing `title` once until
/// reload), and the selection stays where the user put it.
///
/// Like the runtime that made it, a picker lives in one isolation domain.
import Lua
import WheelCore

public final class Picker {
    /// The name the script gave: `picker "resistor" { ... }`.
    public let name: String
    /// A line of text the host shows above the wheels; scripts set `p.status`.
    public internal(set) var status: String {
        didSet { if status != oldValue { emit(.statusChanged(status)) } }
    }

    /// Read and written for every row of every frame and by every scroll, so without
    /// dynamic exclusivity checks. Every access is short: none spans a call into Lua or
    /// an observer, which may re-enter the picker (a `title` that calls `p:select`), so
    /// two accesses never overlap.
    @exclusivity(unchecked) var slots: [ComponentSlot]
    let indexByID: [String: Int]
    let state: LuaState
    let onChange: LuaFunction?
    /// The script's `p`: this object as a userdata, held in the registry so that pushing
    /// it for a `title` call is one registry read, not a new userdata.
    var scriptObject: LuaValue = .nil
    /// The columns of the last frame, whose arrays the next frame reuses once the host has
    /// let go of that frame.
    @exclusivity(unchecked) private var recycledColumns: [PickerFrame.Column] = []
    /// Where problems go (the runtime's `onProblem`), besides the observers.
    let reportProblem: (ScriptProblem) -> Void

    /// Read by every change; like `slots`, only ever accessed briefly (handlers run on a copy).
    @exclusivity(unchecked) private var observers = Observers<PickerEvent>()
    /// Selection changes waiting for their `on_change`: a handler that changes a
    /// selection gets its own `on_change` call after it has returned, not inside itself.
    /// Like `slots`, only ever accessed briefly.
    @exclusivity(unchecked) private var pendingChanges: [(slot: Int, change: WheelChange)] = []
    @exclusivity(unchecked) private var dispatching = false
    /// The most `on_change` calls one change may cause, counting those that handlers
    /// trigger by selecting (two handlers that keep selecting each other stop here).
    static let cascadeLimit = 100

    init(name: String, status: String, slots: [ComponentSlot], onChange: LuaFunction?,
         state: LuaState, reportProblem: @escaping (ScriptProblem) -> Void) {
        self.name = name
        self.status = status
        self.slots = slots
        self.indexByID = Dictionary(uniqueKeysWithValues: slots.enumerated().map { ($1.id, $0) })
        self.onChange = onChange
        self.state = state
        self.reportProblem = reportProblem
    }

    // MARK: - Reading

    /// The components, in declaration order.
    public var components: [PickerComponent] {
        slots.indices.map(component(at:))
    }

    /// The component `id`.
    public func component(_ id: String) throws(PickerError) -> PickerComponent {
        component(at: try slot(id))
    }

    /// How many rows a host shows per wheel (7 unless the script says `rows = n`).
    /// `wrap = "auto"` components wrap when they have more items than this.
    public var visibleRows: Int {
        get { slots.first?.wheel.visibleRows ?? 7 }
        set {
            for index in slots.indices {
                slots[index].wheel.visibleRows = newValue
                slots[index].cache.reserve(rows: newValue)
                slots[index].generation += 1
            }
        }
    }

    /// The items of an `items = { ... }` component, as copied at the declaration; nil for
    /// a component whose titles come from `count` and `title`.
    public func items(_ id: String) throws(PickerError) -> [String]? {
        if case .items(let items) = slots[try slot(id)].source { return items }
        return nil
    }

    /// The title of item `item` (0-based) of component `id`, computing it if needed.
    public func title(_ id: String, item: Int) throws(PickerError) -> PickerTitle {
        let index = try slot(id)
        resolve(index)
        guard item >= 0, item < slots[index].wheel.count else {
            throw .indexOutOfRange(component: id, index: item, count: slots[index].wheel.count)
        }
        return title(slot: index, item: item)
    }

    /// What a host draws now: each wheel's visible rows with their titles and the
    /// selected row marked, and the status line.
    public func frame() -> PickerFrame {
        // The last frame's arrays are reused when the host has let go of that frame, so
        // drawing allocates no arrays; while the host holds it, copy-on-write gives this
        // frame arrays of its own.
        var columns: [PickerFrame.Column] = []
        swap(&columns, &recycledColumns)
        if columns.count != slots.count {
            columns = slots.map { PickerFrame.Column(id: $0.id, rows: []) }
        }
        if slots.contains(where: \.hasTitleFunction) {
            // One run of calls for the frame's titles, its message handler pushed once, as
            // a C host's lua_pcall loop would; `p` goes from its registry slot to each call.
            do {
                try state.repeatedly(first: scriptObject) { calls in
                    for index in slots.indices { fillRows(&columns[index].rows, slot: index, calls: .success(calls)) }
                }
            } catch {
                // The state is closed, or its stack cannot grow: no title can be had.
                for index in slots.indices { fillRows(&columns[index].rows, slot: index, calls: .failure(error)) }
            }
        } else {
            for index in slots.indices { fillRows(&columns[index].rows, slot: index, calls: nil) }
        }
        recycledColumns = columns
        return PickerFrame(name: name, status: status, columns: columns)
    }

    /// Replaces `rows` with one wheel's rows for a frame, titles computed as needed
    /// through `calls` (nil when no wheel has a title function).
    private func fillRows(_ rows: inout [PickerFrame.Row], slot index: Int,
                          calls: Result<LuaRepeatedCalls, any Error>?) {
        resolve(index)
        // The wheel as it stands when the frame starts: a title function that turns it
        // shows in the next frame.
        let wheel = slots[index].wheel
        if let failure = slots[index].failure {
            rows.removeAll(keepingCapacity: true)
            for row in wheel.rows() {
                rows.append(PickerFrame.Row(offset: row.offset, item: nil, title: row.offset == 0 ? failure : "",
                                            isSelected: false, isError: row.offset == 0))
            }
            return
        }
        // The source is read once per wheel, not per row: it never changes.
        switch slots[index].source {
        case .items(let items):
            Self.setRows(of: wheel, in: &rows) { item in (items[item], false) }
        case .computed(_, nil):
            Self.setRows(of: wheel, in: &rows) { item in
                let title = title(slot: index, item: item)
                return (title.text, title.isFailure)
            }
        case .computed(_, let function?):
            switch calls {
            case .success(let calls):
                fillComputedRows(&rows, slot: index, wheel: wheel, function: function, calls: calls)
            case .failure(let error):
                reportOnce(index, key: "\(error)", ScriptProblem(error))
                Self.setRows(of: wheel, in: &rows) { _ in (PickerFrame.errorMarker, true) }
            case nil:
                preconditionFailure("a title function without a run of calls")
            }
        }
    }

    /// The rows of a `count`/`title` wheel. Its title cache is taken out of `slots` for
    /// the frame, so that each row's lookup and store touch the cache alone, and put back
    /// after (cleared if a title function reloaded the wheel meanwhile).
    private func fillComputedRows(_ rows: inout [PickerFrame.Row], slot index: Int, wheel: CircularWheel,
                                  function: LuaFunction, calls: LuaRepeatedCalls) {
        var cache = TitleCache.detached
        swap(&cache, &slots[index].cache)
        let generation = slots[index].generation
        defer {
            if slots[index].generation != generation { cache.clear() }
            swap(&cache, &slots[index].cache)
        }
        // Set when a call hits the deadline or the ceiling: the frame's other uncached
        // rows show the marker without calling (and without caching it), and are tried
        // again in the next frame.
        var limitHit = false
        let titleCall = calls.target(function)
        // Closure literals, not local functions: they are non-escaping, so their accesses
        // to `limitHit` are checked statically, not at run time.
        cache.withSlots { slots in
            Self.setRows(of: wheel, in: &rows) { item in
                let entry = slots.entry(for: item)
                if let entry, entry.pointee.item == item { return (entry.pointee.text, entry.pointee.failed) }
                if limitHit { return (PickerFrame.errorMarker, true) }
                let title: PickerTitle
                do {
                    let text = try titleCall.call(item + 1, returning: String.self)
                    entry?.pointee = TitleCache.Entry(item: item, text: text, failed: false)
                    return (text, false)
                } catch LuaError.typeMismatch(let expected, _, _) where expected == "UTF-8 text" {
                    // Bytes that are not UTF-8: asked again and shown with replacement
                    // characters (a title function gives the same text each time).
                    title = self.title(slot: index, item: item)
                } catch {
                    // Cached like any failure: this row shows the marker until the reload.
                    title = titleFailure(error, slot: index, item: item, function: function, limitHit: &limitHit)
                }
                entry?.pointee = TitleCache.Entry(item: item, text: title.text, failed: title.isFailure)
                return (title.text, title.isFailure)
            }
        }
    }

    /// Sets `rows` to the wheel's visible rows and their titles, in place (the rows come
    /// from `CircularWheel.forEachRow`: no array of them, and the array is checked for
    /// uniqueness once, not per row).
    @inline(__always)
    private static func setRows(of wheel: CircularWheel, in rows: inout [PickerFrame.Row],
                                title: (_ item: Int) -> (text: String, failed: Bool)) {
        if rows.count != wheel.visibleRows {
            rows = Array(repeating: PickerFrame.Row(offset: 0, item: nil, title: "", isSelected: false, isError: false),
                         count: wheel.visibleRows)
        }
        rows.withUnsafeMutableBufferPointer { out in
            var position = 0
            // forEachRow gives exactly `visibleRows` rows, the count of `out`.
            wheel.forEachRow { row in
                if let item = row.item {
                    let (text, failed) = title(item)
                    out[position] = PickerFrame.Row(offset: row.offset, item: item, title: text,
                                                    isSelected: row.isSelected, isError: failed)
                } else {
                    out[position] = PickerFrame.Row(offset: row.offset, item: nil, title: "", isSelected: false, isError: false)
                }
                position += 1
            }
        }
    }

    // MARK: - Changing

    /// Turns component `id` by `rows` (positive: down the list). A wrapping wheel never
    /// stops; one that does not wrap stops at its ends.
    public func scroll(_ id: String, by rows: Int) throws(PickerError) {
        let index = try slot(id)
        resolve(index)
        if let change = slots[index].wheel.scroll(by: rows) { changed(index, change) }
    }

    /// Selects item `index` (0-based) of component `id`, the shortest way round.
    public func select(_ id: String, index item: Int) throws(PickerError) {
        let index = try slot(id)
        resolve(index)
        let count = slots[index].wheel.count
        guard item >= 0, item < count else { throw .indexOutOfRange(component: id, index: item, count: count) }
        if let change = slots[index].wheel.select(item) { changed(index, change) }
    }

    /// Asks the script again for component `id`'s count (every component's when nil) and
    /// forgets its titles. The selection stays, clamped to the last item when it no
    /// longer exists; a clamp is a change (`on_change` hears it).
    public func reload(_ id: String? = nil) throws(PickerError) {
        let targets = try id.map { id throws(PickerError) in [try slot(id)] } ?? Array(slots.indices)
        for index in targets { reload(slot: index) }
    }

    /// Calls `handler` with every event until `removeObserver` is called with the token.
    @discardableResult
    public func observe(_ handler: @escaping (PickerEvent) -> Void) -> Int {
        observers.add(handler)
    }

    public func removeObserver(_ token: Int) {
        observers.remove(token)
    }

    // MARK: - Internals

    func slot(_ id: String) throws(PickerError) -> Int {
        // Comparing a short id with a handful of others is cheaper than hashing it.
        if slots.count <= Self.linearLookupLimit {
            for index in slots.indices where slots[index].id == id { return index }
        } else if let index = indexByID[id] {
            return index
        }
        throw .unknownComponent(picker: name, component: id, known: slots.map(\.id))
    }

    /// Up to this many components, `slot(_:)` compares ids instead of looking them up.
    static let linearLookupLimit = 8

    func component(at index: Int) -> PickerComponent {
        resolve(index)
        let slot = slots[index]
        return PickerComponent(id: slot.id, count: slot.wheel.count, selection: slot.wheel.selection,
                               wrapMode: slot.wheel.wrapMode, wraps: slot.wheel.wraps, failure: slot.failure)
    }

    /// Computes a component's count the first time it is needed: at the end of the
    /// declaration, or earlier when another component's `count` asks for its selection.
    func resolve(_ index: Int) {
        guard !slots[index].isResolved, !slots[index].isResolving else { return }
        slots[index].isResolving = true
        let count = evaluateCount(index)
        slots[index].isResolving = false
        slots[index].isResolved = true
        slots[index].wheel = CircularWheel(count: count, selection: slots[index].initialSelection,
                                           wrap: slots[index].wheel.wrapMode, visibleRows: slots[index].wheel.visibleRows)
    }

    func reload(slot index: Int) {
        resolve(index)
        slots[index].cache.clear()
        slots[index].reported.removeAll()
        slots[index].generation += 1
        slots[index].failure = nil
        let count = evaluateCount(index)
        let change = slots[index].wheel.reload(count: count)
        emit(.reloaded(component: slots[index].id))
        if let change { changed(index, change) }
    }

    /// The component's item count; a failure is reported, recorded and counts as empty.
    private func evaluateCount(_ index: Int) -> Int {
        switch slots[index].source {
        case .items(let items):
            return items.count
        case .computed(.fixed(let count), _):
            return count
        case .computed(.function(let function), _):
            let id = slots[index].id
            do {
                let value = try function.call(scriptObject, returning: LuaValue.self)
                switch ComponentCount.validate(value) {
                case .success(let count):
                    return count
                case .failure(let reason):
                    fail(index, ScriptProblem("count of component '\(id)' returned \(reason)", in: function))
                }
            } catch {
                fail(index, ScriptProblem(error))
            }
            return 0
        }
    }

    private func fail(_ index: Int, _ problem: ScriptProblem) {
        slots[index].failure = PickerFrame.errorMarker
        report(problem)
    }

    /// The title of an item in range, from the items, the cache, or the script (as
    /// `title(p, item + 1)`; the row number when the component has no title function).
    /// Frames take their own path, `fillComputedRows`; this one serves `p:item`, the
    /// host's `title(_:item:)` and `on_change`.
    func title(slot index: Int, item: Int) -> PickerTitle {
        switch slots[index].source {
        case .items(let items):
            return .text(items[item])
        case .computed(_, let function):
            if let cached = slots[index].cache[item] { return cached }
            let title: PickerTitle
            if let function {
                do {
                    title = .text(try function.call(scriptObject, item + 1, returning: TitleText.self).text)
                } catch {
                    var limitHit = false   // one call: nothing else to skip
                    title = titleFailure(error, slot: index, item: item, function: function, limitHit: &limitHit)
                }
            } else {
                title = .text(String(item + 1))
            }
            slots[index].cache[item] = title
            return title
        }
    }

    /// Reports a failed `title` call (once per message until the reload) and gives the
    /// row's marker; `limitHit` is set when the call hit the deadline or the ceiling.
    private func titleFailure(_ error: any Error, slot index: Int, item: Int, function: LuaFunction,
                              limitHit: inout Bool) -> PickerTitle {
        let id = slots[index].id
        if case LuaError.typeMismatch(_, let actual, _) = error {
            let message = "title of component '\(id)' returned \(actual) for row \(item + 1), expected a string"
            reportOnce(index, key: message, ScriptProblem(message, in: function))
        } else {
            if case LuaError.timeout = error { limitHit = true }
            if case LuaError.memory = error { limitHit = true }
            // Once per message: the same error for every row is one report.
            var problem = ScriptProblem(error)
            let key = problem.message
            problem.message += " (in title of component '\(id)', row \(item + 1))"
            reportOnce(index, key: key, problem)
        }
        return .failed(PickerFrame.errorMarker)
    }

    private func reportOnce(_ index: Int, key: String, _ problem: ScriptProblem) {
        if slots[index].reported.insert(key).inserted { report(problem) }
    }

    func report(_ problem: ScriptProblem) {
        reportProblem(problem)
        emit(.problem(problem))
    }

    private func emit(_ event: PickerEvent) {
        // A copy: a handler may observe or stop observing while this runs.
        let current = observers
        current.emit(event)
    }

    /// Records a change and runs `on_change` for it, unless a handler is running: then it
    /// runs after that handler, in order.
    func changed(_ index: Int, _ change: WheelChange) {
        guard !dispatching else {
            pendingChanges.append((index, change))
            return
        }
        dispatching = true
        defer { dispatching = false }
        // Changes run in order. The queue is empty here unless an observer of the cascade
        // limit's report changed a selection; the change goes straight to its handlers
        // otherwise, and the handlers queue the rest.
        var next: (slot: Int, change: WheelChange)? = (index, change)
        if !pendingChanges.isEmpty {
            pendingChanges.append((index, change))
            next = pendingChanges.removeFirst()
        }
        var handled = 0
        while let (index, change) = next {
            handled += 1
            if handled > Self.cascadeLimit {
                pendingChanges.removeAll()
                report(ScriptProblem(message: "picker '\(name)': on_change stopped after \(Self.cascadeLimit) changes caused by one change; do handlers keep selecting each other?"))
                break
            }
            dispatch(index, change)
            next = pendingChanges.isEmpty ? nil : pendingChanges.removeFirst()
        }
    }

    /// Tells the observers and `on_change` of one change.
    private func dispatch(_ index: Int, _ change: WheelChange) {
        guard !observers.isEmpty || onChange != nil else { return }
        let id = slots[index].id
        if !observers.isEmpty { emit(.changed(component: id, from: change.from, to: change.to, rows: change.rows)) }
        guard let onChange else { return }
        let item = change.to.map { title(slot: index, item: $0) }
        do {
            try onChange.call(scriptObject, id, change.to.map { $0 + 1 }, item?.isFailure == false ? item?.text : nil)
        } catch {
            report(ScriptProblem(error))
        }
    }
}

/// What a host knows of a component.
public struct PickerComponent: Sendable, Equatable {
    public var id: String
    /// The number of items (0 when empty, or when its `count` failed).
    public var count: Int
    /// The selected item, 0-based; nil when the component is empty.
    public var selection: Int?
    public var wrapMode: WrapMode
    /// Whether the wheel wraps now (`auto` depends on the count and the visible rows).
    public var wraps: Bool
    /// The error marker when the component's `count` failed; nil otherwise.
    public var failure: String?
}

/// A row's title, or the marker of a `title` that failed.
public enum PickerTitle: Sendable, Equatable {
    case text(String)
    case failed(String)

    public var text: String {
        switch self {
        case .text(let text), .failed(let text): text
        }
    }

    public var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }
}

/// What happened to a picker.
public enum PickerEvent: Sendable, Equatable {
    /// A component's selection changed (by the user, the host, the script or a reload).
    case changed(component: String, from: Int?, to: Int?, rows: Int)
    /// A component was reloaded.
    case reloaded(component: String)
    case statusChanged(String)
    /// A script error the picker survived.
    case problem(ScriptProblem)
}

/// A host's mistake in naming a component or an item.
public enum PickerError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownComponent(picker: String, component: String, known: [String])
    case indexOutOfRange(component: String, index: Int, count: Int)

    public var description: String {
        switch self {
        case .unknownComponent(let picker, let component, let known):
            "picker '\(picker)' has no component '\(component)' (it has \(known.joined(separator: ", ")))"
        case .indexOutOfRange(let component, let index, let count):
            count == 0
                ? "component '\(component)' is empty; there is no item \(index)"
                : "item \(index) is out of range for component '\(component)' (0 to \(count - 1))"
        }
    }
}

/// A title from a script: a string (invalid UTF-8 is shown with replacement characters)
/// or a number, formatted as Lua formats it.
struct TitleText: LuaReadable {
    var text: String

    static func read(from state: LuaState, at index: Int32) throws -> TitleText {
        do {
            return TitleText(text: try String.read(from: state, at: index))
        } catch LuaError.typeMismatch(let expected, _, _) where expected == "UTF-8 text" {
            return TitleText(text: String(decoding: try LuaString.read(from: state, at: index).bytes, as: UTF8.self))
        }
    }
}
