/// Any Lua value, as seen from Swift.
///
/// ```swift
/// let values = try function.callForValues([.integer(1), .string("two")])
/// if case .table(let table) = values.first { print(table.count) }
/// ```
///
/// Tables, functions, userdata and threads are references into the state (see
/// `LuaReference`); the rest are copies. For a deep copy of plain data that outlives the
/// state, read a `LuaData`.
import CLua
import CLuaShim

public enum LuaValue: LuaConvertible {
    case `nil`
    case boolean(Bool)
    case integer(Int64)
    case number(Double)
    case string(LuaString)
    case table(LuaTable)
    case function(LuaFunction)
    case userdata(LuaReference)
    case thread(LuaReference)
    /// A C pointer; `json.null` is the light userdata NULL.
    case lightUserdata(UnsafeMutableRawPointer?)

    public func push(to state: LuaState) {
        let L = state.handle
        switch self {
        case .nil: lua_pushnil(L)
        case .boolean(let value): lua_pushboolean(L, value ? 1 : 0)
        case .integer(let value): lua_pushinteger(L, value)
        case .number(let value): lua_pushnumber(L, value)
        case .string(let value): value.push(to: state)
        case .table(let reference as LuaReference), .function(let reference as LuaReference),
             .userdata(let reference), .thread(let reference):
            precondition(reference.state === state, "a Lua reference was pushed into another state")
            reference.push()
        case .lightUserdata(let pointer): lua_pushlightuserdata(L, pointer)
        }
    }

    public static func read(from state: LuaState, at index: Int32) throws -> LuaValue {
        let L = state.handle
        switch lua_type(L, index) {
        case LUA_TNONE, LUA_TNIL: return .nil
        case LUA_TBOOLEAN: return .boolean(lua_toboolean(L, index) != 0)
        case LUA_TNUMBER:
            if lua_isinteger(L, index) != 0 { return .integer(lua_tointegerx(L, index, nil)) }
            return .number(lua_tonumberx(L, index, nil))
        case LUA_TSTRING: return .string(try LuaString.read(from: state, at: index))
        case LUA_TLIGHTUSERDATA: return .lightUserdata(lua_touserdata(L, index))
        case LUA_TTABLE:
            lua_pushvalue(L, index)
            return .table(LuaTable(popping: state))
        case LUA_TFUNCTION:
            lua_pushvalue(L, index)
            return .function(LuaFunction(popping: state))
        case LUA_TTHREAD:
            lua_pushvalue(L, index)
            return .thread(LuaReference(popping: state))
        default:
            lua_pushvalue(L, index)
            return .userdata(LuaReference(popping: state))
        }
    }

    /// The type name Lua's own argument errors would use: a metatable's `__name` if it has
    /// one, "no value" past the top of the stack.
    public static func typeName(in state: LuaState, at index: Int32) -> String {
        let L = state.handle
        let type = lua_type(L, index)
        if type == LUA_TNONE { return "no value" }
        if type == LUA_TLIGHTUSERDATA { return "light userdata" }
        // luaL_getmetafield reads raw: no metamethod runs. It pushes the field if found.
        let field = luaL_getmetafield(L, index, "__name")
        if field != LUA_TNIL {
            defer { lua_settop(L, -2) }
            if field == LUA_TSTRING, let name = lua_tolstring(L, -1, nil) { return String(cString: name) }
        }
        return String(cString: lua_typename(L, type))
    }

    /// A table key written for a message: `"name"` or `3`.
    static func describeKey(in state: LuaState, at index: Int32) -> String {
        let L = state.handle
        switch lua_type(L, index) {
        case LUA_TSTRING: return "\"" + ((try? String.read(from: state, at: index)) ?? "?") + "\""
        case LUA_TNUMBER: return (try? String.read(from: state, at: index)) ?? "?"
        default: return typeName(in: state, at: index)
        }
    }
}

extension LuaFunction: LuaConvertible {
    public func push(to state: LuaState) {
        precondition(self.state === state, "a Lua reference was pushed into another state")
        push()
    }
    public static func read(from state: LuaState, at index: Int32) throws -> Self {
        guard lua_type(state.handle, index) == LUA_TFUNCTION else { throw mismatch("function", state, index) }
        lua_pushvalue(state.handle, index)
        return Self(popping: state)
    }
}

extension LuaTable: LuaConvertible {
    public func push(to state: LuaState) {
        precondition(self.state === state, "a Lua reference was pushed into another state")
        push()
    }
    public static func read(from state: LuaState, at index: Int32) throws -> Self {
        guard lua_type(state.handle, index) == LUA_TTABLE else { throw mismatch("table", state, index) }
        lua_pushvalue(state.handle, index)
        return Self(popping: state)
    }
}

extension LuaState {
    /// `value` as a `LuaValue`: a userdata or table pushed once and then held through the
    /// registry, so that pushing it again (as an argument of every call) costs one
    /// registry read instead of making a new userdata.
    public func value<V: LuaPushable>(_ value: V) throws -> LuaValue {
        try checkOpen()
        enter()
        _ = lua_checkstack(handle, 2)
        value.push(to: self)
        defer { lua_settop(handle, -2) }
        return try LuaValue.read(from: self, at: -1)
    }
}
