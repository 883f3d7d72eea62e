import Foundation
import Synchronization
import Testing

/// A temporary folder, removed with its contents when the last reference goes.
final class Scratch {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("wheel-run-tests-\(UUID().uuidString)")
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// `wheel-run` as a user runs it: the built executable in a child process. `scripts/test`
/// builds the products before the tests, so the binary sits beside the test bundle.
@Suite struct WheelRunTests {
    struct Outcome {
        var status: Int32
        var output: String
        var errors: String
    }

    static let executable: URL = {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = bundle.deletingLastPathComponent()
        // The bundle is `<build>/debug/X.xctest`, or a folder inside it on some layouts.
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("wheel-run")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return bundle.deletingLastPathComponent().appendingPathComponent("wheel-run")
    }()

    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples")

    /// Runs wheel-run in `folder` (the temporary folder of `script`, by default) and waits
    /// for it off the cooperative pool, which the other tests need.
    static func run(_ arguments: [String], in folder: URL) async throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                // Drain both pipes before waiting, so that a full pipe cannot stall the child.
                let errorData = Mutex(Data())
                let drained = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    let data = errors.fileHandleForReading.readDataToEndOfFile()
                    errorData.withLock { $0 = data }
                    drained.signal()
                }
                let outputData = output.fileHandleForReading.readDataToEndOfFile()
                drained.wait()
                process.waitUntilExit()
                continuation.resume(returning: Outcome(
                    status: process.terminationStatus,
                    output: String(decoding: outputData, as: UTF8.self),
                    errors: String(decoding: errorData.withLock { $0 }, as: UTF8.self)))
            }
        }
    }

    /// This test's folder; Swift Testing makes a suite value per test, and the folder
    /// goes with it.
    let scratch = Scratch()

    /// Runs wheel-run in this test's folder.
    func run(_ arguments: [String]) async throws -> Outcome {
        try FileManager.default.createDirectory(at: scratch.url, withIntermediateDirectories: true)
        return try await Self.run(arguments, in: scratch.url)
    }

    /// Writes `source` to a fresh file in this test's folder and returns its name there,
    /// as a user would type it.
    func script(_ source: String) throws -> String {
        try FileManager.default.createDirectory(at: scratch.url, withIntermediateDirectories: true)
        let name = "s\(UUID().uuidString.prefix(8)).lua"
        try source.write(to: scratch.url.appendingPathComponent(name), atomically: true, encoding: .utf8)
        return name
    }

    @Test func theHelloExampleRuns() async throws {
        let outcome = try await Self.run(["examples/hello.lua"], in: Self.examples.deletingLastPathComponent())
        #expect(outcome.status == 0, "\(outcome.errors)")
        let lines = outcome.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "hello, Wheel: Lua 5.4 in a sandbox")
        #expect(lines.contains("4 colours, the third is red"))
        #expect(lines.contains("3\t2\t1"))
        #expect(lines.last?.hasPrefix("false\t") == true)       // io is not there
        #expect(outcome.errors.isEmpty)
    }

    @Test func aScriptErrorIsFileLineMessageAndATracebackWithStatus1() async throws {
        let path = try script("print('before')\nlocal function f()\n  error('broken')\nend\nf()\n")
        let outcome = try await run([path])
        #expect(outcome.status == 1)
        #expect(outcome.output == "before\n")
        #expect(outcome.errors.hasPrefix("\(path):3: broken\n"), "\(outcome.errors)")
        #expect(outcome.errors.contains("stack traceback:"))
        #expect(outcome.errors.contains("\(path):5:"))
    }

    @Test func aSyntaxErrorIsFileLineWithStatus1() async throws {
        let path = try script("local x = = 1\n")
        let outcome = try await run([path])
        #expect(outcome.status == 1)
        #expect(outcome.errors.hasPrefix("\(path):1:"), "\(outcome.errors)")
    }

    @Test(arguments: [
        ["missing-file.lua"],
        [],
        ["--memory", "lots", "x.lua"],
        ["--timeout", "soon", "x.lua"],
        ["--no-such-option", "x.lua"],
    ])
    func usageErrorsExitWith2(_ arguments: [String]) async throws {
        let outcome = try await run(arguments)
        #expect(outcome.status == 2, "\(arguments): \(outcome.errors)")
        #expect(!outcome.errors.isEmpty)
        #expect(outcome.output.isEmpty)
    }

    @Test func trustedGivesTheWholeLibrary() async throws {
        let path = try script("print(io.type(io.stdout), type(os.getenv), type(debug.traceback))")
        let sandboxed = try await run([path])
        #expect(sandboxed.status == 1)
        #expect(sandboxed.errors.contains("attempt to index a nil value (global 'io')"))
        let trusted = try await run(["--trusted", path])
        #expect(trusted.status == 0, "\(trusted.errors)")
        #expect(trusted.output == "file\tfunction\tfunction\n")
    }

    @Test func aRunawayScriptEndsAtTheTimeout() async throws {
        let path = try script("local n = 0\nwhile true do n = n + 1 end\n")
        let start = ContinuousClock.now
        let outcome = try await run(["--timeout", "300ms", path])
        #expect(outcome.status == 1)
        #expect(outcome.errors.hasPrefix("\(path):2: script timed out"), "\(outcome.errors)")
        #expect(ContinuousClock.now - start < .seconds(60))   // it ends by itself (a loose bound: machines are shared)
    }

    @Test func theDefaultTimeoutStopsARunawayScriptByItself() async throws {
        let outcome = try await run([try script("while true do end")])
        #expect(outcome.status == 1)
        #expect(outcome.errors.contains("deadline of 1000 ms"), "\(outcome.errors)")
    }

    @Test func aMemoryHogEndsAtTheCeiling() async throws {
        let path = try script("local t = {}\nfor i = 1, math.huge do t[i] = ('x'):rep(100) .. i end\n")
        let outcome = try await run(["--memory", "16M", path])
        #expect(outcome.status == 1)
        #expect(outcome.errors.hasPrefix("\(path):2: "), "\(outcome.errors)")
        #expect(outcome.errors.contains("memory"), "\(outcome.errors)")
    }

    @Test func emptyAndNonUTF8ScriptsAreHandled() async throws {
        let empty = try await run([try script("")])
        #expect(empty.status == 1)
        #expect(empty.errors.contains("the script is empty"), "\(empty.errors)")

        let latin1 = try script("")
        try Data("print('caf\u{E9}')".data(using: .isoLatin1)!).write(to: scratch.url.appendingPathComponent(latin1))
        let notUTF8 = try await run([latin1])
        #expect(notUTF8.status == 1)
        #expect(notUTF8.errors.contains("UTF-8"), "\(notUTF8.errors)")
    }
}
