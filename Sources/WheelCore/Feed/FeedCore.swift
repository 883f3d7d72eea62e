/// The state machine behind an infinite-scroll feed: the pages loaded so far, the one
/// fetch in flight, the end of the feed, errors and retries, refreshes, de-duplication and
/// a bound on the items held.
///
/// The core does no I/O and reads no clock. A host tells it what happened (the visible
/// rows moved, a fetch replied, the time is now `now`) and carries out the effects it
/// returns (start this fetch, cancel that one):
///
/// ```swift
/// var feed = FeedCore<Int, Article, Int>(first: 1, settings: .init(pageSize: 20, prefetch: 10))
/// for effect in feed.setViewport(0..<12, now: clock.now) {
///     if case .fetch(let fetch) = effect { start(fetch) }          // fetch.key == 1
/// }
/// // later, when the fetch replies:
/// let effects = feed.receive(fetch.id, .success(.init(entries: page, next: 2)), now: clock.now)
/// ```
///
/// **Pages and rows.** Pages are kept in the order their keys were followed: the first
/// key, then each reply's next key. Rows are the pages' items, concatenated. A page
/// dropped by `maxItems` keeps its key and its row count (its rows read as placeholders),
/// so the rows after it do not move; it is fetched again when the viewport comes back.
///
/// **Fetching.** At most one fetch is in flight. When nothing is in flight and no error
/// waits, the core fetches, in this order: a dropped page the viewport shows; a dropped
/// page within `prefetch` rows of the viewport; the next page, when the last visible row
/// is within `prefetch` rows of the end (so a first page too short to fill the viewport
/// is followed at once). A reply whose next key is nil ends the feed.
///
/// **De-duplication.** Entries with an id: when a page brings an id that a page held now
/// already shows, the copy already held wins and the new one is dropped, so rows never
/// jump or repeat. Ids of dropped pages are forgotten with their items.
///
/// **Errors.** A failed fetch keeps everything loaded. A retryable failure is tried again
/// after `backoff`, doubling each time, until `attempts` tries in all; then, and after a
/// failure that is not retryable, the error waits for `retry()`. A reply whose next key
/// is a key this feed already followed is an error (the feed would loop), not a page.
///
/// **Refresh.** `refresh()` cancels the fetch in flight, whose late reply is then ignored,
/// and fetches the first key again; the rows loaded so far stay until that reply
/// replaces them all at once.
public struct FeedCore<Key: Hashable & Sendable, Item, ID: Hashable> {
    public struct Settings: Sendable, Equatable {
        /// Items asked for per fetch (the `size` a fetch function receives).
        public var pageSize: Int
        /// How close to the end (in rows) the last visible row may come before the next
        /// page is fetched; 0 waits until the last row shows.
        public var prefetch: Int
        /// The most items held at once; pages far from the viewport are dropped beyond it.
        /// Pages that the viewport and the prefetch distance cover are never dropped.
        public var maxItems: Int?
        /// Tries per fetch, the first included, before an error waits for `retry()`.
        public var attempts: Int
        /// The wait before the first automatic retry; each further one waits twice as long.
        public var backoff: Duration
        /// The longest wait between automatic retries.
        public var maxBackoff: Duration

        public init(pageSize: Int = 20, prefetch: Int = 10, maxItems: Int? = nil, attempts: Int = 3,
                    backoff: Duration = .milliseconds(500), maxBackoff: Duration = .seconds(30)) {
            self.pageSize = pageSize
            self.prefetch = prefetch
            self.maxItems = maxItems
            self.attempts = attempts
            self.backoff = backoff
            self.maxBackoff = maxBackoff
        }

        /// What is wrong with the settings, or nil when they are usable.
        public var problem: String? {
            if pageSize < 1 { return "page_size must be at least 1 (got \(pageSize))" }
            if prefetch < 0 { return "prefetch must not be negative (got \(prefetch))" }
            if let maxItems, maxItems < pageSize {
                return "max_items must be at least page_size (\(maxItems) < \(pageSize))"
            }
            if attempts < 1 { return "retry attempts must be at least 1 (got \(attempts))" }
            if backoff < .zero { return "retry backoff must not be negative" }
            if maxBackoff < .zero { return "the longest retry backoff must not be negative" }
            return nil
        }
    }

    /// An item and its id (nil: never de-duplicated).
    public struct Entry {
        public var item: Item
        public var id: ID?

        public init(item: Item, id: ID?) {
            self.item = item
            self.id = id
        }
    }

    /// What a fetch gives back: the page's entries and the key of the page after it.
    public struct Reply {
        public var entries: [Entry]
        /// nil: this was the last page.
        public var next: Key?

