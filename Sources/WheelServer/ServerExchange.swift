/// What a `FixtureServer` handler sees and answers: a `ServerRequest` in, a `ServerReply`
/// out. A reply is a response, or one of the ways a real server misbehaves.
///
/// ```swift
/// let server = try await FixtureServer.start { request in
///     switch request.path {
///     case "/hello": .text("hello \(request.query["name"] ?? "you")")
///     case "/slow": .delayed(.seconds(2), .json(#"{"ok":true}"#))
///     case "/drip": .slowBody(.text(String(repeating: "x", count: 100)), chunkSize: 10, interval: .milliseconds(50))
///     case "/gone": .reset                       // the client sees the connection reset
///     case "/never": .hang                       // the client's timeout fires
///     default: .file(request.path)               // static files under the root, or 404
///     }
/// }
/// ```

/// One request, read whole.
public struct ServerRequest: Sendable {
    /// `GET`, `POST`, ... as the client sent it.
    public var method: String
    /// The path, percent-decoded, without the query: `/items`.
    public var path: String
    /// The query string as sent, without `?`; empty when there is none.
    public var rawQuery: String
    /// The query's parameters, decoded (`+` is a space); a repeated name keeps its last value.
    public var query: [String: String]
    /// As sent, in order.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String = "GET", target: String, headers: [(name: String, value: String)] = [],
                body: [UInt8] = []) {
        self.method = method
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = percentDecoded(parts.first.map(String.init) ?? "", plusIsSpace: false)
        rawQuery = parts.count > 1 ? String(parts[1]) : ""
        query = parseQuery(rawQuery)
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (compared without case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as UTF-8 text (invalid bytes replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// A complete response.
public struct ServerResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    /// `content-length` is added when the response is sent; do not give it.
    public init(status: Int = 200, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// How the server answers a request.
public enum ServerReply: Sendable {
    /// A complete response, sent at once.
    case respond(ServerResponse)
    /// The head (with the whole body's `content-length`) at once, then the body in pieces of
    /// `chunkSize` bytes with `interval` before each piece after the first.
    case slowBody(ServerResponse, chunkSize: Int, interval: Duration)
    /// `reply`, after waiting `delay`; a client that closes the connection meanwhile ends
    /// the request (its end is then logged at once, not after the delay).
    indirect case delayed(Duration, ServerReply)
    /// Closes the connection without a response, with `SO_LINGER` 0 so that the client sees
    /// a reset (RST), not an orderly close.
    case reset
    /// Never answers; the request stays in flight until the client closes the connection or
    /// the server stops.
    case hang
    /// The static file at `path` under the server's root, as if no handler were there.
    case file(String)

    /// A JSON body, `content-type: application/json`.
    public static func json(_ text: String, status: Int = 200) -> ServerReply {
        .respond(ServerResponse(status: status, headers: [("content-type", "application/json")], body: Array(text.utf8)))
    }

    /// A plain-text body, `content-type: text/plain; charset=utf-8`.
    public static func text(_ text: String, status: Int = 200) -> ServerReply {
        .respond(ServerResponse(status: status, headers: [("content-type", "text/plain; charset=utf-8")], body: Array(text.utf8)))
    }

    /// An empty-bodied response of `status`, with `headers`.
    public static func status(_ status: Int, headers: [(name: String, value: String)] = []) -> ServerReply {
        .respond(ServerResponse(status: status, headers: headers))
    }
}

// MARK: - Query strings and percent-encoding

/// `a=1&b=two%20words&c` → `["a": "1", "b": "two words", "c": ""]`.
func parseQuery(_ query: String) -> [String: String] {
    var parameters: [String: String] = [:]
    for pair in query.split(separator: "&") where !pair.isEmpty {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = percentDecoded(String(parts[0]), plusIsSpace: true)
        parameters[name] = parts.count > 1 ? percentDecoded(String(parts[1]), plusIsSpace: true) : ""
    }
    return parameters
}

/// Decodes `%XX` escapes (a malformed escape stays as written) and, in queries, `+`.
func percentDecoded(_ text: String, plusIsSpace: Bool) -> String {
    guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
        return text
    }
    let bytes = Array(text.utf8)
    var decoded: [UInt8] = []
    decoded.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
           let low = hexValue(bytes[index + 2]) {
            decoded.append(high << 4 | low)
            index += 3
        } else {
            decoded.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
    }
    return String(decoding: decoded, as: UTF8.self)
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
