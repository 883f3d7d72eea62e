/// A feed a script declared: an infinite list whose pages come from the script's `fetch`
/// function, run as a coroutine so that it can wait for HTTP without blocking the host.
/// The host reports which rows it shows; the feed fetches what they need, one page at a
/// time, and tells the host when rows or the footer change.
///
/// ```swift
/// let runtime = try Runtime()                        // on the main actor, or another actor
/// try await runtime.run(file: "examples/articles.lua")
/// let feed = runtime.feed(named: "articles")!
/// feed.observe { event in if case .rowsChanged = event { table.reloadData() } }
/// feed.setViewport(0..<12)                           // fetches page 1, and page 2 if needed
/// await feed.settle()                                // (tests and tools) until nothing is in flight
/// print(feed.row(0).text, feed.footer.text)
/// ```
///
/// The rules (one fetch in flight, prefetching, retries, refresh, de-duplication,
/// `max_items`) are `FeedCore`'s. Fetches run as tasks on the actor the runtime was made
/// on (or first run on): the Lua state never leaves it. A feed whose runtime has no actor
/// cannot fetch, and says so in its footer.
import Lua
import WheelCore

public final class Feed {
    typealias Core = FeedCore<FeedKey, FeedItem, FeedKey>

    /// The name the script gave: `feed "articles" { ... }`.
    public let name: String
    let state: LuaState
    let functions: Functions
    private(set) var core: Core
    /// The runtime's actor, read when a task starts.
    let actor: () -> (any Actor)?
    let reportProblem: (ScriptProblem) -> Void
    /// The script's feed object, passed to nothing yet but kept like a picker's `p`.
    var scriptObject: LuaValue = .nil

    /// The row the user selected last (0-based).
    public private(set) var selection: Int?

    struct Functions {
        let fetch: LuaFunction
        let id: LuaFunction?
        let row: LuaFunction?
        let onSelect: LuaFunction?
    }

    private var tasks: [Int: Task<Void, Never>] = [:]
    /// Fetches cancelled (by a refresh) that may still be finishing: the next fetch waits
    /// for them, so the server never has two requests of this feed at once.
    private var cancelled: [Task<Void, Never>] = []
    private var timer: (due: Duration, task: Task<Void, Never>)?
    private var waiters = Waiters()
    private var observers = Observers<FeedEvent>()
    private let origin = ContinuousClock.now

    init(name: String, settings: FeedSettings, first: FeedKey, functions: Functions, state: LuaState,
         actor: @escaping () -> (any Actor)?, reportProblem: @escaping (ScriptProblem) -> Void) {
        self.name = name
        self.core = Core(first: first, settings: settings)
        self.functions = functions
        self.state = state
        self.actor = actor
        self.reportProblem = reportProblem
    }

    // MARK: - Reading

    public var settings: FeedSettings { core.settings }
    /// Rows so far, those of pages dropped by `max_items` included.
    public var rowCount: Int { core.rowCount }
    /// Items held now (rows of pages not dropped).
    public var itemCount: Int { core.itemCount }
    /// The rows the host last said it shows.
    public var viewport: Range<Int> { core.viewport }
    public var footer: FeedFooter { FeedFooter(core.footer) }
    public var statistics: FeedStatistics { core.statistics }
    /// Pages followed so far, dropped ones included.
    public var pageCount: Int { core.pageCount }
    /// Pages whose items are held.
    public var heldPageCount: Int { core.heldPageCount }

    /// Row `index` (0 ..< rowCount): its text, or a placeholder while its page, dropped
    /// by `max_items`, is fetched again.
    public func row(_ index: Int) -> FeedRow {
        switch core.row(at: index) {
        case .item(let entry):
            return FeedRow(index: index, text: entry.item.text, isPlaceholder: false, isSelected: selection == index)
        case .placeholder:
            return FeedRow(index: index, text: "", isPlaceholder: true, isSelected: selection == index)
        }
    }

    /// The item of row `index` as the script returned it; nil for a placeholder.
    public func item(_ index: Int) -> LuaValue? {
        guard index >= 0, index < core.rowCount, case .item(let entry) = core.row(at: index) else { return nil }
        return entry.item.value
    }

    /// The id of row `index`'s item, when the feed has an `id` function.
    public func itemID(_ index: Int) -> FeedKey? {
        guard index >= 0, index < core.rowCount, case .item(let entry) = core.row(at: index) else { return nil }
        return entry.id
    }

    /// Nothing is in flight and no automatic retry is waiting: the rows and the footer stay
    /// as they are until the host or the script does something.
    public var isSettled: Bool {
        switch core.activity {
        case .idle: true
        case .loading: false
        case .failed(let failure): failure.retryAt == nil
        }
    }

    // MARK: - Events from the host

    /// Starts the first fetch, if nothing is loaded or loading yet. Showing rows
    /// (`setViewport`) does this too.
    public func start() {
        update { core, now in core.start(now: now) }
    }