        public init(entries: [Entry], next: Key?) {
            self.entries = entries
            self.next = next
        }
    }

    /// Why a fetch gave no page.
    public struct FetchError: Error, Equatable, Sendable {
        public var message: String
        /// Worth trying again by itself (a network error, a 500); false for a reply that
        /// will not change (a fetch function returning the wrong type).
        public var retryable: Bool

        public init(_ message: String, retryable: Bool = true) {
            self.message = message
            self.retryable = retryable
        }
    }

    /// A fetch the host is asked to run and answer with `receive(id, ...)`.
    public struct Fetch: Equatable, Sendable {
        public enum Purpose: Equatable, Sendable {
            /// The page after the last one (or the first page).
            case next
            /// Page `index`, dropped by `maxItems`, fetched again.
            case page(Int)
            /// The first page of a refresh: it replaces every row.
            case refresh
        }

        /// Unique within this core; replies carry it back.
        public let id: Int
        public let key: Key
        public let size: Int
        public let purpose: Purpose
        /// 1 for the first try; automatic retries count up.
        public let attempt: Int
    }

    public enum Effect: Equatable, Sendable {
        case fetch(Fetch)
        /// Stop the fetch with this id; its reply, if it still comes, is ignored.
        case cancel(Int)
    }

    public struct Failure: Equatable, Sendable {
        public let message: String
        /// The fetch that failed, which `retry()` runs again.
        public let fetch: Fetch
        public let retryable: Bool
        /// When the automatic retry is due; nil when the error waits for `retry()`.
        public let retryAt: Duration?
    }

    public enum Activity: Equatable, Sendable {
        case idle
        case loading(Fetch)
        case failed(Failure)
    }

    /// What a list shows below its rows.
    public enum Footer: Equatable, Sendable {
        /// Nothing: more rows will come as the user scrolls.
        case more
        case loading
        case error(String)
        case end
    }

    /// What a row shows.
    public enum Row {
        case item(Entry)
        /// A row of a page dropped by `maxItems`, until it is fetched again.
        case placeholder
    }

    /// Counters for tests, benchmarks and hosts' diagnostics.
    public struct Statistics: Equatable, Sendable {
        public var fetchesStarted = 0
        public var pagesAppended = 0
        public var pagesRefetched = 0
        public var pagesDropped = 0
        public var duplicatesDropped = 0
        public var staleRepliesIgnored = 0
        public var automaticRetries = 0
    }

    struct Page {
        let key: Key
        /// The page's row count; kept when its entries are dropped.
        var count: Int
        /// nil once dropped by `maxItems`.
        var entries: [Entry]?
    }

    public let settings: Settings
    public let firstKey: Key
    public private(set) var activity: Activity = .idle
    /// The rows shown, as the host last reported them.
    public private(set) var viewport: Range<Int> = 0..<0
    /// Rows of every page, dropped ones included.
    public private(set) var rowCount = 0
    /// Entries held (rows of pages not dropped).
    public private(set) var itemCount = 0
    /// Counts refreshes; a refresh's reply starts a new generation of pages.
    public private(set) var generation = 0
    /// Grows whenever the rows change (pages added, dropped, refetched or replaced).
    public private(set) var revision = 0
    public private(set) var statistics = Statistics()

    private var pages: [Page] = []
    /// `starts[i]`: the first row of page `i`.
    private var starts: [Int] = []
    /// The key of the page after the last, or nil at the end of the feed.
    private var tail: Key?
    /// Ids of the entries held, with their page.
    private var owners: [ID: Int] = [:]
    /// Keys followed in this generation, with their page.
    private var followed: [Key: Int] = [:]
    /// Pages whose entries are held.
    private var held: Set<Int> = []
    private var lastFetchID = 0

    public init(first: Key, settings: Settings = Settings()) {
        precondition(settings.problem == nil, settings.problem ?? "")
        self.firstKey = first
        self.settings = settings
        self.tail = first
    }

    // MARK: - Reading

    public var pageCount: Int { pages.count }
    /// Pages whose entries are held (not dropped).
    public var heldPageCount: Int { held.count }
    public var isAtEnd: Bool { tail == nil && !pages.isEmpty }

    public var footer: Footer {
        switch activity {
        case .loading: return .loading
        case .failed(let failure): return .error(failure.message)
        case .idle: return isAtEnd ? .end : .more
        }
    }

    /// The row at `index` (0 ..< rowCount).
    public func row(at index: Int) -> Row {
        precondition(index >= 0 && index < rowCount, "row \(index) is outside 0..<\(rowCount)")
        let page = page(containing: index)
        guard let entries = pages[page].entries else { return .placeholder }
        return .item(entries[index - starts[page]])
    }

