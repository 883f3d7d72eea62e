/// `form "name" { ... }`: reads a script's declaration into a `Form`, and the methods
/// scripts call on the form object.
///
/// ```lua
/// picker "states" { rows = 5, components = { { id = "state", items = { "Alabama", "Alaska" } } } }
///
/// form "signup" {
///   status = "All fields but About are needed",
///   fields = {
///     { id = "name",  label = "Name",   kind = "text", required = true },
///     { id = "email", label = "E-mail", kind = "email", required = true,
///       validate = function(v) return not v:find("example%.com$"), "use your own address" end },
///     { id = "age",   label = "Age",    kind = "number",   -- scripts get a number
///       validate = function(n, f) return n == nil or n >= 18, "must be 18 or over" end },
///     { id = "state", label = "State",  kind = "picker", picker = "states" },
///     { id = "bio",   label = "About",  kind = "multiline", lines = 3, placeholder = "a few words" },
///   },
///   on_submit = function(values, f) f.status = "welcome, " .. values.name end,
/// }
/// ```
///
/// Field fields: `id` (unique), `label` (the id by default), `kind` (`text` by default),
/// `required`, `validate(value, form)`, `placeholder`, `value` (the initial text),
/// `lines` (multiline only) and `picker` (picker only: a picker declared before the form).
import Lua
import WheelCore

extension Form {
    static let fields: Set<String> = ["fields", "on_submit", "status"]
    static let fieldFields: Set<String> = ["id", "label", "kind", "required", "validate", "placeholder", "value",
                                           "lines", "picker"]

    /// Reads the declaration table `spec`. Runs inside the host function the script
    /// called, so `state.callerError` points at the script's `form` line.
    static func declare(name: String, spec: LuaTable, state: LuaState, pickerNamed: (String) -> Picker?,
                        pickerNames: [String], reportProblem: @escaping (ScriptProblem) -> Void) throws -> Form {
        func fail(_ message: String) -> LuaError { state.callerError("form '\(name)': " + message) }
        try Declaring.checkFields(of: spec, allowed: fields, what: "form '\(name)'", fail: { state.callerError($0) })

        let status: String
        switch try spec.rawGet("status", as: LuaValue.self) {
        case .nil: status = ""
        case .string(let text): status = text.description
        case let other: throw fail("status must be a string, not \(Declaring.describe(other))")
        }
        let onSubmit: LuaFunction?
        switch try spec.rawGet("on_submit", as: LuaValue.self) {
        case .nil: onSubmit = nil
        case .function(let function): onSubmit = function
        case let other: throw fail("on_submit must be a function(values, form), not \(Declaring.describe(other))")
        }
        guard case .table(let list) = try spec.rawGet("fields", as: LuaValue.self) else {
            throw fail("fields must be a list of tables: fields = { { id = \"name\", kind = \"text\" }, ... }")
        }
        guard list.count > 0 else { throw fail("fields is empty; a form needs at least one field") }

        var fields: [FormField] = []
        var validators: [LuaFunction?] = []
        var pickers: [Int: Picker] = [:]
        var seen: [String: Int] = [:]
        for position in 1...list.count {
            guard case .table(let table) = try list.rawGet(position, as: LuaValue.self) else {
                throw fail("field \(position) is \(Declaring.describe(try list.rawGet(position, as: LuaValue.self))), expected a table")
            }
            let (field, validate) = try field(table, position: position, fail: fail)
            if let first = seen[field.id] { throw fail("fields \(first) and \(position) have the same id '\(field.id)'") }
            seen[field.id] = position
            if let pickerName = field.pickerName {
                guard let picker = pickerNamed(pickerName) else {
                    throw fail("field '\(field.id)': there is no picker '\(pickerName)' "
                        + (pickerNames.isEmpty ? "(declare it before the form)"
                                               : "(pickers declared so far: \(pickerNames.joined(separator: ", ")))"))
                }
                pickers[fields.count] = picker
            }
            fields.append(field)
            validators.append(validate)
        }
        return Form(name: name, fields: fields, validators: validators, onSubmit: onSubmit, status: status,
                    pickers: pickers, state: state, reportProblem: reportProblem)
    }

