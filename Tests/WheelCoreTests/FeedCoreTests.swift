import Testing
import WheelCore

/// The ids `ids` as a feed's rows show them.
private func shown(_ ids: some Sequence<Int>) -> [Int?] { ids.map { $0 } }

/// `FeedCore`, behaviour by behaviour, against a simulated host (`FeedHost`): fetches are
/// answered from an in-memory server, time is a `Duration` moved by hand. Random walks
/// against a model are in `FeedCorePropertyTests`.
@Suite struct FeedCoreTests {
    // MARK: Starting

    @Test func documentationExampleFetchesTheFirstKeyThenTheNext() throws {
        struct Article { var title: String }
        typealias Feed = FeedCore<Int, Article, Int>
        var feed = Feed(first: 1, settings: .init(pageSize: 20, prefetch: 10))
        let effects = feed.setViewport(0..<12, now: .zero)
        let fetch = try #require(effects.count == 1 ? effects.first : nil)
        guard case .fetch(let first) = fetch else { Issue.record("\(fetch) is not a fetch"); return }
        #expect(first.key == 1)
        #expect(first.size == 20)
        #expect(first.purpose == .next)
        #expect(first.attempt == 1)
        let page = (0..<20).map { (index: Int) in Feed.Entry(item: Article(title: "article \(index)"), id: index) }
        let next = feed.receive(first.id, .success(.init(entries: page, next: 2)), now: .zero)
        #expect(feed.rowCount == 20)
        guard case .item(let entry) = feed.row(at: 3) else { Issue.record("row 3 is a placeholder"); return }
        #expect(entry.item.title == "article 3")
        // 8 rows below the viewport, within the prefetch distance: the next page, key 2.
        guard case .fetch(let second)? = next.first, next.count == 1 else { Issue.record("\(next)"); return }
        #expect(second.key == 2)
        #expect(second.id != first.id)
    }

    @Test func startFetchesTheFirstKeyOnce() {
        var host = FeedHost(count: 100)
        #expect(host.feed.activity == .idle)
        #expect(host.feed.footer == .more)
        #expect(!host.feed.isAtEnd)
        #expect(host.feed.nextWakeup == nil)
        let started = fetches(in: host.start())
        #expect(started.count == 1)
        #expect(started.first?.key == 0)
        #expect(started.first?.size == 20)
        #expect(started.first?.purpose == .next)
        #expect(started.first?.attempt == 1)
        #expect(host.feed.footer == .loading)
        #expect(host.feed.nextWakeup == nil)
        #expect(host.start().isEmpty)
        host.answer()
        #expect(host.start().isEmpty)
        #expect(host.feed.rowCount == 20)
        #expect(host.feed.statistics.fetchesStarted == 1)
    }

    @Test func theFirstViewportFetchesTheFirstKey() {
        var host = FeedHost(server: FeedServer(count: 100), first: 0)
        let started = fetches(in: host.setViewport(0..<10))
        #expect(started.map(\.key) == [0])
        #expect(started.map(\.purpose) == [.next])
        #expect(host.start().isEmpty)
        #expect(host.feed.viewport == 0..<10)
    }

    @Test func anEmptyViewportStillFetchesTheFirstPage() {
        var host = FeedHost(count: 100, settings: .init(prefetch: 0))
        #expect(fetches(in: host.setViewport(0..<0)).map(\.key) == [0])
    }

    @Test func negativeViewportRowsAreClampedToZero() {
        var host = FeedHost(count: 100)
        host.setViewport(-5..<(-1))
        #expect(host.feed.viewport == 0..<0)
        host.setViewport(-5..<3)
        #expect(host.feed.viewport == 0..<3)
    }

    @Test func pagesAppendInTheOrderTheirKeysWereFollowed() {
        var host = FeedHost(count: 50, settings: .init(pageSize: 20, prefetch: 10))
        host.setViewport(0..<5)
        host.answer()
        #expect(host.inFlight == nil)
        #expect(host.feed.pageCount == 1)
        #expect(host.feed.page(0) == (key: 0, count: 20, isHeld: true))
        #expect(host.feed.allIDs == shown(0..<20))
        #expect(host.feed.items(0..<2) == ["item 0", "item 1"])
        #expect(fetches(in: host.setViewport(10..<15)).map(\.key) == [20])
        host.answer()
        #expect(host.feed.page(1) == (key: 20, count: 20, isHeld: true))
        #expect(fetches(in: host.setViewport(30..<35)).map(\.key) == [40])
        host.answer()
        #expect(host.feed.page(2) == (key: 40, count: 10, isHeld: true))
        #expect(host.feed.allIDs == shown(0..<50))
        #expect(host.feed.rowCount == 50)
        #expect(host.feed.itemCount == 50)
        #expect(host.feed.heldPageCount == 3)
        #expect([0, 19, 20, 39, 40, 49].map(host.feed.page(containing:)) == [0, 0, 1, 1, 2, 2])
        #expect(host.feed.statistics.pagesAppended == 3)
        #expect(host.feed.revision == 3)
        #expect(host.feed.isAtEnd)
    }

    @Test(arguments: [10_000, 9_990, 21, 20, 1])
    func scrollingToTheEndFetchesEveryPageOnceAndEnds(total: Int) {
        var host = FeedHost(count: total, settings: .init(pageSize: 20, prefetch: 10))
        var top = 0
        host.setViewport(top..<top + 10)
        while true {
            if host.answer() == nil {
                guard top + 10 < host.feed.rowCount else { break }
            }
            top = min(top + 10, max(0, host.feed.rowCount - 10))
            host.setViewport(top..<top + 10)
        }
        let pages = (total + 19) / 20
        #expect(host.fetches.count == pages)
        #expect(host.fetches.map(\.key) == Array(stride(from: 0, to: total, by: 20)))
        #expect(host.fetches.allSatisfy { $0.purpose == .next && $0.attempt == 1 && $0.size == 20 })
        #expect(host.feed.rowCount == total)
        #expect(host.feed.allIDs == shown(0..<total))
        #expect(host.feed.items(0..<total) == (0..<total).map { "item \($0)" })
        #expect(host.feed.footer == .end)
        #expect(host.feed.isAtEnd)
        #expect(host.feed.activity == .idle)
        #expect(host.setViewport(max(0, total - 10)..<total).isEmpty)
        #expect(host.setViewport(total..<total + 100).isEmpty)
        #expect(host.feed.statistics.fetchesStarted == pages)
        #expect(host.feed.statistics.pagesAppended == pages)
        #expect(host.feed.statistics.duplicatesDropped == 0)
        #expect(host.feed.pageCount == pages)
    }

    // MARK: One fetch in flight

    @Test func atMostOneFetchIsInFlightHoweverTheViewportMoves() {
        var host = FeedHost(count: 10_000)
        let first = fetches(in: host.setViewport(0..<10))
        #expect(first.count == 1)
        for top in stride(from: 0, through: 5_000, by: 37) {
            #expect(host.setViewport(top..<top + 10).isEmpty)
            #expect(host.feed.loading == first.first)
            #expect(host.feed.footer == .loading)
        }
        #expect(host.start().isEmpty)
        #expect(host.retry().isEmpty)
        #expect(host.tick(at: .seconds(3_600)).isEmpty)
        #expect(host.feed.statistics.fetchesStarted == 1)
        // Each reply starts at most one fetch, for the viewport last reported (4995..<5005).
        var replies = 0
        while let effects = host.answer() {
            #expect(fetches(in: effects).count <= 1)
            replies += 1
        }
        #expect(replies == 251)
        #expect(host.feed.rowCount == 5_020)
        #expect(host.feed.footer == .more)
    }

    // MARK: Prefetch

    @Test(arguments: [0, 1, 5, 10, 14])
    func theNextPageIsFetchedWhenTheLastVisibleRowComesWithinPrefetchOfTheEnd(prefetch: Int) {
        var host = FeedHost(count: 100, settings: .init(pageSize: 20, prefetch: prefetch))
        host.setViewport(0..<1)
        host.answer()
        #expect(host.inFlight == nil)
        for last in 0..<(19 - prefetch) {
            // More than `prefetch` rows below the last visible row: not yet.
            #expect(host.setViewport(0..<last + 1).isEmpty, "last visible row \(last)")
            #expect(host.setViewport(last..<last + 1).isEmpty, "last visible row \(last)")
        }
        // Exactly `prefetch` rows below it.
        #expect(fetches(in: host.setViewport((19 - prefetch)..<(20 - prefetch))).map(\.key) == [20])
    }

    @Test func prefetchZeroWaitsForTheLastRow() {
        var host = FeedHost(count: 100, settings: .init(pageSize: 20, prefetch: 0))
        host.setViewport(0..<10)
        host.answer()
        #expect(host.setViewport(9..<19).isEmpty)
        #expect(fetches(in: host.setViewport(10..<20)).map(\.key) == [20])
    }

    @Test func aViewportPastTheEndFetchesTheNextPage() {
        var host = FeedHost(count: 100, settings: .init(pageSize: 20, prefetch: 0))
        host.setViewport(0..<1)
        host.answer()
        #expect(fetches(in: host.setViewport(500..<510)).map(\.key) == [20])
    }

    @Test func aFirstPageShorterThanTheViewportIsFollowedAtOnce() {
        var host = FeedHost(server: FeedServer(count: 0), settings: .init(pageSize: 20, prefetch: 0))
        host.setViewport(0..<10)
        let effects = host.reply(.success(.init(entries: feedEntries(0..<3), next: 3)))
        #expect(fetches(in: effects ?? []).map(\.key) == [3])
        #expect(host.feed.rowCount == 3)
    }

    @Test func pagesAreFollowedUntilTheViewportIsFull() {
        var host = FeedHost(count: 100, settings: .init(pageSize: 4, prefetch: 0))
        host.setViewport(0..<10)
        #expect(fetches(in: host.answer() ?? []).map(\.key) == [4])
        #expect(fetches(in: host.answer() ?? []).map(\.key) == [8])
        #expect(host.answer()?.isEmpty == true)
        #expect(host.feed.rowCount == 12)
        #expect(host.feed.activity == .idle)
    }

