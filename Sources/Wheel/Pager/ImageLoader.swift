/// Fetches the images of a pager's bound pages through an `HTTPTransport`, shares one
/// fetch among the pages that want the same URL, keeps loaded images in a cache bounded
/// in bytes, and forgets a page the moment it is unbound.
///
/// ```swift
/// let loader = ImageLoader(transport: AsyncHTTPClientTransport(), actor: { MainActor.shared })
/// // a page is bound:
/// page.image = loader.request(page: 7, url: record.imageURL) { page, image in
///     pages[page].image = image          // later, on the actor: .loaded or .failed
/// }                                      // at once: .none, .loaded (a cache hit), .loading or .failed
/// // the page is unbound:
/// loader.cancel(page: 7)                 // its completion never runs
/// ```
///
/// The rules:
/// - A page wants one URL at a time. `request` again for the same page replaces what it
///   wanted (the earlier completion will not run); the same URL while it is still loading
///   keeps the fetch and takes the new completion.
/// - A completion runs once, on the actor, after `request` has returned, for a page still
///   waiting: never after `cancel(page:)` or `cancelAll()`, never for a replaced request.
/// - A fetch is cancelled (its HTTP request with it) when no page wants its URL any more.
/// - Only `200` with bytes that `ImageSniffer` reads as an image, at most `maxImageBytes`
///   of them, is an image; the rest fails with a reason a person can read (`HTTP 404`,
///   `timed out after 10s`, `not an image (text/html, 1,234 bytes)`). Failures are not
///   cached: a page bound again tries again.
///
/// Like a feed, the loader lives on one actor (the runtime's): its fetches run as tasks on
/// the actor `actor()` returns, and it must be called there. It is not `Sendable`. A host
/// that drops it calls `cancelAll()` first: fetches in flight hold it until they end.
public final class ImageLoader {
    /// Counters since the loader was made.
    public struct Statistics: Sendable, Equatable {
        /// Fetches started (a request that joined one in flight starts none).
        public var fetchesStarted = 0
        /// Requests that joined a fetch of their URL already in flight.
        public var joined = 0
        /// Requests answered from the cache.
        public var cacheHits = 0
        /// Pages that stopped waiting before their image came: `cancel(page:)`,
        /// `cancelAll()`, or a new `request` for the page.
        public var cancellations = 0
        /// Fetches cancelled because no page wanted their URL any more.
        public var fetchesCancelled = 0
        /// Completions called.
        public var completionsDelivered = 0
        /// Results that reached a page no longer waiting for them. The loader checks every
        /// result against the page's current request before its completion runs, so this
        /// stays 0 unless its bookkeeping is wrong; such a result is counted and dropped.
        public var deliveredToUnbound = 0
        /// Results of cancelled fetches that arrived anyway and were dropped.
        public var lateResultsDropped = 0
        /// The cache now: images and their bytes, and images evicted so far to make room.
        public var cachedImages = 0
        public var cachedBytes = 0
        public var cacheEvictions = 0
    }

    /// The timeout of every image request (the whole exchange); a change applies to
    /// fetches started after it.
    public var timeout: Duration
    /// The largest image accepted, in bytes. The transport reads a body whole before the
    /// loader sees it; give it the same limit (`AsyncHTTPClientTransport(maxBodySize:)`) to
    /// stop reading sooner.
    public let maxImageBytes: Int

    private let transport: any HTTPTransport
    /// The actor fetches run on, read when a fetch starts.
    private let actor: () -> (any Actor)?
    private(set) var cache: ImageCache
    private var counters = Statistics()

    /// A page waiting for its image.
    private struct Waiting {
        /// Tells this request from the page's earlier and later ones.
        let ticket: Int
        let url: String
        var completion: (Int, PageImage) -> Void
    }

    /// One fetch of one URL, and the pages it will answer (page → ticket).
    private struct Fetch {
        let id: Int
        let task: Task<Void, Never>
        var recipients: [Int: Int]
    }

    /// The result of a fetch being handed out: completions may cancel or request pages
    /// meanwhile, and a cancelled page leaves `recipients` as it would leave a fetch's.
    private struct Delivery {
        let url: String
        var recipients: [Int: Int]
    }

