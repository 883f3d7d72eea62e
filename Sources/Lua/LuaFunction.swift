/// A Lua function held from Swift: call it with typed arguments and results.
///
/// ```swift
/// let add = try state.load("return function(a, b) return a + b end", name: "add")
///     .call(returning: LuaFunction.self)
/// let sum: Int = try add.call(2, 3)             // 5
/// let text = try add.call(2, 3, returning: String.self)
/// ```
///
/// Each call from Swift is a host→script call: the state's CPU deadline covers it and a
/// failure throws a `LuaError`. Arguments are pushed and results read directly on the
/// stack; no `LuaValue` is built on the way.
import CLua
import CLuaShim

public final class LuaFunction: LuaReference {
    /// Calls the function and reads its first result as `R` (nil reads as `Optional.none`).
    @inlinable
    public func call<each A: LuaPushable, R: LuaReadable>(
        _ arguments: repeat each A, returning: R.Type = R.self
    ) throws -> R {
        let L = state.handle
        let top = try prepare()
        defer { lua_settop(L, top) }
        var count: Int32 = 0
        repeat (each arguments).push(to: state, counting: &count)
        try invoke(arguments: count, results: 1, handler: top + 1)
        return try result(R.self)
    }

    /// Calls the function and ignores its results.
    @inlinable
    public func call<each A: LuaPushable>(_ arguments: repeat each A) throws {
        let L = state.handle
        let top = try prepare()
        defer { lua_settop(L, top) }
        var count: Int32 = 0
        repeat (each arguments).push(to: state, counting: &count)
        try invoke(arguments: count, results: 0, handler: top + 1)
    }

    // Zero to three arguments without a parameter pack, for the hot path: the compiler
    // specialises these completely (a pack still pushes through value witnesses).

    /// Calls the function without arguments and reads its first result as `R`.
    @inlinable
    public func call<R: LuaReadable>(returning: R.Type = R.self) throws -> R {
        let top = try prepare()
        defer { lua_settop(state.handle, top) }
        try invoke(arguments: 0, results: 1, handler: top + 1)
        return try result(R.self)
    }

    /// Calls the function without arguments and ignores its results.
    @inlinable
    public func call() throws {
        let top = try prepare()
        defer { lua_settop(state.handle, top) }
        try invoke(arguments: 0, results: 0, handler: top + 1)
    }

    /// Calls the function with one argument and reads its first result as `R`.
    @inlinable
    public func call<A: LuaPushable, R: LuaReadable>(_ a: A, returning: R.Type = R.self) throws -> R {
        let top = try prepare()
        defer { lua_settop(state.handle, top) }
        a.push(to: state)
        try invoke(arguments: 1, results: 1, handler: top + 1)
        return try result(R.self)
    }

    /// Calls the function with two arguments and reads its first result as `R`.
    @inlinable
    public func call<A: LuaPushable, B: LuaPushable, R: LuaReadable>(
        _ a: A, _ b: B, returning: R.Type = R.self
    ) throws -> R {
        let top = try prepare()
        defer { lua_settop(state.handle, top) }
        a.push(to: state)
        b.push(to: state)
        try invoke(arguments: 2, results: 1, handler: top + 1)
        return try result(R.self)
    }

    /// Calls the function with three arguments and reads its first result as `R`.
    @inlinable
    public func call<A: LuaPushable, B: LuaPushable, C: LuaPushable, R: LuaReadable>(
        _ a: A, _ b: B, _ c: C, returning: R.Type = R.self
    ) throws -> R {
        let top = try prepare()
        defer { lua_settop(state.handle, top) }
        a.push(to: state)
        b.push(to: state)
        c.push(to: state)
        try invoke(arguments: 3, results: 1, handler: top + 1)
        return try result(R.self)
    }

    /// Calls the function with one argument and ignores its results.
    @inlinable
    public func call<A: LuaPushable>(_ a: A) throws {
        let top = try prepare()
        defer { lua_settop(state.handle, top) }
        a.push(to: state)
        try invoke(arguments: 1, results: 0, handler: top + 1)
    }

    /// Calls the function with two arguments and ignores its results.
    @inlinable
    public func call<A: LuaPushable, B: LuaPushable>(_ a: A, _ b: B) throws {
        let top = try prepare()
        defer { lua_settop(state.handle, top) }
        a.push(to: state)
        b.push(to: state)
        try invoke(arguments: 2, results: 0, handler: top + 1)
    }

    /// Calls the function with three arguments and ignores its results.
    @inlinable
    public func call<A: LuaPushable, B: LuaPushable, C: LuaPushable>(_ a: A, _ b: B, _ c: C) throws {
        let top = try prepare()
        defer { lua_settop(state.handle, top) }
        a.push(to: state)
        b.push(to: state)
        c.push(to: state)
        try invoke(arguments: 3, results: 0, handler: top + 1)
    }

    /// Calls the function and returns all its results as values.
    public func callForValues(_ arguments: [LuaValue]) throws -> [LuaValue] {
        let L = state.handle
        let top = try prepare()
        defer { lua_settop(L, top) }
        guard lua_checkstack(L, Int32(arguments.count) + 4) != 0 else {
            throw LuaError.runtime(ScriptFailure(message: "too many arguments (\(arguments.count))"))
        }
        for argument in arguments { argument.push(to: state) }
        try invoke(arguments: Int32(arguments.count), results: LUA_MULTRET, handler: top + 1)
        let results = lua_gettop(L) - top - 1                 // above the message handler
        return try (0..<results).map { try LuaValue.read(from: state, at: top + 2 + $0) }
    }

    /// Enters the state and pushes the message handler and the function; returns the
    /// stack top to restore (the handler sits at top + 1).
    @inlinable func prepare() throws -> Int32 {
        try state.checkOpen()
        state.enter()
        let top = wl_prepare_call(state.handle, reference)
        if top < 0 {
            throw LuaError.runtime(ScriptFailure(message: "stack overflow (Lua stack exhausted)"))
        }
        return top
    }

    /// Reads the call's one result, on top of the stack.
    @inlinable @inline(__always) func result<R: LuaReadable>(_ type: R.Type) throws -> R {
        // The slot is the call's own and is popped right after: a String can be read from
        // it with one call into Lua (the branch folds away once R is known).
        if R.self == String.self { return try String.readResult(from: state, at: -1) as! R }
        return try R.read(from: state, at: -1)
    }

    /// Runs the protected call under the state's deadline (invariant 4); any error is
    /// caught by the pcall, below every Swift frame (invariant 1).
    @inlinable func invoke(arguments: Int32, results: Int32, handler: Int32) throws {
        let timeout = state.timeoutNanoseconds
        let status = timeout == 0
            ? wl_invoke_untimed(state.handle, arguments, results, handler)
            : wl_invoke(state.handle, arguments, results, handler, timeout)
        if status != LUA_OK { throw state.error(status: status) }
    }
}

extension LuaFunction {
    /// Where the function is defined: its chunk as messages show it (`date.lua`) and the
    /// line of its `function` keyword (1 for a main chunk); nil for a host (C) function.
    /// A host that reports a function's bad result points there.
    public var definition: (chunk: String, line: Int)? {
        guard !state.isClosed else { return nil }
        let L = state.handle
        _ = lua_checkstack(L, 2)
        push()
        var info = lua_Debug()
        guard lua_getinfo(L, ">S", &info) != 0, info.linedefined >= 0 else { return nil }   // pops
        let chunk = withUnsafeBytes(of: &info.short_src) {
            String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
        }
        return (chunk, max(1, Int(info.linedefined)))
    }
}
