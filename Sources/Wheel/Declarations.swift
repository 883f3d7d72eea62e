/// The declaration functions scripts call (`picker "name" { ... }`) and the objects they
/// made, kept in declaration order.
///
/// ```lua
/// picker "resistor" { components = { ... } }       -- the DSL form: a name, then a table
/// local p = picker("clock", { components = { ... } })  -- the same, called plainly; p is the picker
/// ```
import Lua

final class Declarations {
    private(set) var pickers: [Picker] = []
    var onProblem: ((ScriptProblem) -> Void)?

    /// Puts `picker` in the library every script environment copies.
    func install(in state: LuaState) throws {
        let declare = state.function { [unowned self] (call: LuaCall) -> LuaReturn in
            let state = call.state
            guard case .string(let raw) = try call.argument(1, as: LuaValue.self), let name = raw.string, !name.isEmpty else {
                throw ArgumentError(position: 1, message: "a picker's name must be a non-empty string: picker \"name\" { ... }")
            }
            if call.count >= 2 {
                return call.return(try self.declarePicker(name, spec: try call.argument(2), in: state))
            }
            // `picker "name"` returns the function that takes the table.
            return call.return(state.function { [unowned self] (spec: LuaCall) -> LuaReturn in
                let table: LuaTable
                do {
                    table = try spec.argument(1)
                } catch {
                    throw spec.state.callerError("picker '\(name)' needs a table: picker \"\(name)\" { components = { ... } }")
                }
                return spec.return(try self.declarePicker(name, spec: table, in: spec.state))
            })
        }
        try state.library().set("picker", declare)
    }

    private func declarePicker(_ name: String, spec: LuaTable, in state: LuaState) throws -> Picker {
        guard !pickers.contains(where: { $0.name == name }) else {
            throw state.callerError("a picker named '\(name)' is already declared")
        }
        let picker = try Picker.declare(name: name, spec: spec, state: state) { [weak self] problem in
            self?.onProblem?(problem)
        }
        // The script's `p`, made once (invariant 1 holds: pushing a userdata cannot raise).
        picker.scriptObject = try state.value(picker)
        pickers.append(picker)
        // Counts are computed now, in order; a count function that asks for another
        // component's selection computes that one first.
        for index in picker.slots.indices { picker.resolve(index) }
        return picker
    }
}
