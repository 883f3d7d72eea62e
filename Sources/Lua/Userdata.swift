/// Swift objects as Lua userdata, with methods, properties and metamethods.
///
/// ```swift
/// final class Counter: LuaUserdata {
///     var value = 0
///     static let luaTypeName = "Counter"
///     static func describe(_ type: inout LuaUserdataType<Counter>) {
///         type.method("add") { (counter: Counter, amount: Int) in counter.value += amount }
///         type.property("value", get: { $0.value }, set: { $0.value = $1 })
///         type.method("__tostring") { (counter: Counter) in "Counter(\(counter.value))" }
///     }
/// }
/// try state.library().set("counter", Counter())
/// // c = counter; c:add(2); print(c.value)         --> 2
/// // c.add(42)      --> calling 'add' on bad self (Counter expected, got number)
/// ```
///
/// The userdata holds a retained reference to the object; `__gc` releases it. Every
/// method checks that its `self` is an object of its type (the metatable is an upvalue of
/// the method, so the check is two pointer compares) and reports a mismatch as Lua's
/// usual argument error. Scripts cannot get or replace the metatable.
import CLua
import CLuaShim

public protocol LuaUserdata: AnyObject, LuaConvertible {
    /// The name Lua shows for the type, in messages and `tostring`.
    static var luaTypeName: String { get }
    /// Declares the type's methods, properties and metamethods (`__tostring`, `__eq`...).
    static func describe(_ type: inout LuaUserdataType<Self>)
}

extension LuaUserdata {
    public func push(to state: LuaState) {
        let L = state.handle
        state.pushMetatable(for: Self.self)
        wl_push_object(L, Unmanaged.passRetained(self).toOpaque(), -1)
        lua_rotate(L, -2, 1)
        lua_settop(L, -2)
    }

    public static func read(from state: LuaState, at index: Int32) throws -> Self {
        let L = state.handle
        let index = lua_absindex(L, index)
        state.pushMetatable(for: Self.self)
        defer { lua_settop(L, -2) }
        guard let pointer = wl_to_object(L, index, -1) else { throw mismatch(luaTypeName, state, index) }
        return Unmanaged<Self>.fromOpaque(pointer).takeUnretainedValue()
    }
}

/// The members of a userdata type, declared in `LuaUserdata.describe`.
public struct LuaUserdataType<Object: AnyObject> {
    typealias Body = (UnsafeMutableRawPointer, LuaState) throws -> Int32
    var methods: [(String, Body)] = []
    var getters: [(String, Body)] = []
    var setters: [(String, Body)] = []

    /// A method called as `object:name(...)`. Names that start with `__` become metamethods.
    public mutating func method<each A: LuaReadable, R: LuaPushable>(
        _ name: String, _ body: @escaping (Object, repeat each A) throws -> R
    ) {
        methods.append((name, { pointer, state in
            let object = Unmanaged<Object>.fromOpaque(pointer).takeUnretainedValue()
            var position: Int32 = 1
            let result = try body(object, repeat try LuaCall.argument((each A).self, at: next(&position), in: state))
            result.push(to: state)
            return 1
        }))
    }

    /// A method that returns nothing.
    public mutating func method<each A: LuaReadable>(
        _ name: String, _ body: @escaping (Object, repeat each A) throws -> Void
    ) {
        methods.append((name, { pointer, state in
            let object = Unmanaged<Object>.fromOpaque(pointer).takeUnretainedValue()
            var position: Int32 = 1
            try body(object, repeat try LuaCall.argument((each A).self, at: next(&position), in: state))
            return 0
        }))
    }

    /// A read-only property: `object.name`.
    public mutating func property<V: LuaPushable>(_ name: String, get: @escaping (Object) throws -> V) {
        getters.append((name, { pointer, state in
            try get(Unmanaged<Object>.fromOpaque(pointer).takeUnretainedValue()).push(to: state)
            return 1
        }))
    }

    /// A property scripts can also set: `object.name = value`.
    public mutating func property<V: LuaConvertible>(
        _ name: String, get: @escaping (Object) throws -> V, set: @escaping (Object, V) throws -> Void
    ) {
        property(name, get: get)
        setters.append((name, { pointer, state in
            let value = try LuaCall.argument(V.self, at: 2, in: state)
            try set(Unmanaged<Object>.fromOpaque(pointer).takeUnretainedValue(), value)
            return 0
        }))
    }
}

/// The Swift side of one method, getter or setter.
final class MethodBox {
    // Released by lua_close at the latest, while the LuaState is alive (see HostFunctionBox).
    let state: Unmanaged<LuaState>
    let body: (UnsafeMutableRawPointer, LuaState) throws -> Int32

    init(state: LuaState, body: @escaping (UnsafeMutableRawPointer, LuaState) throws -> Int32) {
        self.state = .passUnretained(state)
        self.body = body
    }
}

extension LuaState {
    /// Pushes the metatable of `Object`, building it the first time.
    func pushMetatable<Object: LuaUserdata>(for type: Object.Type) {
        let L = handle
        if let reference = userdataMetatables[ObjectIdentifier(type)] {
            wl_getref(L, reference)
            return
        }
        var members = LuaUserdataType<Object>()
        Object.describe(&members)
        _ = lua_checkstack(L, 8)
        wl_new_userdata_type(L, Object.luaTypeName)
        let metatable = lua_gettop(L)
        func table(_ entries: [(String, LuaUserdataType<Object>.Body)], metamethods: Bool) -> Int32 {
            lua_createtable(L, 0, Int32(entries.count))
            let table = lua_gettop(L)
            for (name, body) in entries {
                let box = Unmanaged.passRetained(MethodBox(state: self, body: body))
                wl_push_method(L, box.toOpaque(), metatable)
                lua_setfield(L, metamethods && name.hasPrefix("__") ? metatable : table, name)
            }
            return table
        }
        let methods = table(members.methods, metamethods: true)
        let getters = members.getters.isEmpty ? 0 : table(members.getters, metamethods: false)
        let setters = members.setters.isEmpty ? 0 : table(members.setters, metamethods: false)
        wl_set_userdata_members(L, metatable, methods, getters, setters)
        lua_settop(L, metatable)
        lua_pushvalue(L, metatable)
        userdataMetatables[ObjectIdentifier(type)] = luaL_ref(L, wl_registry_index())
    }
}