    @Test func emptyPagesWithANextKeyKeepGoing() {
        var host = FeedHost(server: FeedServer(count: 0), settings: .init(pageSize: 20, prefetch: 0))
        host.setViewport(0..<10)
        #expect(fetches(in: host.reply(.success(.init(entries: [], next: 5))) ?? []).map(\.key) == [5])
        #expect(host.feed.rowCount == 0)
        #expect(!host.feed.isAtEnd)
        #expect(host.feed.footer == .loading)
        #expect(fetches(in: host.reply(.success(.init(entries: [], next: 9))) ?? []).map(\.key) == [9])
        #expect(host.reply(.success(.init(entries: feedEntries(0..<20), next: 30)))?.isEmpty == true)
        #expect(host.feed.pageCount == 3)
        #expect(host.feed.page(0) == (key: 0, count: 0, isHeld: true))
        #expect(host.feed.page(1) == (key: 5, count: 0, isHeld: true))
        #expect(host.feed.page(2) == (key: 9, count: 20, isHeld: true))
        #expect(host.feed.page(containing: 0) == 2)
        #expect(host.feed.page(containing: 19) == 2)
        #expect(host.feed.allIDs == shown(0..<20))
        #expect(host.feed.footer == .more)
    }

    @Test func emptyPagesBetweenPagesBelongToNoRow() {
        var host = FeedHost(server: FeedServer(count: 0), settings: .init(pageSize: 20, prefetch: 0))
        host.setViewport(0..<20)
        host.reply(.success(.init(entries: feedEntries(0..<20), next: 1)))
        host.reply(.success(.init(entries: [], next: 2)))
        host.reply(.success(.init(entries: [], next: 3)))
        host.reply(.success(.init(entries: feedEntries(20..<40), next: nil)))
        #expect(host.feed.pageCount == 4)
        #expect([0, 19, 20, 39].map(host.feed.page(containing:)) == [0, 0, 3, 3])
        #expect(host.feed.allIDs == shown(0..<40))
        #expect(host.feed.footer == .end)
    }

    @Test func aHugePrefetchOrViewportDoesNotOverflow() {
        // Every row is within the prefetch distance: the feed loads to its end, and no
        // page is ever far enough to drop.
        var everything = FeedHost(count: 100, settings: .init(pageSize: 20, prefetch: .max, maxItems: 20))
        everything.setViewport(0..<10)
        everything.settle()
        #expect(everything.feed.rowCount == 100)
        #expect(everything.feed.itemCount == 100)
        #expect(everything.feed.isAtEnd)
        var tall = FeedHost(count: 100, settings: .init(pageSize: 20, prefetch: 10, maxItems: 40))
        tall.setViewport(0..<Int.max)
        tall.settle()
        #expect(tall.feed.rowCount == 100)
        #expect(tall.feed.itemCount == 100)
        #expect(tall.setViewport((Int.max - 1)..<Int.max).isEmpty)
    }

    // MARK: End of feed

    @Test func aNilNextKeyEndsTheFeed() {
        var host = FeedHost(count: 30, settings: .init(pageSize: 20, prefetch: 10))
        host.setViewport(0..<10)
        host.settle()
        #expect(host.fetches.map(\.key) == [0, 20])
        #expect(host.feed.isAtEnd)
        #expect(host.feed.footer == .end)
        #expect(host.feed.activity == .idle)
        for rows in [0..<10, 20..<30, 25..<60, 1_000..<1_010] {
            #expect(host.setViewport(rows).isEmpty)
        }
        #expect(host.start().isEmpty)
        #expect(host.retry().isEmpty)
        #expect(host.tick(at: .seconds(100)).isEmpty)
        #expect(host.feed.statistics.fetchesStarted == 2)
    }

    @Test func anEmptyFeedEndsAtOnce() {
        var host = FeedHost(count: 0)
        host.setViewport(0..<10)
        #expect(host.answer()?.isEmpty == true)
        #expect(host.feed.rowCount == 0)
        #expect(host.feed.pageCount == 1)
        #expect(host.feed.isAtEnd)
        #expect(host.feed.footer == .end)
        #expect(host.setViewport(0..<50).isEmpty)
    }

    // MARK: Errors and retries

    @Test func aFailedFetchKeepsEveryRow() {
        var host = FeedHost(count: 1_000, settings: .init(pageSize: 20, prefetch: 0))
        host.setViewport(0..<10)
        host.answer()
        host.setViewport(10..<20)
        host.answer()
        host.setViewport(30..<40)
        let before = host.feed.allIDs
        let revision = host.feed.revision
        host.now = .seconds(5)
        #expect(host.fail("timed out")?.isEmpty == true)
        #expect(host.feed.allIDs == before)
        #expect(host.feed.rowCount == 40)
        #expect(host.feed.itemCount == 40)
        #expect(host.feed.pageCount == 2)
        #expect(host.feed.revision == revision)
        #expect(host.feed.footer == .error("timed out"))
        #expect(!host.feed.isAtEnd)
        let failure = host.feed.failure
        #expect(failure?.message == "timed out")
        #expect(failure?.fetch.key == 40)
        #expect(failure?.fetch.purpose == .next)
        #expect(failure?.fetch.attempt == 1)
        #expect(failure?.retryable == true)
        #expect(failure?.retryAt == .seconds(5) + .milliseconds(500))
        #expect(host.feed.nextWakeup == .seconds(5) + .milliseconds(500))
        // The error waits for its retry however the viewport moves.
        #expect(host.setViewport(35..<45).isEmpty)
        #expect(host.setViewport(500..<510).isEmpty)
        #expect(host.feed.failure == failure)
    }

    @Test func retryableFailuresRetryAfterABackoffThatDoublesUntilTheAttemptsAreSpent() {
        var host = FeedHost(count: 100) // 3 attempts, 500 ms, at most 30 s
        host.now = .seconds(10)
        host.start()
        host.fail()
        #expect(host.feed.failure?.retryAt == .seconds(10) + .milliseconds(500))
        #expect(host.tick(at: .seconds(10) + .milliseconds(499)).isEmpty)
        #expect(host.tick(at: .seconds(10) + .milliseconds(500) - .nanoseconds(1)).isEmpty)
        #expect(host.feed.failure != nil)
        let second = fetches(in: host.tick(at: .seconds(10) + .milliseconds(500)))
        #expect(second.map(\.attempt) == [2])
        #expect(second.map(\.key) == [0])
        #expect(second.map(\.purpose) == [.next])
        #expect(host.feed.footer == .loading)
        #expect(host.feed.statistics.automaticRetries == 1)
        host.now = .seconds(11)
        host.fail()
        #expect(host.feed.nextWakeup == .seconds(12))
        #expect(host.tick(at: .seconds(11) + .milliseconds(999)).isEmpty)
        #expect(fetches(in: host.tick(at: .seconds(12))).map(\.attempt) == [3])
        host.fail("still offline")
        #expect(host.feed.failure?.retryAt == nil)
        #expect(host.feed.failure?.retryable == true)
        #expect(host.feed.nextWakeup == nil)
        #expect(host.feed.footer == .error("still offline"))
        #expect(host.tick(at: .seconds(86_400)).isEmpty)
        #expect(host.feed.statistics.fetchesStarted == 3)
        #expect(host.feed.statistics.automaticRetries == 2)
    }

    /// The wait before each automatic retry, and the attempt of each try, for `settings`.
    private func backoffs(_ settings: TestFeed.Settings) -> (attempts: [Int], waits: [Duration?]) {
        var host = FeedHost(count: 100, settings: settings)
        host.start()
        var attempts: [Int] = []
        var waits: [Duration?] = []
        while let fetch = host.inFlight, attempts.count < 100 {
            attempts.append(fetch.attempt)
            host.now += .milliseconds(250)
            host.fail()
            let retryAt = host.feed.failure?.retryAt
            waits.append(retryAt.map { $0 - host.now })
            if let retryAt { host.tick(at: retryAt) }
        }
        return (attempts, waits)
    }

    @Test func theBackoffDoublesUpToMaxBackoff() {
        let run = backoffs(.init(attempts: 7, backoff: .seconds(1), maxBackoff: .seconds(5)))
        #expect(run.attempts == [1, 2, 3, 4, 5, 6, 7])
        #expect(run.waits == [.seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5), .seconds(5), nil])
    }

    @Test func aBackoffLongerThanMaxBackoffWaitsMaxBackoff() {
        let run = backoffs(.init(attempts: 3, backoff: .seconds(10), maxBackoff: .seconds(3)))
        #expect(run.waits == [.seconds(3), .seconds(3), nil])
    }

    @Test func aZeroBackoffRetriesAtTheNextTick() {
        let run = backoffs(.init(attempts: 4, backoff: .zero))
        #expect(run.attempts == [1, 2, 3, 4])
        #expect(run.waits == [.zero, .zero, .zero, nil])
    }

    @Test func oneAttemptNeverRetriesByItself() {
        let run = backoffs(.init(attempts: 1))
        #expect(run.attempts == [1])
        #expect(run.waits == [nil])
    }

    @Test func retryStartsTheFailedFetchAgainWithAFreshCountOfAttempts() {
        var host = FeedHost(count: 100, settings: .init(attempts: 2, backoff: .seconds(1)))
        host.start()
        host.fail()
        host.tick(at: .seconds(1))
        host.fail()
        #expect(host.feed.failure?.retryAt == nil)
        host.now = .seconds(2)
        let again = fetches(in: host.retry())
        #expect(again.map(\.attempt) == [1])
        #expect(again.map(\.key) == [0])
        #expect(again.map(\.purpose) == [.next])
        #expect(host.feed.footer == .loading)
        host.now = .seconds(3)
        host.fail()
        // A fresh count: an automatic retry is due again.
        #expect(host.feed.failure?.retryAt == .seconds(4))
        // retry() before it is due starts at once; the due time no longer matters.
        #expect(fetches(in: host.retry()).map(\.attempt) == [1])
        #expect(host.feed.nextWakeup == nil)
        #expect(host.tick(at: .seconds(4)).isEmpty)
        host.answer()
        #expect(host.feed.rowCount == 20)
        #expect(host.feed.activity == .idle)
        #expect(host.feed.statistics.automaticRetries == 1)
        #expect(host.retry().isEmpty)
    }

    @Test func nonRetryableFailuresWaitForRetry() {
        var host = FeedHost(count: 100)
        host.start()
        host.fail("bad reply", retryable: false)
        #expect(host.feed.failure?.retryable == false)
        #expect(host.feed.failure?.retryAt == nil)
        #expect(host.feed.nextWakeup == nil)
        #expect(host.feed.footer == .error("bad reply"))
        for seconds in [0, 1, 60, 86_400] {
            #expect(host.tick(at: .seconds(seconds)).isEmpty)
        }
        #expect(host.feed.statistics.automaticRetries == 0)
        let again = fetches(in: host.retry())
        #expect(again.map(\.attempt) == [1])
        #expect(again.map(\.key) == [0])
    }

