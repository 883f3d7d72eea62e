import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import Testing
@testable import WheelServer

/// A response as the tests read it.
struct Fetched {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// How many pieces the body arrived in.
    var pieces: Int
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
}

/// A real client: AsyncHTTPClient's shared client.
func fetch(_ url: String, method: String = "GET", headers: [(String, String)] = [], body: String? = nil,
           timeout: Duration = .seconds(5)) async throws -> Fetched {
    var request = HTTPClientRequest(url: url)
    request.method = .init(rawValue: method)
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    if let body { request.body = .bytes(Array(body.utf8)) }
    let response = try await HTTPClient.shared.execute(request, timeout: .init(timeout))
    var bytes: [UInt8] = [], pieces = 0
    for try await piece in response.body {
        bytes += Array(buffer: piece)
        pieces += 1
    }
    return Fetched(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                   body: bytes, pieces: pieces)
}

/// A folder of fixtures, removed when the last reference goes.
final class Fixtures {
    let root: URL
    init(_ files: [String: [UInt8]] = [:]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("wheel-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for (path, bytes) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
    }
    deinit { try? FileManager.default.removeItem(at: root) }
}

@Suite struct FixtureServerTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF]

    // MARK: - Static files

    @Test func servesFilesWithTheContentTypeOfTheirExtension() async throws {
        let fixtures = try Fixtures([
            "items.json": Array(#"{"items":[]}"#.utf8), "notes/readme.txt": Array("hello\n".utf8),
            "logo.png": Self.png, "page.html": Array("<p>hi</p>".utf8), "photo.jpg": [1, 2], "anim.gif": [3],
        ])
        let server = try await FixtureServer.start(root: fixtures.root.path)
        let json = try await fetch(server.baseURL + "/items.json")
        #expect(json.status == 200)
        #expect(json.text == #"{"items":[]}"#)
        #expect(json.header("content-type") == "application/json")
        #expect(json.header("content-length") == "12")
        let text = try await fetch(server.baseURL + "/notes/readme.txt")
        #expect(text.text == "hello\n")
        #expect(text.header("content-type") == "text/plain; charset=utf-8")
        let image = try await fetch(server.baseURL + "/logo.png")
        #expect(image.body == Self.png)
        #expect(image.header("content-type") == "image/png")
        #expect(try await fetch(server.baseURL + "/page.html").header("content-type") == "text/html; charset=utf-8")
        #expect(try await fetch(server.baseURL + "/photo.jpg").header("content-type") == "image/jpeg")
        #expect(try await fetch(server.baseURL + "/anim.gif").header("content-type") == "image/gif")
        try await server.stop()
    }

    @Test func listensOnTheLoopbackAtAPortOfItsOwn() async throws {
        let first = try await FixtureServer.start()
        let second = try await FixtureServer.start()
        #expect(first.port > 0 && second.port > 0 && first.port != second.port)
        #expect(first.baseURL == "http://127.0.0.1:\(first.port)")
        try await first.stop()
        try await second.stop()
    }

    @Test func aMissingFileIsA404() async throws {
        let fixtures = try Fixtures(["a.txt": [65]])
        let server = try await FixtureServer.start(root: fixtures.root.path)
        #expect(try await fetch(server.baseURL + "/b.txt").status == 404)
        #expect(try await fetch(server.baseURL + "/a.txt/more").status == 404)
        let bare = try await FixtureServer.start()
        #expect(try await fetch(bare.baseURL + "/a.txt").status == 404)
        try await bare.stop()
        try await server.stop()
    }

    @Test func theQueryStringDoesNotChangeWhichFileIsServed() async throws {
        let fixtures = try Fixtures(["page.json": Array("[1]".utf8)])
        let server = try await FixtureServer.start(root: fixtures.root.path)
        let page = try await fetch(server.baseURL + "/page.json?page=2&size=10")
        #expect(page.status == 200)
        #expect(page.text == "[1]")
        #expect(server.requests.map(\.query) == [["page": "2", "size": "10"]])
        try await server.stop()
    }

    @Test func pathsOutOfTheRootAreRefused() async throws {
        let outside = try Fixtures(["secret.txt": Array("secret".utf8)])
        let fixtures = try Fixtures(["inside/a.txt": [65]])
        try FileManager.default.createSymbolicLink(
            at: fixtures.root.appendingPathComponent("link"), withDestinationURL: outside.root)
        let server = try await FixtureServer.start(root: fixtures.root.appendingPathComponent("inside").path)
        let name = outside.root.lastPathComponent
        for path in ["/%2e%2e/link/secret.txt", "/a.txt/%2E%2E/%2e%2e/\(name)/secret.txt", "/..%2Flink%2Fsecret.txt"] {
            let response = try await fetch(server.baseURL + path)
            #expect(response.status == 403, "\(path)")
            #expect(!response.text.contains("secret"))
        }
        // A symbolic link inside the root that leads out of it.
        try FileManager.default.createSymbolicLink(
            at: fixtures.root.appendingPathComponent("inside/escape"), withDestinationURL: outside.root)
        #expect(try await fetch(server.baseURL + "/escape/secret.txt").status == 403)
        #expect(try await fetch(server.baseURL + "/a.txt").status == 200)
        try await server.stop()
    }

    @Test func onlyGetAndHeadReachStaticFiles() async throws {
        let fixtures = try Fixtures(["a.txt": Array("abc".utf8)])
        let server = try await FixtureServer.start(root: fixtures.root.path)
        let head = try await fetch(server.baseURL + "/a.txt", method: "HEAD")
        #expect(head.status == 200)
        #expect(head.header("content-length") == "3")
        #expect(head.body.isEmpty)
        let post = try await fetch(server.baseURL + "/a.txt", method: "POST", body: "x")
        #expect(post.status == 405)
        #expect(post.header("allow") == "GET, HEAD")
        try await server.stop()
    }

    // MARK: - The handler

    @Test func theHandlerSeesTheWholeRequest() async throws {
        let seen = Mutex<ServerRequest?>(nil)
        let server = try await FixtureServer.start { request in
            seen.withLock { $0 = request }
            return .json(#"{"ok":true}"#, status: 201)
        }
        let response = try await fetch(server.baseURL + "/things/a%20b?x=1&name=two+words&flag&x=3",
                                       method: "POST", headers: [("X-Token", "abc")], body: "payload")
        #expect(response.status == 201)
        #expect(response.text == #"{"ok":true}"#)
        #expect(response.header("content-type") == "application/json")
        let request = try #require(seen.withLock { $0 })
        #expect(request.method == "POST")
        #expect(request.path == "/things/a b")
        #expect(request.rawQuery == "x=1&name=two+words&flag&x=3")
        #expect(request.query == ["x": "3", "name": "two words", "flag": ""])
        #expect(request.header("x-token") == "abc")
        #expect(request.text == "payload")
        try await server.stop()
    }

    @Test func aFileReplyFallsThroughToStaticFiles() async throws {
        let fixtures = try Fixtures(["data.json": Array("[2]".utf8)])
        let server = try await FixtureServer.start(root: fixtures.root.path) { request in
            request.path == "/dynamic" ? .text("made") : .file(request.path)
        }
        #expect(try await fetch(server.baseURL + "/dynamic").text == "made")
        #expect(try await fetch(server.baseURL + "/data.json").text == "[2]")
        #expect(try await fetch(server.baseURL + "/nothing").status == 404)
        try await server.stop()
    }

    @Test func aConnectionServesRequestsOneAfterAnother() async throws {
        let server = try await FixtureServer.start { request in .text(request.path) }
        for index in 1...5 {
            #expect(try await fetch(server.baseURL + "/r\(index)").text == "/r\(index)")
        }
        #expect(server.requestCount() == 5)
        #expect(server.requests.allSatisfy { $0.status == 200 && $0.ended != nil })
        try await server.stop()
    }

    // MARK: - Faults

    @Test func aDelayedReplyComesAfterItsDelay() async throws {
        let server = try await FixtureServer.start { _ in .delayed(.milliseconds(150), .text("late")) }
        #expect(try await fetch(server.baseURL + "/x").text == "late")
        let logged = try #require(server.requests.first)
        #expect(try #require(logged.ended) - logged.started >= .milliseconds(150))
        try await server.stop()
    }

    @Test func aClientThatGivesUpDuringADelayEndsTheRequest() async throws {
        let server = try await FixtureServer.start { _ in .delayed(.seconds(30), .text("too late")) }
        await #expect(throws: HTTPClientError.deadlineExceeded) {
            try await fetch(server.baseURL + "/slow", timeout: .milliseconds(200))
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while server.inFlight() > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let logged = try #require(server.requests.first)
        #expect(try #require(logged.ended) - logged.started < .seconds(5))
        #expect(logged.status == nil)
        try await server.stop()
    }

    @Test func aSlowBodyArrivesInPieces() async throws {
        let body = String(repeating: "0123456789", count: 4)
        let server = try await FixtureServer.start { _ in
            .slowBody(ServerResponse(body: Array(body.utf8)), chunkSize: 10, interval: .milliseconds(40))
        }
        let response = try await fetch(server.baseURL + "/drip")
        #expect(response.text == body)
        #expect(response.header("content-length") == "40")
        #expect(response.pieces >= 2)
        let logged = try #require(server.requests.first)
        #expect(try #require(logged.ended) - logged.started >= .milliseconds(120))
        try await server.stop()
    }

    @Test func aResetReachesTheClientAsAnError() async throws {
        let server = try await FixtureServer.start { request in request.path == "/reset" ? .reset : .text("fine") }
        await #expect(throws: (any Error).self) { try await fetch(server.baseURL + "/reset") }
        #expect(try await fetch(server.baseURL + "/other").text == "fine")
        #expect(server.requests.first?.status == nil)
        #expect(server.requests.first?.ended != nil)
        try await server.stop()
    }

    @Test func aHangLastsUntilTheClientGivesUp() async throws {
        let server = try await FixtureServer.start { _ in .hang }
        let started = ContinuousClock.now
        await #expect(throws: HTTPClientError.deadlineExceeded) {
            try await fetch(server.baseURL + "/never", timeout: .milliseconds(300))
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        // The client closed the connection; the server notices and ends the request.
        let deadline = ContinuousClock.now + .seconds(5)
        while server.inFlight() > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(server.inFlight() == 0)
        #expect(server.requests.count == 1)
        #expect(server.requests.first?.status == nil)
        try await server.stop()
    }

    @Test func stopEndsAHangingRequestTheClientStillWaitsFor() async throws {
        let server = try await FixtureServer.start { _ in .hang }
        let client = Task { try await fetch(server.baseURL + "/never", timeout: .seconds(30)) }
        while server.inFlight() == 0 { try await Task.sleep(for: .milliseconds(5)) }
        try await server.stop()
        await #expect(throws: (any Error).self) { try await client.value }
    }

    // MARK: - The request log

    @Test func countsRequestsAndTheMostInFlightAtOnce() async throws {
        // Each /feed request waits until three are in, so the three overlap for certain.
        let arrived = Mutex(0)
        let server = try await FixtureServer.start { request in
            guard request.path.hasPrefix("/feed") else { return .text("other") }
            arrived.withLock { $0 += 1 }
            let deadline = ContinuousClock.now + .seconds(5)
            while arrived.withLock({ $0 }) < 3, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(2))
            }
            return .text("page")
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for page in 1...3 { group.addTask { _ = try await fetch(server.baseURL + "/feed/a?page=\(page)") } }
            try await group.waitForAll()
        }
        _ = try await fetch(server.baseURL + "/other")
        _ = try await fetch(server.baseURL + "/other")
        #expect(server.requestCount(pathPrefix: "/feed") == 3)
        #expect(server.maxInFlight(pathPrefix: "/feed") == 3)
        #expect(server.requestCount(pathPrefix: "/other") == 2)
        #expect(server.maxInFlight(pathPrefix: "/other") == 1)
        #expect(server.requestCount() == 5)
        #expect(server.requestCount(pathPrefix: "/none") == 0)
        #expect(server.maxInFlight(pathPrefix: "/none") == 0)
        try await server.stop()
    }

    @Test func overlapIsCountedFromStartsAndEnds() {
        let log = RequestLog()
        let a = log.start(ServerRequest(target: "/items?page=1"))
        let b = log.start(ServerRequest(target: "/items?page=2"))
        log.end(a, status: 200)
        let c = log.start(ServerRequest(target: "/items?page=3"))
        log.end(b, status: 200)
        log.end(c, status: 200)
        let d = log.start(ServerRequest(target: "/other"))
        #expect(log.maxInFlight(pathPrefix: "/items") == 2)
        #expect(log.maxInFlight(pathPrefix: "/") == 2)
        #expect(log.inFlight(pathPrefix: "/") == 1)
        log.end(d, status: nil)
        #expect(log.inFlight(pathPrefix: "/") == 0)
    }
}
