/// A pager a script declared: horizontally paged views of records (tweets: author,
/// avatar, text), of which only the current page and `keep` pages on each side are bound.
/// Binding reads the page's fields from its record; the page's image is fetched in the
/// background and never blocks; unbinding drops the fields and cancels the image fetch.
///
/// ```swift
/// let pager = runtime.pager(named: "timeline")!
/// pager.observe { event in
///     switch event {
///     case .bound(let page): views[page.index] = makeView(page.fields, page.image)
///     case .unbound(let index): views[index] = nil
///     case .imageChanged(let index, let image): views[index]?.show(image)
///     default: break
///     }
/// }
/// pager.setPageWidth(320)
/// pager.start()                                 // binds page 0 and its neighbour
/// pager.scroll(toOffset: 300)                   // the user dragged: page 1 is current
/// if case .open(let url) = pager.tap() { open(url) }
/// ```
///
/// The rules of the current page and the bound window are `PagerCore`'s. Records come
/// from `items = { ... }` or from a feed (`source = "name"`), which is asked for more
/// when the last pages come into the window.
import Lua
import WheelCore

public final class Pager {
    public let name: String
    let state: LuaState
    let source: Source
    let binding: Binding
    let functions: Functions
    private(set) var core: PagerCore
    let images: ImageLoader
    let reportProblem: (ScriptProblem) -> Void
    var scriptObject: LuaValue = .nil

    enum Source {
        case items([LuaValue])
        /// A feed's name, found when the pager starts (the feed may be declared later).
        case feed(String)
    }

    enum Binding {
        /// Field name → path in the record.
        case paths([(field: String, path: FieldPath)])
        case function(LuaFunction)
    }

    struct Functions {
        let onTap: LuaFunction?
        let onBind: LuaFunction?
        let onUnbind: LuaFunction?
    }

    /// The feed behind the pages, once found.
    private(set) var feed: Feed?
    /// Finds a feed by name (the runtime's declarations).
    let feedNamed: (String) -> Feed?
    private var feedObserver: Int?
    private var pages: [Int: PagerPage] = [:]
    private var observers = Observers<PagerEvent>()
    private var waiters = Waiters()

    init(name: String, source: Source, binding: Binding, functions: Functions, keep: Int, state: LuaState,
         images: ImageLoader, feedNamed: @escaping (String) -> Feed?, reportProblem: @escaping (ScriptProblem) -> Void) {
        self.name = name
        self.source = source
        self.binding = binding
        self.functions = functions
        self.state = state
        self.images = images
        self.feedNamed = feedNamed
        self.reportProblem = reportProblem
        let count: Int
        if case .items(let records) = source { count = records.count } else { count = 0 }
        core = PagerCore(pageCount: count, keep: keep)
    }

    // MARK: - Reading

    public var pageCount: Int { core.pageCount }
    /// The current page (0-based).
    public var current: Int { core.current }
    public var keep: Int { core.keep }
    public var offset: Double { core.offset }
    public var pageWidth: Double { core.pageWidth }
    /// Where the host should come to rest after a drag: the current page's offset.
    public var settledOffset: Double { core.settledOffset }
    /// The name of the feed the pages come from, if they come from one.
    public var sourceFeedName: String? {
        if case .feed(let name) = source { return name }
        return nil
    }

    /// The pages bound now, in order.
    public var boundPages: [PagerPage] { core.bound.compactMap { pages[$0] } }

    /// Page `index` if it is bound; nil otherwise (unbound pages hold nothing).
    public func page(_ index: Int) -> PagerPage? { pages[index] }

    /// Why the pager has no pages to show, if that is so: its source feed failed or is
    /// still loading, or names no feed.
    public var sourceStatus: String? {
        switch source {
        case .items(let records): return records.isEmpty ? "no records" : nil
        case .feed(let name):
            guard let feed = feed ?? feedNamed(name) else { return "no feed named '\(name)'" }
            switch feed.footer {
            case .error(let message): return "feed '\(name)': \(message)"
            case .loading: return "loading…"
            default: return feed.rowCount == 0 ? "no records" : nil
            }
        }
    }

    // MARK: - Events from the host

