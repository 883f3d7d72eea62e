import Foundation
import Synchronization
import Testing
import Lua
@testable import Wheel
import WheelServer

/// Feeds from real scripts, fetching over real HTTP from a loopback `FixtureServer` that
/// each test starts (with the faults it injects): every item loaded once and in order,
/// one request in flight, each fault survived without losing, repeating or reordering an
/// item, and `max_items` keeping memory bounded. Runs on the main actor: a feed's fetches
/// run on its runtime's actor.
@MainActor
@Suite(.serialized) struct FeedTests {
    // MARK: - Loading everything

    @Test func scrollingToTheEndOfTenThousandItemsLoadsEachOnceInOrderWithOneFetchPerPage() async throws {
        let items = PagedItems(total: 10_000)
        let harness = try await FeedHarness.start(items, pageSize: 50)
        let feed = harness.feed
        try await harness.scrollToEnd()
        #expect(feed.rowCount == 10_000)
        #expect(harness.ids() == Array(1...10_000))
        #expect(feed.row(9_999).text == "Item 10000")
        #expect(harness.server.requestCount(pathPrefix: "/items") == 200)   // ceil(10000 / 50)
        #expect(harness.server.maxInFlight(pathPrefix: "/items") == 1)
        #expect(feed.footer == .end)
        #expect(feed.footer.text == "end of feed")
        #expect(harness.problems.isEmpty)
        try await harness.stop()
    }

    @Test func aFirstPageShorterThanTheViewportIsFollowedAtOnce() async throws {
        let harness = try await FeedHarness.start(PagedItems(total: 100), pageSize: 4, prefetch: 0)
        harness.feed.setViewport(0..<10)
        await harness.feed.settle()
        #expect(harness.feed.rowCount == 12)                    // 3 pages fill 10 rows
        #expect(harness.server.requestCount(pathPrefix: "/items") == 3)
        try await harness.stop()
    }

    @Test func manyScrollEventsDuringAFetchStartOnlyOne() async throws {
        let items = PagedItems(total: 200, latency: .milliseconds(30))
        let harness = try await FeedHarness.start(items, pageSize: 20)
        let feed = harness.feed
        for offset in 0..<50 { feed.setViewport(offset..<(offset + 10)) }
        await feed.settle()
        for offset in 0..<50 { feed.setViewport((15 + offset)..<(25 + offset)) }
        await feed.settle()
        #expect(harness.server.maxInFlight(pathPrefix: "/items") == 1)
        #expect(harness.ids() == Array(1...feed.rowCount))
        try await harness.stop()
    }

    // MARK: - Faults

    @Test func aServerErrorIsRetriedByItselfAndNothingIsLostOrRepeated() async throws {
        let items = PagedItems(total: 100, faults: [2: .serverErrorOnce])
        let harness = try await FeedHarness.start(items, pageSize: 20)
        try await harness.scrollToEnd()
        #expect(harness.ids() == Array(1...100))
        #expect(items.attempts(page: 2) == 2)
        #expect(harness.feed.statistics.automaticRetries == 1)
        #expect(harness.server.maxInFlight(pathPrefix: "/items") == 1)
        try await harness.stop()
    }

    @Test func aServerErrorThatStaysShowsInTheFooterKeepsTheRowsAndRetryTriesAgain() async throws {
        let items = PagedItems(total: 100, faults: [3: .serverError])
        let harness = try await FeedHarness.start(items, pageSize: 20, attempts: 2)
        let feed = harness.feed
        try await harness.scrollToEnd()
        #expect(harness.ids() == Array(1...40))
        let message = harness.errorMessage()
        #expect(message.hasSuffix("main.lua:6: HTTP 500"))
        #expect(feed.footer.text.hasPrefix("error: ") && feed.footer.text.hasSuffix("HTTP 500 — retry"))
        #expect(items.attempts(page: 3) == 2)
        feed.retry()
        await feed.settle()
        #expect(items.attempts(page: 3) == 4)                  // a fresh count of two tries
        #expect(harness.ids() == Array(1...40))
        try await harness.stop()
    }

    @Test func aSlowBodyArrivesWholeWhileScrollingGoesOn() async throws {
        let items = PagedItems(total: 60, faults: [2: .slowBody(chunkSize: 64, interval: .milliseconds(5))])
        let harness = try await FeedHarness.start(items, pageSize: 20)
        let feed = harness.feed
        feed.setViewport(0..<10)
        await feed.settle()
        feed.setViewport(12..<22)                               // page 2, slowly
        for offset in 12..<20 { feed.setViewport(offset..<(offset + 10)) }
        await feed.settle()
        try await harness.scrollToEnd()
        #expect(harness.ids() == Array(1...60))
        #expect(harness.server.maxInFlight(pathPrefix: "/items") == 1)
        try await harness.stop()
    }

