/// `wheel-run script.lua`: runs a Wheel script.
///
/// Exit status: 0 success, 1 script error (printed as `file:line: message` with the
/// traceback on standard error), 2 usage error.
import ArgumentParser
import Foundation
import Lua
import Wheel

@main
struct WheelRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wheel-run",
        abstract: "Run a Wheel script.",
        discussion: """
            Scripts run in a sandbox: string, table, math, utf8, coroutine, a safe os \
            (clock, time, date, difftime), json, print, and require of Lua files under the \
            script's folder. --trusted gives the whole standard library.
            Exit status: 0 success, 1 script error, 2 usage error.
            """)

    @Argument(help: "The Lua script to run.")
    var script: String

    @Flag(help: "Give the script the whole standard library (io, os, debug, package).")
    var trusted = false

    @Option(help: ArgumentHelp("The script's memory ceiling, such as 64M or 1G; 0 for none.", valueName: "size"))
    var memory: ByteSize = ByteSize(bytes: 256 << 20)

    @Option(help: ArgumentHelp("The CPU deadline of each call into the script, the main chunk included, such as 1s, 250ms or 0 for none.", valueName: "duration"))
    var timeout: Deadline = Deadline(duration: .seconds(1))

    mutating func run() async throws {
        guard FileManager.default.fileExists(atPath: script) else {
            throw ValidationError("no such file: \(script)")
        }
        let runtime: Runtime
        do {
            runtime = try Runtime(options: .init(
                trusted: trusted, memoryLimit: memory.bytes == 0 ? nil : memory.bytes,
                timeout: timeout.duration, log: Output.log))
        } catch {
            Output.error(Runtime.report(error))
            throw ExitCode(1)
        }
        do {
            try await runtime.run(file: script)
        } catch {
            Output.error(Runtime.report(error))
            throw ExitCode(1)
        }
    }

    /// Usage errors exit with 2 (ArgumentParser's own default is 64).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                Output.error(fullMessage(for: error))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// Standard output and error, safe to use from any thread.
enum Output {
    static let log: LuaLogSink = { level, text in
        if level >= .warning {
            error("\(level == .warning ? "warning" : "error"): \(text)")
        } else {
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
        }
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// `256M`, `1G`, `65536`: a byte count with an optional binary unit.
struct ByteSize: ExpressibleByArgument {
    var bytes: Int

    init(bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var text = argument.uppercased()
        if text.hasSuffix("IB") { text.removeLast(2) } else if text.hasSuffix("B") { text.removeLast() }
        var scale = 1
        if let last = text.last, let unit = units[last] {
            scale = unit
            text.removeLast()
        }
        guard let value = Double(text), value >= 0, value * Double(scale) < Double(Int.max) else { return nil }
        bytes = Int(value * Double(scale))
    }

    var defaultValueDescription: String { "256M" }
}

/// `1s`, `250ms`, `2.5` (seconds), `0` for none.
struct Deadline: ExpressibleByArgument {
    var duration: Duration?

    init(duration: Duration?) { self.duration = duration }

    init?(argument: String) {
        var text = argument.lowercased()
        var scale = 1.0
        if text.hasSuffix("ms") { text.removeLast(2); scale = 0.001 } else if text.hasSuffix("s") { text.removeLast() }
        guard let value = Double(text), value >= 0, value.isFinite else { return nil }
        duration = value == 0 ? nil : .nanoseconds(Int64(value * scale * 1e9))
    }

    var defaultValueDescription: String { "1s" }
}
