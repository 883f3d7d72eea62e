import Foundation
import Synchronization
import Testing
import Lua
@testable import Wheel
import WheelServer

/// Scripts that call `http` through a `Runtime`, against a `FixtureServer` each test starts.
/// `BASE` is the server's base URL; `print` lines are collected.
struct HTTPScripts {
    let scratch = Scratch()

    func file(_ source: String) throws -> String {
        let folder = scratch.url.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("main.lua")
        try source.write(to: path, atomically: true, encoding: .utf8)
        return path.path
    }

    /// Runs `source` to the end; returns what it printed.
    func run(_ source: String, base: String, options: Runtime.Options = .init()) async throws -> [String] {
        let lines = Lines()
        var options = options
        options.log = lines.sink
        let runtime = try Runtime(options: options)
        try runtime.state.library().set("BASE", base)
        try await runtime.run(file: try file(source))
        return lines.all
    }

    /// Runs `source`, which must fail; returns the error and what the script printed first.
    func failure(_ source: String, base: String, options: Runtime.Options = .init()) async throws -> (error: any Error, printed: [String]) {
        let lines = Lines()
        var options = options
        options.log = lines.sink
        let runtime = try Runtime(options: options)
        try runtime.state.library().set("BASE", base)
        do {
            try await runtime.run(file: try file(source))
        } catch {
            return (error, lines.all)
        }
        Issue.record("the script ran without an error")
        return (LuaError.closed, lines.all)
    }
}

/// The `HTTPFailure` inside a script error that reached Swift.
func httpFailure(_ error: any Error) -> HTTPFailure? {
    if case LuaError.host(let underlying as HTTPFailure, _) = error { return underlying }
    return nil
}

/// A port nothing listens on: a server's, after it stopped.
func closedPort() async throws -> Int {
    let server = try await FixtureServer.start()
    try await server.stop()
    return server.port
}

/// A transport that answers every request with `response` and keeps the requests.
final class RecordingTransport: HTTPTransport {
    let response: HTTPResponse
    private let sent = Mutex<[HTTPRequest]>([])
    init(_ response: HTTPResponse) { self.response = response }
    var requests: [HTTPRequest] { sent.withLock { $0 } }
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        sent.withLock { $0.append(request) }
        return response
    }
}

@Suite struct HTTPTests {
    let scripts = HTTPScripts()

    // MARK: - Responses

    @Test func getReturnsStatusHeadersAndBody() async throws {
        let server = try await FixtureServer.start { request in
            .respond(ServerResponse(status: 200, headers: [
                ("Content-Type", "text/plain"), ("X-Multi", "one"), ("X-Multi", "two"),
            ], body: Array("hello \(request.query["name"] ?? "")".utf8)))
        }
        let printed = try await scripts.run("""
            local res = http.get(BASE .. "/hello?name=lua")
            print(res.status, res.body, res.headers["content-type"], res.headers["x-multi"])
            print(res.headers["Content-Type"], res.headers["content-length"], math.type(res.status))
            """, base: server.baseURL)
        #expect(printed == ["200\thello lua\ttext/plain\tone, two", "nil\t9\tinteger"])
        try await server.stop()
    }

    @Test func getSendsTheHeadersOfItsOptions() async throws {
        let server = try await FixtureServer.start { request in
            .text("\(request.method) \(request.header("accept") ?? "-") \(request.header("x-page") ?? "-")")
        }
        let printed = try await scripts.run("""
            local res = http.get(BASE .. "/echo", { headers = { Accept = "application/json", ["X-Page"] = 3 }, timeout = 5 })
            print(res.body)
            """, base: server.baseURL)
        #expect(printed == ["GET application/json 3"])
        try await server.stop()
    }