    @Test func aTimeoutIsAnErrorNamingTheURLAndLosesNothing() async throws {
        let items = PagedItems(total: 40, faults: [2: .hang])
        let harness = try await FeedHarness.start(items, pageSize: 20, timeout: 0.3, attempts: 1)
        try await harness.scrollToEnd()
        let message = harness.errorMessage()
        #expect(message.contains("/items?page=2"))
        #expect(harness.ids() == Array(1...20))
        try await harness.stop()
    }

    @Test func aTimedOutRequestIsOverBeforeItsRetryIsSent() async throws {
        // Page 2 hangs the first time only (a delay far longer than the timeout).
        let items = PagedItems(total: 60, faults: [2: .delay(.seconds(30))])
        let firstOnly = FirstAttemptOnly(items)
        let server = try await FixtureServer.start(handler: firstOnly.handler)
        let harness = try await FeedHarness.start(server: server, pageSize: 20, timeout: 0.3, attempts: 2)
        try await harness.scrollToEnd()
        #expect(harness.ids() == Array(1...60))
        #expect(items.attempts(page: 2) == 1 && firstOnly.count(page: 2) == 2)
        #expect(harness.server.maxInFlight(pathPrefix: "/items") == 1)
        try await harness.stop()
    }

    @Test func malformedJSONIsAnErrorAtTheScriptLineAndLosesNothing() async throws {
        let items = PagedItems(total: 40, faults: [2: .malformedJSON])
        let harness = try await FeedHarness.start(items, pageSize: 20, attempts: 1)
        let feed = harness.feed
        try await harness.scrollToEnd()
        let message = harness.errorMessage()
        #expect(message.contains("main.lua:7:"))               // the json.decode line
        #expect(harness.ids() == Array(1...20))
        // The server answers page 2 the same way every time: a retry fails the same way
        // and still loses nothing.
        feed.retry()
        await feed.settle()
        #expect(harness.ids() == Array(1...20))
        try await harness.stop()
    }

    @Test func aResetConnectionIsAnErrorNamingTheURLAndLosesNothing() async throws {
        let items = PagedItems(total: 60, faults: [2: .reset])
        let harness = try await FeedHarness.start(items, pageSize: 20, attempts: 1)
        try await harness.scrollToEnd()
        let message = harness.errorMessage()
        #expect(message.contains("/items?page=2"))
        #expect(harness.ids() == Array(1...20))
        try await harness.stop()
    }

    @Test func aRefreshDuringASlowFetchDiscardsTheSlowReply() async throws {
        let items = PagedItems(total: 100, faults: [2: .delay(.milliseconds(400))])
        let harness = try await FeedHarness.start(items, pageSize: 20)
        let feed = harness.feed
        feed.setViewport(0..<10)
        await feed.settle()
        feed.setViewport(12..<22)                               // page 2: slow
        #expect(feed.footer == .loading)
        feed.refresh()                                          // page 1 again, at once
        await feed.settle()
        #expect(feed.statistics.staleRepliesIgnored == 1)
        // The new generation's pages 1 and 2 (the viewport still shows rows 13-22), each once.
        #expect(harness.ids() == Array(1...40))
        #expect(feed.statistics.pagesAppended == 2 + 1)         // page 1, then (after the refresh) 1 and 2
        #expect(feed.generationForTests == 1)
        // The slow request was cancelled before the refresh asked: never two at once.
        #expect(harness.server.maxInFlight(pathPrefix: "/items") == 1)
        try await harness.scrollToEnd()
        #expect(harness.ids() == Array(1...100))
        try await harness.stop()
    }

    @Test func repliesThatCompleteOutOfOrderAreTakenInTheFeedsOrder() async throws {
        // Page 1 is slow and page 2 fast; a refresh while page 1 is out sends page 1 again
        // (fast this time): the late first reply is ignored, and every page comes in order.
        let items = PagedItems(total: 60, faults: [1: .delay(.milliseconds(300))])
        let harness = try await FeedHarness.start(items, pageSize: 20)
        let feed = harness.feed
        feed.setViewport(0..<10)
        try await Task.sleep(for: .milliseconds(50))
        feed.refresh()
        await feed.settle()
        try await harness.scrollToEnd()
        #expect(harness.ids() == Array(1...60))
        #expect(feed.statistics.staleRepliesIgnored == 1)
        try await harness.stop()
    }

