/// `picker "name" { ... }`: reads a script's declaration into a `Picker`, checking every
/// field, and the methods scripts call on the picker object `p`.
///
/// ```lua
/// local p = picker "clock" {
///   rows = 5,                                   -- visible rows (7 by default)
///   components = {
///     { id = "hour", count = 12, title = function(p, i) return tostring(i) end, wrap = "always" },
///     { id = "ampm", items = { "AM", "PM" } },  -- wrap = "auto": only lists longer than the rows wrap
///   },
///   on_change = function(p, component, index, item) p.status = p:item("hour") .. " " .. p:item("ampm") end,
/// }
/// ```
///
/// A mistake in the declaration is a script error at the `picker` line: an unknown field,
/// a duplicate id, an item that is not a string or a number, a bad count.
import Lua
import WheelCore

extension Picker {
    static let fields: Set<String> = ["components", "on_change", "rows", "status"]
    static let componentFields: Set<String> = ["id", "items", "count", "title", "wrap", "selected"]

    /// Reads the declaration table `spec`. Runs inside the host function the script
    /// called, so `state.callerError` points at the script's `picker` line.
    static func declare(name: String, spec: LuaTable, state: LuaState,
                        reportProblem: @escaping (ScriptProblem) -> Void) throws -> Picker {
        func fail(_ message: String) -> LuaError { state.callerError("picker '\(name)': " + message) }

        try Declaring.checkFields(of: spec, allowed: fields, what: "picker '\(name)'", fail: { state.callerError($0) })
        let rows: Int
        switch try spec.rawGet("rows", as: LuaValue.self) {
        case .nil: rows = 7
        case .integer(let value) where value >= 1 && value <= 1000: rows = Int(value)
        case let value: throw fail("rows must be a whole number from 1 to 1000, not \(Declaring.describe(value))")
        }
        let status: String
        switch try spec.rawGet("status", as: LuaValue.self) {
        case .nil: status = ""
        case .string(let text): status = text.description
        case let value: throw fail("status must be a string, not \(Declaring.describe(value))")
        }
        let onChange: LuaFunction?
        switch try spec.rawGet("on_change", as: LuaValue.self) {
        case .nil: onChange = nil
        case .function(let function): onChange = function
        case let value: throw fail("on_change must be a function, not \(Declaring.describe(value))")
        }
        guard case .table(let list) = try spec.rawGet("components", as: LuaValue.self) else {
            throw fail("components must be a list of tables, one per wheel")
        }
        guard list.count > 0 else { throw fail("components is empty; a picker needs at least one wheel") }

        var slots: [ComponentSlot] = []
        var seen: [String: Int] = [:]
        for position in 1...list.count {
            guard case .table(let table) = try list.rawGet(position, as: LuaValue.self) else {
                throw fail("component \(position) is \(Declaring.describe(try list.rawGet(position, as: LuaValue.self))), expected a table")
            }
            // Component errors name the component, as in `component 'band1' item 3 is a table`.
            let slot = try component(table, position: position, rows: rows, fail: { state.callerError($0) })
            if let first = seen[slot.id] {
                throw fail("components \(first) and \(position) have the same id '\(slot.id)'")
            }
            seen[slot.id] = position
            slots.append(slot)
        }
        return Picker(name: name, status: status, slots: slots, onChange: onChange, state: state,
                      reportProblem: reportProblem)
    }

    private static func component(_ table: LuaTable, position: Int, rows: Int,
                                  fail: (String) -> LuaError) throws -> ComponentSlot {
        let id: String
        switch try table.rawGet("id", as: LuaValue.self) {
        case .nil: id = String(position)
        case .string(let text) where !text.bytes.isEmpty: id = text.description
        case .integer(let number): id = String(number)
        case let value: throw fail("component \(position): id must be a non-empty string, not \(Declaring.describe(value))")
        }
        let name = "component '\(id)'"
        try Declaring.checkFields(of: table, allowed: componentFields, what: name, fail: fail)

        let wrap: WrapMode
        switch try table.rawGet("wrap", as: LuaValue.self) {
        case .nil: wrap = .auto
        case .boolean(let flag): wrap = flag ? .always : .never
        case .string(let text) where WrapMode(rawValue: text.description) != nil: wrap = WrapMode(rawValue: text.description)!
        case let value: throw fail("\(name): wrap must be \"always\", \"never\", \"auto\", true or false, not \(Declaring.describe(value))")
        }
        let selected: Int
        switch try table.rawGet("selected", as: LuaValue.self) {
        case .nil: selected = 1
        case .integer(let index) where index >= 1: selected = Int(clamping: index)
        case let value: throw fail("\(name): selected must be a whole number from 1, not \(Declaring.describe(value))")
        }

        let items = try table.rawGet("items", as: LuaValue.self)
        let count = try table.rawGet("count", as: LuaValue.self)
        let title = try table.rawGet("title", as: LuaValue.self)
        let source: ComponentSlot.Source
        switch (items, count, title) {
        case (.table(let list), .nil, .nil):
            source = .items(try Self.items(list, of: name, fail: fail))
        case (.table, _, .nil):
            throw fail("\(name) has both items and count; give one of them")
        case (.table, _, _):
            throw fail("\(name): title goes with count; with items, the items are the titles")
        case (.nil, .nil, _):
            throw fail("\(name) needs items = { ... }, or count (a number or a function) with a title function")
        case (.nil, _, let title):
            let titleFunction: LuaFunction?
            switch title {
            case .nil: titleFunction = nil
            case .function(let function): titleFunction = function
            default: throw fail("\(name): title must be a function(p, index), not \(Declaring.describe(title))")
            }
            switch count {
            case .function(let function):
                source = .computed(count: .function(function), title: titleFunction)
            case .integer, .number:
                switch ComponentCount.validate(count) {
                case .success(let fixed): source = .computed(count: .fixed(fixed), title: titleFunction)
                case .failure(let reason): throw fail("\(name): count is \(reason)")
                }
            default:
                throw fail("\(name): count must be a number or a function(p), not \(Declaring.describe(count))")
            }
        case (let items, _, _):
            throw fail("\(name): items must be a list of strings, not \(Declaring.describe(items))")
        }
        return ComponentSlot(id: id, source: source, wrap: wrap, visibleRows: rows, initialSelection: selected - 1)
    }

