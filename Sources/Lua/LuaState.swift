/// A Lua 5.4 state with Wheel's safety rules: a sandbox by default, a memory ceiling, a CPU
/// deadline per call, and errors as Swift values.
///
/// ```swift
/// let state = try LuaState(options: .init(memoryLimit: 64 << 20, timeout: .seconds(1)))
/// let title = try state.load("return function(row) return 'row ' .. row end", name: "titles")
///     .call(returning: LuaFunction.self)
/// let text: String = try title.call(3)          // "row 3"
/// state.close()
/// ```
///
/// A `LuaState` is not `Sendable`: it lives in one isolation domain (an actor, the main
/// actor, a task), and Swift 6 proves that no other domain touches it (DESIGN, bridge
/// invariant 6). References to its values (`LuaFunction`, `LuaTable`) are likewise confined.
/// Host closures that capture references of the same state keep it alive until `close()`.
import CLua
import CLuaShim

public final class LuaState {
    /// How a state is set up.
    public struct Options: Sendable {
        public enum Mode: Sendable {
            /// The safe library of DESIGN invariant 3.
            case sandboxed
            /// The whole standard library (io, os, debug, package, C modules).
            case trusted
        }
        public var mode: Mode
        /// The most bytes the state may allocate; nil for no ceiling.
        public var memoryLimit: Int?
        /// The CPU deadline of each host→script call (nested calls share the outer one);
        /// nil for none.
        public var timeout: Duration?
        /// Where `print`, `warn`-style messages and errors in `__gc` go.
        public var log: LuaLogSink?
        /// The deepest nesting `json.encode` and `json.decode` accept.
        public var jsonMaxDepth: Int

        public init(
            mode: Mode = .sandboxed, memoryLimit: Int? = nil, timeout: Duration? = nil,
            log: LuaLogSink? = nil, jsonMaxDepth: Int = 128
        ) {
            self.mode = mode
            self.memoryLimit = memoryLimit
            self.timeout = timeout
            self.log = log
            self.jsonMaxDepth = jsonMaxDepth
        }
    }

    public let options: Options
    /// The raw state, for code that must reach the C API itself (bridge invariant 1 is
    /// then the caller's to keep): the thread Swift code works on, the main thread or
    /// the coroutine whose host function is running.
    ///
    /// Read on every call, so without dynamic exclusivity checks: the state is confined
    /// to one isolation domain (invariant 6) and no access to it ever overlaps another.
    @exclusivity(unchecked) public internal(set) var handle: OpaquePointer
    let mainThread: OpaquePointer
    @usableFromInline let releases = ReleaseQueue()
    @usableFromInline let timeoutNanoseconds: Int64
    /// Unchecked for the same reason as `handle`.
    @exclusivity(unchecked) @usableFromInline var isClosed = false

    /// Registry references of the state's own tables.
    var libraryReference: Int32 = LUA_NOREF
    var defaultEnvironmentReference: Int32 = LUA_NOREF
    var errorMetatableReference: Int32 = LUA_NOREF
    var userdataMetatables: [ObjectIdentifier: Int32] = [:]
    private var logBox: Unmanaged<LogBox>?
    /// The operation an async host function asked the driver to await (see Coroutine.swift).
    var pendingOperation: PendingOperation?

    public init(options: Options = Options()) throws {
        installBridge()
        guard let handle = wl_newstate(options.memoryLimit.map { max(0, $0) } ?? 0) else {
            throw LuaError.memory(limit: options.memoryLimit ?? 0, failure: ScriptFailure(message: "not enough memory to create a Lua state"))
        }
        self.options = options
        self.handle = handle
        self.mainThread = handle
        self.timeoutNanoseconds = options.timeout.map { max(1, $0.nanoseconds) } ?? 0
        wl_set_host(handle, Unmanaged.passUnretained(self).toOpaque())
        if let sink = options.log {
            let box = Unmanaged.passRetained(LogBox(sink))
            logBox = box
            wl_set_log(handle, logTrampoline, box.toOpaque())
        }
        // Set-up allocations cannot fail here: the runtime starts "unprotected", so the
        // ceiling is checked from the first call on.
        wl_open_libraries(handle, options.mode == .sandboxed ? 1 : 0)
        let library = lua_gettop(handle)
        wl_open_json(handle, Int32(clamping: options.jsonMaxDepth))
        lua_setfield(handle, library, "json")
        libraryReference = luaL_ref(handle, wl_registry_index())
        errorMetatableReference = makeErrorMetatable()
        if let limit = options.memoryLimit, wl_memory_used(handle) > limit {
            close()
            throw LuaError.memory(limit: limit, failure: ScriptFailure(
                message: "not enough memory: the standard library alone needs more than \(ByteCount(limit))"))
        }
    }

