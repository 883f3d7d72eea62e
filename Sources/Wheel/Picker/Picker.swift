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

    var slots: [ComponentSlot]
    let indexByID: [String: Int]
    let state: LuaState
    let onChange: LuaFunction?
    /// The script's `p`: this object as a userdata, held in the registry so that pushing
    /// it for a `title` call is one registry read, not a new userdata.
    var scriptObject: LuaValue = .nil
    /// Where problems go (the runtime's `onProblem`), besides the observers.
    let reportProblem: (ScriptProblem) -> Void

    private var observers: [(token: Int, handler: (PickerEvent) -> Void)] = []
    private var nextToken = 0
    /// Selection changes waiting for their `on_change`: a handler that changes a
    /// selection gets its own `on_change` call after it has returned, not inside itself.
    private var pendingChanges: [(slot: Int, change: WheelChange)] = []
    private var dispatching = false
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
        var columns: [PickerFrame.Column] = []
        columns.reserveCapacity(slots.count)
        for index in slots.indices {
            resolve(index)
            slots[index].limitHitThisFrame = false
            var rows: [PickerFrame.Row] = []
            rows.reserveCapacity(slots[index].wheel.visibleRows)
            if let failure = slots[index].failure {
                for row in slots[index].wheel.rows() {
                    rows.append(PickerFrame.Row(offset: row.offset, item: nil,
                                                title: row.offset == 0 ? failure : "", isSelected: false,
                                                isError: row.offset == 0))
                }
            } else {
                for row in slots[index].wheel.rows() {
                    guard let item = row.item else {
                        rows.append(PickerFrame.Row(offset: row.offset, item: nil, title: "", isSelected: false, isError: false))
                        continue
                    }
                    let text = title(slot: index, item: item)
                    rows.append(PickerFrame.Row(offset: row.offset, item: item, title: text.text,
                                                isSelected: row.isSelected, isError: text.isFailure))
                }
            }
            columns.append(PickerFrame.Column(id: slots[index].id, rows: rows))
        }
        return PickerFrame(name: name, status: status, columns: columns)
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
        nextToken += 1
        observers.append((nextToken, handler))
        return nextToken
    }

    public func removeObserver(_ token: Int) {
        observers.removeAll { $0.token == token }
    }

    // MARK: - Internals

    func slot(_ id: String) throws(PickerError) -> Int {
        guard let index = indexByID[id] else {
            throw .unknownComponent(picker: name, component: id, known: slots.map(\.id))
        }
        return index
    }

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
        slots[index].limitHitThisFrame = false
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

    /// The title of an item in range, from the items, the cache, or the script.
    @inline(__always)
    func title(slot index: Int, item: Int) -> PickerTitle {
        switch slots[index].source {
        case .items(let items):
            return .text(items[item])
        case .computed(_, let function):
            if let cached = slots[index].cache[item] { return cached }
            if slots[index].limitHitThisFrame { return .failed(PickerFrame.errorMarker) }   // not cached
            let title = function.map { computeTitle(index, item, $0) } ?? .text(String(item + 1))
            slots[index].cache[item] = title
            return title
        }
    }

    private func computeTitle(_ index: Int, _ item: Int, _ function: LuaFunction) -> PickerTitle {
        let id = slots[index].id
        do {
            return .text(try function.call(scriptObject, item + 1, returning: TitleText.self).text)
        } catch LuaError.typeMismatch(_, let actual, _) {
            let message = "title of component '\(id)' returned \(actual) for row \(item + 1), expected a string"
            reportOnce(index, key: message, ScriptProblem(message, in: function))
        } catch {
            if case LuaError.timeout = error { slots[index].limitHitThisFrame = true }
            if case LuaError.memory = error { slots[index].limitHitThisFrame = true }
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
        for observer in observers { observer.handler(event) }
    }

    /// Records a change and runs `on_change` for it, unless a handler is running: then it
    /// runs after that handler, in order.
    func changed(_ index: Int, _ change: WheelChange) {
        pendingChanges.append((index, change))
        guard !dispatching else { return }
        dispatching = true
        defer { dispatching = false }
        var handled = 0
        while !pendingChanges.isEmpty {
            let (index, change) = pendingChanges.removeFirst()
            handled += 1
            if handled > Self.cascadeLimit {
                pendingChanges.removeAll()
                report(ScriptProblem(message: "picker '\(name)': on_change stopped after \(Self.cascadeLimit) changes caused by one change; do handlers keep selecting each other?"))
                break
            }
            let id = slots[index].id
            emit(.changed(component: id, from: change.from, to: change.to, rows: change.rows))
            guard let onChange else { continue }
            let item = change.to.map { title(slot: index, item: $0) }
            do {
                try onChange.call(scriptObject, id, change.to.map { $0 + 1 }, item?.isFailure == false ? item?.text : nil)
            } catch {
                report(ScriptProblem(error))
            }
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
