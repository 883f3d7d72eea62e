/// The one error type of the bridge. Callers match on its cases, never on message text.
///
/// ```swift
/// do {
///     try state.run("error('boom')", name: "=demo")
/// } catch LuaError.runtime(let failure) {
///     print(failure)               // demo:1: boom
///     print(failure.traceback)     // built only now, from frames captured at the error
/// } catch LuaError.timeout(let limit) {
///     print("gave up after \(limit)")
/// }
/// ```
///
/// A Swift error thrown by a host function travels through Lua as an opaque value (a
/// script's `pcall` can catch it) and comes back to Swift as `.host`, wrapping the very
/// same error value.
public enum LuaError: Error, Sendable, CustomStringConvertible {
    /// The chunk does not parse. The message names the chunk and line.
    case syntax(ScriptFailure)
    /// The script raised an error, or Lua did (indexing nil, a bad argument...).
    case runtime(ScriptFailure)
    /// The state's memory ceiling was reached. No script can catch this. The failure says
    /// where, when a script frame could be found.
    case memory(limit: Int, failure: ScriptFailure)
    /// The call ran past its CPU deadline. No script can catch this. The failure says
    /// where the script was when the deadline hit.
    case timeout(limit: Duration, failure: ScriptFailure)
    /// A host function threw `underlying`; `failure` says where in the script it was called.
    case host(underlying: any Error, failure: ScriptFailure)
    /// A value did not have the type Swift asked for.
    case typeMismatch(expected: String, actual: String, context: String)
    /// A script file could not be read, or is not valid UTF-8 text.
    case file(path: String, reason: String)
    /// The state has been closed.
    case closed

    public var description: String {
        switch self {
        case .syntax(let failure), .runtime(let failure):
            return failure.description
        case .memory(_, let failure), .timeout(_, let failure):
            return failure.description
        case .host(let underlying, let failure):
            return failure.location.map { "\($0): \(underlying)" } ?? "\(underlying)"
        case .typeMismatch(let expected, let actual, let context):
            return context.isEmpty
                ? "\(expected) expected, got \(actual)"
                : "\(context): \(expected) expected, got \(actual)"
        case .file(let path, let reason):
            return "\(path): \(reason)"
        case .closed:
            return "the Lua state is closed"
        }
    }

    /// The script failure behind this error, if it came from running a script.
    public var failure: ScriptFailure? {
        switch self {
        case .syntax(let failure), .runtime(let failure), .host(_, let failure),
             .memory(_, let failure), .timeout(_, let failure): failure
        default: nil
        }
    }
}

/// Where and why a script failed: the message as Lua produced it, the chunk and line of
/// the innermost Lua frame, and the frames from which a traceback is built on demand.
public struct ScriptFailure: Sendable, CustomStringConvertible {
    /// Lua's message; for errors raised with a string this already starts `chunk:line:`.
    public var message: String
    /// The chunk (as Lua shows it, `file.lua` or `[string "..."]`) and line of the
    /// innermost Lua function, when there was one.
    public var chunk: String?
    public var line: Int?
    /// The call stack at the error, innermost first.
    public var frames: [Frame]

    public struct Frame: Sendable, Equatable {
        public var source: String
        public var line: Int?
        public var function: String?
        /// "Lua", "C" or "main".
        public var kind: String
        /// How the function was named at the call: "global", "local", "method", "field",
        /// "upvalue", or "".
        public var nameKind: String = ""
        /// The line where the function is defined.
        public var lineDefined: Int?
    }

    public init(message: String, chunk: String? = nil, line: Int? = nil, frames: [Frame] = []) {
        self.message = message
        self.chunk = chunk
        self.line = line
        self.frames = frames
    }

    /// `chunk:line`, when known.
    public var location: String? {
        guard let chunk, let line else { return nil }
        return "\(chunk):\(line)"
    }

    /// `file:line: message`, without repeating a position Lua already put in front.
    public var description: String {
        guard let location, let chunk, !message.hasPrefix(chunk + ":") else { return message }
        return "\(location): \(message)"
    }

    /// A Lua-style traceback, built from the captured frames when asked for.
    public var traceback: String {
        var lines = ["stack traceback:"]
        for frame in frames {
            var line = "\t" + frame.source
            if let number = frame.line { line += ":\(number)" }
            line += ": in "
            if let function = frame.function, !function.isEmpty {
                let kind = frame.nameKind.isEmpty || frame.nameKind == "global" ? "function" : frame.nameKind
                line += "\(kind) '\(function)'"
            } else if frame.kind == "main" {
                line += "main chunk"
            } else if frame.kind == "C" {
                line += "?"
            } else {
                line += "function <\(frame.source):\(frame.lineDefined ?? 0)>"
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

/// A byte count written for people: `256 MiB`.
struct ByteCount: CustomStringConvertible {
    var bytes: Int
    init(_ bytes: Int) { self.bytes = bytes }
    var description: String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes), unit = 0
        while value >= 1024, unit < units.count - 1, value.truncatingRemainder(dividingBy: 1024) == 0 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) bytes" : "\(Int(value)) \(units[unit])"
    }
}