    @Test func aRetriedFetchThatSucceedsCarriesOn() {
        var host = FeedHost(count: 100, settings: .init(pageSize: 20, prefetch: 10))
        host.setViewport(0..<10)
        host.answer() // 10 rows below: the next page
        host.fail()
        host.retry()
        #expect(host.inFlight?.key == 20)
        host.setViewport(90..<100)
        host.settle()
        #expect(host.feed.allIDs == shown(0..<100))
        #expect(host.feed.footer == .end)
    }

    @Test func anErrorThatWaitsHoldsBackEveryFetchRefetchesIncluded() {
        var host = FeedHost(count: 200, settings: .init(pageSize: 20, prefetch: 0, maxItems: 40))
        for top in stride(from: 0, through: 90, by: 10) {
            host.setViewport(top..<top + 10)
            host.settle()
        }
        host.setViewport(110..<120)
        #expect(host.inFlight?.key == 120)
        host.fail("bad page", retryable: false)
        // Back at the top: page 0 shows placeholders until the error is retried.
        #expect(host.setViewport(0..<10).isEmpty)
        #expect(host.feed.isPlaceholder(0))
        #expect(host.feed.footer == .error("bad page"))
        #expect(fetches(in: host.retry()).map(\.purpose) == [.next])
        #expect(fetches(in: host.answer() ?? []).map(\.purpose) == [.page(0)])
        host.answer()
        #expect(host.feed.ids(0..<10) == shown(0..<10))
    }

    @Test func nextWakeupIsNilUnlessAnAutomaticRetryWaits() {
        var host = FeedHost(count: 100, settings: .init(backoff: .seconds(2)))
        #expect(host.feed.nextWakeup == nil)
        host.start()
        #expect(host.feed.nextWakeup == nil)
        host.now = .seconds(7)
        host.fail()
        #expect(host.feed.nextWakeup == .seconds(9))
        host.tick(at: .seconds(9))
        #expect(host.feed.nextWakeup == nil)
        host.answer()
        #expect(host.feed.nextWakeup == nil)
    }

    // MARK: Refresh

    @Test func refreshCancelsTheFetchInFlightAndIgnoresItsLateReply() throws {
        var host = FeedHost(count: 100, settings: .init(pageSize: 20, prefetch: 0))
        host.setViewport(0..<10)
        host.answer()
        host.setViewport(10..<20)
        let late = try #require(host.inFlight)
        #expect(late.key == 20)
        let effects = host.refresh()
        #expect(effects.count == 2)
        #expect(effects.first == .cancel(late.id))
        let refetch = try #require(fetches(in: effects).first)
        #expect(refetch.key == 0)
        #expect(refetch.purpose == .refresh)
        #expect(refetch.attempt == 1)
        #expect(refetch.id > late.id)
        #expect(host.feed.generation == 1)
        // The cancelled fetch replies anyway: ignored.
        #expect(host.deliverLate(late.id, .success(host.server.reply(to: late))).isEmpty)
        #expect(host.feed.statistics.staleRepliesIgnored == 1)
        #expect(host.feed.allIDs == shown(0..<20))
        #expect(host.feed.pageCount == 1)
        #expect(host.feed.loading == refetch)
        // The refresh replies with new rows, which replace the old ones; the feed goes on
        // from the refresh's next key and loses or repeats nothing.
        host.server = FeedServer(count: 100, tag: "new ")
        host.answer()
        #expect(host.feed.items(0..<20) == (0..<20).map { "new item \($0)" })
        #expect(host.inFlight?.key == 20)
        #expect(host.inFlight?.purpose == .next)
        host.setViewport(90..<100)
        host.settle()
        #expect(host.feed.allIDs == shown(0..<100))
        #expect(host.feed.items(0..<100) == (0..<100).map { "new item \($0)" })
        #expect(host.feed.statistics.duplicatesDropped == 0)
        #expect(host.feed.footer == .end)
    }

    @Test func theRowsStayUntilTheRefreshRepliesAndAreThenReplacedAtOnce() {
        var host = FeedHost(count: 100, settings: .init(pageSize: 20, prefetch: 0))
        host.setViewport(0..<10)
        host.answer()
        host.setViewport(50..<60)
        host.settle()
        #expect(host.feed.rowCount == 80)
        let before = host.feed.allIDs
        let revision = host.feed.revision
        #expect(fetches(in: host.refresh()).map(\.purpose) == [.refresh])
        #expect(host.feed.allIDs == before)
        #expect(host.feed.pageCount == 4)
        #expect(host.feed.revision == revision)
        #expect(host.feed.footer == .loading)
        #expect(host.setViewport(70..<80).isEmpty)
        host.server = FeedServer(entries: feedEntries(1_000..<1_030, "new "))
        let effects = host.answer() ?? []
        #expect(host.feed.revision > revision)
        #expect(host.feed.pageCount == 1)
        #expect(host.feed.page(0) == (key: 0, count: 20, isHeld: true))
        #expect(host.feed.allIDs == shown(1_000..<1_020))
        // The viewport (70..<80) is past the new rows: the next page at once.
        #expect(fetches(in: effects).map(\.key) == [20])
        host.settle()
        #expect(host.feed.allIDs == shown(1_000..<1_030))
        #expect(host.feed.isAtEnd)
        #expect(host.feed.statistics.pagesAppended == 4 + 2)
    }

    @Test func aFailedRefreshKeepsTheOldRowsAndRetryRetriesTheRefresh() {
        var host = FeedHost(count: 60, settings: .init(pageSize: 20, prefetch: 0, backoff: .seconds(1)))
        host.setViewport(0..<10)
        host.answer()
        let before = host.feed.allIDs
        host.refresh()
        host.fail("server down")
        #expect(host.feed.allIDs == before)
        #expect(host.feed.footer == .error("server down"))
        #expect(host.feed.failure?.fetch.purpose == .refresh)
        #expect(host.setViewport(15..<25).isEmpty)
        let automatic = fetches(in: host.tick(at: .seconds(1)))
        #expect(automatic.map(\.purpose) == [.refresh])
        #expect(automatic.map(\.attempt) == [2])
        #expect(automatic.map(\.key) == [0])
        host.fail("bad reply", retryable: false)
        #expect(host.feed.allIDs == before)
        let manual = fetches(in: host.retry())
        #expect(manual.map(\.purpose) == [.refresh])
        #expect(manual.map(\.attempt) == [1])
        host.server = FeedServer(count: 60, tag: "new ")
        host.answer()
        #expect(host.feed.items(0..<20) == (0..<20).map { "new item \($0)" })
        #expect(host.feed.generation == 1)
    }

    @Test func eachRefreshIsANewGenerationAndCancelsTheRefreshBeforeIt() throws {
        var host = FeedHost(count: 40)
        host.start()
        host.answer()
        #expect(host.feed.generation == 0)
        let first = try #require(fetches(in: host.refresh()).first)
        #expect(host.feed.generation == 1)
        let second = host.refresh()
        #expect(second.first == .cancel(first.id))
        #expect(host.feed.generation == 2)
        #expect(host.deliverLate(first.id, .success(.init(entries: feedEntries(0..<20, "old "), next: 20))).isEmpty)
        #expect(host.feed.statistics.staleRepliesIgnored == 1)
        host.server = FeedServer(count: 40, tag: "new ")
        host.answer()
        #expect(host.feed.items(0..<20) == (0..<20).map { "new item \($0)" })
        // Nothing in flight: a refresh cancels nothing.
        let third = host.refresh()
        #expect(third.count == 1)
        #expect(fetches(in: third).map(\.purpose) == [.refresh])
        #expect(host.feed.generation == 3)
    }

    @Test func aRefreshReplacesAWaitingError() {
        var host = FeedHost(count: 40)
        host.start()
        host.fail()
        #expect(host.feed.nextWakeup != nil)
        let effects = host.refresh()
        #expect(effects.count == 1)
        #expect(fetches(in: effects).map(\.purpose) == [.refresh])
        #expect(host.feed.nextWakeup == nil)
        #expect(host.tick(at: .seconds(100)).isEmpty)
        host.answer()
        #expect(host.feed.allIDs == shown(0..<20))
    }

    @Test func aRefreshBeforeAnythingLoadedFetchesTheFirstPage() {
        var host = FeedHost(count: 40)
        #expect(fetches(in: host.refresh()).map(\.key) == [0])
        host.answer()
        #expect(host.feed.allIDs == shown(0..<20))
        #expect(host.feed.generation == 1)
    }

    @Test func aRefreshLoadsEveryPageAgainWhenItsFirstIsShown() {
        // The host scrolls back to the top on a refresh: the new pages come in order.
        var host = FeedHost(count: 100, settings: .init(pageSize: 20, prefetch: 10))
        host.setViewport(90..<100)
        host.settle()
        #expect(host.feed.isAtEnd)
        host.refresh()
        host.setViewport(0..<10)
        host.server = FeedServer(count: 100, tag: "new ")
        host.settle()
        #expect(host.feed.rowCount == 40)
        host.setViewport(90..<100)
        host.settle()
        #expect(host.feed.items(0..<100) == (0..<100).map { "new item \($0)" })
        #expect(host.feed.isAtEnd)
    }

    // MARK: De-duplication

    @Test func anIDAlreadyHeldKeepsItsCopyAndTheNewOneIsDropped() {
        var host = FeedHost(server: FeedServer(count: 0), settings: .init(pageSize: 20, prefetch: 0))
        host.setViewport(0..<20)
        host.reply(.success(.init(entries: feedEntries(0..<20, "first "), next: 20)))
        host.reply(.success(.init(entries: feedEntries(15..<35, "second "), next: 40)))
        #expect(host.feed.rowCount == 35)
        #expect(host.feed.page(1) == (key: 20, count: 15, isHeld: true))
        #expect(host.feed.items(0..<20) == (0..<20).map { "first item \($0)" })
        #expect(host.feed.items(20..<35) == (20..<35).map { "second item \($0)" })
        #expect(host.feed.allIDs == shown(0..<35))
        #expect(host.feed.statistics.duplicatesDropped == 5)
    }

