// Feeds: what a user scrolling a feed sees, and how fast pages become rows. Both cases run
// a real feed script (http.get, json.decode, id and row functions) in a `Runtime` made on
// the main actor, against a loopback `FixtureServer` serving `PagedItems`, and print their
// figure beside a reference measured in the same run.
//
// - "feed stalls": a simulated user scrolls a 10-row viewport down the feed at a fixed
//   speed while every request takes 200 ms. A stall is an episode in which the user has
//   reached the footer (the viewport's last row is the last loaded row, or past it) while
//   a fetch is in flight. The reference is the same walk with `prefetch = 0`: the classic
//   load-at-the-bottom. The default prefetch must give no stall (`--check`).
// - "feed ingestion": items per second from HTTP body to rows, scrolling a feed to its end
//   against a server without latency, beside `json.decode` alone of the same bodies in
//   Lua, and a Lua loop of `http.get` + `json.decode` that builds no rows. Information only.
//
// Times on a shared machine are noisy: the stall walk reports counts (stalls, ticks) and
// medians; ingestion reports medians of interleaved rounds, their ranges, and ratios.
import Lua
import Wheel
import WheelServer

@MainActor
enum FeedBench {
    enum Case: CaseIterable {
        case stalls
        case ingestion

        var name: String {
            switch self {
            case .stalls: "feed stalls: user scrolling at 20 rows/s, 200 ms per request (ref: prefetch 0)"
            case .ingestion: "feed ingestion: items/s from HTTP body to rows (ref: json.decode alone)"
            }
        }
    }

    /// The feed cases whose name contains `only` (all of them without it).
    static func selected(by only: String?) -> [Case] {
        Case.allCases.filter { benchCase in only.map { benchCase.name.contains($0) } ?? true }
    }

    /// Runs `cases` and prints their section; returns the names of the cases that missed
    /// their target.
    static func run(_ cases: [Case], settings: Settings, afterTable: Bool) async throws -> [String] {
        let quick = settings.roundTime < .milliseconds(100)
        var missed: [String] = []
        if afterTable { writeLine("") }
        writeLine("Feeds (a feed script in a Runtime on the main actor, loopback FixtureServer + PagedItems)")
        for benchCase in cases {
            writeLine("")
            switch benchCase {
            case .stalls:
                let walk = StallWalk(distance: quick ? 100 : 400)
                if try await walk.report(name: benchCase.name) == false { missed.append(benchCase.name) }
            case .ingestion:
                let ingestion = Ingestion(rounds: settings.rounds)
                try await ingestion.report(name: benchCase.name)
            }
        }
        return missed
    }

    /// What every runtime of these cases is made with: Wheel's defaults, with a longer CPU
    /// deadline so that a busy machine cannot time a loop out.
    static let options = Runtime.Options(timeout: .seconds(10))

    /// The feed script: `FeedTests`' script without its retries and `on_select`.
    static func script(name: String, pageSize: Int, prefetch: Int?) -> String {
        """
        feed "\(name)" {
          page_size = \(pageSize),\(prefetch.map { " prefetch = \($0)," } ?? "")
          fetch = function(page, size)
            local res = http.get(("%s/items?page=%d&size=%d"):format(SERVER, page, size), { timeout = 5 })
            if res.status ~= 200 then error("HTTP " .. res.status) end
            local body = json.decode(res.body)
            return body.items, body.next
          end,
          id = function(item) return item.id end,
          row = function(item) return item.title end,
        }
        """
    }

    /// A runtime whose script declared one feed reading from `server`; problems the feed
    /// survived (failed fetches, bad rows) are collected in `problems`.
    @MainActor
    final class DeclaredFeed {
        let runtime: Runtime
        let feed: Feed
        private(set) var problems: [ScriptProblem] = []

        init(server: FixtureServer, pageSize: Int, prefetch: Int?) async throws {
            let runtime = try Runtime(options: FeedBench.options)
            try runtime.define("SERVER", server.baseURL)
            let name = "bench"
            try await runtime.state.load(FeedBench.script(name: name, pageSize: pageSize, prefetch: prefetch),
                                         name: "feed-bench.lua").callAsync()
            guard let feed = runtime.feed(named: name) else { throw BenchFailure("the feed script declared no feed") }
            self.runtime = runtime
            self.feed = feed
            runtime.onProblem = { [unowned self] in self.problems.append($0) }
        }