    /// Invariant: a page is in `waiting` exactly when its ticket is among the recipients of
    /// the fetch of its URL, or of the delivery under way.
    private var waiting: [Int: Waiting] = [:]
    private var fetches: [String: Fetch] = [:]
    private var delivery: Delivery?
    private var lastID = 0
    private var settleWaiters: [CheckedContinuation<Void, Never>] = []

    /// - Parameters:
    ///   - cacheCapacity: the most bytes of images kept for pages bound again (32 MiB).
    ///   - timeout: each request's timeout, from connecting to the body's last byte.
    ///   - maxImageBytes: the largest image accepted (8 MiB).
    ///   - actor: the actor fetches run on; the loader is used only there.
    public init(transport: any HTTPTransport, cacheCapacity: Int = 32 << 20, timeout: Duration = .seconds(10),
                maxImageBytes: Int = 8 << 20, actor: @escaping () -> (any Actor)?) {
        self.transport = transport
        self.cache = ImageCache(capacity: cacheCapacity)
        self.timeout = timeout
        self.maxImageBytes = maxImageBytes
        self.actor = actor
    }

    public var statistics: Statistics {
        var statistics = counters
        statistics.cacheHits = cache.hits
        statistics.cachedImages = cache.count
        statistics.cachedBytes = cache.totalBytes
        statistics.cacheEvictions = cache.evictions
        return statistics
    }

    /// Fetches in flight.
    public var inFlight: Int { fetches.count }

    /// The pages waiting for their image, in order.
    public var waitingPages: [Int] { waiting.keys.sorted() }

    // MARK: - Requests

    /// Page `page`, now bound, wants the image at `url`. Returns its state at once: `.none`
    /// for no URL, `.loaded` from the cache, `.failed` for a URL that is not http or https,
    /// else `.loading`, and `completion(page, image)` runs on the actor when the fetch
    /// ends, with `.loaded` or `.failed`, unless the page is cancelled first.
    public func request(page: Int, url: String?, completion: @escaping (Int, PageImage) -> Void) -> PageImage {
        if let current = waiting[page], current.url == url {
            // Still loading the same image: keep the fetch, answer the newest completion.
            waiting[page]?.completion = completion
            return .loading(url: current.url)
        }
        cancel(page: page)
        guard let url, !url.isEmpty else { return .none }
        guard Self.isWebURL(url) else { return .failed(url: url, reason: "not an http or https URL") }
        if let image = cache.image(for: url) {
            return .loaded(url: url, bytes: image.bytes, size: image.size)
        }
        lastID += 1
        let ticket = lastID
        if fetches[url] != nil {
            fetches[url]?.recipients[page] = ticket
            counters.joined += 1
        } else {
            guard let actor = actor() else {
                return .failed(url: url, reason: "cannot load images: the loader has no actor to run fetches on")
            }
            // Bridge invariant 6: the loader, like the Lua state, stays on its actor. The
            // fetch below hops to that actor before it touches the loader.
            actor.preconditionIsolated("an ImageLoader was used outside the actor it was given")
            lastID += 1
            let id = lastID
            let loader = OnActor(self)
            let request = HTTPRequest(url: url, headers: [("accept", "image/*")], timeout: timeout)
            let transport = transport
            let task = Task { await ImageLoader.fetch(id, request, through: transport, for: loader, on: actor) }
            fetches[url] = Fetch(id: id, task: task, recipients: [page: ticket])
            counters.fetchesStarted += 1
        }
        waiting[page] = Waiting(ticket: ticket, url: url, completion: completion)
        return .loading(url: url)
    }

    /// Page `page` was unbound: its completion will never run, and the fetch of its URL is
    /// cancelled if no other page wants it. Nothing happens for a page that is not waiting.
    public func cancel(page: Int) {
        guard let current = waiting.removeValue(forKey: page) else { return }
        counters.cancellations += 1
        if delivery?.url == current.url, delivery?.recipients[page] == current.ticket {
            delivery?.recipients[page] = nil
        }
        guard var fetch = fetches[current.url], fetch.recipients[page] == current.ticket else { return }
        fetch.recipients[page] = nil
        if fetch.recipients.isEmpty {
            fetch.task.cancel()
            fetches[current.url] = nil
            counters.fetchesCancelled += 1
            wakeSettlers()
        } else {
            fetches[current.url] = fetch
        }
    }

