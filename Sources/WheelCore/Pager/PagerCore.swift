/// The state machine behind a horizontally paged view: from the page count, the page
/// width and the scroll offset, the current page and the window of pages that must be
/// bound (the current page and `keep` pages on each side), and the bind and unbind events
/// that keep exactly that window bound as it moves.
///
/// ```swift
/// var pager = PagerCore(pageCount: 120, keep: 1, pageWidth: 320)
/// pager.start()                        // [.bind(0), .bind(1)]
/// pager.scroll(toOffset: 300)          // page 1 (the nearest): [.bind(2)]
/// pager.jump(to: 40)                   // [.unbind(0), .unbind(1), .unbind(2), .bind(39), .bind(40), .bind(41)]
/// ```
///
/// **One current page.** The current page is the page nearest to the offset,
/// `floor((x - w/2) / w) + 1` (half way rounds up), clamped to the pages; nothing else sets
/// it. A swipe that is interrupted half way leaves the offset where the finger left it,
/// and the page follows from that offset alone; `settledOffset` is where the host should
/// come to rest. A jump sets the offset to the page's own.
///
/// **Bound pages.** The window is `[current - keep, current + keep]` within the pages.
/// Each change unbinds the pages leaving the window before it binds those entering, so at
/// no moment are more than `2 * keep + 1` pages bound, and every bind is matched by one
/// unbind (the last ones by `stop()`).
public struct PagerCore: Sendable, Equatable {
    public enum Event: Sendable, Equatable {
        case bind(Int)
        case unbind(Int)
    }

    /// Pages on each side of the current one that stay bound.
    public let keep: Int
    public private(set) var pageCount: Int
    /// The width of a page in the host's units (points, cells); always positive.
    public private(set) var pageWidth: Double
    /// The scroll offset the host last reported (or a jump set).
    public private(set) var offset: Double = 0
    /// The page nearest to the offset; 0 when there are no pages.
    public private(set) var current = 0
    /// The pages bound now: empty until `start`, and after `stop`.
    public private(set) var bound: Range<Int> = 0..<0
    private var started = false

    public init(pageCount: Int, keep: Int = 1, pageWidth: Double = 1) {
        precondition(keep >= 0, "keep must not be negative")
        self.keep = keep
        self.pageCount = max(0, pageCount)
        self.pageWidth = pageWidth.isFinite && pageWidth > 0 ? pageWidth : 1
    }

    /// The pages that must be bound for the current page.
    public var window: Range<Int> {
        guard pageCount > 0 else { return 0..<0 }
        return max(0, current - keep)..<min(pageCount, current + keep + 1)
    }

    /// Where the host should come to rest: the current page's own offset.
    public var settledOffset: Double { Double(current) * pageWidth }

    /// The page nearest to offset `x` for pages `width` wide: `floor((x - w/2) / w) + 1`,
    /// not clamped.
    public static func page(forOffset x: Double, width: Double) -> Int {
        let page = ((x - width / 2) / width).rounded(.down) + 1
        if page >= Double(Int.max / 2) { return Int.max / 2 }
        if page <= -Double(Int.max / 2) { return -(Int.max / 2) }
        return Int(page)
    }

    // MARK: - Events

    /// Binds the first window (the pager is shown).
    public mutating func start() -> [Event] {
        started = true
        return rebind()
    }

    /// Unbinds everything (the pager goes away).
    public mutating func stop() -> [Event] {
        started = false
        return rebind()
    }

    /// The host scrolled to `x`. Offsets that are not finite are ignored.
    public mutating func scroll(toOffset x: Double) -> [Event] {
        guard x.isFinite else { return [] }
        offset = x
        current = clamp(Self.page(forOffset: x, width: pageWidth))
        return rebind()
    }

    /// Goes to `page` (clamped to the pages) at once: the offset becomes the page's.
    public mutating func jump(to page: Int) -> [Event] {
        current = clamp(page)
        offset = settledOffset
        return rebind()
    }

    /// One page to the right (`by: 1`, a swipe to the left) or back (`by: -1`).
    public mutating func swipe(by pages: Int) -> [Event] {
        let (target, overflow) = current.addingReportingOverflow(pages)
        return jump(to: overflow ? (pages > 0 ? Int.max : Int.min) : target)
    }

    /// The page width changed (a rotation, a resize): the current page stays, and the
    /// offset becomes its offset at the new width.
    public mutating func setPageWidth(_ width: Double) -> [Event] {
        guard width.isFinite, width > 0 else { return [] }
        pageWidth = width
        offset = settledOffset
        return []
    }

    /// The number of pages changed (a feed brought more, or a source shrank): the current
    /// page stays if it still exists, and the window follows.
    public mutating func setPageCount(_ count: Int) -> [Event] {
        pageCount = max(0, count)
        let clamped = clamp(current)
        if clamped != current {
            current = clamped
            offset = settledOffset
        }
        return rebind()
    }

    // MARK: - Inside

    private func clamp(_ page: Int) -> Int {
        pageCount == 0 ? 0 : min(max(page, 0), pageCount - 1)
    }

    /// Unbinds what left the window, then binds what entered it, in page order.
    private mutating func rebind() -> [Event] {
        let target = started ? window : 0..<0
        guard target != bound else { return [] }
        var events: [Event] = []
        for page in bound where !target.contains(page) { events.append(.unbind(page)) }
        for page in target where !bound.contains(page) { events.append(.bind(page)) }
        bound = target
        return events
    }
}