        func checkProblems() throws {
            if let problem = problems.first { throw BenchFailure("the feed reported a problem: \(problem)") }
        }
    }

    // MARK: - Stalls

    /// One simulated user's walk down a feed, once per prefetch setting.
    @MainActor
    struct StallWalk {
        let viewport = 10
        let tick: Duration = .milliseconds(50)          // 20 rows/s
        let latency: Duration = .milliseconds(200)
        let pageSize = 20
        let items = 1_000
        /// How many rows the user scrolls past (the viewport's first row goes from 0 to this).
        let distance: Int

        struct Result {
            var stalls = 0
            /// From the moment the user reached the footer to the rows coming, per stall.
            var waits: [Duration] = []
            /// Ticks at which the user could not move (the footer was all there was).
            var blockedTicks = 0
            /// Ticks at which the user was at the footer and nothing was in flight (a
            /// feed that forgot to fetch).
            var idleFooterTicks = 0
            /// The fewest loaded rows below the viewport at any tick.
            var closest = Int.max
            var requests = 0
            /// Ticks that came more than half a tick late (the machine's noise).
            var lateTicks = 0
            var ticks = 0
        }

        /// Runs the walk with `prefetch = 0` and with the default, prints both, and returns
        /// whether the default met its target of no stall.
        func report(name: String) async throws -> Bool {
            let server = try await FixtureServer.start(handler: PagedItems(total: items, pageSize: pageSize, latency: latency).handler)
            let reference: Result
            let standard: Result
            do {
                reference = try await walk(server: server, prefetch: 0)
                standard = try await walk(server: server, prefetch: nil)
            } catch {
                try await server.stop()
                throw error
            }
            try await server.stop()

            let met = standard.stalls == 0
            var lines = [
                name,
                "\(viewport)-row viewport moved one row every \(Int(tick.inMilliseconds)) ms with setViewport, \(distance) rows; "
                    + "pages of \(pageSize), \(Int(latency.inMilliseconds)) ms per request, \(items) items",
                "",
                "| prefetch | stalls | waiting at the footer: total | per stall (median) | ticks blocked | fewest rows below the viewport | requests | late ticks |",
                "|---|---:|---:|---:|---:|---:|---:|---:|",
                row("0 (ref: load at the bottom)", reference),
                row("default (10)", standard),
                "",
                "default prefetch: \(standard.stalls) stalls (target 0): \(met ? "met" : "**missed**"); "
                    + "prefetch 0: \(reference.stalls) stalls",
            ]
            for (label, result) in [("prefetch 0", reference), ("default", standard)] where result.idleFooterTicks > 0 {
                lines.append("note (\(label)): \(result.idleFooterTicks) ticks at the footer with no fetch in flight")
            }
            writeLine(lines.joined(separator: "\n"))
            return met
        }

        private func row(_ label: String, _ result: Result) -> String {
            let total = result.waits.reduce(Duration.zero, +)
            let median = result.waits.isEmpty ? "—" : "\(FeedBench.grouped(Int(FeedBench.median(result.waits.map(\.inMilliseconds)).rounded()))) ms"
            return "| \(label) | \(result.stalls) | \(FeedBench.grouped(Int(total.inMilliseconds.rounded()))) ms | \(median) | \(result.blockedTicks) "
                + "| \(result.closest) | \(result.requests) | \(result.lateTicks) of \(result.ticks) |"
        }

