import Foundation
import Synchronization
import Testing
import Lua
@testable import Wheel

/// Collects what a runtime logs, from any thread.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var sink: LuaLogSink { { [self] _, text in lines.withLock { $0.append(text) } } }
}

/// A temporary folder, removed with its contents when the last reference goes.
final class Scratch {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("wheel-tests-\(UUID().uuidString)")
    }
    deinit { try? FileManager.default.removeItem(at: url) }
}

@Suite struct RuntimeTests {
    /// Swift Testing makes a suite value per test: each test's files go when it ends.
    let scratch = Scratch()

    /// Writes a script (and files beside it) to a fresh folder; returns the script's path.
    func file(_ source: String, beside: [String: String] = [:]) throws -> String {
        let folder = scratch.url.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in beside {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let path = folder.appendingPathComponent("main.lua")
        try source.write(to: path, atomically: true, encoding: .utf8)
        return path.path
    }

    @Test func runsAScriptWithModulesBesideIt() async throws {
        let lines = Lines()
        let runtime = try Runtime(options: .init(log: lines.sink))
        let path = try file("local m = require 'helper' print(m.twice(21))",
                                 beside: ["helper.lua": "return { twice = function(x) return 2 * x end }"])
        try await runtime.run(file: path)
        #expect(lines.all == ["42"])
    }

    @Test func theMainChunkMayAwaitAsyncHostFunctions() async throws {
        let lines = Lines()
        let runtime = try Runtime(options: .init(log: lines.sink))
        try runtime.state.library().set("later", runtime.state.asyncFunction { (x: Int) async throws -> Int in
            try await Task.sleep(for: .milliseconds(5))
            return x + 1
        })
        try await runtime.run(file: try file("print(later(1) + later(2))"))
        #expect(lines.all == ["5"])
    }

    @Test func reportsSayFileLineAndTraceback() async throws {
        let runtime = try Runtime()
        let path = try file("local function f()\n  local x = nil\n  return x.y\nend\nf()\n")
        do {
            try await runtime.run(file: path)
            Issue.record("no error")
        } catch {
            let report = Runtime.report(error)
            // Lua keeps the end of a long chunk name: "...<folder>/main.lua:3: ...".
            #expect(report.contains("main.lua:3: attempt to index a nil value (local 'x')"), "\(report)")
            #expect(report.hasPrefix(path) || report.hasPrefix("..."), "\(report)")
            #expect(report.contains("stack traceback:"))
        }
    }

    @Test func limitsComeFromTheOptionsAndTheRuntimeStaysUsable() async throws {
        let lines = Lines()
        let runtime = try Runtime(options: .init(memoryLimit: 8 << 20, timeout: .milliseconds(200), log: lines.sink))
        await #expect {
            try await runtime.run(file: try file("while true do end"))
        } throws: { error in
            if case LuaError.timeout = error { return true } else { return false }
        }
        await #expect {
            try await runtime.run(file: try file("local t = {} while true do t[#t + 1] = {} end"))
        } throws: { error in
            if case LuaError.memory = error { return true } else { return false }
        }
        try await runtime.run(file: try file("print('fine')"))
        #expect(lines.all == ["fine"])
    }

    @Test func trustedScriptsSeeTheWholeLibrary() async throws {
        let lines = Lines()
        let trusted = try Runtime(options: .init(trusted: true, log: lines.sink))
        try await trusted.run(file: try file("print(type(io), type(os.getenv), type(debug))"))
        #expect(lines.all == ["table\tfunction\ttable"])
        let sandboxed = try Runtime(options: .init(log: lines.sink))
        await #expect(throws: LuaError.self) { try await sandboxed.run(file: try file("io.write('x')")) }
    }

    @Test func aMissingFileIsAClearError() async throws {
        let runtime = try Runtime()
        do {
            try await runtime.run(file: "/no/such/script.lua")
            Issue.record("no error")
        } catch {
            #expect(Runtime.report(error).contains("/no/such/script.lua"))
        }
    }
}