    /// Shows the pager: binds the current page and its neighbours (and starts the source
    /// feed, if any).
    public func start() {
        if case .feed(let name) = source, feed == nil {
            guard let found = feedNamed(name) else {
                problem(ScriptProblem(message: "pager '\(self.name)': source names no feed '\(name)'"))
                return
            }
            feed = found
            feedObserver = found.observe { [weak self] event in
                if case .rowsChanged = event { self?.sourceChanged() }
                if case .footerChanged = event { self?.settleWaitersIfDone() }
            }
            _ = core.setPageCount(found.rowCount)
        }
        apply(core.start())
        askForMore()
    }

    /// Unbinds every page (the host hides the pager).
    public func stop() {
        apply(core.stop())
    }

    public func setPageWidth(_ width: Double) {
        apply(core.setPageWidth(width))
    }

    /// The host scrolled to `offset`: the nearest page becomes current.
    public func scroll(toOffset offset: Double) {
        apply(core.scroll(toOffset: offset))
        askForMore()
    }

    /// One page on (`1`, a swipe to the left) or back (`-1`).
    public func swipe(by pages: Int) {
        apply(core.swipe(by: pages))
        askForMore()
    }

    /// Goes to page `index` (0-based, clamped).
    public func jump(to index: Int) {
        apply(core.jump(to: index))
        askForMore()
    }

    /// Goes to page `index`, asking the source feed for more pages until that page exists
    /// or the feed can bring no more (its end, or an error); then it is the nearest page.
    public func reach(_ index: Int, isolation: isolated (any Actor)? = #isolation) async {
        jump(to: index)
        while current < index, let feed {
            let before = pageCount
            await feed.settle(isolation: isolation)
            jump(to: index)
            if pageCount == before { break }
        }
        await settle(isolation: isolation)
    }

    /// The user tapped the current page: the script's `on_tap(record)` gives the URL to
    /// open, which must be http or https. A refusal is reported and returned.
    public func tap() -> PagerTap {
        guard let onTap = functions.onTap else { return .refused("pager '\(name)' has no on_tap") }
        guard let record = record(core.current) else {
            return .refused("pager '\(name)': page \(core.current + 1) has no record yet")
        }
        let result: LuaValue
        do {
            result = try onTap.call(record, core.current + 1, returning: LuaValue.self)
        } catch {
            return refuse(ScriptProblem(error))
        }
        guard case .string(let text) = result else {
            return refuse(ScriptProblem("on_tap returned \(Declaring.describe(result)), expected a URL string", in: onTap))
        }
        let url = text.description
        if let problem = URLTemplate.problem(with: url) {
            return refuse(ScriptProblem("on_tap returned a URL that is not opened: \(problem)", in: onTap))
        }
        return .open(url)
    }

    /// Waits until every bound page's image has loaded or failed and the source feed has
    /// settled. For tools and tests; a UI host observes instead.
    public func settle(isolation: isolated (any Actor)? = #isolation) async {
        while true {
            if let feed { await feed.settle(isolation: isolation) }
            if isSettled { return }
            await withCheckedContinuation(isolation: isolation) { waiters.add($0) }
        }
    }

    @discardableResult
    public func observe(_ handler: @escaping (PagerEvent) -> Void) -> Int {
        observers.add(handler)
    }

    public func removeObserver(_ token: Int) {
        observers.remove(token)
    }

    // MARK: - Binding

    private var isSettled: Bool {
        (feed?.isSettled ?? true) && !pages.values.contains { if case .loading = $0.image { true } else { false } }
    }

    private func settleWaitersIfDone() {
        guard isSettled else { return }
        waiters.resumeAll()
    }

    /// The record of page `index`, or nil while a feed has not loaded it.
    private func record(_ index: Int) -> LuaValue? {
        switch source {
        case .items(let records): return index < records.count ? records[index] : nil
        case .feed: return feed?.item(index)
        }
    }

    private func apply(_ events: [PagerCore.Event]) {
        let before = core.current
        for event in events {
            switch event {
            case .bind(let index): bind(index)
            case .unbind(let index): unbind(index)
            }
        }
        if core.current != before { emit(.currentChanged(core.current)) }
        settleWaitersIfDone()
    }

    private func bind(_ index: Int) {
        var page = PagerPage(index: index, fields: [:], image: .none, problem: nil)
        if let record = record(index) {
            switch fields(of: record, index: index) {
            case .success(let fields): page.fields = fields
            case .failure(let problem):
                page.problem = problem.message
                self.problem(problem)
            }
        } else {
            page.problem = "loading…"
        }
        // The loader answers at once; a completion, if any, comes later on the actor.
        if let url = page.fields["image"], !url.isEmpty {
            page.image = images.request(page: index, url: url) { [weak self] index, image in
                self?.imageArrived(index, image)
            }
        }
        pages[index] = page
        emit(.bound(page))
        if let onBind = functions.onBind, let record = record(index) {
            do { try onBind.call(record, index + 1) } catch { problem(ScriptProblem(error)) }
        }
    }