        /// The user opens the feed, waits for the first screen of rows, then tries to move
        /// down one row per tick; they cannot move past the last loaded row.
        func walk(server: FixtureServer, prefetch: Int?) async throws -> Result {
            let declared = try await DeclaredFeed(server: server, pageSize: pageSize, prefetch: prefetch)
            let feed = declared.feed
            let requestsBefore = server.requestCount(pathPrefix: "/items")
            let clock = ContinuousClock()
            var result = Result()
            // When the current stall began; the observer ends it when rows come below the viewport.
            var stallStart: ContinuousClock.Instant?
            let token = feed.observe { event in
                guard case .rowsChanged = event, let started = stallStart, feed.rowCount > feed.viewport.upperBound else { return }
                result.waits.append(started.duration(to: clock.now))
                stallStart = nil
            }
            defer { feed.removeObserver(token) }

            feed.setViewport(0..<viewport)
            let opened = clock.now
            while feed.rowCount < viewport {
                try declared.checkProblems()
                guard opened.duration(to: clock.now) < .seconds(10) else { throw BenchFailure("the first page never came") }
                try await Task.sleep(for: .milliseconds(1))
            }

            var offset = 0
            let start = clock.now
            while offset < distance {
                result.ticks += 1
                let due = start + tick * result.ticks
                try await Task.sleep(until: due, clock: .continuous)
                if due.duration(to: clock.now) > tick / 2 { result.lateTicks += 1 }
                if offset + viewport < feed.rowCount {
                    offset += 1
                    feed.setViewport(offset..<(offset + viewport))
                } else {
                    result.blockedTicks += 1
                }
                let below = feed.rowCount - (offset + viewport)
                result.closest = min(result.closest, below)
                if below <= 0 {
                    switch feed.footer {
                    case .loading:
                        if stallStart == nil {
                            result.stalls += 1
                            stallStart = clock.now
                        }
                    case .more:
                        result.idleFooterTicks += 1
                    case .end:
                        throw BenchFailure("the feed ended at row \(feed.rowCount); the walk needs \(distance + viewport)")
                    case .error(let message):
                        throw BenchFailure("a fetch failed: \(message)")
                    }
                }
                try declared.checkProblems()
                guard result.ticks < distance * 20 else { throw BenchFailure("the walk is stuck at row \(offset)") }
            }
            await feed.settle()
            try declared.checkProblems()
            result.requests = server.requestCount(pathPrefix: "/items") - requestsBefore
            return result
        }
    }

    // MARK: - Ingestion

    /// Rounds of three interleaved measurements over the same 20,000 items: the feed
    /// scrolled to its end, `json.decode` of the bodies alone, and a fetch-and-decode loop.
    @MainActor
    struct Ingestion {
        let rounds: Int
        let items = 20_000
        let pageSize = 100
        var pages: Int { items / pageSize }
        /// Decoding passes over the bodies per round (one pass is a few milliseconds).
        let passes = 5

        enum Side: CaseIterable { case feed, decode, fetch }

        func report(name: String) async throws {
            let paged = PagedItems(total: items, pageSize: pageSize)
            let server = try await FixtureServer.start(handler: paged.handler)
            do {
                try await measure(name: name, paged: paged, server: server)
            } catch {
                try await server.stop()
                throw error
            }
            try await server.stop()
        }