    @Test func requestSendsMethodHeadersAndABodyOfAnyBytes() async throws {
        let seen = Mutex<ServerRequest?>(nil)
        let server = try await FixtureServer.start { request in
            seen.withLock { $0 = request }
            return .respond(ServerResponse(status: 201, headers: [("Location", "/items/7")], body: [0xFF, 0x00, 0x41]))
        }
        let printed = try await scripts.run("""
            local res = http.request {
              method = "post", url = BASE .. "/items",
              headers = { ["Content-Type"] = "application/json" },
              body = '{"title":"new"}\\0end',
              timeout = 2,
            }
            print(res.status, res.headers.location, #res.body, res.body:byte(1), res.body:byte(2), res.body:sub(3))
            """, base: server.baseURL)
        #expect(printed == ["201\t/items/7\t3\t255\t0\tA"])
        let request = try #require(seen.withLock { $0 })
        #expect(request.method == "POST")
        #expect(request.path == "/items")
        #expect(request.header("content-type") == "application/json")
        #expect(request.body == Array(#"{"title":"new"}"#.utf8) + [0] + Array("end".utf8))
        try await server.stop()
    }

    @Test func aHeadRequestHasTheHeadersAndNoBody() async throws {
        let server = try await FixtureServer.start { _ in .text(String(repeating: "x", count: 50)) }
        let printed = try await scripts.run("""
            local res = http.request { method = "HEAD", url = BASE .. "/x" }
            print(res.status, res.headers["content-length"], #res.body)
            """, base: server.baseURL)
        #expect(printed == ["200\t50\t0"])
        try await server.stop()
    }

    @Test func aPageDecodesWithJSON() async throws {
        let server = try await FixtureServer.start(handler: PagedItems(total: 25).handler)
        let printed = try await scripts.run("""
            local function fetch(page)
              local res = http.get(("%s/items?page=%d&size=10"):format(BASE, page))
              assert(res.status == 200, res.status)
              local decoded = json.decode(res.body)
              return decoded.items, decoded.next
            end
            local items, next, seen = nil, 1, 0
            repeat
              items, next = fetch(next)
              seen = seen + #items
              print(#items, items[1].title, next == json.null and "null" or next)
            until next == json.null
            print(seen)
            """, base: server.baseURL)
        #expect(printed == ["10\tItem 1\t2", "10\tItem 11\t3", "5\tItem 21\tnull", "25"])
        #expect(server.maxInFlight(pathPrefix: "/items") == 1)
        #expect(server.requestCount(pathPrefix: "/items") == 3)
        try await server.stop()
    }

    @Test func aServerErrorIsAStatusNotAnError() async throws {
        let server = try await FixtureServer.start(handler: PagedItems(total: 5, faults: [1: .serverError]).handler)
        let printed = try await scripts.run("""
            local res = http.get(BASE .. "/items?page=1")
            print(res.status, res.body)
            print(http.get(BASE .. "/nothing/here").status)
            """, base: server.baseURL)
        #expect(printed == ["500\tinjected failure\n", "404"])
        try await server.stop()
    }

    // MARK: - Failures

    @Test func aRefusedConnectionNamesTheURLAndTheCause() async throws {
        let url = "http://127.0.0.1:\(try await closedPort())/items"
        let started = ContinuousClock.now
        let (error, _) = try await scripts.failure("""
            local x = 1
            local res = http.get("\(url)")
            """, base: "")
        #expect("\(error)".hasSuffix("main.lua:2: GET \(url): connection refused"), "\(error)")
        #expect(httpFailure(error) == HTTPFailure(method: "GET", url: url, cause: .connectionRefused))
        #expect(ContinuousClock.now - started < .seconds(5))   // no retrying until the timeout
    }

    @Test func aTimeoutNamesTheURLAndTheLimit() async throws {
        let server = try await FixtureServer.start { _ in .hang }
        let url = server.baseURL + "/slow"
        let (error, _) = try await scripts.failure("""
            http.get("\(url)", { timeout = 0.3 })
            """, base: server.baseURL)
        #expect("\(error)".hasSuffix("main.lua:1: GET \(url): timed out after 300ms"), "\(error)")
        #expect(httpFailure(error)?.cause == .timedOut(.milliseconds(300)))
        try await server.stop()
    }

