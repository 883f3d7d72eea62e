/// Swift closures as Lua functions.
///
/// ```swift
/// let greet = state.function { (name: String, times: Int?) -> String in
///     String(repeating: "hello \(name) ", count: times ?? 1)
/// }
/// try state.library().set("greet", greet)       // every script sees `greet`
/// // greet(nil) in a script: bad argument #1 to 'greet' (string expected, got nil)
///
/// let pair = state.function { (call: LuaCall) in    // any number of arguments and results
///     call.return(call.count, "args")
/// }
/// ```
///
/// The closure runs between two halves of a C trampoline (bridge invariant 1): it reads
/// its arguments and pushes its results, and anything it throws becomes an error that the
/// trampoline raises after the closure's frame has returned. A thrown Swift error reaches
/// Lua as a value a script can `pcall`, and comes back to Swift as `LuaError.host` with the
/// same error inside.
import CLua
import CLuaShim

/// A host function's view of its call: arguments in, results out.
public struct LuaCall {
    public let state: LuaState

    /// The number of arguments.
    public var count: Int { Int(lua_gettop(state.handle)) }

    /// Argument `position` (1-based, as Lua counts), as `T`. A mismatch is Lua's usual
    /// `bad argument #n to 'name' (T expected, got U)`.
    public func argument<T: LuaReadable>(_ position: Int, as type: T.Type = T.self) throws -> T {
        try LuaCall.argument(T.self, at: Int32(position), in: state)
    }

    /// Pushes `values` as the results and returns their count for the trampoline.
    public func `return`<each R: LuaPushable>(_ values: repeat each R) -> LuaReturn {
        var count: Int32 = 0
        _ = lua_checkstack(state.handle, 8)
        for value in repeat each values {
            value.push(to: state)
            count += 1
        }
        return LuaReturn(count: count)
    }

    @inlinable @inline(__always)
    static func argument<T: LuaReadable>(_ type: T.Type, at position: Int32, in state: LuaState) throws -> T {
        do {
            return try T.read(from: state, at: position)
        } catch {
            throw argumentError(error, at: position)      // out of line: the hot path stays small
        }
    }

    @usableFromInline static func argumentError(_ error: any Error, at position: Int32) -> any Error {
        guard case LuaError.typeMismatch(let expected, let actual, let context) = error else { return error }
        return ArgumentError(position: position, message: context.isEmpty
            ? "\(expected) expected, got \(actual)" : "\(expected) expected at \(context), got \(actual)")
    }
}

/// What a raw host function returns: how many results it pushed.
public struct LuaReturn {
    public let count: Int32
}

/// An argument that did not convert; raised as `bad argument #n to 'name' (message)`.
public struct ArgumentError: Error {
    public var position: Int32
    public var message: String

    public init(position: Int32, message: String) {
        self.position = position
        self.message = message
    }
}

/// The Swift side of one Lua function: its body reads and pushes on `state.handle`.
///
/// The box holds no reference to its state: the trampoline passes the state along (it is
/// the host recorded in the runtime, alive until lua_close has released every box).
final class HostFunctionBox {
    let body: (LuaState) throws -> Int32

    init(body: @escaping (LuaState) throws -> Int32) {
        self.body = body
    }
}

extension LuaState {
    // The typed `function` overloads are inlinable so that each call site gets the body
    // specialised for its argument and result types: unspecialised, a parameter pack
    // reads every argument through witness tables and boxes.

    /// A Lua function that calls `body` with typed arguments and pushes its result.
    @inlinable
    public func function<each A: LuaReadable, R: LuaPushable>(
        _ body: @escaping (repeat each A) throws -> R
    ) -> LuaFunction {
        makeFunction { state in
            var position: Int32 = 0
            let result = try body(repeat try LuaCall.argument((each A).self, at: next(&position), in: state))
            result.push(to: state)
            return 1
        }
    }

    /// A Lua function that calls `body` with typed arguments and returns nothing.
    @inlinable
    public func function<each A: LuaReadable>(
        _ body: @escaping (repeat each A) throws -> Void
    ) -> LuaFunction {
        makeFunction { state in
            var position: Int32 = 0
            try body(repeat try LuaCall.argument((each A).self, at: next(&position), in: state))
            return 0
        }
    }

    // Zero to three arguments, the common case, without a parameter pack: the compiler
    // specialises these completely (a pack still reads through witness tables).

    /// A Lua function without arguments that pushes its result.
    @inlinable
    public func function<R: LuaPushable>(_ body: @escaping () throws -> R) -> LuaFunction {
        makeFunction { state in
            try body().push(to: state)
            return 1
        }
    }