    @Test func itemsRepeatedAcrossPagesAreShownOnceTheFirstCopyKept() async throws {
        let items = PagedItems(total: 500, repeatsPrevious: 2)
        let harness = try await FeedHarness.start(items, pageSize: 20)
        try await harness.scrollToEnd()
        #expect(harness.ids() == Array(1...500))
        #expect(harness.feed.statistics.duplicatesDropped > 0)
        try await harness.stop()
    }

    // MARK: - Bounded memory

    @Test func maxItemsBoundsWhatIsHeldAndScrollingBackFetchesDroppedPagesAgain() async throws {
        let items = PagedItems(total: 100_000)
        let harness = try await FeedHarness.start(items, pageSize: 100, prefetch: 10, maxItems: 200)
        let feed = harness.feed
        var mostHeld = 0
        feed.observe { [unowned feed] _ in mostHeld = max(mostHeld, feed.itemCount) }   // unowned: no cycle
        try await harness.scrollToEnd()
        #expect(feed.rowCount == 100_000)
        #expect(feed.footer == .end)
        #expect(mostHeld <= 200 + 100)
        #expect(feed.itemCount <= 200)
        #expect(harness.server.requestCount(pathPrefix: "/items") == 1_000)
        // Back to the top: the dropped first pages come again, the same items at the same rows.
        for first in stride(from: 99_990, through: 0, by: -5_000) + [0] {
            feed.setViewport(first..<(first + 10))
            await feed.settle()
            for row in first..<(first + 10) { #expect(feed.itemID(row) == .integer(Int64(row + 1))) }
        }
        #expect(feed.statistics.pagesRefetched >= 20)
        #expect(mostHeld <= 300)
        #expect(harness.server.maxInFlight(pathPrefix: "/items") == 1)
        try await harness.stop()
    }

    // MARK: - The script's side

    @Test func theScriptReadsTheStateAndItemsAndCanRefresh() async throws {
        let harness = try await FeedHarness.start(PagedItems(total: 30), pageSize: 20)
        let feed = harness.feed
        feed.setViewport(0..<10)
        await feed.settle()
        let describe = try harness.lua("""
            return function(f)
              local first = f:item(1)
              return f.name .. " " .. f.state .. " " .. f.count .. " " .. f.loaded .. " " .. (first and first.title or "-")
            end
            """)
        #expect(try describe.call(feed.scriptObject, returning: String.self) == "items idle 20 20 Item 1")
        feed.setViewport(15..<25)
        await feed.settle()
        #expect(try describe.call(feed.scriptObject, returning: String.self) == "items end 30 30 Item 1")
        let refresh = try harness.lua("return function(f) f:refresh() return f.state end")
        #expect(try refresh.call(feed.scriptObject, returning: String.self) == "loading")
        await feed.settle()
        #expect(feed.generationForTests == 1)
        #expect(feed.rowCount == 30)                            // pages 1 and 2 again: the viewport is at row 16
        try await harness.stop()
    }

    @Test func selectingARowRunsOnSelectWithTheItemAndItsIndex() async throws {
        let harness = try await FeedHarness.start(PagedItems(total: 30), pageSize: 20, onSelect: """
            function(item, index) print(item.title .. " at " .. index) end
            """)
        let feed = harness.feed
        feed.setViewport(0..<10)
        await feed.settle()
        try feed.select(4)
        #expect(harness.printed == ["Item 5 at 5"])
        #expect(feed.row(4).isSelected)
        #expect(throws: FeedError.rowOutOfRange(feed: "items", row: 99, count: 20)) { try feed.select(99) }
        try await harness.stop()
    }
}

extension Feed {
    var generationForTests: Int { core.generation }
}

/// A feed script against a loopback `PagedItems` server: the script fetches
/// `SERVER/items?page=key&size=size` with `http.get`, decodes the JSON, and uses the id
/// and the title.
@MainActor
final class FeedHarness {
    let server: FixtureServer
    let runtime: Runtime
    let feed: Feed
    private let problemBox = ProblemBox()
    var problems: [ScriptProblem] { problemBox.all }
    fileprivate var printBox = ProblemBox()
    /// What the script printed.
    var printed: [String] { printBox.lines }
    let folder: URL

    private init(server: FixtureServer, runtime: Runtime, feed: Feed, folder: URL) {
        self.server = server
        self.runtime = runtime
        self.feed = feed
        self.folder = folder
    }

