/// The static half of a `FixtureServer`: `GET /path` answers the file at `root/path`.
///
/// A path with a `..` segment is refused (403), and so is one that leads out of the root
/// through a symbolic link; a missing file or a folder without `index.html` is a 404; a
/// method other than GET or HEAD is a 405. The content type follows the extension.
import Foundation

struct StaticFiles: Sendable {
    /// The root, with its symbolic links resolved; nil serves nothing (every path is a 404).
    let root: String?

    init(root: String?) {
        self.root = root.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
    }

    static let contentTypes = [
        "json": "application/json",
        "txt": "text/plain; charset=utf-8",
        "html": "text/html; charset=utf-8",
        "htm": "text/html; charset=utf-8",
        "png": "image/png",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "gif": "image/gif",
    ]

    func response(method: String, path: String) -> ServerResponse {
        guard method == "GET" || method == "HEAD" else {
            return Self.plain(405, "method not allowed\n", headers: [("allow", "GET, HEAD")])
        }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard !segments.contains(where: { $0 == ".." || $0.contains("\0") }) else {
            return Self.plain(403, "forbidden\n")
        }
        guard let root else { return Self.plain(404, "not found\n") }
        var file = URL(fileURLWithPath: root)
        for segment in segments { file.appendPathComponent(String(segment)) }
        file = file.resolvingSymlinksInPath()
        guard file.path == root || file.path.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
            return Self.plain(403, "forbidden\n")
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder) else {
            return Self.plain(404, "not found\n")
        }
        if isFolder.boolValue { file.appendPathComponent("index.html") }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            return Self.plain(404, "not found\n")
        }
        let type = Self.contentTypes[file.pathExtension.lowercased()] ?? "application/octet-stream"
        return ServerResponse(status: 200, headers: [("content-type", type)], body: [UInt8](data))
    }

    static func plain(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> ServerResponse {
        ServerResponse(status: status, headers: [("content-type", "text/plain; charset=utf-8")] + headers,
                       body: Array(text.utf8))
    }
}