    /// The host shows `rows` now; rows past the end are allowed (the list is taller than
    /// its rows). Fetches what they need.
    public func setViewport(_ rows: Range<Int>) {
        update { core, now in core.setViewport(rows, now: now) }
    }

    /// Fetches the first page again; the rows stay until it comes, then it replaces them
    /// all. A fetch in flight is cancelled and its reply ignored.
    public func refresh() {
        selection = nil
        update { core, now in core.refresh(now: now) }
    }

    /// Tries a failed fetch again now (the footer offers it).
    public func retry() {
        update { core, now in core.retry(now: now) }
    }

    /// The user selected row `index`: the script's `on_select(item, index)` runs (with a
    /// 1-based index). Placeholders and rows out of range are an error.
    public func select(_ index: Int) throws(FeedError) {
        guard index >= 0, index < core.rowCount else {
            throw .rowOutOfRange(feed: name, row: index, count: core.rowCount)
        }
        guard let item = item(index) else { throw .rowNotLoaded(feed: name, row: index) }
        selection = index
        emit(.selected(index))
        guard let onSelect = functions.onSelect else { return }
        do {
            try onSelect.call(item, index + 1)
        } catch {
            problem(ScriptProblem(error))
        }
    }

    /// Waits until the feed is settled (`isSettled`): its fetch has replied and any
    /// automatic retries have run. For tools and tests; a UI host observes instead.
    public func settle(isolation: isolated (any Actor)? = #isolation) async {
        while !isSettled {
            await withCheckedContinuation(isolation: isolation) { waiters.add($0) }
        }
    }

    /// Calls `handler` with every event until `removeObserver(token)`.
    @discardableResult
    public func observe(_ handler: @escaping (FeedEvent) -> Void) -> Int {
        observers.add(handler)
    }

    public func removeObserver(_ token: Int) {
        observers.remove(token)
    }

    /// Cancels the fetch in flight and the retry timer (the runtime is going away).
    func stop() {
        for task in tasks.values { task.cancel() }
        tasks.removeAll()
        cancelled.removeAll()
        timer?.task.cancel()
        timer = nil
        waiters.resumeAll()
    }

    // MARK: - Driving the core

    private var now: Duration { origin.duration(to: .now) }

    /// Runs one event through the core, carries out its effects, and tells observers what
    /// changed.
    private func update(_ event: (inout Core, Duration) -> [Core.Effect]) {
        let revision = core.revision
        let footer = core.footer
        let effects = event(&core, now)
        for effect in effects {
            switch effect {
            case .fetch(let fetch): launch(fetch)
            case .cancel(let id):
                guard let task = tasks.removeValue(forKey: id) else { break }
                task.cancel()
                cancelled.append(task)
            }
        }
        scheduleRetry()
        if core.revision != revision { emit(.rowsChanged) }
        if core.footer != footer { emit(.footerChanged(FeedFooter(core.footer))) }
        if isSettled { waiters.resumeAll() }
    }

    private func launch(_ fetch: Core.Fetch) {
        guard let actor = actor() else {
            let message = "feed '\(name)' cannot fetch: its runtime was not made on an actor (make the Runtime on the main actor or another actor)"
            problem(ScriptProblem(message: message))
            update { core, now in core.receive(fetch.id, .failure(.init(message, retryable: false)), now: now) }
            return
        }
        // Bridge invariant 6: the state stays on its actor. The task below hops to that
        // actor before it touches the feed; this checks that the caller is on it too.
        actor.preconditionIsolated("feed '\(name)' was used outside the actor its runtime was made on")
        let feed = OnActor(self)
        let earlier = cancelled
        cancelled.removeAll()
        tasks[fetch.id] = Task {
            for task in earlier { await task.value }
            await Feed.run(fetch, feed, on: actor)
        }
    }

    private static func run(_ fetch: Core.Fetch, _ feed: OnActor<Feed>, on actor: isolated any Actor) async {
        let result = await feed.value.execute(fetch, isolation: actor)
        feed.value.finish(fetch, result)
    }

    private func finish(_ fetch: Core.Fetch, _ result: Result<Core.Reply, Core.FetchError>) {
        tasks[fetch.id] = nil
        var result = result
        if case .success(let reply) = result, case .loading(let current) = core.activity, current.id == fetch.id,
           let loop = core.loopProblem(fetch, next: reply.next) {
            // Located at `fetch`, which gave the key.
            let problem = ScriptProblem(loop, in: functions.fetch)
            self.problem(problem)
            result = .failure(Core.FetchError(problem.message, retryable: false))
        }
        // A reply to a fetch that was cancelled or replaced is ignored by the core.
        update { core, now in core.receive(fetch.id, result, now: now) }
    }

