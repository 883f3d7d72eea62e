/// The Wheel runtime: loads a script in its own sandboxed environment and runs it, with
/// the limits a host chooses, and keeps the UI objects the script declares.
///
/// ```swift
/// let runtime = try Runtime(options: .init(timeout: .seconds(1), log: { level, text in print(text) }))
/// runtime.onProblem = { problem in print(problem) }     // script errors the objects survived
/// try await runtime.run(file: "examples/resistor.lua")
/// let picker = runtime.picker(named: "resistor")
/// ```
///
/// The main chunk runs as a coroutine, so a script may call async host functions at its
/// top level. A `Runtime` is not `Sendable`: keep it in one isolation domain. The runtime
/// owns its Lua state and closes it when it goes; objects a host still holds then report
/// `the Lua state is closed` instead of calling the script.
import Lua

public final class Runtime {
    public struct Options: Sendable {
        /// Give scripts the whole standard library instead of the sandbox.
        public var trusted: Bool
        /// The memory ceiling of the state, in bytes; nil for none.
        public var memoryLimit: Int?
        /// The CPU deadline of each call into the script, the main chunk included.
        public var timeout: Duration?
        /// Where `print` and warnings go.
        public var log: LuaLogSink?
        /// How the `http` module reaches the network; nil leaves `http` out of the scripts'
        /// library. The default is AsyncHTTPClient with a 16 MiB body limit.
        public var transport: (any HTTPTransport)?
        /// The timeout of an `http` request that does not give its own.
        public var httpTimeout: Duration

        public init(trusted: Bool = false, memoryLimit: Int? = 256 << 20,
                    timeout: Duration? = .seconds(1), log: LuaLogSink? = nil,
                    transport: (any HTTPTransport)? = AsyncHTTPClientTransport(),
                    httpTimeout: Duration = HTTPRequest.defaultTimeout) {
            self.trusted = trusted
            self.memoryLimit = memoryLimit
            self.timeout = timeout
            self.log = log
            self.transport = transport
            self.httpTimeout = httpTimeout
        }
    }

    public let state: LuaState
    let declarations = Declarations()

    /// Makes a runtime that lives on `isolation` (by default the caller's actor), where
    /// feeds run their fetches. Made outside any actor, it takes the actor of its first
    /// `run`; until it has one, feeds cannot fetch.
    public init(options: Options = Options(), isolation: isolated (any Actor)? = #isolation) throws {
        state = try LuaState(options: .init(
            mode: options.trusted ? .trusted : .sandboxed, memoryLimit: options.memoryLimit,
            timeout: options.timeout, log: options.log))
        try declarations.install(in: state)
        if let transport = options.transport {
            try HTTPModule(transport: transport, timeout: options.httpTimeout).install(in: state)
        }
        declarations.actor = isolation
        declarations.transport = options.transport
    }

    /// Closing the state releases what Lua holds of the declared objects, and with it the
    /// references they hold to the state's functions (a cycle that only this breaks).
    deinit {
        declarations.stop()
        state.close()
    }

    /// The pickers the script declared, in declaration order.
    public var pickers: [Picker] { declarations.pickers }

    /// Gives every script a global `name` (call it before `run`), as `wheel-run --serve`
    /// gives `SERVER`: `try runtime.define("SERVER", "http://127.0.0.1:8080")`.
    public func define<V: LuaPushable>(_ name: String, _ value: V) throws {
        try state.library().set(name, value)
    }

    /// The pagers the script declared, in declaration order.
    public var pagers: [Pager] { declarations.pagers }

    /// The pager the script declared as `pager "name" { ... }`.
    public func pager(named name: String) -> Pager? {
        declarations.pagers.first { $0.name == name }
    }

    /// The forms the script declared, in declaration order.
    public var forms: [Form] { declarations.forms }

    /// The form the script declared as `form "name" { ... }`.
    public func form(named name: String) -> Form? {
        declarations.forms.first { $0.name == name }
    }

    /// The feeds the script declared, in declaration order.
    public var feeds: [Feed] { declarations.feeds }

    /// The feed the script declared as `feed "name" { ... }`.
    public func feed(named name: String) -> Feed? {
        declarations.feeds.first { $0.name == name }
    }

    /// The picker the script declared as `picker "name" { ... }`.
    public func picker(named name: String) -> Picker? {
        declarations.pickers.first { $0.name == name }
    }

    /// Called with every script error a declared object survived (a failing `title`, an
    /// `on_change` that raised), those during the declaration included: set it before
    /// `run`. Each object's observers hear them too.
    public var onProblem: ((ScriptProblem) -> Void)? {
        get { declarations.onProblem }
        set { declarations.onProblem = newValue }
    }

    /// Loads the script at `path` and runs its main chunk to the end.
    public func run(file path: String, isolation: isolated (any Actor)? = #isolation) async throws {
        if declarations.actor == nil { declarations.actor = isolation }
        let chunk = try state.load(file: path)
        try await chunk.callAsync(isolation: isolation)
    }

    /// A report for people: `file:line: message`, then the traceback when there is one.
    public static func report(_ error: any Error) -> String {
        guard let error = error as? LuaError else { return "\(error)" }
        guard let failure = error.failure, !failure.frames.isEmpty else { return error.description }
        return error.description + "\n" + failure.traceback
    }
}