    /// Cancels every waiting page and every fetch (the pager is going away).
    public func cancelAll() {
        for page in waiting.keys.sorted() { cancel(page: page) }
        // Only fetches without recipients could remain; there are none, by the invariant.
        for fetch in fetches.values { fetch.task.cancel() }
        fetches.removeAll()
        wakeSettlers()
    }

    /// Drops the cached images.
    public func emptyCache() {
        cache.removeAll()
    }

    /// Waits until no fetch is in flight. For tools and tests; a UI host uses completions.
    public func settle(isolation: isolated (any Actor)? = #isolation) async {
        while !fetches.isEmpty {
            await withCheckedContinuation(isolation: isolation) { settleWaiters.append($0) }
        }
    }

    // MARK: - Fetching

    private static func fetch(_ id: Int, _ request: HTTPRequest, through transport: any HTTPTransport,
                              for loader: OnActor<ImageLoader>, on actor: isolated any Actor) async {
        let outcome: Result<HTTPResponse, any Error>
        do {
            outcome = .success(try await transport.send(request))
        } catch {
            outcome = .failure(error)
        }
        loader.value.finish(id, url: request.url, outcome)
    }

    /// A fetch ended: its image goes into the cache when it is one, and to every page
    /// still waiting for it. The result of a cancelled fetch is dropped.
    private func finish(_ id: Int, url: String, _ outcome: Result<HTTPResponse, any Error>) {
        guard let fetch = fetches[url], fetch.id == id else {
            counters.lateResultsDropped += 1
            return
        }
        fetches[url] = nil
        let image = image(url: url, outcome)
        if case .loaded(_, let bytes, let size) = image {
            cache.insert(url: url, bytes: bytes, size: size)
        }
        // The completions may cancel or request pages; `cancel` keeps `delivery` current,
        // so a page unbound by an earlier completion is not answered.
        delivery = Delivery(url: url, recipients: fetch.recipients)
        for page in fetch.recipients.keys.sorted() {
            guard let ticket = delivery?.recipients.removeValue(forKey: page) else { continue }
            deliver(image, to: page, ticket: ticket)
        }
        delivery = nil
        wakeSettlers()
    }

    /// Runs the completion of `page`'s request `ticket`, which must be the page's current one.
    private func deliver(_ image: PageImage, to page: Int, ticket: Int) {
        guard let current = waiting[page], current.ticket == ticket else {
            counters.deliveredToUnbound += 1
            return
        }
        waiting[page] = nil
        counters.completionsDelivered += 1
        current.completion(page, image)
    }

    /// What a fetch's outcome means for the page.
    private func image(url: String, _ outcome: Result<HTTPResponse, any Error>) -> PageImage {
        let response: HTTPResponse
        switch outcome {
        case .failure(let failure as HTTPFailure):
            return .failed(url: url, reason: failure.cause.description)
        case .failure(is CancellationError):
            return .failed(url: url, reason: "cancelled")
        case .failure(let error):
            return .failed(url: url, reason: "\(error)")
        case .success(let received):
            response = received
        }
        guard response.status == 200 else { return .failed(url: url, reason: "HTTP \(response.status)") }
        let count = response.body.count
        let bytes = count == 1 ? "1 byte" : "\(groupedDigits(count)) bytes"
        guard count <= maxImageBytes else {
            return .failed(url: url, reason: "image larger than \(ByteText(maxImageBytes)) (\(bytes))")
        }
        guard let size = ImageSniffer.size(of: response.body) else {
            // `text/html; charset=utf-8` → `text/html`.
            let type = String((response.header("content-type")?.split(separator: ";", maxSplits: 1).first ?? "")
                .filter { $0 != " " && $0 != "\t" }.prefix(80))
            return .failed(url: url, reason: "not an image (\(type.isEmpty ? "" : type + ", ")\(bytes))")
        }
        return .loaded(url: url, bytes: response.body, size: size)
    }

    /// `http://…` or `https://…`, the scheme in any case, with something after it.
    private static func isWebURL(_ url: String) -> Bool {
        guard let colon = url.firstIndex(of: ":") else { return false }
        let scheme = url[..<colon].lowercased()
        let rest = url[url.index(after: colon)...]
        return (scheme == "http" || scheme == "https") && rest.hasPrefix("//") && rest.count > 2
    }

    private func wakeSettlers() {
        guard fetches.isEmpty, !settleWaiters.isEmpty else { return }
        let waiters = settleWaiters
        settleWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }
}
