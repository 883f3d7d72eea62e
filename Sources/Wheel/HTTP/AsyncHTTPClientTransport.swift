/// The default transport of the `http` module: AsyncHTTPClient, HTTP/1.1 and HTTP/2, with
/// TLS, redirects (up to 20) and decompression, a body limit and a timeout that covers the
/// whole exchange.
///
/// ```swift
/// let transport = AsyncHTTPClientTransport(maxBodySize: 1 << 20)      // 1 MiB bodies at most
/// let response = try await transport.send(HTTPRequest(url: "http://127.0.0.1:8080/items?page=1",
///                                                     timeout: .seconds(2)))
/// print(response.status, response.header("content-type") ?? "")
/// ```
///
/// Errors come out as `HTTPFailure` with a cause a person can read: `connection refused`,
/// `timed out after 2s`, `response body larger than 16 MiB`. Cancelling the task that awaits
/// `send` cancels the request.
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

public struct AsyncHTTPClientTransport: HTTPTransport {
    /// The client requests go through.
    public var client: HTTPClient { ownClient ?? processClient }
    /// Nil for the process's client, made on first use so that a host whose scripts never
    /// call `http` starts no event loop for it.
    private let ownClient: HTTPClient?
    /// The largest response body accepted, in bytes; a larger one is a failure.
    public var maxBodySize: Int

    /// The body limit of a transport made without one: 16 MiB.
    public static let defaultMaxBodySize = 16 << 20

    /// A transport through `client`, by default one client for the whole process.
    ///
    /// The default client is set up as `HTTPClient.shared` is (and, like it, never shut
    /// down), except that a refused connection fails the request at once: the shared
    /// client retries it until the request's deadline, so a script would wait out its whole
    /// timeout to learn that nothing listens.
    public init(client: HTTPClient? = nil, maxBodySize: Int = AsyncHTTPClientTransport.defaultMaxBodySize) {
        ownClient = client
        self.maxBodySize = maxBodySize
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if let cause = Self.schemeProblem(request.url) {
            throw HTTPFailure(method: request.method, url: request.url, cause: cause)
        }
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if let body = request.body { outgoing.body = .bytes(body) }

        let client = client, maxBodySize = maxBodySize, timeout = request.timeout, prepared = outgoing
        do {
            // AsyncHTTPClient's own deadline stops at the response head; the race below
            // bounds the body too. Whichever child finishes first decides, and leaving the
            // group cancels the other (a cancelled exchange cancels its request).
            return try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
                group.addTask {
                    let response = try await client.execute(prepared, timeout: TimeAmount(timeout))
                    let body = try await response.body.collect(upTo: maxBodySize)
                    return HTTPResponse(status: Int(response.status.code),
                                        headers: response.headers.map { ($0.name, $0.value) },
                                        body: Array(buffer: body))
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw ExchangeTimedOut()
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        } catch {
            throw HTTPFailure(method: request.method, url: request.url,
                              cause: cause(of: error, timeout: timeout))
        }
    }

    /// Scripts speak `http` and `https` (AsyncHTTPClient also takes Unix-socket schemes,
    /// which a script has no business reaching).
    private static func schemeProblem(_ url: String) -> HTTPFailure.Cause? {
        guard let colon = url.firstIndex(of: ":"), colon != url.startIndex,
              url[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return .invalidURL }
        let scheme = url[..<colon].lowercased()
        return scheme == "http" || scheme == "https" ? nil : .unsupportedScheme(scheme)
    }

    private func cause(of error: any Error, timeout: Duration) -> HTTPFailure.Cause {
        switch error {
        case let failure as HTTPFailure:
            return failure.cause
        case is ExchangeTimedOut:
            return .timedOut(timeout)
        case is NIOTooManyBytesError:
            return .bodyTooLarge(limit: maxBodySize)
        case is CancellationError:
            return .cancelled
        case let error as HTTPClientError:
            switch error {
            case .invalidURL, .emptyHost, .emptyScheme: return .invalidURL
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout:
                return .timedOut(timeout)
            case .remoteConnectionClosed: return .connectionClosed
            case .cancelled: return .cancelled
            default: return .other("\(error)")
            }
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first { return cause(of: first.error, timeout: timeout) }
            return .other("\(error)")
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED: return .connectionRefused
            case ECONNRESET, EPIPE: return .connectionReset
            case ETIMEDOUT: return .timedOut(timeout)
            default: return .other("\(error)")
            }
        case ChannelError.connectTimeout:
            return .timedOut(timeout)
        case ChannelError.eof, ChannelError.ioOnClosedChannel, ChannelError.outputClosed:
            return .connectionClosed
        default:
            return .other("\(error)")
        }
    }
}

/// The race in `send` was won by the timeout.
private struct ExchangeTimedOut: Error {}

/// The default client: `HTTPClient.shared`'s settings, without retrying refused connections.
/// A global, so it lives as long as the process and is never shut down.
private let processClient: HTTPClient = {
    var configuration = HTTPClient.Configuration.singletonConfiguration
    configuration.connectionPool.retryConnectionEstablishment = false
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}()
