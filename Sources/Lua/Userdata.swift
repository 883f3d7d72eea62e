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
    @usableFromInline typealias Body = (UnsafeMutableRawPointer, LuaState) throws -> Int32
    @usableFromInline var methods: [(String, Body)] = []
    var getters: [(String, Body)] = []
    var setters: [(String, Body)] = []

    /// Runs `body` on the object behind a userdata's pointer, borrowed: no retain and
    /// release per call. The userdata is argument 1 of the running method (or property
    /// accessor), so Lua keeps it, and the retain it holds on the object, alive until the
    /// trampoline has returned.
    @inlinable @inline(__always)
    static func withObject<T>(_ pointer: UnsafeMutableRawPointer, _ body: (Object) throws -> T) rethrows -> T {
        try Unmanaged<Object>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    /// A method called as `object:name(...)`. Names that start with `__` become metamethods.
    public mutating func method<each A: LuaReadable, R: LuaPushable>(
        _ name: String, _ body: @escaping (Object, repeat each A) throws -> R
    ) {
        methods.append((name, { pointer, state in
            var position: Int32 = 1
            let result = try Self.withObject(pointer) { object in
                try body(object, repeat try LuaCall.argument((each A).self, at: next(&position), in: state))
            }
            result.push(to: state)
            return 1
        }))
    }

    /// A method that returns nothing.
    public mutating func method<each A: LuaReadable>(
        _ name: String, _ body: @escaping (Object, repeat each A) throws -> Void
    ) {
        methods.append((name, { pointer, state in
            var position: Int32 = 1
            try Self.withObject(pointer) { object in
                try body(object, repeat try LuaCall.argument((each A).self, at: next(&position), in: state))
            }
            return 0
        }))
    }

    // Zero to two arguments without a parameter pack, inlinable: each declaration gets a
    // method body specialised for its types (a pack reads through witness tables and
    // reabstraction thunks).

    /// A method without arguments that pushes its result.
    @inlinable
    public mutating func method<R: LuaPushable>(_ name: String, _ body: @escaping (Object) throws -> R) {
        methods.append((name, { pointer, state in
            try Self.withObject(pointer) { try body($0) }.push(to: state)
            return 1
        }))
    }

    /// A method without arguments that returns nothing.
    @inlinable
    public mutating func method(_ name: String, _ body: @escaping (Object) throws -> Void) {
        methods.append((name, { pointer, _ in
            try Self.withObject(pointer) { try body($0) }
            return 0
        }))
    }

    /// A method of one typed argument that pushes its result.
    @inlinable
    public mutating func method<A: LuaReadable, R: LuaPushable>(
        _ name: String, _ body: @escaping (Object, A) throws -> R
    ) {
        methods.append((name, { pointer, state in
            let a = try LuaCall.argument(A.self, at: 2, in: state)
            try Self.withObject(pointer) { try body($0, a) }.push(to: state)
            return 1
        }))
    }

    /// A method of one typed argument that returns nothing.
    @inlinable
    public mutating func method<A: LuaReadable>(_ name: String, _ body: @escaping (Object, A) throws -> Void) {
        methods.append((name, { pointer, state in
            let a = try LuaCall.argument(A.self, at: 2, in: state)
            try Self.withObject(pointer) { try body($0, a) }
            return 0
        }))
    }

    /// A method of two typed arguments that pushes its result.
    @inlinable
    public mutating func method<A: LuaReadable, B: LuaReadable, R: LuaPushable>(
        _ name: String, _ body: @escaping (Object, A, B) throws -> R
    ) {
        methods.append((name, { pointer, state in
            let a = try LuaCall.argument(A.self, at: 2, in: state)
            let b = try LuaCall.argument(B.self, at: 3, in: state)
            try Self.withObject(pointer) { try body($0, a, b) }.push(to: state)
            return 1
        }))
    }

    /// A method of two typed arguments that returns nothing.
    @inlinable
    public mutating func method<A: LuaReadable, B: LuaReadable>(
        _ name: String, _ body: @escaping (Object, A, B) throws -> Void
    ) {
        methods.append((name, { pointer, state in
            let a = try LuaCall.argument(A.self, at: 2, in: state)
            let b = try LuaCall.argument(B.self, at: 3, in: state)
            try Self.withObject(pointer) { try body($0, a, b) }
            return 0
        }))
    }

    /// A read-only property: `object.name`.
    public mutating func property<V: LuaPushable>(_ name: String, get: @escaping (Object) throws -> V) {
        getters.append((name, { pointer, state in
            try Self.withObject(pointer) { try get($0) }.push(to: state)
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
            try Self.withObject(pointer) { try set($0, value) }
            return 0
        }))
    }
}

/// The Swift side of one method, getter or setter (like HostFunctionBox, it gets its
/// state from the trampoline).
final class MethodBox {
    let body: (UnsafeMutableRawPointer, LuaState) throws -> Int32

    init(body: @escaping (UnsafeMutableRawPointer, LuaState) throws -> Int32) {
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
                let box = Unmanaged.passRetained(MethodBox(body: body))
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
