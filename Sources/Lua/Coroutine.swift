/// Async host functions and the driver that runs script functions as coroutines.
///
/// ```swift
/// let fetch = state.asyncFunction { (url: String) async throws -> String in
///     try await download(url)                      // runs off the state's isolation
/// }
/// try state.library().set("fetch", fetch)
/// let page = try state.load("""
///     return function(url) local body = fetch(url) return #body end
///     """, name: "page").call(returning: LuaFunction.self)
/// let size: Int = try await page.callAsync("https://example.com")
/// ```
///
/// When a script calls an async host function, the trampoline parks the calling coroutine
/// (bridge invariant 5): its resumers pass the park up to the driver, which awaits the
/// operation and resumes the chain with the result, or raises the error at the call site
/// so that a script's `pcall` can catch it. The script reads as straight-line code, and
/// its own coroutines keep their meaning: a `coroutine.wrap` generator that fetches still
/// yields its values to its caller. Each resume is a host→script call with its own CPU
/// deadline; time spent awaiting does not count.
///
/// The driver runs on the caller's isolation (`#isolation`), so the state never leaves
/// its domain; only the operation itself, built from `Sendable` arguments, runs elsewhere.
/// Many `callAsync` calls on one actor run concurrently, interleaving at their awaits.
import CLua
import CLuaShim

/// The work an async host function hands to the driver: its results, or an error.
typealias PendingOperation = @Sendable () async throws -> [any LuaPushable & Sendable]

extension LuaState {
    /// A Lua function that parks the calling coroutine while `body` runs.
    public func asyncFunction<each A: LuaReadable & Sendable, R: LuaPushable & Sendable>(
        _ body: @escaping @Sendable (repeat each A) async throws -> R
    ) -> LuaFunction {
        makeFunction { state in
            var position: Int32 = 0
            let arguments = (repeat try LuaCall.argument((each A).self, at: next(&position), in: state))
            return try state.park { [arguments] in [try await body(repeat each arguments)] }
        }
    }

    /// A Lua function that parks the calling coroutine while `body` runs; it returns nothing.
    public func asyncFunction<each A: LuaReadable & Sendable>(
        _ body: @escaping @Sendable (repeat each A) async throws -> Void
    ) -> LuaFunction {
        makeFunction { state in
            var position: Int32 = 0
            let arguments = (repeat try LuaCall.argument((each A).self, at: next(&position), in: state))
            return try state.park { [arguments] in
                try await body(repeat each arguments)
                return []
            }
        }
    }

    private func park(_ operation: @escaping PendingOperation) throws -> Int32 {
        guard lua_isyieldable(handle) != 0 else {
            let isMain = lua_pushthread(handle) != 0
            lua_settop(handle, -2)
            throw LuaError.runtime(ScriptFailure(message: isMain
                ? "attempt to wait for an async host function outside a coroutine (call the script function with callAsync)"
                : "attempt to wait for an async host function inside a call that cannot yield (a metamethod, a sort comparator, a gsub callback, or the main chunk of a required module)"))
        }
        pendingOperation = operation
        return WL_RETURN_AWAIT
    }

