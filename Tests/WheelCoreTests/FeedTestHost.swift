// A simulated host for `FeedCore`: an in-memory server, a clock advanced by hand, and a
// host that carries out the core's effects and checks the one-fetch-in-flight protocol on
// every effect it sees.

import Testing
import WheelCore

/// The feed the tests drive: keys are integers, items are strings, ids are integers.
typealias TestFeed = FeedCore<Int, String, Int>

/// An entry whose item names its id and, with `tag`, which copy it is.
func feedEntry(_ id: Int?, _ tag: String = "") -> TestFeed.Entry {
    .init(item: "\(tag)item \(id.map(String.init) ?? "-")", id: id)
}

/// Entries for `ids`.
func feedEntries(_ ids: some Sequence<Int>, _ tag: String = "") -> [TestFeed.Entry] {
    ids.map { feedEntry($0, tag) }
}

/// `#expect` for hot loops: the message is built, and an issue recorded, only on failure.
func expectLazily(_ condition: Bool, _ message: @autoclosure () -> String = "",
            sourceLocation: SourceLocation = #_sourceLocation) {
    if !condition { Issue.record("\(message())", sourceLocation: sourceLocation) }
}

/// `#require` for hot loops: the message is built, and the test stopped, only on failure.
func requireLazily(_ condition: Bool, _ message: @autoclosure () -> String = "",
           sourceLocation: SourceLocation = #_sourceLocation) throws {
    if !condition { try #require(Bool(false), "\(message())", sourceLocation: sourceLocation) }
}

/// The fetches among `effects`.
func fetches(in effects: [TestFeed.Effect]) -> [TestFeed.Fetch] {
    effects.compactMap { if case .fetch(let fetch) = $0 { fetch } else { nil } }
}

/// An in-memory server whose page keys are offsets: a fetch of key `k` answers the entries
/// from `k` on, `size` of them at most, and the offset after them, or nil at the end.
struct FeedServer {
    var entries: [TestFeed.Entry]

    init(entries: [TestFeed.Entry]) { self.entries = entries }

    /// Items `0 ..< count` with ids equal to their offsets.
    init(count: Int, tag: String = "") { entries = (0..<count).map { feedEntry($0, tag) } }

    func reply(key: Int, size: Int) -> TestFeed.Reply {
        let start = min(max(0, key), entries.count)
        let end = min(entries.count, start + size)
        return .init(entries: Array(entries[start..<end]), next: end < entries.count ? end : nil)
    }

    func reply(to fetch: TestFeed.Fetch) -> TestFeed.Reply { reply(key: fetch.key, size: fetch.size) }
}

/// A host: it runs the core's fetches against a `FeedServer`, answers them when told to,
/// and checks, effect by effect, that a fetch starts only when none is in flight, that a
/// cancel names the fetch in flight, that fetch ids grow, and that the core's activity
/// names the fetch in flight.
struct FeedHost {
    var feed: TestFeed
    var server: FeedServer
    var now: Duration = .zero
    /// The fetch in flight, as the effects tell it.
    private(set) var inFlight: TestFeed.Fetch?
    /// Every fetch started, in order.
    private(set) var fetches: [TestFeed.Fetch] = []
    /// Fetches cancelled, whose replies may still come.
    private(set) var cancelled: [TestFeed.Fetch] = []
    /// Fetches answered (successes and failures).
    private(set) var answered: [TestFeed.Fetch] = []

    init(server: FeedServer, settings: TestFeed.Settings = .init(), first: Int = 0) {
        self.server = server
        feed = TestFeed(first: first, settings: settings)
    }

    init(count: Int, settings: TestFeed.Settings = .init()) {
        self.init(server: FeedServer(count: count), settings: settings)
    }

    /// Carries out `effects`, checking the protocol.
    @discardableResult
    mutating func perform(_ effects: [TestFeed.Effect], sourceLocation: SourceLocation = #_sourceLocation) -> [TestFeed.Effect] {
        for effect in effects {
            switch effect {
            case .fetch(let fetch):
                expectLazily(inFlight == nil, "fetch \(fetch) started while \(String(describing: inFlight)) is in flight",
                        sourceLocation: sourceLocation)
                expectLazily(fetch.id > (fetches.last?.id ?? 0), "fetch ids grow: \(fetch) after \(String(describing: fetches.last))",
                        sourceLocation: sourceLocation)
                expectLazily(fetch.size == feed.settings.pageSize, sourceLocation: sourceLocation)
                inFlight = fetch
                fetches.append(fetch)
            case .cancel(let id):
                expectLazily(inFlight?.id == id, "cancel \(id) while \(String(describing: inFlight)) is in flight",
                        sourceLocation: sourceLocation)
                if let fetch = inFlight, fetch.id == id {
                    cancelled.append(fetch)
                    inFlight = nil
                }
            }
        }
        if case .loading(let fetch) = feed.activity {
            expectLazily(fetch == inFlight, "the core loads \(fetch), the host runs \(String(describing: inFlight))",
                    sourceLocation: sourceLocation)
        } else {
            expectLazily(inFlight == nil, "the core loads nothing, the host runs \(String(describing: inFlight))",
                    sourceLocation: sourceLocation)
        }
        return effects
    }

    @discardableResult
    mutating func start(sourceLocation: SourceLocation = #_sourceLocation) -> [TestFeed.Effect] {
        perform(feed.start(now: now), sourceLocation: sourceLocation)
    }

    @discardableResult
    mutating func setViewport(_ rows: Range<Int>, sourceLocation: SourceLocation = #_sourceLocation) -> [TestFeed.Effect] {
        perform(feed.setViewport(rows, now: now), sourceLocation: sourceLocation)
    }

    @discardableResult
    mutating func refresh(sourceLocation: SourceLocation = #_sourceLocation) -> [TestFeed.Effect] {
        perform(feed.refresh(now: now), sourceLocation: sourceLocation)
    }

    @discardableResult
    mutating func retry(sourceLocation: SourceLocation = #_sourceLocation) -> [TestFeed.Effect] {
        perform(feed.retry(now: now), sourceLocation: sourceLocation)
    }

    @discardableResult
    mutating func tick(sourceLocation: SourceLocation = #_sourceLocation) -> [TestFeed.Effect] {
        perform(feed.tick(now: now), sourceLocation: sourceLocation)
    }

    /// Moves the clock to `time` and ticks.
    @discardableResult
    mutating func tick(at time: Duration, sourceLocation: SourceLocation = #_sourceLocation) -> [TestFeed.Effect] {
        now = time
        return tick(sourceLocation: sourceLocation)
    }

    /// Answers the fetch in flight with `result`; nil when none is in flight.
    @discardableResult
    mutating func reply(_ result: Result<TestFeed.Reply, TestFeed.FetchError>,
                        sourceLocation: SourceLocation = #_sourceLocation) -> [TestFeed.Effect]? {
        guard let fetch = inFlight else { return nil }
        inFlight = nil
        answered.append(fetch)
        return perform(feed.receive(fetch.id, result, now: now), sourceLocation: sourceLocation)
    }

    /// Answers the fetch in flight from the server; nil when none is in flight.
    @discardableResult
    mutating func answer(sourceLocation: SourceLocation = #_sourceLocation) -> [TestFeed.Effect]? {
        guard let fetch = inFlight else { return nil }
        return reply(.success(server.reply(to: fetch)), sourceLocation: sourceLocation)
    }

    /// Fails the fetch in flight; nil when none is in flight.
    @discardableResult
    mutating func fail(_ message: String = "offline", retryable: Bool = true,
                       sourceLocation: SourceLocation = #_sourceLocation) -> [TestFeed.Effect]? {
        reply(.failure(.init(message, retryable: retryable)), sourceLocation: sourceLocation)
    }

    /// Answers fetches from the server until none is in flight; the number answered.
    @discardableResult
    mutating func settle(sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        var answers = 0
        while answer(sourceLocation: sourceLocation) != nil { answers += 1 }
        return answers
    }

    /// Delivers a reply for a fetch that is not in flight (cancelled, answered, or unknown).
    @discardableResult
    mutating func deliverLate(_ id: Int, _ result: Result<TestFeed.Reply, TestFeed.FetchError>,
                              sourceLocation: SourceLocation = #_sourceLocation) -> [TestFeed.Effect] {
        perform(feed.receive(id, result, now: now), sourceLocation: sourceLocation)
    }
}

extension FeedCore where Item == String, ID == Int {
    /// What each of `rows` shows: the item's text, or nil for a placeholder.
    func items(_ rows: Range<Int>) -> [String?] {
        rows.map { if case .item(let entry) = row(at: $0) { entry.item } else { nil } }
    }

    /// The id each of `rows` shows: nil for a placeholder or an entry without an id.
    func ids(_ rows: Range<Int>) -> [Int?] {
        rows.map { if case .item(let entry) = row(at: $0) { entry.id } else { nil } }
    }

    /// The ids of every row.
    var allIDs: [Int?] { ids(0..<rowCount) }

    func isPlaceholder(_ row: Int) -> Bool {
        if case .placeholder = self.row(at: row) { true } else { false }
    }

    /// The rows of page `index`.
    func rows(ofPage index: Int) -> Range<Int> {
        var start = 0
        for page in 0..<index { start += self.page(page).count }
        return start..<(start + page(index).count)
    }

    var failure: Failure? {
        if case .failed(let failure) = activity { failure } else { nil }
    }

    var loading: Fetch? {
        if case .loading(let fetch) = activity { fetch } else { nil }
    }
}