    /// The key of page `index`, and whether its entries are held.
    public func page(_ index: Int) -> (key: Key, count: Int, isHeld: Bool) {
        (pages[index].key, pages[index].count, pages[index].entries != nil)
    }

    /// The page that row `row` belongs to.
    public func page(containing row: Int) -> Int {
        // The last page whose start is at or before `row` (empty pages share starts).
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= row { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// When `tick` has an automatic retry to start; nil when none is waiting.
    public var nextWakeup: Duration? {
        if case .failed(let failure) = activity { return failure.retryAt }
        return nil
    }

    // MARK: - Events

    /// Starts the first fetch if nothing is loaded or loading yet.
    public mutating func start(now: Duration) -> [Effect] {
        guard pages.isEmpty, activity == .idle else { return [] }
        return begin(.next, key: firstKey, attempt: 1)
    }

    /// The host shows `rows` now (rows past the end are allowed: the list is taller than
    /// its rows). Fetches what the viewport needs.
    public mutating func setViewport(_ rows: Range<Int>, now: Duration) -> [Effect] {
        viewport = max(0, rows.lowerBound)..<max(0, rows.upperBound)
        return advance()
    }

    /// A fetch replied. Replies to fetches no longer in flight (cancelled by a refresh,
    /// or answered already) are ignored.
    public mutating func receive(_ id: Int, _ result: Result<Reply, FetchError>, now: Duration) -> [Effect] {
        guard case .loading(let fetch) = activity, fetch.id == id else {
            statistics.staleRepliesIgnored += 1
            return []
        }
        switch result {
        case .failure(let error):
            fail(fetch, error, now: now)
            return []
        case .success(let reply):
            if let problem = loopProblem(fetch, next: reply.next) {
                fail(fetch, FetchError(problem, retryable: false), now: now)
                return []
            }
            activity = .idle
            switch fetch.purpose {
            case .next: append(fetch.key, reply)
            case .page(let index): refill(index, reply.entries)
            case .refresh: replaceAll(fetch.key, reply)
            }
            revision += 1
            dropFarPages()
            return advance()
        }
    }

    /// Tries the failed fetch again now, with a fresh count of attempts.
    public mutating func retry(now: Duration) -> [Effect] {
        guard case .failed(let failure) = activity else { return [] }
        activity = .idle
        return begin(failure.fetch.purpose, key: failure.fetch.key, attempt: 1)
    }

    /// Starts a new generation: cancels the fetch in flight and fetches the first key.
    /// The rows stay until the first page replies, and are then replaced at once.
    public mutating func refresh(now: Duration) -> [Effect] {
        var effects: [Effect] = []
        if case .loading(let fetch) = activity { effects.append(.cancel(fetch.id)) }
        activity = .idle
        generation += 1
        effects += begin(.refresh, key: firstKey, attempt: 1)
        return effects
    }

    /// The time is `now`: starts an automatic retry that is due.
    public mutating func tick(now: Duration) -> [Effect] {
        guard case .failed(let failure) = activity, let due = failure.retryAt, due <= now else { return [] }
        activity = .idle
        statistics.automaticRetries += 1
        return begin(failure.fetch.purpose, key: failure.fetch.key, attempt: failure.fetch.attempt + 1)
    }

    // MARK: - Inside

    /// Starts the fetch the rows need, if nothing is in flight and no error waits.
    private mutating func advance() -> [Effect] {
        guard activity == .idle else { return [] }
        if let index = droppedPage(near: viewport) ?? droppedPage(near: window) {
            return begin(.page(index), key: pages[index].key, attempt: 1)
        }
        if let key = tail, rowCount - viewport.upperBound <= settings.prefetch {
            return begin(.next, key: key, attempt: 1)
        }
        return []
    }

    /// The viewport and `prefetch` rows either side of it. The end stops at `Int.max`: a
    /// huge prefetch (or viewport) must not overflow.
    private var window: Range<Int> {
        let (end, overflow) = viewport.upperBound.addingReportingOverflow(settings.prefetch)
        return max(0, viewport.lowerBound - settings.prefetch)..<(overflow ? .max : end)
    }

    private mutating func begin(_ purpose: Fetch.Purpose, key: Key, attempt: Int) -> [Effect] {
        lastFetchID += 1
        let fetch = Fetch(id: lastFetchID, key: key, size: settings.pageSize, purpose: purpose, attempt: attempt)
        activity = .loading(fetch)
        statistics.fetchesStarted += 1
        return [.fetch(fetch)]
    }

    private mutating func fail(_ fetch: Fetch, _ error: FetchError, now: Duration) {
        var retryAt: Duration?
        if error.retryable, fetch.attempt < settings.attempts {
            var wait = settings.backoff
            for _ in 1..<fetch.attempt where wait < settings.maxBackoff { wait *= 2 }
            retryAt = now + min(wait, settings.maxBackoff)
        }
        activity = .failed(Failure(message: error.message, fetch: fetch, retryable: error.retryable, retryAt: retryAt))
    }

    /// Why a reply to `fetch` whose next key is `next` would make the feed loop, or nil.
    /// `receive` refuses such a reply; a host may ask first, to say where the key came from.
    public func loopProblem(_ fetch: Fetch, next: Key?) -> String? {
        guard let next else { return nil }
        if next == fetch.key {
            return "the next key is the key just fetched (\(next)): the feed would fetch the same page forever"
        }
        if case .next = fetch.purpose, let page = followed[next] {
            return "the next key \(next) was already fetched for page \(page + 1): the feed would loop"
        }
        return nil
    }

    /// The entries of a reply that no page held now already shows (the copy held wins);
    /// duplicates within the reply keep their first copy.
    private mutating func admit(_ entries: [Entry], page: Int) -> [Entry] {
        var admitted: [Entry] = []
        admitted.reserveCapacity(entries.count)
        for entry in entries {
            if let id = entry.id {
                guard owners[id] == nil else {
                    statistics.duplicatesDropped += 1
                    continue
                }
                owners[id] = page
            }
            admitted.append(entry)
        }
        return admitted
    }

    private mutating func append(_ key: Key, _ reply: Reply) {
        let index = pages.count
        let entries = admit(reply.entries, page: index)
        pages.append(Page(key: key, count: entries.count, entries: entries))
        starts.append(rowCount)
        rowCount += entries.count
        itemCount += entries.count
        held.insert(index)
        followed[key] = index
        tail = reply.next
        statistics.pagesAppended += 1
    }

    /// Page `index` fetched again after it was dropped. Its next key is not followed
    /// again: the pages after it are already known. When its count changed, the rows
    /// after it move.
    private mutating func refill(_ index: Int, _ replied: [Entry]) {
        guard index < pages.count, pages[index].entries == nil else { return }
        let entries = admit(replied, page: index)
        let change = entries.count - pages[index].count
        pages[index].entries = entries
        pages[index].count = entries.count
        itemCount += entries.count
        held.insert(index)
        statistics.pagesRefetched += 1
        if change != 0 {
            rowCount += change
            for page in (index + 1)..<pages.count { starts[page] += change }
        }
    }

    private mutating func replaceAll(_ key: Key, _ reply: Reply) {
        pages.removeAll()
        starts.removeAll()
        owners.removeAll()
        followed.removeAll()
        held.removeAll()
        rowCount = 0
        itemCount = 0
        append(key, reply)
    }

    /// Drops the pages farthest from the viewport until at most `maxItems` are held,
    /// never one that the viewport or the prefetch distance covers.
    private mutating func dropFarPages() {
        guard let limit = settings.maxItems else { return }
        while itemCount > limit {
            var farthest: (page: Int, distance: Int)?
            for page in held {
                let rows = starts[page]..<(starts[page] + pages[page].count)
                guard !rows.isEmpty, !rows.overlaps(window) else { continue }
                let distance = rows.upperBound <= viewport.lowerBound
                    ? viewport.lowerBound - rows.upperBound
                    : rows.lowerBound - viewport.upperBound
                if farthest.map({ distance > $0.distance || (distance == $0.distance && page < $0.page) }) ?? true {
                    farthest = (page, distance)
                }
            }
            guard let (page, _) = farthest else { return }
            drop(page)
        }
    }

    private mutating func drop(_ page: Int) {
        guard let entries = pages[page].entries else { return }
        for entry in entries {
            if let id = entry.id, owners[id] == page { owners[id] = nil }
        }
        pages[page].entries = nil
        itemCount -= pages[page].count
        held.remove(page)
        statistics.pagesDropped += 1
        revision += 1
    }

    /// The dropped page with rows in `rows` nearest to the viewport's first row.
    private func droppedPage(near rows: Range<Int>) -> Int? {
        guard !rows.isEmpty, !pages.isEmpty, held.count < pages.count, rows.lowerBound < rowCount else { return nil }
        let first = page(containing: rows.lowerBound)
        var best: Int?
        var page = first
        while page < pages.count, starts[page] < rows.upperBound {
            if pages[page].entries == nil {
                let distance = abs(starts[page] - viewport.lowerBound)
                if best.map({ distance < abs(starts[$0] - viewport.lowerBound) }) ?? true { best = page }
            }
            page += 1
        }
        return best
    }
}
