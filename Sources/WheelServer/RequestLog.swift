/// Every request a `FixtureServer` received, with when it started and ended, so that a test
/// can say how many requests a client made and how many it had in flight at once.
///
/// ```swift
/// #expect(server.requestCount(pathPrefix: "/items") == 3)
/// #expect(server.maxInFlight(pathPrefix: "/items") == 1)    // never two pages at once
/// ```
///
/// A request is in flight from the moment it has arrived (read whole) until its reply ended:
/// the last byte written, the connection reset, or (for a hang) the connection closed.
import Synchronization

/// One request in the log.
public struct LoggedRequest: Sendable {
    public var method: String
    public var path: String
    public var rawQuery: String
    public var query: [String: String]
    public var started: ContinuousClock.Instant
    /// Nil while the request is in flight.
    public var ended: ContinuousClock.Instant?
    /// The status sent; nil for a reset, a hang, or a client that went away first.
    public var status: Int?
}

/// The log itself, shared by the server's connections.
final class RequestLog: Sendable {
    private let entries = Mutex<[LoggedRequest]>([])

    /// Records the start of `request`; returns its position, for `end`.
    func start(_ request: ServerRequest) -> Int {
        entries.withLock { entries in
            entries.append(LoggedRequest(method: request.method, path: request.path, rawQuery: request.rawQuery,
                                         query: request.query, started: .now, ended: nil, status: nil))
            return entries.count - 1
        }
    }

    func end(_ position: Int, status: Int?) {
        entries.withLock { entries in
            entries[position].ended = .now
            entries[position].status = status
        }
    }

    var all: [LoggedRequest] { entries.withLock { $0 } }

    func count(pathPrefix: String) -> Int {
        entries.withLock { $0.count { $0.path.hasPrefix(pathPrefix) } }
    }

    func inFlight(pathPrefix: String) -> Int {
        entries.withLock { $0.count { $0.path.hasPrefix(pathPrefix) && $0.ended == nil } }
    }

    /// The most requests under `pathPrefix` that were in flight at one instant. A request
    /// that ends at the instant another starts does not overlap it.
    func maxInFlight(pathPrefix: String) -> Int {
        let matching = entries.withLock { $0.filter { $0.path.hasPrefix(pathPrefix) } }
        // Ends sort before starts at the same instant; a request still in flight never ends.
        var events: [(time: ContinuousClock.Instant, change: Int)] = []
        for request in matching {
            events.append((request.started, 1))
            if let ended = request.ended { events.append((ended, -1)) }
        }
        events.sort { $0.time < $1.time || ($0.time == $1.time && $0.change < $1.change) }
        var current = 0, most = 0
        for event in events {
            current += event.change
            most = max(most, current)
        }
        return most
    }
}