    @Test func duplicatesWithinAPageKeepTheFirstCopy() {
        var host = FeedHost(server: FeedServer(count: 0))
        host.start()
        host.reply(.success(.init(entries: [feedEntry(1, "a "), feedEntry(2, "a "), feedEntry(1, "b "), feedEntry(3, "a "), feedEntry(2, "b ")],
                                  next: nil)))
        #expect(host.feed.items(0..<host.feed.rowCount) == ["a item 1", "a item 2", "a item 3"])
        #expect(host.feed.statistics.duplicatesDropped == 2)
    }

    @Test func entriesWithoutAnIDAreNeverDeduplicated() {
        var host = FeedHost(server: FeedServer(count: 0), settings: .init(pageSize: 3, prefetch: 0))
        host.setViewport(0..<3)
        host.reply(.success(.init(entries: [feedEntry(nil, "x "), feedEntry(nil, "x "), feedEntry(1)], next: 3)))
        host.setViewport(3..<5)
        host.reply(.success(.init(entries: [feedEntry(nil, "x "), feedEntry(1), feedEntry(nil, "x ")], next: nil)))
        #expect(host.feed.items(0..<host.feed.rowCount) == ["x item -", "x item -", "item 1", "x item -", "x item -"])
        #expect(host.feed.statistics.duplicatesDropped == 1)
    }

    @Test func aPageOfRowsAlreadyHeldAddsNoRowsAndTheFeedGoesOn() {
        var host = FeedHost(server: FeedServer(count: 0), settings: .init(pageSize: 20, prefetch: 0))
        host.setViewport(0..<20)
        host.reply(.success(.init(entries: feedEntries(0..<20), next: 20)))
        let effects = host.reply(.success(.init(entries: feedEntries(0..<20, "again "), next: 40))) ?? []
        #expect(host.feed.rowCount == 20)
        #expect(host.feed.pageCount == 2)
        #expect(fetches(in: effects).map(\.key) == [40])
        #expect(host.feed.statistics.duplicatesDropped == 20)
    }

    @Test func aRefreshForgetsTheIDsOfTheRowsItReplaces() {
        var host = FeedHost(count: 40, settings: .init(pageSize: 20, prefetch: 0))
        host.setViewport(0..<5)
        host.answer()
        host.refresh()
        host.server = FeedServer(count: 40, tag: "new ")
        host.answer()
        #expect(host.feed.items(0..<20) == (0..<20).map { "new item \($0)" })
        #expect(host.feed.statistics.duplicatesDropped == 0)
    }

    // MARK: maxItems

    /// Scrolls a 10-row viewport by `step` rows from `from` towards `to`, answering every fetch
    /// and checking after every event that the feed holds at most `maxItems` items, that no
    /// page the viewport and prefetch cover is dropped, that the held pages show the server's
    /// items at their rows, and that every refetch asks for a dropped page by its own key.
    private func scroll(_ host: inout FeedHost, from: Int, to: Int, step: Int, held: inout Set<Int>) {
        let settings = host.feed.settings
        let limit = settings.maxItems ?? .max
        let pageSize = settings.pageSize
        // At the end of the feed, dropping and refetching pages never changes the row count.
        let fullCount = host.feed.isAtEnd ? host.feed.rowCount : nil
        func checkHeld(_ feed: TestFeed, filled: Int?, sourceLocation: SourceLocation = #_sourceLocation) {
            // The pages held now: those held before and the one just filled, less those dropped.
            var now = held
            if let filled { now.insert(filled) }
            now = now.filter { feed.page($0).isHeld }
            expectLazily(now.count == feed.heldPageCount, "the feed holds pages nobody filled", sourceLocation: sourceLocation)
            let window = max(0, feed.viewport.lowerBound - settings.prefetch)..<(feed.viewport.upperBound + settings.prefetch)
            for page in held.union(filled.map { [$0] } ?? []).subtracting(now) {
                let rows = (page * pageSize)..<((page + 1) * pageSize)
                expectLazily(!rows.overlaps(window), "page \(page) dropped inside \(window)", sourceLocation: sourceLocation)
            }
            expectLazily(feed.itemCount <= limit, "\(feed.itemCount) items held", sourceLocation: sourceLocation)
            expectLazily(feed.itemCount == now.count * pageSize, sourceLocation: sourceLocation)
            for page in now {
                expectLazily(feed.page(page) == (key: page * pageSize, count: pageSize, isHeld: true), sourceLocation: sourceLocation)
                let first = page * pageSize
                expectLazily(feed.ids(first..<first + 1) == [first], sourceLocation: sourceLocation)
                expectLazily(feed.ids(first + pageSize - 1..<first + pageSize) == [first + pageSize - 1], sourceLocation: sourceLocation)
            }
            if let fullCount {
                expectLazily(feed.rowCount == fullCount, "\(feed.rowCount) rows", sourceLocation: sourceLocation)
            }
            held = now
        }
        var top = from
        while true {
            host.setViewport(top..<top + 10)
            checkHeld(host.feed, filled: nil)
            while let fetch = host.inFlight {
                switch fetch.purpose {
                case .next:
                    expectLazily(fetch.key == host.feed.rowCount)
                    host.answer()
                    checkHeld(host.feed, filled: host.feed.pageCount - 1)
                case .page(let index):
                    expectLazily(fetch.key == index * pageSize)
                    expectLazily(!held.contains(index))
                    host.answer()
                    checkHeld(host.feed, filled: index)
                case .refresh:
                    Issue.record("a refresh nobody asked for")
                    return
                }
            }
            let visible = top..<min(top + 10, host.feed.rowCount)
            expectLazily(host.feed.ids(visible) == shown(visible), "rows \(visible)")
            if top == to { break }
            top = from < to ? min(to, top + step) : max(to, top - step)
        }
    }

    @Test func scrollingThroughAHundredThousandItemsHoldsAtMostMaxItems() {
        let total = 100_000
        var host = FeedHost(count: total, settings: .init(pageSize: 20, prefetch: 10, maxItems: 200))
        var held: Set<Int> = []
        scroll(&host, from: 0, to: total - 10, step: 7, held: &held)
        #expect(host.feed.rowCount == total)
        #expect(host.feed.isAtEnd)
        #expect(host.feed.pageCount == total / 20)
        #expect(host.feed.statistics.fetchesStarted == total / 20)
        #expect(host.feed.isPlaceholder(0))
        #expect(host.feed.isPlaceholder(total / 2))
        #expect(host.feed.page(0) == (key: 0, count: 20, isHeld: false))
        let dropped = host.feed.statistics.pagesDropped
        #expect(dropped == total / 20 - host.feed.heldPageCount)
        // Back to the top: every dropped page comes back by its key, with the same items at
        // the same rows, and the row count never changes.
        scroll(&host, from: total - 10, to: 0, step: 7, held: &held)
        #expect(host.feed.rowCount == total)
        #expect(host.feed.ids(0..<30) == shown(0..<30))
        let refetched = host.fetches.filter { $0.purpose != .next }
        #expect(refetched.count == host.feed.statistics.pagesRefetched)
        #expect(refetched.count >= total / 20 - 10)
        #expect(refetched.allSatisfy { if case .page(let index) = $0.purpose { $0.key == index * 20 } else { false } })
        #expect(host.feed.isPlaceholder(total - 1))
    }

    @Test func droppedPagesShowPlaceholdersAndComeBackWhenTheViewportReturns() throws {
        var host = FeedHost(count: 200, settings: .init(pageSize: 20, prefetch: 0, maxItems: 40))
        for top in stride(from: 0, through: 90, by: 10) {
            host.setViewport(top..<top + 10)
            host.settle()
        }
        #expect(host.feed.rowCount == 120)
        #expect(host.feed.itemCount == 40)
        #expect(host.feed.heldPageCount == 2)
        #expect((0..<6).map { host.feed.page($0).isHeld } == [false, false, false, false, true, true])
        #expect((0..<80).allSatisfy(host.feed.isPlaceholder))
        #expect(host.feed.ids(80..<120) == shown(80..<120))
        #expect(host.feed.statistics.pagesDropped == 4)
        #expect(host.feed.page(0) == (key: 0, count: 20, isHeld: false))
        // Back at the top: page 0 again, by its key; the far page 5 goes instead.
        let revision = host.feed.revision
        let refetch = try #require(fetches(in: host.setViewport(5..<15)).first)
        #expect(refetch.purpose == .page(0))
        #expect(refetch.key == 0)
        host.answer()
        #expect(host.feed.revision > revision)
        #expect(host.feed.ids(0..<20) == shown(0..<20))
        #expect((0..<6).map { host.feed.page($0).isHeld } == [true, false, false, false, true, false])
        #expect(host.feed.rowCount == 120)
        #expect(host.feed.itemCount == 40)
        #expect(fetches(in: host.setViewport(15..<25)).map(\.purpose) == [.page(1)])
        host.answer()
        #expect((0..<6).map { host.feed.page($0).isHeld } == [true, true, false, false, false, false])
        #expect(host.feed.ids(0..<40) == shown(0..<40))
        #expect(host.feed.statistics.pagesRefetched == 2)
        #expect(host.feed.statistics.fetchesStarted == 8)
    }

    @Test func pagesTheViewportAndPrefetchCoverAreNeverDroppedEvenBeyondMaxItems() {
        var host = FeedHost(count: 1_000, settings: .init(pageSize: 20, prefetch: 20, maxItems: 20))
        host.setViewport(10..<30) // with the prefetch distance: rows 0..<50, pages 0 to 2
        host.settle()
        #expect(host.feed.rowCount == 60)
        #expect(host.feed.itemCount == 60)
        #expect(host.feed.statistics.pagesDropped == 0)
        // Farther down, only the pages covering 180..<240 stay.
        for top in stride(from: 30, through: 200, by: 10) {
            host.setViewport(top..<top + 20)
            host.settle()
            let window = (top - 20)..<(top + 40)
            for page in 0..<host.feed.pageCount where host.feed.rows(ofPage: page).overlaps(window) {
                #expect(host.feed.page(page).isHeld, "page \(page) at viewport \(top)")
            }
        }
        #expect((0..<host.feed.pageCount).filter { host.feed.page($0).isHeld } == [9, 10, 11])
        #expect(host.feed.ids(180..<240) == shown(180..<240))
    }

