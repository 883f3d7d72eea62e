/// A deep, Sendable copy of plain Lua data: what JSON can say, and what a Swift core can
/// keep after the state is gone.
///
/// ```swift
/// let item: LuaData = try state.load("return { id = 7, tags = {'a', 'b'} }", name: "i").call()
/// item["tags"]?[1]          // .string("b")   (Swift indices are 0-based)
/// ```
///
/// Reading copies the whole value once. A table whose keys are exactly 1...n reads as an
/// array, one whose keys are all strings as an object (an empty table reads as an empty
/// object). Anything else is a clear error, not a lossy copy: mixed keys, functions,
/// userdata other than `json.null`, a cycle, or nesting deeper than `maxDepth`.
import CLua
import CLuaShim

public indirect enum LuaData: Sendable, Hashable, LuaConvertible {
    case null
    case boolean(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([LuaData])
    case object([String: LuaData])

    /// The deepest nesting a read accepts.
    public static let maxDepth = 200

    public subscript(key: String) -> LuaData? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    public subscript(index: Int) -> LuaData? {
        if case .array(let items) = self, items.indices.contains(index) { return items[index] }
        return nil
    }

    public func push(to state: LuaState) {
        let L = state.handle
        _ = lua_checkstack(L, 3)
        switch self {
        case .null: lua_pushlightuserdata(L, nil)     // json.null
        case .boolean(let value): lua_pushboolean(L, value ? 1 : 0)
        case .integer(let value): lua_pushinteger(L, value)
        case .number(let value): lua_pushnumber(L, value)
        case .string(let value): value.push(to: state)
        case .array(let items): items.push(to: state)
        case .object(let fields): fields.push(to: state)
        }
    }

    public static func read(from state: LuaState, at index: Int32) throws -> LuaData {
        var path: Set<UnsafeRawPointer> = []
        return try read(state, lua_absindex(state.handle, index), &path, depth: 0)
    }

    private static func read(_ state: LuaState, _ index: Int32, _ path: inout Set<UnsafeRawPointer>,
                             depth: Int) throws -> LuaData {
        let L = state.handle
        switch lua_type(L, index) {
        case LUA_TNONE, LUA_TNIL: return .null
        case LUA_TLIGHTUSERDATA where lua_touserdata(L, index) == nil: return .null
        case LUA_TBOOLEAN: return .boolean(lua_toboolean(L, index) != 0)
        case LUA_TNUMBER:
            if lua_isinteger(L, index) != 0 { return .integer(lua_tointegerx(L, index, nil)) }
            return .number(lua_tonumberx(L, index, nil))
        case LUA_TSTRING: return .string(try String.read(from: state, at: index))
        case LUA_TTABLE: break
        default: throw mismatch("plain data (nil, boolean, number, string or table)", state, index)
        }
        guard depth < maxDepth else {
            throw LuaError.typeMismatch(expected: "data nested at most \(maxDepth) deep", actual: "deeper nesting", context: "")
        }
        let identity = UnsafeRawPointer(lua_topointer(L, index)!)
        guard path.insert(identity).inserted else {
            throw LuaError.typeMismatch(expected: "plain data", actual: "a table that contains itself (a cycle)", context: "")
        }
        defer { path.remove(identity) }
        guard lua_checkstack(L, 6) != 0 else { throw LuaError.runtime(ScriptFailure(message: "stack overflow")) }
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }

        var items: [Int64: LuaData] = [:]
        var fields: [String: LuaData] = [:]
        lua_pushnil(L)
        while lua_next(L, index) != 0 {
            let value = top + 2
            switch lua_type(L, top + 1) {
            case LUA_TSTRING:
                let key = try inContext("[key]") { try String.read(from: state, at: top + 1) }
                fields[key] = try inContext("[\"\(key)\"]") { try read(state, value, &path, depth: depth + 1) }
            case LUA_TNUMBER where lua_isinteger(L, top + 1) != 0:
                let key = lua_tointegerx(L, top + 1, nil)
                items[key] = try inContext("[\(key)]") { try read(state, value, &path, depth: depth + 1) }
            default:
                throw LuaError.typeMismatch(expected: "string or integer keys", actual: LuaValue.typeName(in: state, at: top + 1) + " key", context: "")
            }
            lua_settop(L, top + 1)
        }
        if items.isEmpty { return .object(fields) }
        guard fields.isEmpty else {
            throw LuaError.typeMismatch(expected: "an array or an object", actual: "a table with both integer and string keys", context: "")
        }
        guard items.keys.min() == 1, items.keys.max() == Int64(items.count) else {
            throw LuaError.typeMismatch(expected: "an array with keys 1...n", actual: "a sparse array", context: "")
        }
        return .array((1...Int64(items.count)).map { items[$0]! })
    }
}