    /// Runs `function` in a new coroutine until it returns, awaiting the async host
    /// functions it calls. `pushArguments` pushes the arguments and returns their count.
    func drive<R>(
        _ function: LuaFunction, pushArguments: (LuaState) -> Int32,
        isolation: isolated (any Actor)?,
        readResults: (_ first: Int32, _ count: Int32) throws -> R
    ) async throws -> R {
        try checkOpen()
        enter()
        let main = mainThread
        let thread = lua_newthread(main)!
        let anchor = luaL_ref(main, wl_registry_index())   // keeps the thread alive
        defer { if !isClosed { luaL_unref(main, wl_registry_index(), anchor) } }
        _ = lua_checkstack(thread, 24)
        wl_getref(thread, function.reference)
        var arguments = onThread(thread) { pushArguments(self) }
        while true {
            pendingOperation = nil
            var results: Int32 = 0
            let depth = wl_call_begin(main, timeoutNanoseconds)
            let status = wl_resume(main, thread, arguments, &results)
            wl_call_end(main, depth)
            switch status {
            case LUA_OK:
                return try onThread(thread) { try readResults(lua_gettop(thread) - results + 1, results) }
            case LUA_YIELD:
                let parked = results == 1 && lua_touserdata(thread, -1) == wl_parked_marker()
                lua_settop(thread, -results - 1)
                if parked, let operation = pendingOperation {
                    pendingOperation = nil
                    let outcome: Result<[any LuaPushable & Sendable], any Error>
                    do { outcome = .success(try await operation()) } catch { outcome = .failure(error) }
                    try checkOpen()
                    // A cancelled caller no longer wants the result: the coroutine is left
                    // where it is (and collected) rather than resumed to make more requests.
                    try Task.checkCancellation()
                    arguments = onThread(thread) { resumeValues(outcome) }
                } else {
                    // A plain coroutine.yield in the driven function: let others run, then
                    // carry on.
                    await Task.yield()
                    try checkOpen()
                    arguments = 0
                }
            default:
                throw onThread(thread) { error(status: status) }
            }
        }
    }

    /// Pushes what a parked trampoline expects: true and the results, or false and the error.
    private func resumeValues(_ outcome: Result<[any LuaPushable & Sendable], any Error>) -> Int32 {
        _ = lua_checkstack(handle, 8)
        switch outcome {
        case .success(let values):
            _ = lua_checkstack(handle, Int32(values.count) + 2)
            lua_pushboolean(handle, 1)
            for value in values { value.push(to: self) }
            return Int32(values.count) + 1
        case .failure(let error):
            lua_pushboolean(handle, 0)
            if case LuaError.host(let underlying, _) = error { pushHostError(underlying) } else { pushHostError(error) }
            return 2
        }
    }

    /// Runs `body` with `thread` as the thread Swift reads and pushes on.
    func onThread<T>(_ thread: OpaquePointer, _ body: () throws -> T) rethrows -> T {
        let saved = handle
        handle = thread
        defer { handle = saved }
        return try body()
    }
}

extension LuaFunction {
    /// Calls the function as a coroutine and awaits it, resuming it whenever an async host
    /// function it called has finished. Reads the first result as `R`.
    public func callAsync<each A: LuaPushable, R: LuaReadable>(
        _ arguments: repeat each A, returning: R.Type = R.self,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> R {
        try await state.drive(self, pushArguments: { state in
            var count: Int32 = 0
            for argument in repeat each arguments {
                argument.push(to: state)
                count += 1
            }
            return count
        }, isolation: isolation) { [state] first, count in
            // With no result, `first` is one past the top: it reads as none (nil).
            try R.read(from: state, at: first)
        }
    }

    /// Calls the function as a coroutine, awaits it, and returns all its results.
    public func callAsyncForValues(
        _ arguments: [LuaValue], isolation: isolated (any Actor)? = #isolation
    ) async throws -> [LuaValue] {
        try await state.drive(self, pushArguments: { state in
            _ = lua_checkstack(state.handle, Int32(arguments.count) + 4)
            for argument in arguments { argument.push(to: state) }
            return Int32(arguments.count)
        }, isolation: isolation) { [state] first, count in
            _ = lua_checkstack(state.handle, 4)
            return try (0..<count).map { try LuaValue.read(from: state, at: first + $0) }
        }
    }

    /// Calls the function as a coroutine, awaits it, and ignores its results.
    public func callAsync<each A: LuaPushable>(
        _ arguments: repeat each A, isolation: isolated (any Actor)? = #isolation
    ) async throws {
        let _: LuaValue = try await callAsync(repeat each arguments, returning: LuaValue.self, isolation: isolation)
    }
}