    @Test func droppedPagesComeBackViewportFirstThenNearestFirst() {
        var host = FeedHost(count: 1_000, settings: .init(pageSize: 10, prefetch: 10, maxItems: 30))
        for top in stride(from: 0, through: 200, by: 5) {
            host.setViewport(top..<top + 5)
            host.settle()
        }
        #expect((2..<8).allSatisfy { !host.feed.page($0).isHeld })
        // Viewport 41..<51: pages 4 and 5; with prefetch, 31..<61: pages 3 to 6.
        host.setViewport(41..<51)
        var order: [TestFeed.Fetch.Purpose] = []
        while let fetch = host.inFlight {
            order.append(fetch.purpose)
            host.answer()
        }
        #expect(order == [.page(4), .page(5), .page(3), .page(6)])
        #expect(host.feed.ids(30..<70) == shown(30..<70))
    }

    @Test func aRefetchedPageWhoseCountChangedMovesTheRowsAfterIt() throws {
        var host = FeedHost(count: 200, settings: .init(pageSize: 20, prefetch: 0, maxItems: 40))
        for top in stride(from: 0, through: 90, by: 10) {
            host.setViewport(top..<top + 10)
            host.settle()
        }
        #expect((0..<6).map { host.feed.page($0).isHeld } == [false, false, false, false, true, true])
        // Page 1 lost five items since.
        let shrink = try #require(fetches(in: host.setViewport(20..<30)).first)
        #expect(shrink.purpose == .page(1))
        host.reply(.success(.init(entries: feedEntries(25..<40), next: 40)))
        #expect(host.feed.page(1) == (key: 20, count: 15, isHeld: true))
        #expect(host.feed.rowCount == 115)
        #expect(host.feed.ids(20..<35) == shown(25..<40))
        #expect(host.feed.isPlaceholder(35))
        #expect(host.feed.page(containing: 34) == 1)
        #expect(host.feed.page(containing: 35) == 2)
        #expect(host.feed.page(containing: 75) == 4)
        #expect(host.feed.rows(ofPage: 4) == 75..<95)
        #expect(host.feed.ids(75..<95) == shown(80..<100))
        #expect(host.feed.page(5).isHeld == false)
        #expect(host.feed.itemCount == 35)
        // Page 0 gained five.
        let grow = try #require(fetches(in: host.setViewport(0..<10)).first)
        #expect(grow.purpose == .page(0))
        host.reply(.success(.init(entries: feedEntries(1_000..<1_005) + feedEntries(0..<20), next: 20)))
        #expect(host.feed.page(0) == (key: 0, count: 25, isHeld: true))
        #expect(host.feed.rowCount == 120)
        #expect(host.feed.ids(0..<40) == shown(Array(1_000..<1_005) + Array(0..<20) + Array(25..<40)))
        #expect(host.feed.page(containing: 25) == 1)
        #expect(host.feed.rows(ofPage: 4) == 80..<100)
        #expect(host.feed.statistics.pagesRefetched == 2)
        #expect(host.feed.rowCount == (0..<host.feed.pageCount).reduce(0) { $0 + host.feed.page($1).count })
    }

    @Test func aRefetchedPageDropsTheIDsAnotherHeldPageShowsNow() throws {
        // Page 0 is dropped, so its ids are forgotten; page 2 brings one of them and keeps
        // it; page 0, fetched again, loses its copy and the rows after it move up.
        var host = FeedHost(server: FeedServer(count: 0), settings: .init(pageSize: 10, prefetch: 0, maxItems: 10))
        host.setViewport(0..<10)
        host.reply(.success(.init(entries: feedEntries(0..<10), next: 10)))
        host.setViewport(10..<20)
        host.reply(.success(.init(entries: feedEntries(10..<20), next: 20)))
        host.setViewport(20..<30)
        host.reply(.success(.init(entries: feedEntries([3] + Array(20..<29), "late "), next: nil)))
        #expect(host.feed.page(0).isHeld == false)
        #expect(host.feed.ids(20..<21) == [3])
        host.setViewport(0..<5)
        #expect(host.inFlight?.purpose == .page(0))
        host.reply(.success(.init(entries: feedEntries(0..<10), next: 10)))
        #expect(host.feed.page(0) == (key: 0, count: 9, isHeld: true))
        #expect(host.feed.ids(0..<9) == shown([0, 1, 2, 4, 5, 6, 7, 8, 9]))
        #expect(host.feed.rowCount == 29)
        #expect(host.feed.statistics.duplicatesDropped == 1)
    }

    @Test func aFailedRefetchKeepsThePlaceholdersAndRetriesThePage() throws {
        var host = FeedHost(count: 200, settings: .init(pageSize: 20, prefetch: 0, maxItems: 40, backoff: .seconds(1)))
        for top in stride(from: 0, through: 90, by: 10) {
            host.setViewport(top..<top + 10)
            host.settle()
        }
        host.setViewport(0..<10)
        host.fail()
        #expect(host.feed.isPlaceholder(0))
        #expect(host.feed.rowCount == 120)
        #expect(host.feed.failure?.fetch.purpose == .page(0))
        #expect(fetches(in: host.tick(at: .seconds(1))).map(\.purpose) == [.page(0)])
        host.fail(retryable: false)
        #expect(fetches(in: host.retry()).map(\.purpose) == [.page(0)])
        host.answer()
        #expect(host.feed.ids(0..<20) == shown(0..<20))
    }

    @Test func aRefetchedPagesNextKeyIsNotFollowed() throws {
        var host = FeedHost(count: 200, settings: .init(pageSize: 20, prefetch: 0, maxItems: 40))
        for top in stride(from: 0, through: 90, by: 10) {
            host.setViewport(top..<top + 10)
            host.settle()
        }
        let pages = host.feed.pageCount
        host.setViewport(0..<10)
        // Not the end of the feed, though the reply says so.
        host.reply(.success(.init(entries: feedEntries(0..<20), next: nil)))
        #expect(!host.feed.isAtEnd)
        #expect(host.feed.pageCount == pages)
        // Not a loop, though the key was followed already.
        host.setViewport(20..<30)
        #expect(host.inFlight?.purpose == .page(1))
        host.reply(.success(.init(entries: feedEntries(20..<40), next: 0)))
        #expect(host.feed.failure == nil)
        #expect(host.feed.ids(20..<40) == shown(20..<40))
        host.setViewport(110..<120)
        host.settle()
        host.setViewport(190..<200)
        host.settle()
        #expect(host.feed.isAtEnd)
        #expect(host.feed.rowCount == 200)
    }

    @Test func withoutMaxItemsNothingIsDropped() {
        var host = FeedHost(count: 2_000, settings: .init(pageSize: 20, prefetch: 10))
        for top in stride(from: 0, through: 1_990, by: 10) {
            host.setViewport(top..<top + 10)
            host.settle()
        }
        #expect(host.feed.itemCount == 2_000)
        #expect(host.feed.heldPageCount == 100)
        #expect(host.feed.statistics.pagesDropped == 0)
    }

    // MARK: Loops

    @Test func aNextKeyEqualToTheKeyJustFetchedIsAnErrorAndAddsNothing() {
        var host = FeedHost(server: FeedServer(count: 0), settings: .init(pageSize: 20, prefetch: 10))
        host.setViewport(0..<10)
        host.reply(.success(.init(entries: feedEntries(0..<20), next: 20)))
        #expect(host.inFlight?.key == 20)
        let revision = host.feed.revision
        #expect(host.reply(.success(.init(entries: feedEntries(20..<40), next: 20)))?.isEmpty == true)
        #expect(host.feed.rowCount == 20)
        #expect(host.feed.pageCount == 1)
        #expect(host.feed.allIDs == shown(0..<20))
        #expect(host.feed.revision == revision)
        let message = "the next key is the key just fetched (20): the feed would fetch the same page forever"
        #expect(host.feed.failure?.message == message)
        #expect(host.feed.failure?.retryable == false)
        #expect(host.feed.failure?.retryAt == nil)
        #expect(host.feed.failure?.fetch.key == 20)
        #expect(host.feed.footer == .error(message))
        #expect(host.tick(at: .seconds(3_600)).isEmpty)
        // retry() asks again; a good reply goes on.
        #expect(fetches(in: host.retry()).map(\.key) == [20])
        host.reply(.success(.init(entries: feedEntries(20..<40), next: nil)))
        #expect(host.feed.allIDs == shown(0..<40))
        #expect(host.feed.isAtEnd)
    }

    @Test func aNextKeyEqualToAnEarlierPagesKeyIsAnError() {
        var host = FeedHost(server: FeedServer(count: 0), settings: .init(pageSize: 20, prefetch: 0))
        host.setViewport(0..<20)
        host.reply(.success(.init(entries: feedEntries(0..<20), next: 20)))
        host.setViewport(20..<40)
        host.reply(.success(.init(entries: feedEntries(20..<40), next: 40)))
        host.setViewport(40..<60)
        #expect(host.reply(.success(.init(entries: feedEntries(40..<60), next: 20)))?.isEmpty == true)
        #expect(host.feed.failure?.message == "the next key 20 was already fetched for page 2: the feed would loop")
        #expect(host.feed.failure?.retryable == false)
        #expect(host.feed.rowCount == 40)
        #expect(host.feed.pageCount == 2)
        host.retry()
        host.reply(.success(.init(entries: feedEntries(40..<60), next: 0)))
        #expect(host.feed.failure?.message == "the next key 0 was already fetched for page 1: the feed would loop")
        #expect(host.feed.rowCount == 40)
    }

    @Test func aRefreshWhoseNextKeyIsTheFirstKeyIsAnError() {
        var host = FeedHost(count: 40)
        host.start()
        host.answer()
        host.refresh()
        host.reply(.success(.init(entries: feedEntries(0..<20, "new "), next: 0)))
        #expect(host.feed.failure?.fetch.purpose == .refresh)
        #expect(host.feed.failure?.retryable == false)
        #expect(host.feed.items(0..<20) == (0..<20).map { "item \($0)" })
    }

    @Test func aRefreshMayFollowTheKeysOfTheGenerationBefore() {
        var host = FeedHost(server: FeedServer(count: 0), settings: .init(pageSize: 20, prefetch: 0))
        host.setViewport(0..<20)
        host.reply(.success(.init(entries: feedEntries(0..<20), next: 7)))
        host.reply(.success(.init(entries: feedEntries(20..<40), next: nil)))
        host.refresh()
        host.reply(.success(.init(entries: feedEntries(100..<120), next: 7)))
        #expect(host.feed.failure == nil)
        #expect(host.inFlight?.key == 7)
        host.reply(.success(.init(entries: feedEntries(120..<140), next: nil)))
        #expect(host.feed.failure == nil)
        #expect(host.feed.allIDs == shown(100..<140))
    }

