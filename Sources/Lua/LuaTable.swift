/// A Lua table held from Swift.
///
/// ```swift
/// let config = try state.newTable()
/// try config.set("title", "Resistor")
/// let title: String = try config.get("title")
/// let colors: [String] = try state.load("return {'red', 'green'}", name: "c")
///     .call()                                     // tables read as arrays and dictionaries too
/// ```
///
/// `get` and `set` honour metamethods and run them protected; `rawGet` and `rawSet` do not
/// call any. Keys and values use the typed conversions of `LuaPushable` and `LuaReadable`.
import CLua
import CLuaShim

public final class LuaTable: LuaReference {
    /// `table[key]`, running `__index` if the table has one.
    public func get<K: LuaPushable, V: LuaReadable>(_ key: K, as type: V.Type = V.self) throws -> V {
        let L = state.handle
        let top = try enterAndPush()
        defer { lua_settop(L, top) }
        var count: Int32 = 0
        key.push(to: state, counting: &count)
        let depth = wl_call_begin(L, state.timeoutNanoseconds)
        let status = wl_pgettable(L, -2)
        wl_call_end(L, depth)
        if status != LUA_OK { throw state.error(status: status) }
        return try V.read(from: state, at: -1)
    }

    /// `table[key] = value`, running `__newindex` if the table has one.
    public func set<K: LuaPushable, V: LuaPushable>(_ key: K, _ value: V) throws {
        let L = state.handle
        let top = try enterAndPush()
        defer { lua_settop(L, top) }
        var count: Int32 = 0
        key.push(to: state, counting: &count)
        value.push(to: state, counting: &count)
        let depth = wl_call_begin(L, state.timeoutNanoseconds)
        let status = wl_psettable(L, -3)
        wl_call_end(L, depth)
        if status != LUA_OK { throw state.error(status: status) }
    }

    /// `rawget(table, key)`: no metamethods.
    public func rawGet<K: LuaPushable, V: LuaReadable>(_ key: K, as type: V.Type = V.self) throws -> V {
        let L = state.handle
        let top = try enterAndPush()
        defer { lua_settop(L, top) }
        var count: Int32 = 0
        key.push(to: state, counting: &count)
        lua_rawget(L, -2)
        return try V.read(from: state, at: -1)
    }

    /// `rawset(table, key, value)`: no metamethods. A nil or NaN key is an error.
    public func rawSet<K: LuaPushable, V: LuaPushable>(_ key: K, _ value: V) throws {
        let L = state.handle
        let top = try enterAndPush()
        defer { lua_settop(L, top) }
        var count: Int32 = 0
        key.push(to: state, counting: &count)
        let keyType = lua_type(L, -1)
        if keyType == LUA_TNIL || (keyType == LUA_TNUMBER && lua_isinteger(L, -1) == 0 && lua_tonumberx(L, -1, nil).isNaN) {
            throw LuaError.typeMismatch(expected: "a key that is not nil or NaN", actual: LuaValue.typeName(in: state, at: -1), context: "table key")
        }
        value.push(to: state, counting: &count)
        lua_rawset(L, -3)
    }

    /// The text at `path` (`["user", "name"]` for `t.user.name`), each step read raw (no
    /// metamethods) on the stack, with no reference made on the way: strings as they are
    /// (bytes that are not UTF-8 repaired), numbers as Lua prints them, booleans as `true`
    /// or `false`. nil when a step is missing or not a table, or the value has no text.
    public func text(atPath path: [String]) -> String? {
        guard !path.isEmpty, (try? state.checkOpen()) != nil else { return nil }
        state.enter()
        let L = state.handle
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard lua_checkstack(L, Int32(path.count) + 2) != 0 else { return nil }
        push()
        for key in path {
            guard lua_type(L, -1) == LUA_TTABLE else { return nil }
            key.push(to: state)
            lua_rawget(L, -2)
        }
        switch lua_type(L, -1) {
        case LUA_TSTRING, LUA_TNUMBER:
            if let text = try? String.read(from: state, at: -1) { return text }
            var length = 0
            guard let bytes = lua_tolstring(L, -1, &length) else { return nil }
            return String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
        case LUA_TBOOLEAN:
            return lua_toboolean(L, -1) != 0 ? "true" : "false"
        default:
            return nil
        }
    }

    /// The border of the sequence part, as `#` without `__len`.
    public var count: Int {
        guard (try? state.checkOpen()) != nil else { return 0 }
        push()
        defer { lua_settop(state.handle, -2) }
        return Int(lua_rawlen(state.handle, -1))
    }

    /// Every key and value, without metamethods.
    public func pairs() throws -> [(key: LuaValue, value: LuaValue)] {
        let L = state.handle
        let top = try enterAndPush()
        defer { lua_settop(L, top) }
        var result: [(key: LuaValue, value: LuaValue)] = []
        lua_pushnil(L)
        while lua_next(L, -2) != 0 {
            result.append((try LuaValue.read(from: state, at: -2), try LuaValue.read(from: state, at: -1)))
            lua_settop(L, -2)
        }
        return result
    }

    private func enterAndPush() throws -> Int32 {
        try state.checkOpen()
        state.enter()
        let top = lua_gettop(state.handle)
        guard lua_checkstack(state.handle, 8) != 0 else {
            throw LuaError.runtime(ScriptFailure(message: "stack overflow (Lua stack exhausted)"))
        }
        push()
        return top
    }
}

extension LuaState {
    /// A new, empty table.
    public func newTable() throws -> LuaTable {
        try checkOpen()
        enter()
        lua_createtable(handle, 0, 0)
        return LuaTable(popping: self)
    }
}