        private func measure(name: String, paged: PagedItems, server: FixtureServer) async throws {
            // The page bodies, exactly as the server sends them, in one Lua table.
            let references = try Runtime(options: FeedBench.options)
            let state = references.state
            let bodies = try state.newTable()
            for page in 1...pages {
                guard case .respond(let response) = paged.respond(to: ServerRequest(target: "/items?page=\(page)&size=\(pageSize)"))
                else { throw BenchFailure("PagedItems did not answer page \(page) at once") }
                try bodies.rawSet(page, String(decoding: response.body, as: UTF8.self))
            }
            let decode = try state.load("""
                return function(bodies, passes)
                  local count = 0
                  for _ = 1, passes do
                    for i = 1, #bodies do
                      local body = json.decode(bodies[i])
                      count = count + #body.items
                    end
                  end
                  return count
                end
                """, name: "decode").call(returning: LuaFunction.self)
            let fetch = try state.load("""
                return function(base, pages, size)
                  local count = 0
                  for page = 1, pages do
                    local res = http.get(("%s/items?page=%d&size=%d"):format(base, page, size), { timeout = 5 })
                    if res.status ~= 200 then error("HTTP " .. res.status) end
                    local body = json.decode(res.body)
                    count = count + #body.items
                  end
                  return count
                end
                """, name: "fetch").call(returning: LuaFunction.self)

            let clock = ContinuousClock()
            /// Items per second of one measurement of `side`.
            func run(_ side: Side) async throws -> Double {
                switch side {
                case .feed:
                    let declared = try await DeclaredFeed(server: server, pageSize: pageSize, prefetch: nil)
                    let feed = declared.feed
                    let start = clock.now
                    try await FeedBench.scrollToEnd(feed)
                    let elapsed = start.duration(to: clock.now)
                    guard feed.rowCount == items, feed.footer == .end, feed.row(items - 1).text == PagedItems.title(items) else {
                        throw BenchFailure("the feed ended with \(feed.rowCount) rows and footer \(feed.footer)")
                    }
                    try declared.checkProblems()
                    return Double(items) / elapsed.inSeconds
                case .decode:
                    let start = clock.now
                    let count = try decode.call(bodies, passes, returning: Int.self)
                    let elapsed = start.duration(to: clock.now)
                    guard count == items * passes else { throw BenchFailure("json.decode found \(count) items") }
                    return Double(count) / elapsed.inSeconds
                case .fetch:
                    let start = clock.now
                    let count = try await fetch.callAsync(server.baseURL, pages, pageSize, returning: Int.self)
                    let elapsed = start.duration(to: clock.now)
                    guard count == items else { throw BenchFailure("the fetch loop found \(count) items") }
                    return Double(count) / elapsed.inSeconds
                }
            }

            // One round that is not counted (connections, heaps), then rounds in which the
            // sides take turns going first.
            for side in Side.allCases { _ = try await run(side) }
            var rates: [Side: [Double]] = [:]
            for round in 0..<rounds {
                let order = Side.allCases.indices.map { Side.allCases[($0 + round) % Side.allCases.count] }
                for side in order {
                    let rate = try await run(side)
                    rates[side, default: []].append(rate)
                }
            }
            let feedRates = rates[.feed] ?? []
            func ratios(_ side: Side) -> [Double] { zip(feedRates, rates[side] ?? []).map { $0 / $1 } }
            func line(_ label: String, _ side: Side) -> String {
                let values = rates[side] ?? []
                let ratio = side == .feed ? "1.00x" : FeedBench.medianAndRange(ratios(side), decimals: 2, unit: "x")
                return "| \(label) | \(FeedBench.medianAndRange(values.map { $0.rounded() }, decimals: 0, unit: "")) | \(ratio) |"
            }
            writeLine([
                name,
                "\(FeedBench.grouped(items)) items in pages of \(pageSize) (\(pages) requests), loopback, no latency; "
                    + "median of \(rounds) interleaved rounds (range)",
                "",
                "| | items/s | feed ÷ this |",
                "|---|---:|---:|",
                line("feed: http.get + json.decode + id + row, scrolled to the end", .feed),
                line("ref: json.decode alone of the same \(pages) bodies, in Lua (\(passes) passes a round)", .decode),
                line("ref: http.get + json.decode in a Lua loop, no feed, no rows", .fetch),
            ].joined(separator: "\n"))
            // The references' state lives until here.
            withExtendedLifetime(references) {}
        }
    }

    /// Moves the viewport to the last rows until the feed ends, as a user flinging to the
    /// bottom does; waits for each page.
    static func scrollToEnd(_ feed: Feed) async throws {
        feed.setViewport(0..<10)
        await feed.settle()
        var steps = 0
        while feed.footer == .more || feed.footer == .loading {
            let first = max(0, feed.rowCount - 10)
            feed.setViewport(first..<(first + 10))
            await feed.settle()
            steps += 1
            if steps > 1_000_000 { throw BenchFailure("the feed never ended") }
        }
        if case .error(let message) = feed.footer { throw BenchFailure("a fetch failed: \(message)") }
    }

    // MARK: - Figures

    nonisolated static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// `1,234 (1,100–1,300)`, or with decimals `0.42x (0.40–0.45)`.
    nonisolated static func medianAndRange(_ values: [Double], decimals: Int, unit: String) -> String {
        guard let low = values.min(), let high = values.max() else { return "—" }
        func text(_ value: Double) -> String { decimals == 0 ? FeedBench.grouped(Int(value.rounded())) : fixed(value, decimals) }
        return "\(text(median(values)))\(unit) (\(text(low))–\(text(high)))"
    }

    /// `20,000`.
    nonisolated static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var text = ""
        for (position, digit) in digits.enumerated() {
            if position > 0, (digits.count - position) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return value < 0 ? "-" + text : text
    }
}

extension Duration {
    /// In milliseconds and seconds, for the feed cases' figures.
    var inMilliseconds: Double { nanoseconds / 1e6 }
    var inSeconds: Double { nanoseconds / 1e9 }
}