    // MARK: Stale replies

    @Test func repliesToUnknownFetchesAreIgnored() throws {
        var host = FeedHost(count: 40)
        host.start()
        let fetch = try #require(host.inFlight)
        #expect(host.deliverLate(fetch.id + 99, .success(.init(entries: feedEntries(0..<20), next: 20))).isEmpty)
        #expect(host.deliverLate(0, .failure(.init("boom"))).isEmpty)
        #expect(host.deliverLate(-1, .success(.init(entries: [], next: nil))).isEmpty)
        #expect(host.feed.statistics.staleRepliesIgnored == 3)
        #expect(host.feed.loading == fetch)
        #expect(host.feed.rowCount == 0)
        #expect(host.feed.revision == 0)
    }

    @Test func aSecondReplyToAnAnsweredFetchIsIgnored() throws {
        var host = FeedHost(count: 40)
        host.start()
        let fetch = try #require(host.inFlight)
        host.answer()
        let revision = host.feed.revision
        #expect(host.deliverLate(fetch.id, .success(.init(entries: feedEntries(500..<520), next: 520))).isEmpty)
        #expect(host.deliverLate(fetch.id, .failure(.init("late error"))).isEmpty)
        #expect(host.feed.allIDs == shown(0..<20))
        #expect(host.feed.revision == revision)
        #expect(host.feed.footer == .more)
        #expect(host.feed.statistics.staleRepliesIgnored == 2)
    }

    @Test func aReplyToAFailedFetchIsIgnored() throws {
        var host = FeedHost(count: 40, settings: .init(backoff: .seconds(1)))
        host.start()
        let fetch = try #require(host.inFlight)
        host.fail()
        #expect(host.deliverLate(fetch.id, .success(host.server.reply(to: fetch))).isEmpty)
        #expect(host.feed.rowCount == 0)
        #expect(host.feed.failure?.fetch == fetch)
        host.tick(at: .seconds(1))
        #expect(host.deliverLate(fetch.id, .success(host.server.reply(to: fetch))).isEmpty)
        #expect(host.feed.loading?.attempt == 2)
        host.answer()
        #expect(host.feed.allIDs == shown(0..<20))
        #expect(host.feed.statistics.staleRepliesIgnored == 2)
    }

    // MARK: Settings

    @Test func problemNamesTheFirstBadSetting() {
        #expect(TestFeed.Settings(pageSize: 0).problem == "page_size must be at least 1 (got 0)")
        #expect(TestFeed.Settings(pageSize: -3).problem == "page_size must be at least 1 (got -3)")
        #expect(TestFeed.Settings(prefetch: -1).problem == "prefetch must not be negative (got -1)")
        #expect(TestFeed.Settings(pageSize: 20, maxItems: 10).problem == "max_items must be at least page_size (10 < 20)")
        #expect(TestFeed.Settings(attempts: 0).problem == "retry attempts must be at least 1 (got 0)")
        #expect(TestFeed.Settings(backoff: .milliseconds(-1)).problem == "retry backoff must not be negative")
        #expect(TestFeed.Settings(pageSize: 0, prefetch: -1, attempts: 0).problem == "page_size must be at least 1 (got 0)")
    }

    @Test func problemIsNilForUsableSettings() {
        #expect(TestFeed.Settings().problem == nil)
        #expect(TestFeed.Settings(pageSize: 1, prefetch: 0, maxItems: 1, attempts: 1, backoff: .zero, maxBackoff: .zero).problem == nil)
        #expect(TestFeed.Settings(pageSize: 20, maxItems: 20).problem == nil)
        #expect(TestFeed.Settings(pageSize: 20, maxItems: nil).problem == nil)
    }

    @Test func defaultSettings() {
        let settings = TestFeed.Settings()
        #expect(settings.pageSize == 20)
        #expect(settings.prefetch == 10)
        #expect(settings.maxItems == nil)
        #expect(settings.attempts == 3)
        #expect(settings.backoff == .milliseconds(500))
        #expect(settings.maxBackoff == .seconds(30))
    }

    // MARK: Revision

    @Test func revisionGrowsWhenTheRowsChangeAndOnlyThen() {
        var host = FeedHost(count: 200, settings: .init(pageSize: 20, prefetch: 0, maxItems: 20))
        host.setViewport(0..<10)
        #expect(host.feed.revision == 0)
        host.answer()
        #expect(host.feed.revision == 1)
        host.setViewport(5..<15)
        host.setViewport(0..<3)
        #expect(host.feed.revision == 1)
        host.setViewport(15..<20) // the next page
        host.fail()
        #expect(host.feed.revision == 1)
        host.retry()
        host.answer() // page 1 appended, and dropped at once: page 0 is in the viewport
        #expect(host.feed.revision == 3)
        #expect(host.feed.page(1).isHeld == false)
        host.refresh()
        #expect(host.feed.revision == 3)
        host.answer()
        #expect(host.feed.revision > 3)
    }
}

// MARK: - Property tests

/// `FeedCore` over seeded random walks: viewport moves, replies (pages, failures, loops),
/// late and unknown replies, refreshes, retries, ticks and server edits, checked event by
/// event against `FeedModel`. Each test stops at its first counterexample and names the
/// case (see `forEachRandomCase`) with the events that led to it.
@Suite struct FeedCorePropertyTests {
    @Test func randomWalksAgreeWithTheModel() throws {
        try forEachRandomCase(200, seed: 0xFEED_0001) { random, label in
            var walk = FeedWalk(using: &random)
            for _ in 0..<160 { try walk.step(using: &random, label) }
        }
    }

    @Test func feedsShowTheServersItemsDespiteFailuresLateRepliesAndRefreshes() throws {
        try forEachRandomCase(150, seed: 0xFEED_0002) { random, label in
            let count = Int.random(in: 0...400, using: &random)
            let pageSize = Int.random(in: 1...25, using: &random)
            let settings = TestFeed.Settings(
                pageSize: pageSize,
                prefetch: Int.random(in: 0...15, using: &random),
                maxItems: random.oneIn(3) ? nil : Int.random(in: pageSize...(pageSize * 5), using: &random),
                attempts: Int.random(in: 1...3, using: &random),
                backoff: .milliseconds(Int.random(in: 0...200, using: &random)),
                maxBackoff: .milliseconds(Int.random(in: 0...1_000, using: &random)))
            var host = FeedHost(count: count, settings: settings)
            let height = Int.random(in: 0...15, using: &random)
            var top = 0
            var events: [String] = []
            func context() -> String { "\(label): \(count) items, \(settings), events \(events.suffix(12))" }
            host.setViewport(top..<top + height)
            for _ in 0..<Int.random(in: 0...150, using: &random) {
                let items = host.feed.itemCount
                var tookPage = false
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<30:
                    top = random.oneIn(5)
                        ? Int.random(in: 0...(host.feed.rowCount + 5), using: &random)
                        : max(0, top + Int.random(in: -8...12, using: &random))
                    events.append("viewport \(top)..<\(top + height)")
                    host.setViewport(top..<top + height)
                case 30..<60:
                    events.append("answer \(String(describing: host.inFlight))")
                    tookPage = host.answer() != nil
                case 60..<72:
                    let retryable = !random.oneIn(4)
                    events.append("fail \(String(describing: host.inFlight)) retryable \(retryable)")
                    host.fail(retryable: retryable)
                case 72..<78:
                    if let late = (host.cancelled + host.answered).randomElement(using: &random) {
                        events.append("late reply to \(late)")
                        try requireLazily(host.deliverLate(late.id, .success(host.server.reply(to: late))).isEmpty, "\(context())")
                    }
                case 78..<83:
                    events.append("refresh")
                    host.refresh()
                case 83..<88:
                    events.append("retry")
                    host.retry()
                default:
                    events.append("tick")
                    host.tick(at: host.now + .milliseconds(Int.random(in: 0...400, using: &random)))
                }
                // Every row held shows the server's item at that row; no id twice.
                let feed = host.feed
                for row in 0..<feed.rowCount {
                    if case .item(let entry) = feed.row(at: row) {
                        try requireLazily(entry.id == row && entry.item == "item \(row)", "\(context()): row \(row) shows \(entry.item)")
                    }
                }
                try requireLazily(feed.rowCount <= count, "\(context())")
                if !tookPage {
                    try requireLazily(feed.itemCount <= items, "\(context()): items grew from \(items) to \(feed.itemCount)")
                } else if let limit = settings.maxItems, feed.itemCount > limit {
                    try requireLazily(heldPagesOutside(window(of: feed), feed).isEmpty, "\(context()): \(feed.itemCount) items held")
                }
            }
            // The host carries on without faults: it retries what failed and scrolls from the
            // top to the end; every row shows the server's item, and the feed ends.
            let step = max(1, height)
            top = 0
            var turns = 0
            while true {
                host.setViewport(top..<top + step)
                var answers = 0
                while answers < 10_000 {
                    if host.feed.failure != nil { host.retry() }
                    guard host.answer() != nil else { break }
                    answers += 1
                }
                let visible = top..<min(top + step, host.feed.rowCount)
                try requireLazily(host.feed.ids(visible) == shown(visible), "\(context()): rows \(visible) at the end")
                if top + step >= host.feed.rowCount, host.feed.isAtEnd { break }
                top = min(top + step, host.feed.rowCount)
                turns += 1
                try requireLazily(turns <= count + 10, "\(context()): stuck at \(top) of \(host.feed.rowCount)")
            }
            try requireLazily(host.feed.rowCount == count, "\(context())")
            try requireLazily(host.feed.footer == .end, "\(context())")
            if settings.maxItems == nil {
                try requireLazily(host.feed.allIDs == shown(0..<count), "\(context())")
            }
        }
    }
}

/// The rows the viewport and the prefetch distance cover.
private func window(of feed: TestFeed) -> Range<Int> {
    max(0, feed.viewport.lowerBound - feed.settings.prefetch)..<(feed.viewport.upperBound + feed.settings.prefetch)
}

/// Pages held, not empty, with no row in `window`: pages `maxItems` could drop.
private func heldPagesOutside(_ window: Range<Int>, _ feed: TestFeed) -> [Int] {
    var start = 0
    var pages: [Int] = []
    for index in 0..<feed.pageCount {
        let page = feed.page(index)
        if page.isHeld, page.count > 0, !(start..<start + page.count).overlaps(window) { pages.append(index) }
        start += page.count
    }
    return pages
}

