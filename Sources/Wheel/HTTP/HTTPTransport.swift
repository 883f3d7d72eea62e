/// What the `http` module asks of the network: one request in, one whole response out.
///
/// ```swift
/// struct Canned: HTTPTransport {              // a host's own transport: fixtures, a proxy, a cache
///     func send(_ request: HTTPRequest) async throws -> HTTPResponse {
///         HTTPResponse(status: 200, headers: [("Content-Type", "application/json")],
///                      body: Array(#"{"items":[],"next":null}"#.utf8))
///     }
/// }
/// let runtime = try Runtime(options: .init(transport: Canned()))
/// ```
///
/// A transport answers every status as a response (a 404 or a 500 is not an error) and
/// throws `HTTPFailure` when no complete response arrived: the URL was wrong, the
/// connection failed, the timeout passed, the body was too large. It stops when the task
/// that awaits it is cancelled. The default transport is `AsyncHTTPClientTransport`.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// One request, as a script made it.
public struct HTTPRequest: Sendable {
    /// Upper case: `GET`, `POST`, ...
    public var method: String
    public var url: String
    /// In the order the script gave them (a Lua table's order, so unspecified).
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// How long the whole exchange may take: connecting, sending, the response and its body.
    public var timeout: Duration

    /// The timeout of a request that does not name one.
    public static let defaultTimeout: Duration = .seconds(30)

    public init(method: String = "GET", url: String, headers: [(name: String, value: String)] = [],
                body: [UInt8]? = nil, timeout: Duration = HTTPRequest.defaultTimeout) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A whole response: any status, the headers as received, the body read to its end.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// As received: names in their original case, repeated names repeated.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (compared without case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A request that got no complete response. Its description is what a script sees:
/// `GET http://127.0.0.1:5/items: connection refused`.
public struct HTTPFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var method: String
    public var url: String
    public var cause: Cause

    public enum Cause: Sendable, Equatable, CustomStringConvertible {
        /// The URL does not parse, or has no host.
        case invalidURL
        /// A scheme the transport does not speak (the default one: `http` and `https`).
        case unsupportedScheme(String)
        /// Nothing listens at the address.
        case connectionRefused
        /// The server reset the connection.
        case connectionReset
        /// The server closed the connection before the response ended.
        case connectionClosed
        /// The request's timeout passed before the response ended.
        case timedOut(Duration)
        /// The body is larger than the transport accepts, in bytes.
        case bodyTooLarge(limit: Int)
        /// The task awaiting the response was cancelled.
        case cancelled
        /// Anything else, as the transport describes it.
        case other(String)

        public var description: String {
            switch self {
            case .invalidURL: "invalid URL"
            case .unsupportedScheme(let scheme): "unsupported scheme '\(scheme)'"
            case .connectionRefused: "connection refused"
            case .connectionReset: "connection reset by the server"
            case .connectionClosed: "connection closed by the server before the response ended"
            case .timedOut(let limit): "timed out after \(DurationText(limit))"
            case .bodyTooLarge(let limit): "response body larger than \(ByteText(limit))"
            case .cancelled: "cancelled"
            case .other(let text): text
            }
        }
    }

    public init(method: String, url: String, cause: Cause) {
        self.method = method
        self.url = url
        self.cause = cause
    }

    public var description: String { "\(method) \(url): \(cause)" }
}

/// A duration as people write it: `2s`, `300ms`, `1.5s`, `250us`.
struct DurationText: CustomStringConvertible {
    var duration: Duration
    init(_ duration: Duration) { self.duration = duration }

    var description: String {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        if nanoseconds % 1_000_000_000 == 0 { return "\(seconds)s" }
        if nanoseconds >= 1_000_000_000 {
            return "\(Double(nanoseconds) / 1e9)s"
        }
        if nanoseconds % 1_000_000 == 0 { return "\(nanoseconds / 1_000_000)ms" }
        if nanoseconds % 1_000 == 0 { return "\(nanoseconds / 1_000)us" }
        return "\(nanoseconds)ns"
    }
}

/// A byte count as people write it: `16 MiB`, `1500 bytes`.
struct ByteText: CustomStringConvertible {
    var bytes: Int
    init(_ bytes: Int) { self.bytes = bytes }

    var description: String {
        for (unit, size) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes >= size && bytes % size == 0 {
            return "\(bytes / size) \(unit)"
        }
        return bytes == 1 ? "1 byte" : "\(bytes) bytes"
    }
}