    /// The items, as strings: numbers are formatted as Lua formats them; anything else is
    /// an error that names the item.
    private static func items(_ list: LuaTable, of name: String, fail: (String) -> LuaError) throws -> [String] {
        let count = list.count
        var items: [String] = []
        items.reserveCapacity(count)
        for position in stride(from: 1, through: count, by: 1) {
            switch try list.rawGet(position, as: LuaValue.self) {
            case .string(let text):
                items.append(String(decoding: text.bytes, as: UTF8.self))
            case .integer, .number:
                items.append(try list.rawGet(position, as: String.self))
            case let value:
                throw fail("\(name) item \(position) is \(Declaring.describe(value)), expected a string")
            }
        }
        return items
    }
}

// MARK: - The script's picker object

extension Picker: LuaUserdata {
    public static let luaTypeName = "picker"

    /// `p:index(id)`, `p:item(id)`, `p:count(id)`, `p:select(id, index)`, `p:reload([id])`,
    /// `p.status`, `p.name`. Indices are 1-based. A wrong id or index is Lua's argument
    /// error: `bad argument #1 to 'select' (picker 'date' has no component 'dya' ...)`.
    public static func describe(_ type: inout LuaUserdataType<Picker>) {
        type.method("index") { (picker: Picker, id: String) -> Int? in
            let index = try picker.scriptSlot(id, argument: 2)
            picker.resolve(index)
            return picker.slots[index].wheel.selection.map { $0 + 1 }
        }
        type.method("item") { (picker: Picker, id: String) -> String? in
            let index = try picker.scriptSlot(id, argument: 2)
            picker.resolve(index)
            guard let selection = picker.slots[index].wheel.selection else { return nil }
            let title = picker.title(slot: index, item: selection)
            if title.isFailure {
                throw picker.state.callerError("component '\(id)' has no title for its row \(selection + 1): its title function failed")
            }
            return title.text
        }
        type.method("count") { (picker: Picker, id: String) -> Int in
            let index = try picker.scriptSlot(id, argument: 2)
            picker.resolve(index)
            return picker.slots[index].wheel.count
        }
        type.method("select") { (picker: Picker, id: String, item: Int) in
            let index = try picker.scriptSlot(id, argument: 2)
            picker.resolve(index)
            let count = picker.slots[index].wheel.count
            guard item >= 1, item <= count else {
                throw ArgumentError(position: 3, message: count == 0
                    ? "component '\(id)' is empty"
                    : "index \(item) is out of range for component '\(id)' (1 to \(count))")
            }
            if let change = picker.slots[index].wheel.select(item - 1) { picker.changed(index, change) }
        }
        type.method("reload") { (picker: Picker, id: String?) in
            if let id {
                picker.reload(slot: try picker.scriptSlot(id, argument: 2))
            } else {
                for index in picker.slots.indices { picker.reload(slot: index) }
            }
        }
        // The property's type is String? so that `p.status = nil` clears the status: with
        // String, Swift would accept the optional setter and reads would refuse nil.
        type.property("status", get: { (picker: Picker) -> String? in picker.status },
                      set: { (picker: Picker, text: String?) in picker.status = text ?? "" })
        type.property("name") { $0.name }
        type.method("__tostring") { (picker: Picker) -> String in "picker '\(picker.name)'" }
    }

    private func scriptSlot(_ id: String, argument: Int32) throws -> Int {
        do {
            return try slot(id)
        } catch {
            throw ArgumentError(position: argument, message: error.description)
        }
    }
}