    /// Starts (or moves) the timer of the core's automatic retry.
    private func scheduleRetry() {
        guard let due = core.nextWakeup else {
            timer?.task.cancel()
            timer = nil
            return
        }
        if timer?.due == due { return }
        timer?.task.cancel()
        guard let actor = actor() else { return }
        let feed = OnActor(self)
        let deadline = origin + due
        timer = (due, Task { await Feed.wake(feed, at: deadline, on: actor) })
    }

    private static func wake(_ feed: OnActor<Feed>, at deadline: ContinuousClock.Instant,
                             on actor: isolated any Actor) async {
        try? await Task.sleep(until: deadline, clock: .continuous)
        guard !Task.isCancelled else { return }
        feed.value.timer = nil
        feed.value.update { core, now in core.tick(now: now) }
    }

    // MARK: - Reporting

    func emit(_ event: FeedEvent) {
        // A copy: a handler may observe or stop observing while this runs.
        let current = observers
        current.emit(event)
    }

    func problem(_ problem: ScriptProblem) {
        reportProblem(problem)
        emit(.problem(problem))
    }
}

/// Carries a feed into a task that runs on the feed's actor. Sendable although the feed
/// is not, because the task only uses it after hopping to that actor (the functions that
/// take it are isolated to the actor), and the feed is only ever used there: `launch`
/// checks it with `preconditionIsolated` (bridge invariant 6).
struct OnActor<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// What a feed holds per item: the script's value, and the row text made from it once,
/// when its page arrived.
public struct FeedItem {
    public let value: LuaValue
    public let text: String
}

public typealias FeedSettings = FeedCore<FeedKey, FeedItem, FeedKey>.Settings
public typealias FeedStatistics = FeedCore<FeedKey, FeedItem, FeedKey>.Statistics

/// A page key or an item id, as a script gives it: a number or a string. A whole float
/// is the integer it equals, as in Lua (`3.0 == 3`).
public enum FeedKey: Hashable, Sendable, CustomStringConvertible {
    case integer(Int64)
    case number(Double)
    case string(String)

    /// nil for values that cannot be keys (nil, NaN, booleans, tables, functions).
    public init?(_ value: LuaValue) {
        switch value {
        case .integer(let number): self = .integer(number)
        case .number(let number) where number.isNaN: return nil
        case .number(let number):
            if let whole = Int64(exactly: number) { self = .integer(whole) } else { self = .number(number) }
        case .string(let text): self = .string(text.description)
        default: return nil
        }
    }

    public var luaValue: LuaValue {
        switch self {
        case .integer(let number): .integer(number)
        case .number(let number): .number(number)
        case .string(let text): .string(LuaString(text))
        }
    }

    /// As in messages: `3`, `0.5`, `"c2a9"`.
    public var description: String {
        switch self {
        case .integer(let number): "\(number)"
        case .number(let number): "\(number)"
        case .string(let text): "\"\(text.count > 40 ? text.prefix(40) + "…" : text)\""
        }
    }
}

/// A row as a host draws it.
public struct FeedRow: Sendable, Equatable {
    public var index: Int
    /// The row's text (the script's `row(item)`); empty for a placeholder.
    public var text: String
    /// The row's page was dropped by `max_items` and is being fetched again.
    public var isPlaceholder: Bool
    public var isSelected: Bool
}

/// What a list shows below its rows.
public enum FeedFooter: Sendable, Equatable {
    /// Nothing: more rows come as the user scrolls.
    case more
    case loading
    /// A fetch failed; everything loaded stays, and `retry()` tries again.
    case error(String)
    case end

    init(_ footer: FeedCore<FeedKey, FeedItem, FeedKey>.Footer) {
        switch footer {
        case .more: self = .more
        case .loading: self = .loading
        case .error(let message): self = .error(message)
        case .end: self = .end
        }
    }

    /// `loading…`, `error: <message> — retry`, `end of feed`, or empty.
    public var text: String {
        switch self {
        case .more: ""
        case .loading: "loading…"
        case .error(let message): "error: \(message) — retry"
        case .end: "end of feed"
        }
    }
}

public enum FeedEvent: Sendable, Equatable {
    /// Rows were added, dropped, fetched again or replaced (a refresh).
    case rowsChanged
    case footerChanged(FeedFooter)
    case selected(Int)
    /// A script error the feed survived (a `fetch` that returned the wrong thing, an
    /// `on_select` that raised). Failed fetches also show in the footer.
    case problem(ScriptProblem)
}

public enum FeedError: Error, Equatable, CustomStringConvertible {
    case rowOutOfRange(feed: String, row: Int, count: Int)
    case rowNotLoaded(feed: String, row: Int)

    public var description: String {
        switch self {
        case .rowOutOfRange(let feed, let row, let count):
            "feed '\(feed)' has no row \(row + 1) (it has \(count) rows)"
        case .rowNotLoaded(let feed, let row):
            "feed '\(feed)': row \(row + 1) is not loaded (its page is being fetched again)"
        }
    }
}
