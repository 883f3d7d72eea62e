/// The handlers a host registered on an object (`picker.observe`, `feed.observe`), each
/// with the token that removes it.
struct Observers<Event> {
    private var handlers: [(token: Int, handler: (Event) -> Void)] = []
    private var lastToken = 0

    var isEmpty: Bool { handlers.isEmpty }

    mutating func add(_ handler: @escaping (Event) -> Void) -> Int {
        lastToken += 1
        handlers.append((lastToken, handler))
        return lastToken
    }

    mutating func remove(_ token: Int) {
        handlers.removeAll { $0.token == token }
    }

    /// Calls every handler with `event`. Call it on a copy (`let current = observers`), so
    /// that a handler may add or remove observers while it runs.
    func emit(_ event: Event) {
        for entry in handlers { entry.handler(event) }
    }
}

/// The tasks waiting for an object to settle (`feed.settle()`, `pager.settle()`).
struct Waiters {
    private var continuations: [CheckedContinuation<Void, Never>] = []

    mutating func add(_ continuation: CheckedContinuation<Void, Never>) {
        continuations.append(continuation)
    }

    /// Resumes every waiting task (each then checks again whether it may go on).
    mutating func resumeAll() {
        let waiting = continuations
        continuations.removeAll()
        for continuation in waiting { continuation.resume() }
    }
}