    @Test func theRuntimesTimeoutAppliesWhenTheScriptGivesNone() async throws {
        let server = try await FixtureServer.start { _ in .hang }
        let (error, _) = try await scripts.failure("""
            http.request { method = "DELETE", url = BASE .. "/x" }
            """, base: server.baseURL, options: .init(httpTimeout: .milliseconds(250)))
        #expect(httpFailure(error) == HTTPFailure(method: "DELETE", url: server.baseURL + "/x", cause: .timedOut(.milliseconds(250))))
        try await server.stop()
    }

    @Test func theTimeoutCoversASlowBody() async throws {
        let server = try await FixtureServer.start { _ in
            .slowBody(ServerResponse(body: Array(repeating: 65, count: 100)), chunkSize: 10, interval: .milliseconds(100))
        }
        let (error, _) = try await scripts.failure("""
            http.get(BASE .. "/drip", { timeout = 0.3 })
            """, base: server.baseURL)
        #expect(httpFailure(error)?.cause == .timedOut(.milliseconds(300)), "\(error)")
        try await server.stop()
    }

    @Test func aResetIsAnError() async throws {
        let server = try await FixtureServer.start { _ in .reset }
        let url = server.baseURL + "/gone"
        let (error, _) = try await scripts.failure("""
            http.get("\(url)")
            """, base: server.baseURL)
        let failure = try #require(httpFailure(error), "\(error)")
        #expect(failure.cause == .connectionReset, "\(failure)")
        #expect("\(error)".contains("main.lua:1: GET \(url): connection "), "\(error)")
        try await server.stop()
    }

    @Test func aBodyOverTheLimitIsAnError() async throws {
        let server = try await FixtureServer.start { request in
            .text(String(repeating: "x", count: request.path == "/big" ? 2048 : 1024))
        }
        let options = Runtime.Options(transport: AsyncHTTPClientTransport(maxBodySize: 1024))
        let printed = try await scripts.run("""
            print(#http.get(BASE .. "/fits").body)
            """, base: server.baseURL, options: options)
        #expect(printed == ["1024"])
        let (error, _) = try await scripts.failure("""
            http.get(BASE .. "/big")
            """, base: server.baseURL, options: options)
        #expect("\(error)".hasSuffix("main.lua:1: GET \(server.baseURL)/big: response body larger than 1 KiB"), "\(error)")
        try await server.stop()
    }

