/// The Wheel runtime: loads a script in its own sandboxed environment and runs it, with
/// the limits a host chooses. Later layers add the UI objects a script declares.
///
/// ```swift
/// let runtime = try Runtime(options: .init(timeout: .seconds(1), log: { level, text in print(text) }))
/// try await runtime.run(file: "examples/hello.lua")
/// ```
///
/// The main chunk runs as a coroutine, so a script may call async host functions at its
/// top level. A `Runtime` is not `Sendable`: keep it in one isolation domain.
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

        public init(trusted: Bool = false, memoryLimit: Int? = 256 << 20,
                    timeout: Duration? = .seconds(1), log: LuaLogSink? = nil) {
            self.trusted = trusted
            self.memoryLimit = memoryLimit
            self.timeout = timeout
            self.log = log
        }
    }

    public let state: LuaState

    public init(options: Options = Options()) throws {
        state = try LuaState(options: .init(
            mode: options.trusted ? .trusted : .sandboxed, memoryLimit: options.memoryLimit,
            timeout: options.timeout, log: options.log))
    }

    /// Loads the script at `path` and runs its main chunk to the end.
    public func run(file path: String, isolation: isolated (any Actor)? = #isolation) async throws {
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
