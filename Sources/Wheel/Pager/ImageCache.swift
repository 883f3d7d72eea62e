/// Loaded images by URL, bounded by their bytes: when a new image would pass the
/// capacity, the least recently used go first.
///
/// ```swift
/// var cache = ImageCache(capacity: 1 << 20)
/// cache.insert(url: url, bytes: body, size: size)   // false when body alone exceeds the capacity
/// cache.image(for: url)                             // the image, now the most recently used; counts a hit
/// ```
///
/// A dictionary finds an entry and a doubly linked list through its slots keeps the order
/// of use, so every operation is O(1) (amortised, as the dictionary is). Invariants:
/// `totalBytes` is the sum of the entries' byte counts and never exceeds `capacity`; the
/// list holds exactly the entries of the dictionary, most recently used at its head.
struct ImageCache {
    struct Image: Equatable {
        var bytes: [UInt8]
        var size: ImageSize
    }

    /// The most bytes held at once.
    let capacity: Int
    private(set) var totalBytes = 0
    private(set) var hits = 0
    private(set) var misses = 0
    /// Entries dropped to make room.
    private(set) var evictions = 0

    private struct Slot {
        var url: String
        var image: Image
        /// Neighbours in the order of use: `newer` towards the head, `older` towards the tail.
        var newer: Int?
        var older: Int?
    }

    private var slots: [Slot?] = []
    private var freeSlots: [Int] = []
    private var index: [String: Int] = [:]
    /// The most recently used entry.
    private var head: Int?
    /// The least recently used entry: the next to go.
    private var tail: Int?

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int { index.count }

    /// The image of `url`, which becomes the most recently used; counts a hit or a miss.
    mutating func image(for url: String) -> Image? {
        guard let slot = index[url] else {
            misses += 1
            return nil
        }
        hits += 1
        moveToHead(slot)
        return slots[slot]!.image
    }

    /// Whether `url` is cached, without touching the order or the counters.
    func contains(_ url: String) -> Bool { index[url] != nil }

    /// The cached URLs, the most recently used first.
    var urlsByRecency: [String] {
        var urls: [String] = []
        var current = head
        while let slot = current {
            urls.append(slots[slot]!.url)
            current = slots[slot]!.older
        }
        return urls
    }

    /// Caches `bytes` for `url` as the most recently used, replacing what `url` had, and
    /// evicts the least recently used entries until it fits. An image larger than the
    /// whole capacity is not cached (and an older image of `url` goes); returns whether
    /// it was.
    @discardableResult
    mutating func insert(url: String, bytes: [UInt8], size: ImageSize) -> Bool {
        remove(url)
        guard bytes.count <= capacity else { return false }
        while totalBytes + bytes.count > capacity, let oldest = tail {
            unlink(oldest)
            evictions += 1
        }
        let slot = Slot(url: url, image: Image(bytes: bytes, size: size), newer: nil, older: head)
        let position: Int
        if let free = freeSlots.popLast() {
            slots[free] = slot
            position = free
        } else {
            slots.append(slot)
            position = slots.count - 1
        }
        if let head { slots[head]!.newer = position }
        head = position
        if tail == nil { tail = position }
        index[url] = position
        totalBytes += bytes.count
        return true
    }

    /// Drops the image of `url`, if cached.
    mutating func remove(_ url: String) {
        if let slot = index[url] { unlink(slot) }
    }

    mutating func removeAll() {
        slots.removeAll()
        freeSlots.removeAll()
        index.removeAll()
        head = nil
        tail = nil
        totalBytes = 0
    }

    // MARK: - The list

    private mutating func moveToHead(_ slot: Int) {
        guard head != slot else { return }
        detach(slot)
        slots[slot]!.older = head
        slots[slot]!.newer = nil
        if let head { slots[head]!.newer = slot }
        head = slot
        if tail == nil { tail = slot }
    }

    /// Takes `slot` out of the list, leaving it in its slot.
    private mutating func detach(_ slot: Int) {
        let (newer, older) = (slots[slot]!.newer, slots[slot]!.older)
        if let newer { slots[newer]!.older = older } else { head = older }
        if let older { slots[older]!.newer = newer } else { tail = newer }
    }

    /// Removes the entry in `slot` altogether.
    private mutating func unlink(_ slot: Int) {
        detach(slot)
        let entry = slots[slot]!
        index[entry.url] = nil
        totalBytes -= entry.image.bytes.count
        slots[slot] = nil
        freeSlots.append(slot)
    }
}
