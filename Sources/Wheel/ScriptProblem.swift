/// A script error that a UI object survived: a `title` that raised, a `count` that
/// returned the wrong type, an `on_change` that failed. The object keeps working; the host
/// shows the problem to the user.
///
/// ```swift
/// runtime.onProblem = { problem in print(problem) }      // date.lua:14: boom
/// ```
import Lua

public struct ScriptProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// `file:line: what went wrong`.
    public var message: String
    /// A Lua traceback, when the problem came from running script code.
    public var traceback: String?

    public init(message: String, traceback: String? = nil) {
        self.message = message
        self.traceback = traceback
    }

    /// A problem from an error a script call threw.
    init(_ error: any Error) {
        message = "\(error)"
        if let failure = (error as? LuaError)?.failure, !failure.frames.isEmpty {
            traceback = failure.traceback
        }
    }

    /// A problem with a value a script function returned, located at the function.
    init(_ text: String, in function: LuaFunction) {
        message = function.definition.map { "\($0.chunk):\($0.line): \(text)" } ?? text
    }

    public var description: String { message }
}