/// A server for random walks: per generation of data, a chain of pages, each with its own
/// key (the first key, then keys drawn from 1...80, so chains share keys), its entries
/// (full, short or empty pages; with duplicate ids and entries without ids) and the next key.
private struct ChainServer {
    var replies: [Int: TestFeed.Reply] = [:]
    var keys: [Int] = []
    var generation = 0
    var lastID = 0

    init(first: Int, pageSize: Int, using random: inout SplitMix64) {
        lastID = 0
        renew(first: first, pageSize: pageSize, using: &random)
    }

    /// New data: a new chain, whose ids may repeat some of the last chain's.
    mutating func renew(first: Int, pageSize: Int, using random: inout SplitMix64) {
        generation += 1
        lastID = max(0, lastID - Int.random(in: 0...20, using: &random))
        keys = [first] + Array(Array(1...80).shuffled(using: &random).prefix(Int.random(in: 0...29, using: &random)))
        replies = [:]
        var given: [Int] = []
        for (index, key) in keys.enumerated() {
            let count = switch Int.random(in: 0..<20, using: &random) {
            case 0..<14: pageSize
            case 14..<17: Int.random(in: 0..<pageSize, using: &random)
            default: 0
            }
            var page: [TestFeed.Entry] = []
            for position in 0..<count {
                let id: Int?
                if random.oneIn(20) {
                    id = nil
                } else if !given.isEmpty, random.oneIn(10) {
                    id = given.randomElement(using: &random)
                } else {
                    lastID += 1
                    id = lastID
                    given.append(lastID)
                }
                page.append(.init(item: "g\(generation) k\(key) #\(position)", id: id))
            }
            replies[key] = .init(entries: page, next: index + 1 < keys.count ? keys[index + 1] : nil)
        }
    }

    /// The page at `key`; an empty last page for a key not in the chain.
    func reply(_ key: Int) -> TestFeed.Reply { replies[key] ?? .init(entries: [], next: nil) }

    /// Removes an entry from, or adds a new one to, a page of the chain (its key and next
    /// key stay): a page fetched again then has another count.
    mutating func edit(using random: inout SplitMix64) {
        guard let key = keys.randomElement(using: &random), var reply = replies[key] else { return }
        if !reply.entries.isEmpty, random.oneIn(2) {
            reply.entries.remove(at: Int.random(in: 0..<reply.entries.count, using: &random))
        } else {
            lastID += 1
            let entry = TestFeed.Entry(item: "g\(generation) k\(key) edit \(lastID)", id: lastID)
            reply.entries.insert(entry, at: Int.random(in: 0...reply.entries.count, using: &random))
        }
        replies[key] = reply
    }
}

/// What `FeedCore` should do, written out plainly: pages in a list, rows by walking it,
/// drops by sorting the candidates, fetches by filtering the pages.
private struct FeedModel {
    struct Fetch: Equatable, CustomStringConvertible {
        var id: Int
        var key: Int
        var purpose: TestFeed.Fetch.Purpose
        var attempt: Int

        init(id: Int, key: Int, purpose: TestFeed.Fetch.Purpose, attempt: Int) {
            self.id = id
            self.key = key
            self.purpose = purpose
            self.attempt = attempt
        }

        init(_ fetch: TestFeed.Fetch) { self.init(id: fetch.id, key: fetch.key, purpose: fetch.purpose, attempt: fetch.attempt) }

        var description: String { "#\(id) \(purpose) key \(key) try \(attempt)" }
    }

    struct Failure: Equatable {
        var message: String
        var fetch: Fetch
        var retryable: Bool
        var retryAt: Duration?
    }

    enum Activity: Equatable {
        case idle
        case loading(Fetch)
        case failed(Failure)

        init(_ activity: TestFeed.Activity) {
            switch activity {
            case .idle: self = .idle
            case .loading(let fetch): self = .loading(Fetch(fetch))
            case .failed(let failure):
                self = .failed(Failure(message: failure.message, fetch: Fetch(failure.fetch),
                                       retryable: failure.retryable, retryAt: failure.retryAt))
            }
        }
    }

    enum Effect: Equatable {
        case fetch(Fetch)
        case cancel(Int)

        init(_ effect: TestFeed.Effect) {
            switch effect {
            case .fetch(let fetch): self = .fetch(Fetch(fetch))
            case .cancel(let id): self = .cancel(id)
            }
        }
    }

    enum Row: Equatable {
        case item(String, Int?)
        case placeholder

        init(_ row: TestFeed.Row) {
            switch row {
            case .item(let entry): self = .item(entry.item, entry.id)
            case .placeholder: self = .placeholder
            }
        }
    }

    struct Page {
        var key: Int
        var count: Int
        var entries: [TestFeed.Entry]?
    }

    struct Counters: Equatable {
        var fetchesStarted = 0
        var pagesAppended = 0
        var pagesRefetched = 0
        var pagesDropped = 0
        var duplicatesDropped = 0
        var staleRepliesIgnored = 0
        var automaticRetries = 0

        init() {}

        init(_ statistics: TestFeed.Statistics) {
            fetchesStarted = statistics.fetchesStarted
            pagesAppended = statistics.pagesAppended
            pagesRefetched = statistics.pagesRefetched
            pagesDropped = statistics.pagesDropped
            duplicatesDropped = statistics.duplicatesDropped
            staleRepliesIgnored = statistics.staleRepliesIgnored
            automaticRetries = statistics.automaticRetries
        }
    }

    let settings: TestFeed.Settings
    let first: Int
    var pages: [Page] = []
    var tail: Int?
    /// Keys followed in this generation, with their page.
    var followed: [Int: Int] = [:]
    var activity: Activity = .idle
    var viewport: Range<Int> = 0..<0
    var generation = 0
    var lastID = 0
    var counters = Counters()

    init(first: Int, settings: TestFeed.Settings) {
        self.first = first
        self.settings = settings
        tail = first
    }

    // MARK: Reading

    var starts: [Int] {
        var starts: [Int] = []
        var row = 0
        for page in pages {
            starts.append(row)
            row += page.count
        }
        return starts
    }

    var rowCount: Int { pages.reduce(0) { $0 + $1.count } }
    var itemCount: Int { pages.reduce(0) { $0 + ($1.entries?.count ?? 0) } }
    var isAtEnd: Bool { tail == nil && !pages.isEmpty }
    var window: Range<Int> {
        max(0, viewport.lowerBound - settings.prefetch)..<(viewport.upperBound + settings.prefetch)
    }

    var rows: [Row] {
        pages.flatMap { page in
            page.entries.map { $0.map { Row.item($0.item, $0.id) } } ?? Array(repeating: .placeholder, count: page.count)
        }
    }

    var footer: TestFeed.Footer {
        switch activity {
        case .loading: .loading
        case .failed(let failure): .error(failure.message)
        case .idle: isAtEnd ? .end : .more
        }
    }

    var nextWakeup: Duration? {
        if case .failed(let failure) = activity { failure.retryAt } else { nil }
    }

    var isFailed: Bool {
        if case .failed = activity { true } else { false }
    }

    // MARK: Events

    mutating func start() -> [Effect] {
        guard pages.isEmpty, activity == .idle else { return [] }
        return begin(.next, key: first, attempt: 1)
    }

    mutating func setViewport(_ rows: Range<Int>) -> [Effect] {
        viewport = max(0, rows.lowerBound)..<max(0, rows.upperBound)
        return advance()
    }

    mutating func receive(_ id: Int, _ result: Result<TestFeed.Reply, TestFeed.FetchError>, now: Duration) -> [Effect] {
        guard case .loading(let fetch) = activity, fetch.id == id else {
            counters.staleRepliesIgnored += 1
            return []
        }
        switch result {
        case .failure(let error):
            fail(fetch, error.message, retryable: error.retryable, now: now)
            return []
        case .success(let reply):
            if let next = reply.next, next == fetch.key {
                fail(fetch, "the next key is the key just fetched (\(next)): the feed would fetch the same page forever",
                     retryable: false, now: now)
                return []
            }
            if let next = reply.next, fetch.purpose == .next, let page = followed[next] {
                fail(fetch, "the next key \(next) was already fetched for page \(page + 1): the feed would loop",
                     retryable: false, now: now)
                return []
            }
            activity = .idle
            switch fetch.purpose {
            case .next:
                append(fetch.key, reply)
            case .page(let index):
                if pages[index].entries == nil {
                    let entries = admit(reply.entries)
                    pages[index].entries = entries
                    pages[index].count = entries.count
                    counters.pagesRefetched += 1
                }
            case .refresh:
                pages = []
                followed = [:]
                append(fetch.key, reply)
            }
            dropFarPages()
            return advance()
        }
    }

    mutating func retry() -> [Effect] {
        guard case .failed(let failure) = activity else { return [] }
        activity = .idle
        return begin(failure.fetch.purpose, key: failure.fetch.key, attempt: 1)
    }

    mutating func refresh() -> [Effect] {
        var effects: [Effect] = []
        if case .loading(let fetch) = activity { effects.append(.cancel(fetch.id)) }
        activity = .idle
        generation += 1
        return effects + begin(.refresh, key: first, attempt: 1)
    }

    mutating func tick(now: Duration) -> [Effect] {
        guard case .failed(let failure) = activity, let due = failure.retryAt, due <= now else { return [] }
        activity = .idle
        counters.automaticRetries += 1
        return begin(failure.fetch.purpose, key: failure.fetch.key, attempt: failure.fetch.attempt + 1)
    }

    // MARK: Inside

    private mutating func begin(_ purpose: TestFeed.Fetch.Purpose, key: Int, attempt: Int) -> [Effect] {
        lastID += 1
        let fetch = Fetch(id: lastID, key: key, purpose: purpose, attempt: attempt)
        activity = .loading(fetch)
        counters.fetchesStarted += 1
        return [.fetch(fetch)]
    }

    private mutating func fail(_ fetch: Fetch, _ message: String, retryable: Bool, now: Duration) {
        var retryAt: Duration?
        if retryable, fetch.attempt < settings.attempts {
            retryAt = now + min(settings.backoff * (1 << (fetch.attempt - 1)), settings.maxBackoff)
        }
        activity = .failed(Failure(message: message, fetch: fetch, retryable: retryable, retryAt: retryAt))
    }