    @Test func badURLsAndSchemesAreErrorsNamingThem() async throws {
        let (scheme, _) = try await scripts.failure(#"http.get("ftp://127.0.0.1/file")"#, base: "")
        #expect("\(scheme)".hasSuffix("main.lua:1: GET ftp://127.0.0.1/file: unsupported scheme 'ftp'"), "\(scheme)")
        let (invalid, _) = try await scripts.failure(#"http.request { method = "PUT", url = "no url at all" }"#, base: "")
        #expect("\(invalid)".hasSuffix("main.lua:1: PUT no url at all: invalid URL"), "\(invalid)")
        let (empty, _) = try await scripts.failure(#"http.get("http://")"#, base: "")
        #expect(httpFailure(empty)?.cause == .invalidURL, "\(empty)")
    }

    @Test func aScriptCanCatchAFailureAndGoOn() async throws {
        let server = try await FixtureServer.start { request in request.path == "/reset" ? .reset : .text("fine") }
        let refused = "http://127.0.0.1:\(try await closedPort())/"
        let printed = try await scripts.run("""
            local ok, err = pcall(http.get, "\(refused)")
            print(ok, tostring(err))
            ok, err = pcall(http.get, BASE .. "/reset")
            print(ok, (tostring(err):gsub(":%d+/", ":PORT/")))
            print(http.get(BASE .. "/after").body)
            """, base: server.baseURL)
        #expect(printed.count == 3)
        #expect(printed.first == "false\tGET \(refused): connection refused")
        #expect(printed.dropFirst().first?.hasPrefix("false\tGET http://127.0.0.1:PORT/reset: connection ") == true, "\(printed)")
        #expect(printed.last == "fine")
        try await server.stop()
    }

    @Test func requestsFromCoroutinesOfTheScriptInterleave() async throws {
        let server = try await FixtureServer.start { request in .delayed(.milliseconds(20), .text(request.path)) }
        let printed = try await scripts.run("""
            local pages = coroutine.wrap(function()
              for i = 1, 3 do coroutine.yield(http.get(BASE .. "/p" .. i).body) end
            end)
            print(pages(), pages(), pages())
            """, base: server.baseURL)
        #expect(printed == ["/p1\t/p2\t/p3"])
        try await server.stop()
    }

    // MARK: - Arguments

    @Test(arguments: [
        (#"http.get(42)"#, "http.get: url must be a string, got number"),
        (#"http.get()"#, "http.get: url must be a string, got nil"),
        (#"http.get(BASE, 5)"#, "http.get: options must be a table { headers = ..., timeout = ... }, got number"),
        (#"http.get(BASE, { timeout = -1 })"#, "http.get: timeout must be a positive number of seconds, got -1"),
        (#"http.get(BASE, { timeout = 0.0 })"#, "http.get: timeout must be a positive number of seconds, got 0.0"),
        (#"http.get(BASE, { timeout = "2" })"#, "http.get: timeout must be a number of seconds, got string"),
        (#"http.get(BASE, { headers = { accept = true } })"#, "http.get: headers must be a table of strings, header 'accept' is a boolean"),
        (#"http.get(BASE, { headers = "accept" })"#, "http.get: headers must be a table of strings, got string"),
        (#"http.get(BASE, { headers = { "x" } })"#, "http.get: headers must be a table of strings, found a number key"),
        (#"http.get(BASE, { headers = { ["bad name"] = "x" } })"#, "http.get: 'bad name' is not a valid header name"),
        (#"http.get(BASE, { headers = { x = "a\r\nb: c" } })"#, "http.get: header 'x' contains a line break"),
        (#"http.get(BASE, { hedaers = {} })"#, "http.get: unknown option 'hedaers' (the options are headers and timeout)"),
        (#"http.request(BASE)"#, "http.request: expected a table { method = ..., url = ..., headers = ..., body = ..., timeout = ... }, got string"),
        (#"http.request { method = "FETCH", url = BASE }"#, "http.request: unknown method 'FETCH' (GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS)"),
        (#"http.request { method = 1, url = BASE }"#, "http.request: method must be a string, got number"),
        (#"http.request { method = "GET" }"#, "http.request: url must be a string, got nil"),
        (#"http.request { url = BASE, body = {} }"#, "http.request: body must be a string, got table"),
        (#"http.request { url = BASE, bdy = "x" }"#, "http.request: unknown field 'bdy' (the fields are method, url, headers, body and timeout)"),
    ])
    func aWrongArgumentIsAnErrorAtTheCallingLine(call: String, message: String) async throws {
        let server = try await FixtureServer.start { _ in .text("sent") }
        let (error, printed) = try await scripts.failure("""
            print("before")
            \(call)
            """, base: server.baseURL)
        #expect("\(error)".hasSuffix("main.lua:2: \(message)"), "\(error)")
        #expect(printed == ["before"])
        #expect(server.requestCount() == 0)   // nothing was sent
        try await server.stop()
    }

    @Test func anArgumentErrorCanBeCaught() async throws {
        let printed = try await scripts.run("""
            local ok, err = pcall(http.get, {})
            print(ok, err)
            """, base: "")
        #expect(printed.count == 1)
        #expect(printed[0].hasPrefix("false\t"))
        #expect(printed[0].hasSuffix("main.lua:1: http.get: url must be a string, got table") || printed[0].hasSuffix("http.get: url must be a string, got table"), "\(printed)")
    }

    @Test func outsideACoroutineTheBridgeSaysSo() async throws {
        let runtime = try Runtime()
        let function = try runtime.state.load("return function() return http.get('http://127.0.0.1:1/') end", name: "=direct")
            .call(returning: LuaFunction.self)
        #expect {
            let _: LuaValue = try function.call()
        } throws: { error in
            "\(error)".contains("attempt to wait for an async host function outside a coroutine")
        }
    }

    // MARK: - Transports

    @Test func aHostTransportSeesTheRequestsAndAnswersThem() async throws {
        let transport = RecordingTransport(HTTPResponse(status: 203, headers: [("X-From", "host"), ("x-from", "again")],
                                                        body: Array("canned".utf8)))
        let printed = try await scripts.run("""
            local res = http.get("app://anything", { headers = { a = "1" } })
            print(res.status, res.body, res.headers["x-from"])
            http.request { method = "patch", url = "app://x", body = "b", timeout = 1.5 }
            """, base: "", options: .init(transport: transport, httpTimeout: .seconds(7)))
        #expect(printed == ["203\tcanned\thost, again"])
        let requests = transport.requests
        #expect(requests.map(\.method) == ["GET", "PATCH"])
        #expect(requests.map(\.url) == ["app://anything", "app://x"])
        #expect(requests[0].headers.map { "\($0.name)=\($0.value)" } == ["a=1"])
        #expect(requests[0].body == nil)
        #expect(requests[1].body == Array("b".utf8))
        #expect(requests.map(\.timeout) == [.seconds(7), .milliseconds(1500)])
    }

    @Test func withoutATransportScriptsHaveNoHTTP() async throws {
        let printed = try await scripts.run("print(http)", base: "", options: .init(transport: nil))
        #expect(printed == ["nil"])
    }

    @Test func aTransportErrorOfAnotherKindStillNamesTheRequest() async throws {
        struct Broken: HTTPTransport {
            struct Oops: Error, CustomStringConvertible { var description: String { "the cable is out" } }
            func send(_ request: HTTPRequest) async throws -> HTTPResponse { throw Oops() }
        }
        let (error, _) = try await scripts.failure(#"http.get("app://x")"#, base: "", options: .init(transport: Broken()))
        #expect("\(error)".hasSuffix("main.lua:1: GET app://x: the cable is out"), "\(error)")
    }

    @Test @MainActor func cancellingTheRunCancelsTheRequest() async throws {
        let server = try await FixtureServer.start { _ in .hang }
        let path = try scripts.file(#"http.get(BASE .. "/never", { timeout = 30 })"#)
        let base = server.baseURL
        let run = Task { @MainActor in
            let runtime = try Runtime()
            try runtime.state.library().set("BASE", base)
            try await runtime.run(file: path)
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while server.inFlight() == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        run.cancel()
        await #expect(throws: (any Error).self) { try await run.value }
        // The client closed the connection: the server saw the request end.
        while server.inFlight() > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(server.inFlight() == 0)
        #expect(server.requestCount() == 1)
        try await server.stop()
    }

    // MARK: - Messages

    @Test func failuresReadAsPeopleWriteThem() {
        #expect(HTTPFailure(method: "GET", url: "http://127.0.0.1:8080/slow", cause: .timedOut(.seconds(2))).description
                == "GET http://127.0.0.1:8080/slow: timed out after 2s")
        #expect(HTTPFailure.Cause.timedOut(.milliseconds(1500)).description == "timed out after 1.5s")
        #expect(HTTPFailure.Cause.bodyTooLarge(limit: 16 << 20).description == "response body larger than 16 MiB")
        #expect(HTTPFailure.Cause.bodyTooLarge(limit: 1000).description == "response body larger than 1000 bytes")
        #expect(HTTPFailure(method: "GET", url: "http://127.0.0.1:5/items", cause: .connectionRefused).description
                == "GET http://127.0.0.1:5/items: connection refused")
    }
}