    /// A Lua function without arguments that returns nothing.
    @inlinable
    public func function(_ body: @escaping () throws -> Void) -> LuaFunction {
        makeFunction { _ in
            try body()
            return 0
        }
    }

    /// A Lua function of one typed argument that pushes its result.
    @inlinable
    public func function<A: LuaReadable, R: LuaPushable>(_ body: @escaping (A) throws -> R) -> LuaFunction {
        makeFunction { state in
            try body(LuaCall.argument(A.self, at: 1, in: state)).push(to: state)
            return 1
        }
    }

    /// A Lua function of two typed arguments that pushes its result.
    @inlinable
    public func function<A: LuaReadable, B: LuaReadable, R: LuaPushable>(
        _ body: @escaping (A, B) throws -> R
    ) -> LuaFunction {
        makeFunction { state in
            try body(LuaCall.argument(A.self, at: 1, in: state),
                     LuaCall.argument(B.self, at: 2, in: state)).push(to: state)
            return 1
        }
    }

    /// A Lua function of three typed arguments that pushes its result.
    @inlinable
    public func function<A: LuaReadable, B: LuaReadable, C: LuaReadable, R: LuaPushable>(
        _ body: @escaping (A, B, C) throws -> R
    ) -> LuaFunction {
        makeFunction { state in
            try body(LuaCall.argument(A.self, at: 1, in: state),
                     LuaCall.argument(B.self, at: 2, in: state),
                     LuaCall.argument(C.self, at: 3, in: state)).push(to: state)
            return 1
        }
    }

    /// A Lua function of one typed argument that returns nothing.
    @inlinable
    public func function<A: LuaReadable>(_ body: @escaping (A) throws -> Void) -> LuaFunction {
        makeFunction { state in
            try body(LuaCall.argument(A.self, at: 1, in: state))
            return 0
        }
    }

    /// A Lua function of two typed arguments that returns nothing.
    @inlinable
    public func function<A: LuaReadable, B: LuaReadable>(_ body: @escaping (A, B) throws -> Void) -> LuaFunction {
        makeFunction { state in
            try body(LuaCall.argument(A.self, at: 1, in: state), LuaCall.argument(B.self, at: 2, in: state))
            return 0
        }
    }

    /// A Lua function of three typed arguments that returns nothing.
    @inlinable
    public func function<A: LuaReadable, B: LuaReadable, C: LuaReadable>(
        _ body: @escaping (A, B, C) throws -> Void
    ) -> LuaFunction {
        makeFunction { state in
            try body(LuaCall.argument(A.self, at: 1, in: state),
                     LuaCall.argument(B.self, at: 2, in: state),
                     LuaCall.argument(C.self, at: 3, in: state))
            return 0
        }
    }

    /// A Lua function with any number of arguments and results.
    public func function(_ body: @escaping (LuaCall) throws -> LuaReturn) -> LuaFunction {
        makeFunction { state in try body(LuaCall(state: state)).count }
    }

    @usableFromInline
    func makeFunction(_ body: @escaping (LuaState) throws -> Int32) -> LuaFunction {
        enter()
        let box = Unmanaged.passRetained(HostFunctionBox(body: body))
        wl_push_function(handle, box.toOpaque())
        return LuaFunction(popping: self)
    }

    /// Puts `error` on the stack for the trampoline to raise; returns the trampoline's code.
    func raise(_ error: any Error) -> Int32 {
        let L = handle
        _ = lua_checkstack(L, 4)
        switch error {
        case let argument as ArgumentError:
            argument.message.push(to: self)
            wl_set_error_arg(L, argument.position)
            return WL_RETURN_ARGERROR
        case LuaError.runtime(let failure), LuaError.syntax(let failure):
            // A script error from a nested call: raise its message again, position included.
            failure.message.push(to: self)
        case LuaError.host(let underlying, _):
            pushHostError(underlying)
        case let error as LuaError:
            // Limits stay sticky in the runtime, so classification at the top still works.
            error.description.push(to: self)
        default:
            pushHostError(error)
        }
        return WL_RETURN_ERROR
    }
}

@inlinable func next(_ position: inout Int32) -> Int32 {
    position += 1
    return position
}

// MARK: - Host errors carried through Lua

/// The userdata that carries a Swift error through Lua. `tostring(e)` in a script gives
/// the error's description.
final class HostErrorBox {
    let error: any Error
    init(_ error: any Error) { self.error = error }
}

