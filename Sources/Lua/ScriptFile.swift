/// Reading script files: clear errors for a missing, empty or non-UTF-8 file, and the
/// folder a script may `require` from.
///
/// ```swift
/// let bytes = try ScriptFile.read("examples/demo.lua")   // shebang line blanked
/// ScriptFile.folder(of: "examples/demo.lua")            // "examples"
/// ```
import Foundation

enum ScriptFile {
    static func read(_ path: String) throws -> [UInt8] {
        var bytes = try readBytes(path)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }   // UTF-8 byte order mark
        guard bytes.contains(where: { !($0 == 0x20 || (0x09...0x0D).contains($0)) }) else {
            throw LuaError.file(path: path, reason: "the script is empty")
        }
        if String(validating: bytes, as: UTF8.self) == nil {
            let offset = firstInvalidUTF8Offset(bytes)
            let line = bytes[..<offset].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            throw LuaError.file(path: path, reason: "line \(line): not valid UTF-8 text (byte offset \(offset)); is it a binary or a different encoding?")
        }
        // A first line starting with '#' (a shebang) is not Lua; blank it, keep the line count.
        if bytes.first == UInt8(ascii: "#") {
            let end = bytes.firstIndex(of: 0x0A) ?? bytes.endIndex
            bytes.removeSubrange(0..<end)
        }
        return bytes
    }

    /// The largest script file read: a script is text a person wrote, and a path such as
    /// /dev/zero must not read for ever.
    static let maximumSize = 64 << 20

    /// Reads the whole file with POSIX calls (Foundation's reader leaks a buffer on
    /// empty files, which the address sanitizer reports).
    private static func readBytes(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno))
            throw LuaError.file(path: path, reason: reason)
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            throw LuaError.file(path: path, reason: "is a folder, not a script file")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw LuaError.file(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
            if bytes.count > maximumSize {
                throw LuaError.file(path: path, reason: "larger than \(maximumSize >> 20) MiB; is it a script?")
            }
        }
    }

    static func folder(of path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    private static func firstInvalidUTF8Offset(_ bytes: [UInt8]) -> Int {
        var low = 0, high = bytes.count   // the longest valid prefix, by bisection
        while low < high {
            let middle = (low + high + 1) / 2
            if String(validating: bytes[..<middle], as: UTF8.self) != nil || isCutInsideCharacter(bytes, middle) {
                low = middle
            } else {
                high = middle - 1
            }
        }
        return low
    }

    /// True if `bytes[..<end]` is valid except for a character cut at `end`.
    private static func isCutInsideCharacter(_ bytes: [UInt8], _ end: Int) -> Bool {
        for back in 1...3 where end - back >= 0 {
            if String(validating: bytes[..<(end - back)], as: UTF8.self) != nil {
                return bytes[(end - back)..<end].allSatisfy { $0 >= 0x80 } && bytes[end - back] >= 0xC0
            }
        }
        return false
    }
}
