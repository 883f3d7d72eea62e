import Foundation
import Synchronization
import Testing
import Lua
@testable import Wheel
import WheelCore
import WheelServer

/// Pagers from real scripts: only the current page and `keep` pages on each side bound,
/// every bind matched by one unbind over long random walks, images fetched over real
/// HTTP from a loopback server and never delivered to a page that is no longer bound,
/// taps that open encoded http(s) URLs, and bad input that leaves the pager working.
@MainActor
@Suite(.serialized) struct PagerTests {
    /// A 1×1 PNG.
    nonisolated static let png: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
        0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
        0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
        0x42, 0x60, 0x82,
    ]

    /// Images at `/img/N.png`, each after a delay of 0-3 ms; `/missing.png` is a 404,
    /// `/text.png` is HTML, `/slow.png` never answers.
    static func imageServer() async throws -> FixtureServer {
        try await FixtureServer.start { request in
            switch request.path {
            case "/missing.png": return .status(404)
            case "/text.png":
                return .respond(ServerResponse(status: 200, headers: [("content-type", "text/html")], body: Array("<html>no</html>".utf8)))
            case "/slow.png": return .hang
            default:
                let delay = Duration.microseconds(Int64.random(in: 0...3_000))
                return .delayed(delay, .respond(ServerResponse(status: 200, headers: [("content-type", "image/png")], body: png)))
            }
        }
    }

    // MARK: - Binding

    @Test func onlyTheCurrentPageAndItsNeighboursAreBound() async throws {
        let run = try await PagerScript.run("""
            local records = {}
            for i = 1, 50 do records[i] = { name = "user " .. i, body = "text " .. i } end
            pager "p" { items = records, keep = 2, bind = { title = "name", text = "body" } }
            """)
        let pager = run.pager
        pager.start()
        #expect(pager.boundPages.map(\.index) == [0, 1, 2])
        #expect(pager.page(0)?.title == "user 1" && pager.page(0)?.text == "text 1")
        pager.jump(to: 20)
        #expect(pager.boundPages.map(\.index) == [18, 19, 20, 21, 22])
        #expect(pager.page(0) == nil)                           // unbound pages hold nothing
        pager.setPageWidth(100)
        pager.scroll(toOffset: 2_149)                           // page 21.49: the nearest is 21
        #expect(pager.current == 21)
        pager.scroll(toOffset: 2_150)                           // half way rounds up
        #expect(pager.current == 22)
        #expect(pager.settledOffset == 2_200)
        pager.jump(to: 49)
        #expect(pager.boundPages.map(\.index) == [47, 48, 49])
    }

    @Test func aHundredThousandSwipesKeepAtMostTwoKPlusOneBoundAndMatchEveryBind() async throws {
        let server = try await Self.imageServer()
        let run = try await PagerScript.run("""
            local records = {}
            -- 500 avatars among 10,000 records: fetches early on, cache hits later.
            for i = 1, 10000 do records[i] = { title = "record " .. i, image = SERVER .. "/img/" .. (i % 500) .. ".png" } end
            local counts = records[1]                 -- the test reads the counts from here
            counts.binds, counts.unbinds = 0, 0
            pager "p" {
              items = records, keep = 1,
              on_bind = function(record, index) counts.binds = counts.binds + 1 end,
              on_unbind = function(record, index) counts.unbinds = counts.unbinds + 1 end,
            }
            """, server: server)
        let pager = run.pager
        var bound = Set<Int>()
        var binds = 0, unbinds = 0, most = 0, images = 0
        var violations: [String] = []
        pager.observe { event in
            switch event {
            case .imageChanged(let index, _):
                images += 1
                if !bound.contains(index) { violations.append("an image came for unbound page \(index)") }
            case .bound(let page):
                if bound.contains(page.index) { violations.append("bound twice: \(page.index)") }
                bound.insert(page.index)
                binds += 1
                most = max(most, bound.count)
            case .unbound(let index):
                if bound.remove(index) == nil { violations.append("unbound but not bound: \(index)") }
                unbinds += 1
            default: break
            }
        }
        var random = ImageRandom(seed: 0x5EED_4)
        pager.start()
        for step in 0..<100_000 {
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<2: pager.jump(to: Int.random(in: 0..<10_000, using: &random))       // long jumps
            case 2..<51: pager.swipe(by: 1)
            default: pager.swipe(by: -1)
            }
            if step % 10_000 == 0 { #expect(Set(pager.boundPages.map(\.index)) == bound) }
            // Now and then, let the bound pages' images arrive; in between, swipes cancel
            // fetches in flight and start others, until the cache holds every avatar.
            if step % 250 == 0 { await pager.settle() }
        }
        await pager.settle()
        pager.stop()
        #expect(violations.isEmpty, "\(violations.prefix(5))")
        #expect(most <= 3)
        #expect(bound.isEmpty)
        #expect(binds == unbinds)
        #expect(binds > 100_000)
        #expect(images > 100)
        #expect(pager.images.statistics.deliveredToUnbound == 0)
        try await server.stop()
        guard case .items(let records) = pager.source, case .table(let counts) = records[0] else {
            Issue.record("no records")
            return
        }
        #expect(try counts.rawGet("binds", as: Int.self) == binds)   // on_bind and on_unbind ran for each
        #expect(try counts.rawGet("unbinds", as: Int.self) == unbinds)
    }

    @Test func imagesAreFetchedAndNeverDeliveredToAPageNoLongerBound() async throws {
        let server = try await Self.imageServer()
        let run = try await PagerScript.run("""
            local records = {}
            for i = 1, 3000 do records[i] = { title = "r" .. i, image = SERVER .. "/img/" .. i .. ".png" } end
            pager "p" { items = records, keep = 1 }
            """, server: server)
        let pager = run.pager
        var bound = Set<Int>()
        var intoUnbound = 0, delivered = 0
        pager.observe { event in
            switch event {
            case .bound(let page): bound.insert(page.index)
            case .unbound(let index): bound.remove(index)
            case .imageChanged(let index, _):
                delivered += 1
                if !bound.contains(index) { intoUnbound += 1 }
            default: break
            }
        }
        var random = ImageRandom(seed: 0x1A6E5)
        pager.start()
        for step in 0..<3_000 {
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<3: pager.jump(to: Int.random(in: 0..<3_000, using: &random))
            case 3..<60: pager.swipe(by: 1)
            default: pager.swipe(by: -1)
            }
            // Let some fetches finish between swipes, and others not.
            if step % 7 == 0 { try await Task.sleep(for: .microseconds(Int64.random(in: 0...2_000, using: &random))) }
        }
        await pager.settle()
        #expect(intoUnbound == 0)
        #expect(pager.images.statistics.deliveredToUnbound == 0)
        #expect(delivered > 0)
        for page in pager.boundPages {
            guard case .loaded(_, _, let size) = page.image else {
                Issue.record("page \(page.index) has image \(page.image)")
                continue
            }
            #expect(size.width == 1 && size.height == 1)
        }
        try await server.stop()
    }

    @Test func imageFailuresShowOnTheirPageAndThePagerGoesOn() async throws {
        let server = try await Self.imageServer()
        let run = try await PagerScript.run("""
            pager "p" {
              keep = 0,
              items = {
                { title = "missing", image = SERVER .. "/missing.png" },
                { title = "html", image = SERVER .. "/text.png" },
                { title = "fine", image = SERVER .. "/img/1.png" },
                { title = "none" },
                { title = "ftp", image = "ftp://example.org/a.png" },
              },
            }
            """, server: server)
        let pager = run.pager
        pager.start()
        await pager.settle()
        #expect(pager.page(0)?.image == .failed(url: server.baseURL + "/missing.png", reason: "HTTP 404"))
        pager.swipe(by: 1)
        await pager.settle()
        guard case .failed(_, let reason) = pager.page(1)?.image else {
            Issue.record("page 2: \(String(describing: pager.page(1)?.image))")
            return
        }
        #expect(reason.contains("not an image"))
        pager.swipe(by: 1)
        await pager.settle()
        if case .loaded = pager.page(2)?.image {} else { Issue.record("page 3: \(String(describing: pager.page(2)?.image))") }
        pager.swipe(by: 1)
        #expect(pager.page(3)?.image == PageImage.none)
        pager.swipe(by: 1)
        await pager.settle()
        if case .failed = pager.page(4)?.image {} else { Issue.record("page 5: \(String(describing: pager.page(4)?.image))") }
        #expect(run.problems.isEmpty)                           // image failures are the page's, not the script's
        try await server.stop()
    }

    @Test func anImageThatNeverComesTimesOut() async throws {
        let server = try await Self.imageServer()
        let run = try await PagerScript.run("""
            pager "p" { keep = 0, items = { { title = "slow", image = SERVER .. "/slow.png" } } }
            """, server: server, imageTimeout: .milliseconds(300))
        run.pager.start()
        await run.pager.settle()
        guard case .failed(_, let reason) = run.pager.page(0)?.image else {
            Issue.record("page 1: \(String(describing: run.pager.page(0)?.image))")
            return
        }
        #expect(reason.contains("timed out"))
        try await server.stop()
    }

    @Test func missingFieldsAreEmptyAndNestedPathsWork() async throws {
        let run = try await PagerScript.run("""
            pager "p" {
              items = { { user = { name = "ana", handle = "@ana" }, text = "hi", likes = 3 } },
              bind = { title = "user.name", text = "text", subtitle = "user.handle", likes = "likes",
                       missing = "user.age", deep = "a.b.c", image = "avatar" },
            }
            """)
        run.pager.start()
        let page = try #require(run.pager.page(0))
        #expect(page.fields == ["title": "ana", "text": "hi", "subtitle": "@ana", "likes": "3",
                                "missing": "", "deep": "", "image": ""])
        #expect(page.problem == nil)
        #expect(page.image == PageImage.none)
        #expect(run.problems.isEmpty)
    }

    @Test func aBindFunctionGivesTheFields() async throws {
        let run = try await PagerScript.run("""
            pager "p" {
              items = { { first = "Ana", last = "Lima" }, "not a table" },
              bind = function(record, index)
                return { title = record.first .. " " .. record.last, text = "page " .. index }
              end,
            }
            """)
        let pager = run.pager
        pager.start()
        #expect(pager.page(0)?.fields == ["title": "Ana Lima", "text": "page 1"])
        // The second record is a string (its fields are the string library's: nil): the
        // function's own error, at its line.
        #expect(pager.page(1)?.problem?.contains("main.lua:4: attempt to concatenate a nil value") == true,
                "\(String(describing: pager.page(1)?.problem))")
        #expect(run.problems.count == 1)
        pager.swipe(by: 1)
        #expect(pager.current == 1)
    }

    @Test func aRecordThatIsNotATableIsAClearMessageAndThePagerGoesOn() async throws {
        let run = try await PagerScript.run("""
            pager "timeline" { items = { { title = "a" }, 42, { title = "c" } }, keep = 0 }
            """)
        let pager = run.pager
        pager.start()
        pager.swipe(by: 1)
        #expect(pager.page(1)?.problem == "pager 'timeline': record 2 is the number 42, expected a table")
        #expect(run.problems.map(\.message) == ["pager 'timeline': record 2 is the number 42, expected a table"])
        pager.swipe(by: 1)
        #expect(pager.page(2)?.title == "c")
    }

    // MARK: - Taps

    @Test func theTapURLEncodesSpacesAndNonASCIILetters() async throws {
        let run = try await PagerScript.run("""
            pager "p" {
              items = { { from_user = "ana maría", id = 1017 }, { from_user = "Zoë/../admin?x=1#y", id = 7 } },
              on_tap = function(tweet) return url("https://twitter.com/{from_user}/status/{id}", tweet) end,
            }
            """)
        let pager = run.pager
        pager.start()
        #expect(pager.tap() == .open("https://twitter.com/ana%20mar%C3%ADa/status/1017"))
        pager.swipe(by: 1)
        #expect(pager.tap() == .open("https://twitter.com/Zo%C3%AB%2F..%2Fadmin%3Fx%3D1%23y/status/7"))
    }

    @Test(arguments: [
        ("return nil", "main.lua:3: on_tap returned nil, expected a URL string"),
        ("return 42", "main.lua:3: on_tap returned the number 42, expected a URL string"),
        ("return \"javascript:alert(1)\"", "main.lua:3: on_tap returned a URL that is not opened: only http and https URLs are opened, not javascript: URLs"),
        ("return \"https:///nohost\"", "main.lua:3: on_tap returned a URL that is not opened: 'https:///nohost' has no host"),
        ("return url(\"https://x.org/{nope}\", record)", "main.lua:3: url: the record has no field 'nope' for the placeholder {nope}"),
        ("return url(\"javascript:{title}\", record)", "main.lua:3: url: only http and https URLs are opened, not javascript: URLs"),
        ("error(\"tap failed\")", "main.lua:3: tap failed"),
    ])
    func badTapsAreRefusedWithAClearMessage(body: String, expected: String) async throws {
        let run = try await PagerScript.run("""
            pager "p" {
              items = { { title = "a" } },
              on_tap = function(record) \(body) end,
            }
            """)
        run.pager.start()
        guard case .refused(let message) = run.pager.tap() else {
            Issue.record("the tap was not refused")
            return
        }
        #expect(message.hasSuffix(expected), "\(message)")
        #expect(run.problems.count == 1)
        run.pager.swipe(by: 1)                                  // still working
        #expect(run.pager.current == 0)
    }

    // MARK: - A feed as the source

    @Test func aFeedSourceIsAskedForMoreAsTheLastPagesComeNear() async throws {
        let server = try await FixtureServer.start(handler: PagedItems(total: 60).handler)
        let run = try await PagerScript.run("""
            feed "items" {
              page_size = 20, prefetch = 3,
              fetch = function(page, size)
                local res = http.get(("%s/items?page=%d&size=%d"):format(SERVER, page, size))
                local body = json.decode(res.body)
                return body.items, body.next
              end,
              id = function(item) return item.id end,
              row = function(item) return item.title end,
            }
            pager "p" { source = "items" }
            """, server: server)
        let pager = run.pager
        pager.start()
        await pager.settle()
        #expect(pager.pageCount == 20)
        #expect(pager.page(0)?.title == "Item 1")
        for _ in 0..<59 {
            pager.swipe(by: 1)
            await pager.settle()
        }
        #expect(pager.pageCount == 60)
        #expect(pager.current == 59)
        #expect(pager.page(59)?.title == "Item 60")
        #expect(server.requestCount(pathPrefix: "/items") == 3)
        try await server.stop()
    }

    @Test func aFailingSourceFeedShowsItsErrorAndThePagerKeepsWhatItHas() async throws {
        let server = try await FixtureServer.start(handler: PagedItems(total: 60, faults: [2: .serverError]).handler)
        let run = try await PagerScript.run("""
            feed "items" {
              page_size = 20, prefetch = 2, retry = { attempts = 1 },
              fetch = function(page, size)
                local res = http.get(("%s/items?page=%d&size=%d"):format(SERVER, page, size))
                if res.status ~= 200 then error("HTTP " .. res.status) end
                return json.decode(res.body).items, json.decode(res.body).next
              end,
              row = function(item) return item.title end,
            }
            pager "p" { source = "items" }
            """, server: server)
        let pager = run.pager
        pager.start()
        await pager.settle()
        pager.jump(to: 19)
        await pager.settle()
        #expect(pager.sourceStatus?.hasPrefix("feed 'items': ") == true)
        #expect(pager.sourceStatus?.hasSuffix("main.lua:5: HTTP 500") == true, "\(String(describing: pager.sourceStatus))")
        #expect(pager.pageCount == 20)
        pager.swipe(by: -1)
        #expect(pager.page(18)?.title == "Item 19")
        try await server.stop()
    }

    @Test func aSourceNamingNoFeedIsReported() async throws {
        let run = try await PagerScript.run("pager \"p\" { source = \"nothing\" }")
        run.pager.start()
        #expect(run.problems.map(\.message) == ["pager 'p': source names no feed 'nothing'"])
        #expect(run.pager.sourceStatus == "no feed named 'nothing'")
    }

    // MARK: - The declaration

    @Test(arguments: [
        ("pager \"p\" { }", "main.lua:1: pager 'p': give its records: source = \"feed name\", or items = { ... }"),
        ("pager \"p\" { items = {}, source = \"f\" }", "main.lua:1: pager 'p': give source or items, not both"),
        ("pager \"p\" { items = {}, keep = -1 }", "main.lua:1: pager 'p': keep must be a whole number from 0 to 100, not the number -1"),
        ("pager \"p\" { items = {}, bind = 3 }", "main.lua:1: pager 'p': bind must be a table of field paths or a function(record, index), not the number 3"),
        ("pager \"p\" { items = {}, bind = { title = 3 } }", "main.lua:1: pager 'p': bind must map field names to paths in the record (title = \"user.name\"), not the string \"title\" = the number 3"),
        ("pager \"p\" { items = {}, on_tap = \"x\" }", "main.lua:1: pager 'p': on_tap must be a function(record, index) returning a URL, not the string \"x\""),
        ("pager \"p\" { items = {}, pages = 3 }", "main.lua:1: pager 'p' has an unknown field 'pages' (fields: bind, items, keep, on_bind, on_tap, on_unbind, source)"),
        ("pager \"p\" { items = {} }\npager \"p\" { items = {} }", "main.lua:2: a pager named 'p' is already declared"),
        ("url(\"https://x.org/{a}\", \"nope\")", "bad argument #2 to 'url' (table expected, got string)"),
    ])
    func declarationMistakes(source: String, expected: String) async throws {
        let file = try FeedScript.file(source)
        let runtime = try Runtime()
        do {
            try await runtime.run(file: file.path)
            Issue.record("the script ran without an error")
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
        }
    }
}

/// A pager script run by a runtime on the main actor, with the problems it reported.
@MainActor
struct PagerScript {
    let runtime: Runtime
    let pager: Pager
    let box: ProblemBox
    var problems: [ScriptProblem] { box.all }

    static func run(_ source: String, server: FixtureServer? = nil,
                    imageTimeout: Duration? = nil) async throws -> PagerScript {
        let path = try FeedScript.file(source)
        let runtime = try Runtime(options: .init(timeout: .seconds(5)))
        if let server { try runtime.define("SERVER", server.baseURL) }
        let box = ProblemBox()
        runtime.onProblem = { box.all.append($0) }
        try await runtime.run(file: path.path)
        guard let pager = runtime.pagers.first else { throw HarnessError("the script declared no pager") }
        if let imageTimeout { pager.images.timeout = imageTimeout }
        return PagerScript(runtime: runtime, pager: pager, box: box)
    }

    /// The function a chunk returns (the chunk sees the library's globals, not the script's).
    func lua(_ source: String) throws -> LuaFunction {
        try runtime.state.load(source, name: "test").call(returning: LuaFunction.self)
    }
}
