import Foundation
import Synchronization
@testable import Lua

/// Collects what a state logs, from any thread.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var sink: LuaLogSink { { [self] _, text in lines.withLock { $0.append(text) } } }
}

/// Counts live instances, to prove that every Swift object created along a path was released.
final class LiveCount: Sendable {
    private let count = Atomic<Int>(0)
    private let made = Atomic<Int>(0)
    var live: Int { count.load(ordering: .relaxed) }
    var created: Int { made.load(ordering: .relaxed) }
    func up() { count.add(1, ordering: .relaxed); made.add(1, ordering: .relaxed) }
    func down() { count.subtract(1, ordering: .relaxed) }
}

final class Tracked {
    let counter: LiveCount
    init(_ counter: LiveCount) { self.counter = counter; counter.up() }
    deinit { counter.down() }
}

/// A temporary folder of script files, removed at deinit.
final class ScriptFolder {
    let path: String
    init(_ files: [String: String] = [:]) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("wheel-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, text) in files { try write(name, text) }
    }
    func write(_ name: String, _ text: String) throws {
        let file = path + "/" + name
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
    }
    func file(_ name: String) -> String { path + "/" + name }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

extension LuaState {
    /// Evaluates an expression in a fresh chunk and reads it.
    func eval<T: LuaReadable>(_ expression: String, as type: T.Type = T.self) throws -> T {
        try load("return " + expression, name: "eval").call(returning: T.self)
    }
}