    private func unbind(_ index: Int) {
        images.cancel(page: index)
        guard pages.removeValue(forKey: index) != nil else { return }
        emit(.unbound(index))
        if let onUnbind = functions.onUnbind, let record = record(index) {
            do { try onUnbind.call(record, index + 1) } catch { problem(ScriptProblem(error)) }
        }
    }

    private func imageArrived(_ index: Int, _ image: PageImage) {
        // The loader never calls back for a page it was told to cancel; a page unbound
        // meanwhile has no entry, and nothing is stored for it.
        guard pages[index] != nil else { return }
        pages[index]?.image = image
        emit(.imageChanged(index, image))
        settleWaitersIfDone()
    }

    /// The fields of a record through the binding.
    private func fields(of record: LuaValue, index: Int) -> Result<[String: String], ScriptProblem> {
        switch binding {
        case .paths(let paths):
            guard case .table(let table) = record else {
                return .failure(ScriptProblem(message: "pager '\(name)': record \(index + 1) is \(Declaring.describe(record)), expected a table"))
            }
            var fields: [String: String] = [:]
            // A missing field is shown empty, not an error.
            for (field, path) in paths { fields[field] = path.text(in: table) ?? "" }
            return .success(fields)
        case .function(let function):
            let value: LuaValue
            do {
                value = try function.call(record, index + 1, returning: LuaValue.self)
            } catch {
                return .failure(ScriptProblem(error))
            }
            guard case .table(let table) = value else {
                return .failure(ScriptProblem("bind returned \(Declaring.describe(value)) for record \(index + 1), expected a table of fields", in: function))
            }
            var fields: [String: String] = [:]
            do {
                for (key, value) in try table.pairs() {
                    guard case .string(let name) = key else { continue }
                    fields[name.description] = FieldPath.text(of: value) ?? ""
                }
            } catch {
                return .failure(ScriptProblem(error))
            }
            return .success(fields)
        }
    }

    // MARK: - A feed as the source

    /// The feed's rows changed: the page count follows, and bound pages that were waiting
    /// for their record are bound again.
    private func sourceChanged() {
        guard let feed else { return }
        apply(core.setPageCount(feed.rowCount))
        for index in core.bound where pages[index]?.problem == "loading…" && record(index) != nil {
            unbind(index)
            bind(index)
        }
        settleWaitersIfDone()
    }

    /// Shows the feed the pages in the window, so that its prefetch rule fetches more as
    /// the last pages come near.
    private func askForMore() {
        guard let feed else { return }
        let window = core.window
        feed.setViewport(window.isEmpty ? 0..<max(1, core.keep * 2 + 1) : window)
    }

    // MARK: - Reporting

    private func refuse(_ problem: ScriptProblem) -> PagerTap {
        self.problem(problem)
        return .refused(problem.message)
    }

    func emit(_ event: PagerEvent) {
        let current = observers
        current.emit(event)
    }

    func problem(_ problem: ScriptProblem) {
        reportProblem(problem)
        emit(.problem(problem))
    }

    func stopAll() {
        images.cancelAll()
        waiters.resumeAll()
    }
}

/// A bound page: its fields (`title`, `text`, `image` and any others the binding gives)
/// and its image.
public struct PagerPage: Sendable, Equatable {
    public var index: Int
    public var fields: [String: String]
    public var image: PageImage
    /// Why the page shows no fields: its record is not a table, its binding failed, or
    /// (`loading…`) its source feed has not brought it yet.
    public var problem: String?

    public var title: String { fields["title"] ?? "" }
    public var text: String { fields["text"] ?? "" }
}

/// What a tap gives the host.
public enum PagerTap: Sendable, Equatable {
    /// Open this http or https URL.
    case open(String)
    /// Nothing to open, and why (also reported as a problem when the script was at fault).
    case refused(String)
}

public enum PagerEvent: Sendable, Equatable {
    case bound(PagerPage)
    case unbound(Int)
    case imageChanged(Int, PageImage)
    case currentChanged(Int)
    case problem(ScriptProblem)
}
