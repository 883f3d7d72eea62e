import Foundation
import Synchronization
import Wheel

/// A runtime that has run a script, made on the main actor (where the panels and the
/// runtime's feeds and pagers run), with what the script printed and the problems its
/// objects survived.
///
/// ```swift
/// let run = try await ScriptedRuntime(#"picker "p" { components = { { id = "n", items = { "a" } } } }"#)
/// let panel = PickerPanel(picker: run.runtime.pickers[0])
/// ```
@MainActor
final class ScriptedRuntime {
    let runtime: Runtime
    /// The script's path, as its error messages begin: `/tmp/wt-1A2B3C4D-5E6F/script.lua`.
    let path: String
    private let printed = Recorder()
    private(set) var problems: [String] = []

    /// Lines the script printed, in order.
    var prints: [String] { printed.lines }

    /// Writes `source` to a temporary file and runs it (in the sandbox, with a one-second
    /// deadline per call) with `transport` answering its `http` requests.
    init(_ source: String, transport: (any HTTPTransport)? = nil) async throws {
        // Short, so that Lua does not shorten the name in messages (to 60 bytes, with `...`).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wt-\(UUID().uuidString.prefix(13))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("script.lua")
        path = file.path
        try source.write(to: file, atomically: true, encoding: .utf8)
        var options = Runtime.Options(log: { [printed] _, text in printed.append(text) })
        if let transport { options.transport = transport }
        runtime = try Runtime(options: options)
        runtime.onProblem = { [unowned self] problem in problems.append(problem.message) }
        try await runtime.run(file: path)
    }

    /// A script from examples/ in the repository.
    static func example(_ name: String) throws -> String {
        let examples = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("examples")
        return try String(contentsOf: examples.appendingPathComponent(name), encoding: .utf8)
    }
}

/// Lines written from any thread.
final class Recorder: Sendable {
    private let storage = Mutex<[String]>([])
    var lines: [String] { storage.withLock { $0 } }
    func append(_ line: String) { storage.withLock { $0.append(line) } }
}

/// An HTTP transport whose requests wait until the test opens the gate, then all get
/// `reply`: a fetch that is in flight for as long as the test needs.
final class GatedTransport: HTTPTransport {
    private let opened = Mutex<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))
    let reply: HTTPResponse

    init(reply: HTTPResponse) {
        self.reply = reply
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        await withCheckedContinuation { continuation in
            let resumeNow = opened.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiting.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
        return reply
    }

    func open() {
        let waiting = opened.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
