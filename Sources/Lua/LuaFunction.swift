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

extension LuaState {
    /// Calls script functions many times in a row, as a host drawing a frame calls a
    /// title function for each row: the state is checked, the message handler pushed, the
    /// stack made room for and (without a deadline and a ceiling) the calls' bookkeeping
    /// done once for the whole run, and `first` (when given) is passed as the first
    /// argument of every call from its registry slot. Each call then costs about what a C
    /// host's `lua_pcall` loop costs. Every call is still a host→script call of its own,
    /// with its own deadline and errors.
    ///
    /// ```swift
    /// let titles = try state.repeatedly(first: picker) { calls in
    ///     try (1...7).map { try calls.call(title, $0, returning: String.self) }   // title(picker, i)
    /// }
    /// ```
    @inlinable
    public func repeatedly<T>(first: LuaValue? = nil, _ body: (LuaRepeatedCalls) throws -> T) throws -> T {
        try checkOpen()
        enter()
        let L = handle
        let top = lua_gettop(L)
        guard lua_checkstack(L, 24) != 0 else {
            throw LuaError.runtime(ScriptFailure(message: "stack overflow (Lua stack exhausted)"))
        }
        defer { lua_settop(L, top) }
        lua_pushcclosure(L, wl_message_handler, 0)      // the handler, at top + 1
        var firstSlot = LUA_NOREF
        if let first {
            if let reference = first.reference {
                precondition(reference.state === self, "a Lua reference was pushed into another state")
                firstSlot = reference.reference
            } else {
                // A plain value (a number, a string) is kept on the stack, above the handler.
                first.push(to: self)
                firstSlot = LUA_REFNIL
            }
        }
        // Without a deadline and a ceiling, the calls' bookkeeping (wl_invoke_untimed's)
        // is done once for the run, and each call is a plain lua_pcall.
        let plain = timeoutNanoseconds == 0 && wl_memory_limit(L) == 0
        let depth = plain ? wl_call_begin(L, 0) : 0
        defer { if plain { wl_call_end(L, depth) } }
        return try body(LuaRepeatedCalls(state: self, thread: L, handler: top + 1, first: firstSlot,
                                         plain: plain, nested: depth > 0))
    }
}

/// The calls of `LuaState.repeatedly`, all under the message handler it pushed. Valid
/// only inside that closure, on the thread it was made on, for functions of its state.
///
/// It keeps what each call needs (the thread, the first argument's registry slot, the
/// deadline) in its own fields: after a call Lua's work has usually pushed the state's
/// Swift objects out of the processor's cache, and a C loop keeps those in registers.
public struct LuaRepeatedCalls {
    /// Held strongly, once per run: a call then borrows it (an unowned field would be
    /// copied into a strong reference, a retain and a release, on every use).
    @usableFromInline let state: LuaState
    @usableFromInline let L: OpaquePointer
    @usableFromInline let handler: Int32
    /// The first argument's registry slot; LUA_REFNIL: it sits on the stack at handler + 1;
    /// LUA_NOREF: there is none.
    @usableFromInline let first: Int32
    @usableFromInline let timeout: Int64
    /// Calls are plain lua_pcalls (see `repeatedly`); `nested`: the run is inside another
    /// call from Swift, whose failure records it must keep.
    @usableFromInline let plain: Bool
    @usableFromInline let nested: Bool

    @usableFromInline init(state: LuaState, thread: OpaquePointer, handler: Int32, first: Int32,
                           plain: Bool, nested: Bool) {
        self.state = state
        self.L = thread
        self.handler = handler
        self.first = first
        self.timeout = state.timeoutNanoseconds
        self.plain = plain
        self.nested = nested
    }

    /// Calls `function` with `a` (after the first argument, if any) and reads its first
    /// result as `R`.
    @inlinable
    public func call<A: LuaPushable, R: LuaReadable>(_ function: LuaFunction, _ a: A, returning: R.Type = R.self) throws -> R {
        try target(function).call(a, returning: R.self)
    }

    /// `function`, ready for many calls in this run: its registry slot is read once.
    @inlinable
    public func target(_ function: LuaFunction) -> Target {
        precondition(function.state === state, "a Lua function was called in another state")
        return Target(calls: self, slot: function.reference)
    }

    /// A function of a run of calls, its registry slot at hand.
    public struct Target {
        @usableFromInline let calls: LuaRepeatedCalls
        @usableFromInline let slot: Int32

        @usableFromInline init(calls: LuaRepeatedCalls, slot: Int32) {
            self.calls = calls
            self.slot = slot
        }

        /// Calls the function with `a` (after the run's first argument, if any) and reads
        /// its first result as `R`.
        @inlinable
        public func call<A: LuaPushable, R: LuaReadable>(_ a: A, returning: R.Type = R.self) throws -> R {
            try calls.call(slot: slot, a, returning: R.self)
        }
    }

    @inlinable
    func call<A: LuaPushable, R: LuaReadable>(slot: Int32, _ a: A, returning: R.Type) throws -> R {
        let base = first == LUA_REFNIL ? handler + 1 : handler
        defer { lua_settop(L, base) }
        wl_getref(L, slot)
        var count: Int32 = 1
        if first == LUA_REFNIL {
            lua_pushvalue(L, handler + 1)
            count += 1
        } else if first != LUA_NOREF {
            wl_getref(L, first)
            count += 1
        }
        a.push(to: state)
        let status = plain
            ? lua_pcallk(L, count, 1, handler, 0, nil)
            : timeout == 0 ? wl_invoke_untimed(L, count, 1, handler) : wl_invoke(L, count, 1, handler, timeout)
        if status != LUA_OK {
            let error = state.error(status: status)
            if plain && !nested { wl_clear_failure(L) }
            throw error
        }
        // The result's slot is the call's own: a String is read with one call into Lua,
        // from the thread itself (the state object is needed only for text that is long
        // or not ASCII).
        if R.self == String.self {
            let string = wl_tolstring(L, -1)
            if let bytes = string.bytes, string.length <= 15, let text = String.smallASCII(bytes, string.length) {
                return text as! R
            }
            return try String.readAny(from: state, at: -1) as! R
        }
        return try R.read(from: state, at: -1)
    }
}

extension LuaValue {
    /// The reference behind a table, function, userdata or thread; nil for plain values.
    @usableFromInline var reference: LuaReference? {
        switch self {
        case .table(let table): table
        case .function(let function): function
        case .userdata(let reference), .thread(let reference): reference
        default: nil
        }
    }
}