    deinit { close() }

    /// Closes the state: runs pending finalizers and releases every Swift object that Lua
    /// held. References to its values become unusable (their calls throw `.closed`).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        releases.close()
        wl_close(mainThread)
        logBox?.release()
        logBox = nil
    }

    // MARK: - Memory

    /// Bytes the state has allocated.
    public var memoryUsed: Int { wl_memory_used(handle) }

    /// Runs a full garbage collection.
    public func collectGarbage() {
        guard !isClosed else { return }
        enter()
        wl_collect(handle)
    }

    // MARK: - Loading

    /// Compiles `source` (text only) into a function whose environment is `environment`,
    /// or the state's default environment. `name` appears in messages as `name:line:`.
    public func load(_ source: String, name: String, environment: LuaTable? = nil) throws -> LuaFunction {
        try checkOpen()
        enter()
        let chunkName = name.hasPrefix("@") || name.hasPrefix("=") ? name : "=" + name
        return try compile(Array(source.utf8), chunkName: chunkName, environment: environment)
    }

    /// Reads a script file and compiles it in a new environment of its own whose
    /// `require`, `dofile` and `loadfile` see the file's folder only. Errors name the file
    /// as given (`examples/demo.lua:3:`).
    public func load(file path: String) throws -> LuaFunction {
        try checkOpen()
        enter()
        let bytes = try ScriptFile.read(path)
        let folder = ScriptFile.folder(of: path)
        let environment = try newEnvironment(folder: folder)
        return try compile(bytes, chunkName: "@" + path, environment: environment)
    }

    /// Loads and runs `source`, discarding its results.
    public func run(_ source: String, name: String) throws {
        try load(source, name: name).call()
    }

    /// A new environment for a script: a copy of the safe library (sandboxed) or a table
    /// that reads through to the globals (trusted), with `load`, and in the sandbox
    /// `require`, `dofile` and `loadfile` confined to `folder`.
    public func newEnvironment(folder: String? = nil) throws -> LuaTable {
        try checkOpen()
        enter()
        wl_getref(handle, libraryReference)
        if let folder {
            folder.withCString { _ = wl_new_environment(handle, -1, $0, options.mode == .trusted ? 1 : 0) }
        } else {
            wl_new_environment(handle, -1, nil, options.mode == .trusted ? 1 : 0)
        }
        lua_rotate(handle, -2, -1)
        lua_settop(handle, -2)
        return LuaTable(popping: self)
    }

    /// The environment of chunks loaded without one. Host functions set here are globals
    /// for such chunks.
    public func defaultEnvironment() throws -> LuaTable {
        try checkOpen()
        if defaultEnvironmentReference == LUA_NOREF {
            let environment = try newEnvironment()
            environment.push()
            defaultEnvironmentReference = luaL_ref(handle, wl_registry_index())
        }
        wl_getref(handle, defaultEnvironmentReference)
        return LuaTable(popping: self)
    }

    /// The library every new script environment copies. Set host functions and modules
    /// here before loading scripts, and every script sees them.
    public func library() throws -> LuaTable {
        try checkOpen()
        wl_getref(handle, libraryReference)
        return LuaTable(popping: self)
    }

    private func compile(_ bytes: [UInt8], chunkName: String, environment: LuaTable?) throws -> LuaFunction {
        let top = lua_gettop(handle)
        defer { lua_settop(handle, top) }
        let source = bytes.isEmpty ? [0x20] : bytes   // an empty chunk, with a buffer to point at
        let status = source.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                wl_load(handle, chars.baseAddress, chars.count, chunkName, options.mode == .sandboxed ? 1 : 0)
            }
        }
        guard status == LUA_OK else { throw error(status: status) }
        // A chunk's first upvalue is its _ENV.
        if let environment { environment.push() } else { try defaultEnvironment().push() }
        if lua_setupvalue(handle, -2, 1) == nil { lua_settop(handle, -2) }
        return LuaFunction(popping: self)
    }

    // MARK: - Entering and leaving

    @usableFromInline func checkOpen() throws {
        if isClosed { throw LuaError.closed }
    }

    /// Called at every entry from Swift: releases references let go since the last entry.
    @inlinable func enter() {
        if releases.hasPending { drainReleases() }
    }

    @usableFromInline func drainReleases() {
        for reference in releases.take() {
            luaL_unref(handle, wl_registry_index(), reference)
        }
    }

    // MARK: - Errors

    /// Turns the error value on top of the stack (after a failed call) into a LuaError.
    @usableFromInline func error(status: Int32, at index: Int32 = -1) -> LuaError {
        let fatal = Int(wl_fatal(handle))
        if fatal == Int(WL_FATAL_TIMEOUT) {
            let limit = options.timeout ?? .zero
            return .timeout(limit: limit, failure: failure(message:
                "script timed out: the call exceeded its CPU deadline of \(Milliseconds(limit))"))
        }
        if fatal == Int(WL_FATAL_MEMORY) || status == LUA_ERRMEM {
            let limit = options.memoryLimit ?? 0
            return .memory(limit: limit, failure: failure(message: limit > 0
                ? "not enough memory: the script reached its ceiling of \(ByteCount(limit))"
                : "not enough memory"))
        }
        if let underlying = hostError(at: index) {
            return .host(underlying: underlying, failure: failure(message: "\(underlying)"))
        }
        var failure = failure(message: "")      // the frames first: describing may call Lua
        failure.message = describeError(at: index)
        if status == LUA_ERRSYNTAX { return .syntax(syntaxFailure(failure.message)) }
        return .runtime(failure)
    }

    private func failure(message: String) -> ScriptFailure {
        var frames: [ScriptFailure.Frame] = []
        let count = wl_frame_count(handle)
        frames.reserveCapacity(Int(count))
        for index in 0..<count {
            var frame = wl_frame_at(handle, index)!.pointee
            let source = withUnsafeBytes(of: &frame.source) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            let name = withUnsafeBytes(of: &frame.name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            let kind = withUnsafeBytes(of: &frame.what) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            let nameKind = withUnsafeBytes(of: &frame.namewhat) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            frames.append(.init(source: source, line: frame.line > 0 ? Int(frame.line) : nil,
                                function: name.isEmpty ? nil : name, kind: kind, nameKind: nameKind,
                                lineDefined: frame.linedefined > 0 ? Int(frame.linedefined) : nil))
        }
        let innermost = frames.first { $0.kind != "C" && $0.line != nil }
        return ScriptFailure(message: message, chunk: innermost?.source, line: innermost?.line, frames: frames)
    }

    /// Syntax errors carry no frames; their message starts `chunk:line:`.
    private func syntaxFailure(_ message: String) -> ScriptFailure {
        var failure = ScriptFailure(message: message)
        let parts = message.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        if parts.count == 3, let line = Int(parts[1]) {
            failure.chunk = String(parts[0])
            failure.line = line
        }
        return failure
    }

    /// A message for any error value, without running scripts' metamethods unprotected.
    private func describeError(at index: Int32) -> String {
        let index = lua_absindex(handle, index)
        switch lua_type(handle, index) {
        case LUA_TSTRING, LUA_TNUMBER:
            return (try? String.read(from: self, at: index)) ?? "(error message is not valid UTF-8)"
        case LUA_TNIL:
            return "nil"
        default:
            let top = lua_gettop(handle)
            defer { lua_settop(handle, top) }
            if wl_ptolstring(handle, index) == LUA_OK, let text = try? String.read(from: self, at: -1) {
                return text
            }
            return "(error object is a \(String(cString: lua_typename(handle, lua_type(handle, index)))) value)"
        }
    }

    // MARK: - Log

    func log(_ level: LuaLogLevel, _ message: String) {
        options.log?(level, message)
    }
}

/// Where a state's `print` and warnings go.
public typealias LuaLogSink = @Sendable (LuaLogLevel, String) -> Void

public enum LuaLogLevel: Int, Sendable, Comparable {
    case debug = 0, info = 1, warning = 2, error = 3
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

final class LogBox {
    let sink: LuaLogSink
    init(_ sink: @escaping LuaLogSink) { self.sink = sink }
}

private func logTrampoline(_ context: UnsafeMutableRawPointer?, _ level: Int32,
                           _ text: UnsafePointer<CChar>?, _ length: Int) {
    guard let context, let text else { return }
    let box = Unmanaged<LogBox>.fromOpaque(context).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: text, count: length)
    box.sink(LuaLogLevel(rawValue: Int(level)) ?? .info, String(decoding: bytes, as: UTF8.self))
}

/// A duration written for messages: `1000 ms`.
struct Milliseconds: CustomStringConvertible {
    var duration: Duration
    init(_ duration: Duration) { self.duration = duration }
    var description: String { "\(duration.nanoseconds / 1_000_000) ms" }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
