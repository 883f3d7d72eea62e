/// A ready-made paged API for feeds to read: numbered items served a page at a time, with
/// latency, faults on chosen pages, and pages that overlap as they do when the server's
/// data shifts under a reader.
///
/// ```swift
/// let items = PagedItems(total: 45, latency: .milliseconds(20),
///                        faults: [2: .serverErrorOnce, 3: .malformedJSON])
/// let server = try await FixtureServer.start(handler: items.handler)
/// // GET /items?page=1&size=20 → {"items":[{"id":1,"title":"Item 1"},…,{"id":20,…}],"next":2}
/// // GET /items?page=2&size=20 → 500 the first time, then the page
/// // GET /items?page=3&size=20 → 200 {"items":[   (cut short)
/// // GET /cursor?after=40&size=20 → {"items":[{"id":41,…},…,{"id":45,…}],"next":null}
/// ```
///
/// `GET /items?page=N&size=S` (pages from 1; `size` defaults to `pageSize`) answers
/// `{"items":[...],"next":N+1}`, with `"next":null` on the last page; a page past the end
/// has no items. Item `id` runs from 1 to `total`, its title is `Item <id>`. With
/// `repeatsPrevious = k`, each page after the first begins with the last `k` items of the
/// page before (pages then advance by `S - k` items). `GET /cursor?after=ID&size=S` answers
/// the items after `ID` with `"next":"<last id>"` (a string), or null at the end. Other
/// paths fall through to the server's static files. A bad `page`, `size` or `after` is a 400.
import Synchronization

public final class PagedItems: Sendable {
    /// What goes wrong with a page (chosen by page number; cursor requests have no faults).
    public enum Fault: Sendable, Equatable {
        /// A 500 the first time the page is asked for; the page itself afterwards.
        case serverErrorOnce
        /// A 500 every time.
        case serverError
        /// The page, its body sent in pieces of `chunkSize` bytes, `interval` apart.
        case slowBody(chunkSize: Int, interval: Duration)
        /// No answer at all: the client's timeout fires.
        case hang
        /// The connection reset without a response.
        case reset
        /// A 200 whose body is cut-off JSON: `{"items":[`.
        case malformedJSON
        /// The page, after an extra `delay`.
        case delay(Duration)
    }

    public let total: Int
    /// The page size of a request without `size`.
    public let pageSize: Int
    /// The wait before every answer.
    public let latency: Duration
    public let faults: [Int: Fault]
    /// How many of the previous page's last items each later page begins with.
    public let repeatsPrevious: Int
    private let attempts = Mutex<[Int: Int]>([:])

    public init(total: Int, pageSize: Int = 20, latency: Duration = .zero, faults: [Int: Fault] = [:],
                repeatsPrevious: Int = 0) {
        precondition(total >= 0 && pageSize >= 1 && repeatsPrevious >= 0, "PagedItems: a negative count or an empty page")
        self.total = total
        self.pageSize = pageSize
        self.latency = latency
        self.faults = faults
        self.repeatsPrevious = repeatsPrevious
    }

    /// The handler to give `FixtureServer.start`.
    public var handler: FixtureServer.Handler {
        { [self] request in respond(to: request) }
    }

    /// The title of item `id`: `Item 17`.
    public static func title(_ id: Int) -> String { "Item \(id)" }

    /// How many times page `page` was asked for.
    public func attempts(page: Int) -> Int { attempts.withLock { $0[page] ?? 0 } }

    /// The ids on page `page` of `size` items, and whether a page follows.
    public func page(_ page: Int, size: Int) -> (ids: ClosedRange<Int>?, hasNext: Bool) {
        let step = max(1, size - repeatsPrevious)
        let first = (page - 1) * step + 1
        guard first <= total else { return (nil, false) }
        let last = min(first + size - 1, total)
        return (first...last, last < total)
    }

    public func respond(to request: ServerRequest) -> ServerReply {
        let reply: ServerReply
        switch request.path {
        case "/items": reply = pageReply(request)
        case "/cursor": reply = cursorReply(request)
        default: return .file(request.path)
        }
        return latency > .zero ? .delayed(latency, reply) : reply
    }

    private func pageReply(_ request: ServerRequest) -> ServerReply {
        guard let page = Self.number(request.query["page"] ?? "1"), page >= 1 else {
            return .text("page must be a whole number from 1\n", status: 400)
        }
        guard let size = Self.number(request.query["size"] ?? String(pageSize)), (1...1000).contains(size),
              size > repeatsPrevious else {
            return .text("size must be a whole number from \(repeatsPrevious + 1) to 1000\n", status: 400)
        }
        let attempt = attempts.withLock { attempts in
            attempts[page, default: 0] += 1
            return attempts[page]!
        }
        let (ids, hasNext) = self.page(page, size: size)
        let body = Self.json(ids: ids, next: hasNext ? String(page + 1) : "null")
        switch faults[page] {
        case nil: return .json(body)
        case .serverErrorOnce: return attempt == 1 ? .text("injected failure\n", status: 500) : .json(body)
        case .serverError: return .text("injected failure\n", status: 500)
        case .slowBody(let chunkSize, let interval):
            return .slowBody(ServerResponse(headers: [("content-type", "application/json")], body: Array(body.utf8)),
                             chunkSize: chunkSize, interval: interval)
        case .hang: return .hang
        case .reset: return .reset
        case .malformedJSON: return .json(#"{"items":["#)
        case .delay(let delay): return .delayed(delay, .json(body))
        }
    }

    private func cursorReply(_ request: ServerRequest) -> ServerReply {
        guard let after = Self.number(request.query["after"] ?? "0"), after >= 0 else {
            return .text("after must be a whole number from 0\n", status: 400)
        }
        guard let size = Self.number(request.query["size"] ?? String(pageSize)), (1...1000).contains(size) else {
            return .text("size must be a whole number from 1 to 1000\n", status: 400)
        }
        guard after < total else { return .json(Self.json(ids: nil, next: "null")) }
        let ids = (after + 1)...min(after + size, total)
        return .json(Self.json(ids: ids, next: ids.upperBound < total ? "\"\(ids.upperBound)\"" : "null"))
    }

    private static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }

    private static func json(ids: ClosedRange<Int>?, next: String) -> String {
        let items = (ids.map(Array.init) ?? []).map { #"{"id":\#($0),"title":"\#(title($0))"}"# }
        return #"{"items":[\#(items.joined(separator: ","))],"next":\#(next)}"#
    }
}