    private static func field(_ table: LuaTable, position: Int,
                              fail: (String) -> LuaError) throws -> (FormField, LuaFunction?) {
        let id: String
        switch try table.rawGet("id", as: LuaValue.self) {
        case .string(let text) where !text.bytes.isEmpty: id = text.description
        case let other: throw fail("field \(position): id must be a non-empty string, not \(Declaring.describe(other))")
        }
        try Declaring.checkFields(of: table, allowed: fieldFields, what: "field '\(id)'", fail: fail)
        func text(_ key: String, default value: String) throws -> String {
            switch try table.rawGet(key, as: LuaValue.self) {
            case .nil: return value
            case .string(let text): return text.description
            case .integer, .number: return try table.rawGet(key, as: String.self)
            case let other: throw fail("field '\(id)': \(key) must be a string, not \(Declaring.describe(other))")
            }
        }
        let kind: FormField.Kind
        switch try table.rawGet("kind", as: LuaValue.self) {
        case .nil: kind = .text
        case .string(let text) where FormField.Kind(rawValue: text.description) != nil:
            kind = FormField.Kind(rawValue: text.description)!
        case let other:
            throw fail("field '\(id)': kind must be one of \(FormField.Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), not \(Declaring.describe(other))")
        }
        let required: Bool
        switch try table.rawGet("required", as: LuaValue.self) {
        case .nil: required = false
        case .boolean(let flag): required = flag
        case let other: throw fail("field '\(id)': required must be true or false, not \(Declaring.describe(other))")
        }
        let validate: LuaFunction?
        switch try table.rawGet("validate", as: LuaValue.self) {
        case .nil: validate = nil
        case .function(let function): validate = function
        case let other: throw fail("field '\(id)': validate must be a function(value, form) returning true, or false and a message, not \(Declaring.describe(other))")
        }
        let lines: Int
        switch (try table.rawGet("lines", as: LuaValue.self), kind) {
        case (.nil, .multiline): lines = 3
        case (.nil, _): lines = 1
        case (.integer(let number), .multiline) where number >= 1 && number <= 100: lines = Int(number)
        case (let other, .multiline): throw fail("field '\(id)': lines must be a whole number from 1 to 100, not \(Declaring.describe(other))")
        case (_, _): throw fail("field '\(id)': lines goes with kind = \"multiline\"")
        }
        let pickerName: String?
        switch (try table.rawGet("picker", as: LuaValue.self), kind) {
        case (.string(let text), .picker) where !text.bytes.isEmpty: pickerName = text.description
        case (.nil, .picker): throw fail("field '\(id)': a picker field names its picker: picker = \"states\"")
        case (let other, .picker): throw fail("field '\(id)': picker must be the name of a picker, not \(Declaring.describe(other))")
        case (.nil, _): pickerName = nil
        case (_, _): throw fail("field '\(id)': picker goes with kind = \"picker\"")
        }
        var value = try text("value", default: "")
        if kind != .multiline { value = Form.singleLine(value) }
        if kind == .picker, !value.isEmpty { throw fail("field '\(id)': a picker field's value comes from its picker; select the item in the picker instead") }
        let field = FormField(id: id, label: try text("label", default: id), kind: kind,
                              placeholder: try text("placeholder", default: ""), required: required, lines: lines,
                              pickerName: pickerName, text: value, error: nil)
        return (field, validate)
    }
}

// MARK: - The script's form object

extension Form: LuaUserdata {
    public static let luaTypeName = "form"

    /// `f:value(id)`, `f:set(id, text)`, `f:error(id)`, `f.focused`, `f.status`, `f.name`.
    public static func describe(_ type: inout LuaUserdataType<Form>) {
        type.method("value") { (form: Form, id: String) -> LuaValue in
            form.value(of: try form.scriptField(id))
        }
        type.method("set") { (form: Form, id: String, text: String) in
            let index = try form.scriptField(id)
            guard form.fields[index].kind != .picker else {
                throw ArgumentError(position: 2, message: "field '\(id)' takes its value from picker '\(form.fields[index].pickerName ?? "")'")
            }
            // As the script sets it: no check runs (a validate that sets a field must not
            // start another check).
            let value = form.fields[index].kind == .multiline ? text : Form.singleLine(text)
            if value != form.fields[index].text { form.store(value, at: index) }
        }
        type.method("error") { (form: Form, id: String) -> String? in
            form.fields[try form.scriptField(id)].error
        }
        type.property("focused") { (form: Form) -> String? in form.focused }
        type.property("status", get: { (form: Form) -> String? in form.status },
                      set: { (form: Form, text: String?) in form.status = text ?? "" })
        type.property("name") { $0.name }
        type.method("__tostring") { (form: Form) -> String in "form '\(form.name)'" }
    }

    private func scriptField(_ id: String) throws -> Int {
        guard let index = indexByID[id] else {
            throw ArgumentError(position: 2, message: "form '\(name)' has no field '\(id)' (fields: \(fields.map(\.id).joined(separator: ", ")))")
        }
        return index
    }
}