    static func start(_ items: PagedItems, pageSize: Int, prefetch: Int = 5, maxItems: Int? = nil,
                      timeout: Double = 5, attempts: Int = 3, onSelect: String = "nil") async throws -> FeedHarness {
        let server = try await FixtureServer.start(handler: items.handler)
        return try await start(server: server, pageSize: pageSize, prefetch: prefetch, maxItems: maxItems,
                               timeout: timeout, attempts: attempts, onSelect: onSelect)
    }

    static func start(server: FixtureServer, pageSize: Int, prefetch: Int = 5, maxItems: Int? = nil,
                      timeout: Double = 5, attempts: Int = 3, onSelect: String = "nil") async throws -> FeedHarness {
        let source = """
            feed "items" {
              page_size = \(pageSize), prefetch = \(prefetch), max_items = \(maxItems.map(String.init) ?? "nil"),
              retry = { attempts = \(attempts), backoff = 0.02 },
              fetch = function(page, size)
                local res = http.get(("%s/items?page=%d&size=%d"):format(SERVER, page, size), { timeout = \(timeout) })
                if res.status ~= 200 then error("HTTP " .. res.status) end
                local body = json.decode(res.body)
                return body.items, body.next
              end,
              id = function(item) return item.id end,
              row = function(item) return item.title end,
              on_select = \(onSelect),
            }
            """
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wheel-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("main.lua")
        try source.write(to: path, atomically: true, encoding: .utf8)
        let printed = ProblemBox()
        let runtime = try Runtime(options: .init(timeout: .seconds(5), log: { _, text in
            MainActor.assumeIsolated { printed.lines.append(text) }
        }))
        try runtime.define("SERVER", server.baseURL)
        guard let feed = try await load(runtime, path.path) else { throw HarnessError("the script declared no feed") }
        let harness = FeedHarness(server: server, runtime: runtime, feed: feed, folder: folder)
        runtime.onProblem = { [problemBox = harness.problemBox] in problemBox.all.append($0) }
        harness.printBox = printed
        return harness
    }

    private static func load(_ runtime: Runtime, _ path: String) async throws -> Feed? {
        try await runtime.run(file: path)
        return runtime.feed(named: "items")
    }

    /// Moves the viewport to the last rows until the feed ends or fails.
    func scrollToEnd() async throws {
        feed.setViewport(0..<10)
        await feed.settle()
        var rounds = 0
        while feed.footer == .more || feed.footer == .loading {
            let first = max(0, feed.rowCount - 10)
            feed.setViewport(first..<(first + 10))
            await feed.settle()
            rounds += 1
            if rounds > 200_000 { throw HarnessError("the feed never ended") }
        }
    }

    /// The footer's error message; an issue is recorded when the footer is not an error.
    func errorMessage(sourceLocation: SourceLocation = #_sourceLocation) -> String {
        guard case .error(let message) = feed.footer else {
            Issue.record("the footer is \(feed.footer), not an error", sourceLocation: sourceLocation)
            return ""
        }
        return message
    }

    /// The ids of every row held, in row order (placeholders left out).
    func ids() -> [Int] {
        (0..<feed.rowCount).compactMap { row in
            if case .integer(let id) = feed.itemID(row) { return Int(id) }
            return nil
        }
    }

    /// The function a chunk returns.
    func lua(_ source: String) throws -> LuaFunction {
        try runtime.state.load(source, name: "test").call(returning: LuaFunction.self)
    }

    /// Ends the test: every test also shows that the server never had two of the feed's
    /// requests in flight at once.
    func stop(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(server.maxInFlight(pathPrefix: "/items") <= 1, sourceLocation: sourceLocation)
        try await server.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}

@MainActor
final class ProblemBox {
    var all: [ScriptProblem] = []
    var lines: [String] = []
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Applies a PagedItems fault to a page's first request only; later requests get the
/// plain page (from a PagedItems without faults).
final class FirstAttemptOnly: Sendable {
    let faulty: PagedItems
    let plain: PagedItems
    private let seen = Mutex<[Int: Int]>([:])

    init(_ faulty: PagedItems) {
        self.faulty = faulty
        self.plain = PagedItems(total: faulty.total, pageSize: faulty.pageSize)
    }

    func count(page: Int) -> Int { seen.withLock { $0[page] ?? 0 } }

    var handler: FixtureServer.Handler {
        { [self] request in
            let page = Int(request.query["page"] ?? "1") ?? 1
            let attempt = seen.withLock { seen in
                seen[page, default: 0] += 1
                return seen[page]!
            }
            return attempt == 1 ? faulty.respond(to: request) : plain.respond(to: request)
        }
    }
}