    /// The entries whose ids no held page shows and that come first in the reply.
    private mutating func admit(_ entries: [TestFeed.Entry]) -> [TestFeed.Entry] {
        var ids = Set(pages.flatMap { $0.entries ?? [] }.compactMap(\.id))
        return entries.filter { entry in
            guard let id = entry.id else { return true }
            if ids.insert(id).inserted { return true }
            counters.duplicatesDropped += 1
            return false
        }
    }

    private mutating func append(_ key: Int, _ reply: TestFeed.Reply) {
        let entries = admit(reply.entries)
        followed[key] = pages.count
        pages.append(Page(key: key, count: entries.count, entries: entries))
        tail = reply.next
        counters.pagesAppended += 1
    }

    /// Drops held pages outside the window, farthest from the viewport first (the lower
    /// page first among equals), until at most `maxItems` are held.
    private mutating func dropFarPages() {
        guard let limit = settings.maxItems else { return }
        let starts = self.starts
        let window = self.window
        var items = itemCount
        func distance(_ page: Int) -> Int {
            let rows = starts[page]..<(starts[page] + pages[page].count)
            return rows.upperBound <= viewport.lowerBound
                ? viewport.lowerBound - rows.upperBound : rows.lowerBound - viewport.upperBound
        }
        let candidates = pages.indices.filter { page in
            pages[page].entries != nil && pages[page].count > 0
                && !(starts[page]..<(starts[page] + pages[page].count)).overlaps(window)
        }
        for page in candidates.sorted(by: { (distance($0), -$0) > (distance($1), -$1) }) where items > limit {
            pages[page].entries = nil
            items -= pages[page].count
            counters.pagesDropped += 1
        }
    }

    /// The fetch the rows need: a dropped page the viewport shows, then one the window
    /// covers (the one starting nearest the viewport's first row, the lower page first
    /// among equals), then the next page when the end is within `prefetch` rows.
    private mutating func advance() -> [Effect] {
        guard activity == .idle else { return [] }
        let starts = self.starts
        func dropped(in rows: Range<Int>) -> Int? {
            pages.indices
                .filter { pages[$0].entries == nil && (starts[$0]..<(starts[$0] + pages[$0].count)).overlaps(rows) }
                .min { (abs(starts[$0] - viewport.lowerBound), $0) < (abs(starts[$1] - viewport.lowerBound), $1) }
        }
        if let page = dropped(in: viewport) ?? dropped(in: window) {
            return begin(.page(page), key: pages[page].key, attempt: 1)
        }
        if let tail, rowCount - viewport.upperBound <= settings.prefetch {
            return begin(.next, key: tail, attempt: 1)
        }
        return []
    }
}

/// A random walk of a host, a `ChainServer` and a `FeedCore`, checked against `FeedModel`
/// after every event.
private struct FeedWalk {
    var host: FeedHost
    var model: FeedModel
    var server: ChainServer
    var events: [String] = []
    var top = 0
    var height: Int

    init(using random: inout SplitMix64) {
        let pageSize = Int.random(in: 1...6, using: &random)
        let settings = TestFeed.Settings(
            pageSize: pageSize,
            prefetch: Int.random(in: 0...5, using: &random),
            maxItems: random.oneIn(3) ? nil : Int.random(in: pageSize...(pageSize * 3), using: &random),
            attempts: Int.random(in: 1...4, using: &random),
            backoff: .milliseconds(Int.random(in: 0...3, using: &random) * 100),
            maxBackoff: .milliseconds(Int.random(in: 0...8, using: &random) * 100))
        host = FeedHost(server: FeedServer(count: 0), settings: settings)
        model = FeedModel(first: 0, settings: settings)
        server = ChainServer(first: 0, pageSize: pageSize, using: &random)
        height = Int.random(in: 0...12, using: &random)
    }

    mutating func step(using random: inout SplitMix64, _ label: String) throws {
        let rowsBefore = model.rows
        let revision = host.feed.revision
        let items = host.feed.itemCount
        var actual: [TestFeed.Effect] = []
        var expected: [FeedModel.Effect] = []
        var tookPage = false
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<30:
            switch Int.random(in: 0..<10, using: &random) {
            case 0: top = 0
            case 1: top = max(0, model.rowCount - height)
            case 2: top = Int.random(in: 0...(model.rowCount + 10), using: &random)
            case 3: height = Int.random(in: 0...12, using: &random)
            default: top = max(0, top + Int.random(in: -8...8, using: &random))
            }
            let rows = top..<(top + height)
            events.append("viewport \(rows)")
            expected = model.setViewport(rows)
            actual = host.setViewport(rows)
        case 30..<60 where host.inFlight != nil, 60..<68 where host.inFlight != nil, 68..<71 where host.inFlight != nil:
            let fetch = host.inFlight!
            var result: Result<TestFeed.Reply, TestFeed.FetchError> = .success(server.reply(fetch.key))
            if roll >= 60 && roll < 68 {
                result = .failure(.init("failure \(events.count)", retryable: !random.oneIn(4)))
            } else if roll >= 68, case .success(var reply) = result {
                // A reply whose next key loops: the key just fetched, or one followed already.
                let followed = Array(model.followed.keys)
                reply.next = random.oneIn(2) || followed.isEmpty ? fetch.key : followed.randomElement(using: &random)
                result = .success(reply)
            }
            events.append("reply to \(FeedModel.Fetch(fetch)): \(describe(result))")
            expected = model.receive(fetch.id, result, now: host.now)
            actual = host.reply(result) ?? []
            // A page was taken in (not a failure, not a loop): far pages may be dropped.
            if case .success = result, !model.isFailed { tookPage = true }
        case 71..<76:
            let id = (host.cancelled + host.answered).randomElement(using: &random)?.id
                ?? model.lastID + Int.random(in: 1...3, using: &random)
            let result: Result<TestFeed.Reply, TestFeed.FetchError> = random.oneIn(3)
                ? .failure(.init("late failure"))
                : .success(server.reply(server.keys.randomElement(using: &random) ?? 0))
            events.append("late reply to #\(id)")
            expected = model.receive(id, result, now: host.now)
            actual = host.deliverLate(id, result)
        case 76..<78:
            if random.oneIn(2) { server.renew(first: 0, pageSize: host.feed.settings.pageSize, using: &random) }
            events.append("refresh (data \(server.generation))")
            expected = model.refresh()
            actual = host.refresh()
        case 78..<82:
            events.append("retry")
            expected = model.retry()
            actual = host.retry()
        case 82..<85:
            server.edit(using: &random)
            events.append("server edit")
        case 85..<86:
            events.append("start")
            expected = model.start()
            actual = host.start()
        default:
            let wakeup = host.feed.nextWakeup
            if let wakeup, wakeup >= host.now, random.oneIn(2) {
                host.now = random.oneIn(3) && wakeup > host.now ? wakeup - .nanoseconds(1) : wakeup
            } else {
                host.now += .milliseconds(Int.random(in: 0...700, using: &random))
            }
            events.append("tick at \(host.now)")
            expected = model.tick(now: host.now)
            actual = host.tick()
        }
        func context() -> String { "\(label): \(host.feed.settings), events \(events.suffix(15))" }
        try requireLazily(actual.map(FeedModel.Effect.init) == expected, "\(context()): effects \(actual)")
        try verify(context)
        let feed = host.feed
        // The rows change only with a new revision, and only replies change them.
        try requireLazily(feed.revision >= revision, "\(context())")
        if model.rows != rowsBefore { try requireLazily(feed.revision > revision, "\(context()): rows changed, same revision") }
        if !tookPage {
            try requireLazily(feed.revision == revision, "\(context()): revision moved without a page taken in")
            try requireLazily(feed.itemCount <= items, "\(context()): items grew without a reply")
        } else if let limit = feed.settings.maxItems, feed.itemCount > limit {
            // More than maxItems only when every page held is one the window covers.
            try requireLazily(heldPagesOutside(window(of: feed), feed).isEmpty, "\(context()): \(feed.itemCount) items held")
        }
    }

    /// Compares the core with the model: activity, pages, every row, counts, statistics.
    func verify(_ context: () -> String) throws {
        let feed = host.feed
        try requireLazily(FeedModel.Activity(feed.activity) == model.activity, "\(context()): activity \(feed.activity)")
        try requireLazily(feed.pageCount == model.pages.count, "\(context()): \(feed.pageCount) pages")
        var row = 0
        var ids = Set<Int>()
        for (index, page) in model.pages.enumerated() {
            let actual = feed.page(index)
            try requireLazily(actual.key == page.key && actual.count == page.count && actual.isHeld == (page.entries != nil),
                         "\(context()): page \(index) is \(actual), expected \(page.key), \(page.count), \(page.entries != nil)")
            for offset in 0..<page.count {
                try requireLazily(feed.page(containing: row) == index, "\(context()): row \(row) in page \(feed.page(containing: row))")
                let shown = FeedModel.Row(feed.row(at: row))
                let expected = page.entries.map { FeedModel.Row.item($0[offset].item, $0[offset].id) } ?? .placeholder
                try requireLazily(shown == expected, "\(context()): row \(row) shows \(shown), expected \(expected)")
                if case .item(_, let id?) = shown {
                    try requireLazily(ids.insert(id).inserted, "\(context()): id \(id) twice")
                }
                row += 1
            }
        }
        try requireLazily(feed.rowCount == row, "\(context()): row count \(feed.rowCount), expected \(row)")
        try requireLazily(feed.itemCount == model.itemCount, "\(context()): item count \(feed.itemCount)")
        try requireLazily(feed.heldPageCount == model.pages.filter { $0.entries != nil }.count, "\(context())")
        try requireLazily(feed.isAtEnd == model.isAtEnd, "\(context())")
        try requireLazily(feed.footer == model.footer, "\(context()): footer \(feed.footer)")
        try requireLazily(feed.nextWakeup == model.nextWakeup, "\(context())")
        try requireLazily(feed.viewport == model.viewport, "\(context())")
        try requireLazily(feed.generation == model.generation, "\(context())")
        try requireLazily(FeedModel.Counters(feed.statistics) == model.counters,
                     "\(context()): statistics \(feed.statistics), expected \(model.counters)")
    }
}

private func describe(_ result: Result<TestFeed.Reply, TestFeed.FetchError>) -> String {
    switch result {
    case .success(let reply): "\(reply.entries.count) entries, next \(reply.next.map(String.init) ?? "nil")"
    case .failure(let error): "\(error.message)\(error.retryable ? "" : " (not retryable)")"
    }
}