extension LuaState {
    func makeErrorMetatable() -> Int32 {
        let L = handle
        wl_new_userdata_type(L, "host error")
        let metatable = lua_gettop(L)
        // The method trampoline has checked that `self` is a host error before this runs.
        let describe = MethodBox { object, state in
            let box = Unmanaged<HostErrorBox>.fromOpaque(object).takeUnretainedValue()
            String(describing: box.error).push(to: state)
            return 1
        }
        wl_push_method(L, Unmanaged.passRetained(describe).toOpaque(), metatable)
        lua_setfield(L, metatable, "__tostring")
        return luaL_ref(L, wl_registry_index())
    }

    func pushHostError(_ error: any Error) {
        let L = handle
        wl_getref(L, errorMetatableReference)
        wl_push_object(L, Unmanaged.passRetained(HostErrorBox(error)).toOpaque(), -1)
        lua_rotate(L, -2, 1)
        lua_settop(L, -2)
    }

    func hostError(at index: Int32) -> (any Error)? {
        let L = handle
        guard lua_type(L, index) == LUA_TUSERDATA else { return nil }
        let index = lua_absindex(L, index)
        wl_getref(L, errorMetatableReference)
        defer { lua_settop(L, -2) }
        guard let pointer = wl_to_object(L, index, -1) else { return nil }
        return Unmanaged<HostErrorBox>.fromOpaque(pointer).takeUnretainedValue().error
    }
}

// MARK: - The entry points the C trampolines call

/// Installs the Swift entry points in the shim, once per process.
func installBridge() { _ = bridgeInstalled }

private let bridgeInstalled: Void = wl_install(dispatchFunction, dispatchMethod, releaseBox)

// The trampolines never pass a null pointer: `unsafelyUnwrapped` costs no check in an
// optimized build. The host is the LuaState that owns `L`: wl_set_host records it,
// unretained, in its initializer, and it outlives its lua_State (close() runs lua_close,
// which releases every box, before the LuaState is gone). The trampoline reads it from
// the runtime record, so it does not wait on the box to be found.

/// Runs `body` on the host state with Swift working on `L`'s stack (the call may come
/// from any coroutine of the state); a thrown error becomes the trampoline's error code.
@inline(__always)
private func onStack(_ L: OpaquePointer?, _ host: UnsafeMutableRawPointer?,
                     _ body: (LuaState) throws -> Int32) -> Int32 {
    Unmanaged<LuaState>.fromOpaque(host.unsafelyUnwrapped)._withUnsafeGuaranteedRef { state in
        let saved = state.handle
        state.handle = L.unsafelyUnwrapped
        defer { state.handle = saved }
        do {
            return try body(state)
        } catch {
            return state.raise(error)
        }
    }
}

@inline(__always)
private func dispatchFunction(_ L: OpaquePointer?, _ box: UnsafeMutableRawPointer?,
                              _ host: UnsafeMutableRawPointer?) -> Int32 {
    Unmanaged<HostFunctionBox>.fromOpaque(box.unsafelyUnwrapped)._withUnsafeGuaranteedRef { function in
        onStack(L, host) { state in try function.body(state) }
    }
}

@inline(__always)
private func dispatchMethod(_ L: OpaquePointer?, _ box: UnsafeMutableRawPointer?,
                            _ object: UnsafeMutableRawPointer?, _ host: UnsafeMutableRawPointer?) -> Int32 {
    Unmanaged<MethodBox>.fromOpaque(box.unsafelyUnwrapped)._withUnsafeGuaranteedRef { method in
        onStack(L, host) { state in try method.body(object.unsafelyUnwrapped, state) }
    }
}

private func releaseBox(_ box: UnsafeMutableRawPointer?) {
    guard let box else { return }
    Unmanaged<AnyObject>.fromOpaque(box).release()
}

extension LuaState {
    /// An error for a host function to throw, located as Lua's own errors are: the message
    /// starts with `chunk:line:` of the script code that called it (`level` 1), as
    /// `luaL_error` does, and a script's `pcall` receives it as that string.
    public func callerError(_ message: String, level: Int32 = 1) -> LuaError {
        let L = handle
        _ = lua_checkstack(L, 2)
        luaL_where(L, level)   // pushes "chunk:line: " or ""; allocation cannot raise here (invariant 1)
        let location = (try? String.read(from: self, at: -1)) ?? ""
        lua_settop(L, -2)
        return .runtime(ScriptFailure(message: location + message))
    }
}
