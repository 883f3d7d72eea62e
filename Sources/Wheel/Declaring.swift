/// What the declarations (`picker`, `feed`, ...) share when they read a script's table.
import Lua

enum Declaring {
    static func checkFields(of table: LuaTable, allowed: Set<String>, what: String,
                            fail: (String) -> LuaError) throws {
        for (key, _) in try table.pairs() {
            guard case .string(let text) = key, let name = text.string else {
                throw fail("\(what) has a field with a \(key.typeName) key; fields are named")
            }
            guard allowed.contains(name) else {
                throw fail("\(what) has an unknown field '\(name)' (fields: \(allowed.sorted().joined(separator: ", ")))")
            }
        }
    }

    /// `a table`, `a boolean`, `the string "x"`, `the number 3`: a value in a message.
    static func describe(_ value: LuaValue) -> String {
        switch value {
        case .nil: "nil"
        case .string(let text): "the string \"\(text.description.prefix(40))\""
        case .integer(let number): "the number \(number)"
        case .number(let number): "the number \(ComponentCount.luaNumber(number))"
        default: "a \(value.typeName)"
        }
    }
}
