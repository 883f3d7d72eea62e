/// A loopback HTTP/1.1 server for examples, tests and benchmarks: it serves a folder of
/// fixtures, answers through a handler, misbehaves on request (delays, slow bodies, resets,
/// hangs), and logs every request with its timing.
///
/// ```swift
/// let server = try await FixtureServer.start(root: "examples/feed", handler: PagedItems(total: 95).handler)
/// // GET \(server.baseURL)/items?page=2&size=20   → {"items":[{"id":21,"title":"Item 21"},...],"next":3}
/// // GET \(server.baseURL)/articles.json          → the file examples/feed/articles.json
/// print(server.requestCount(pathPrefix: "/items"), server.maxInFlight(pathPrefix: "/items"))
/// try await server.stop()
/// ```
///
/// It listens on 127.0.0.1 only, on the given port or (port 0, the default) one the system
/// picks. The handler, when there is one, answers every request; its `.file(path)` reply
/// falls through to the static files. Connections are kept alive as HTTP/1.1 asks;
/// `stop()` closes the listener and every connection, a hanging one included.
///
/// Every server runs on one thread of its own, sockets and tasks alike (the handler
/// included), not on Swift's cooperative pool: that pool has a thread per core, and a test
/// suite keeps them busy with synchronous work, during which a server there could not
/// answer and its clients would time out.
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

public final class FixtureServer: Sendable {
    /// Answers a request; runs concurrently for concurrent requests, on the server's own
    /// thread (so it should await, not block).
    public typealias Handler = @Sendable (ServerRequest) async -> ServerReply

    /// The port the server listens on.
    public let port: Int
    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private let listener: any Channel
    private let core: ServerCore
    private let serving: Task<Void, Never>

    private init(port: Int, listener: any Channel, core: ServerCore, serving: Task<Void, Never>) {
        self.port = port
        self.listener = listener
        self.core = core
        self.serving = serving
    }

    /// Starts a server on 127.0.0.1:`port` (0: any free port) that serves the files under
    /// `root` and answers through `handler`.
    public static func start(root: String? = nil, port: Int = 0, handler: Handler? = nil) async throws -> FixtureServer {
        let core = ServerCore(files: StaticFiles(root: root), handler: handler)
        let listener = try await ServerBootstrap(group: serverThread.eventLoop)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 256)
            .bind(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        let boundPort = listener.channel.localAddress?.port ?? port
        // The accept loop is never cancelled: it ends when `stop` closes the listener,
        // after every connection already accepted has been handed to `serve`. A wrapped
        // connection that nobody ran `executeThenClose` on would trap when it is freed
        // (NIO requires its writer to be finished), so none may be dropped. The
        // connections' own tasks are the ones `stop` cancels.
        let serving = Task(executorPreference: serverThread) {
            _ = try? await listener.executeThenClose { connections in
                do {
                    for try await connection in connections {
                        core.spawn { await core.serve(connection) }
                    }
                } catch {
                    // The listener closed: stop() is under way.
                }
            }
        }
        return FixtureServer(port: boundPort, listener: listener.channel, core: core, serving: serving)
    }

    /// Stops listening, closes every connection (hanging requests end there) and waits
    /// until all of them have finished.
    public func stop() async throws {
        core.closeConnections()             // connections from now on close at once
        try? await listener.close()
        await serving.value                 // every accepted connection has a task
        core.closeConnections()
        for task in core.connectionTasks() {
            task.cancel()                   // handlers waiting (a delay, a hang) stop
            await task.value
        }
    }

    // MARK: - The request log

    /// Every request received so far, in the order they arrived.
    public var requests: [LoggedRequest] { core.log.all }

    /// How many requests whose path starts with `pathPrefix` arrived.
    public func requestCount(pathPrefix: String = "") -> Int { core.log.count(pathPrefix: pathPrefix) }

    /// How many requests whose path starts with `pathPrefix` are in flight now.
    public func inFlight(pathPrefix: String = "") -> Int { core.log.inFlight(pathPrefix: pathPrefix) }

    /// The most requests whose path starts with `pathPrefix` that were in flight at once.
    public func maxInFlight(pathPrefix: String = "") -> Int { core.log.maxInFlight(pathPrefix: pathPrefix) }
}

/// What the connections share: the files, the handler, the log, and the open connections
/// (so that `stop` can close them).
final class ServerCore: Sendable {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    let files: StaticFiles
    let handler: FixtureServer.Handler?
    let log = RequestLog()
    private let open = Mutex<(next: Int, channels: [Int: any Channel], stopped: Bool)>((0, [:], false))
    /// The connections' tasks, until each ends.
    private let tasks = Mutex<(next: Int, running: [Int: Task<Void, Never>])>((0, [:]))

    init(files: StaticFiles, handler: FixtureServer.Handler?) {
        self.files = files
        self.handler = handler
    }

    /// Runs `body` (a connection's service) as a task on the server's thread, kept until
    /// it ends so that `stop` can cancel and await it.
    func spawn(_ body: @escaping @Sendable () async -> Void) {
        tasks.withLock { tasks in
            tasks.next += 1
            let id = tasks.next
            // Made under the lock: the task's own removal waits for its insertion.
            tasks.running[id] = Task(executorPreference: serverThread) { [self] in
                await body()
                _ = self.tasks.withLock { $0.running.removeValue(forKey: id) }
            }
        }
    }

    /// The connections' tasks still running.
    func connectionTasks() -> [Task<Void, Never>] {
        tasks.withLock { Array($0.running.values) }
    }

    func closeConnections() {
        let channels = open.withLock { open in
            open.stopped = true
            return Array(open.channels.values)
        }
        for channel in channels { channel.close(promise: nil) }
    }

    /// Serves one connection's requests, one after the other, until the client closes it,
    /// asks to close it, or a reply ends it (a reset, a hang).
    func serve(_ connection: Connection) async {
        let channel = connection.channel
        let key: Int? = open.withLock { open in
            guard !open.stopped else { return nil }
            open.next += 1
            open.channels[open.next] = channel
            return open.next
        }
        guard let key else {
            // Stopping: closed at once, through executeThenClose, which finishes the writer.
            try? await connection.executeThenClose { _, _ in }
            return
        }
        defer { _ = open.withLock { $0.channels.removeValue(forKey: key) } }
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let received):
                    head = received
                    body.clear()
                case .body(var bytes):
                    body.writeBuffer(&bytes)
                case .end:
                    guard let received = head else { continue }
                    head = nil
                    let request = ServerRequest(
                        method: received.method.rawValue, target: received.uri,
                        headers: received.headers.map { ($0.name, $0.value) },
                        body: Array(buffer: body))
                    let keepOpen = await respond(to: request, keepAlive: received.isKeepAlive,
                                                 channel: channel, outbound: outbound)
                    if !keepOpen { return }
                }
            }
        }
    }

    /// Answers `request`, logging it; returns whether the connection may serve another.
    private func respond(to request: ServerRequest, keepAlive: Bool, channel: any Channel,
                         outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async -> Bool {
        let position = log.start(request)
        var status: Int?
        defer { log.end(position, status: status) }
        var reply = await handler?(request) ?? .file(request.path)
        do {
            while true {
                switch reply {
                case .delayed(let delay, let next):
                    // A client that gives up during the delay ends the request there.
                    guard try await Self.wait(delay, whileOpen: channel) else { return false }
                    reply = next
                    continue
                case .file(let path):
                    reply = .respond(files.response(method: request.method, path: path))
                    continue
                case .respond(let response):
                    try await send(response, to: request, keepAlive: keepAlive, outbound: outbound)
                    status = response.status
                case .slowBody(let response, let chunkSize, let interval):
                    try await send(response, to: request, keepAlive: keepAlive, outbound: outbound,
                                   chunkSize: max(1, chunkSize), interval: interval)
                    status = response.status
                case .reset:
                    await reset(channel)
                    return false
                case .hang:
                    // Until the client closes the connection, or the server stops (which
                    // cancels this task).
                    await Self.untilClosed(channel)
                    return false
                }
                return keepAlive
            }
        } catch {
            // Cancelled (the server stops) or the client went away mid-reply.
            return false
        }
    }

    private func send(_ response: ServerResponse, to request: ServerRequest, keepAlive: Bool,
                      outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
                      chunkSize: Int? = nil, interval: Duration = .zero) async throws {
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        headers.replaceOrAdd(name: "content-length", value: String(response.body.count))
        if !keepAlive { headers.replaceOrAdd(name: "connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: response.status)
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)))
        if request.method != "HEAD", !response.body.isEmpty {
            let size = chunkSize ?? response.body.count
            var offset = 0
            while offset < response.body.count {
                if offset > 0 { try await Task.sleep(for: interval) }
                let end = min(offset + size, response.body.count)
                try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: response.body[offset..<end]))))
                offset = end
            }
        }
        try await outbound.write(.end(nil))
    }

    /// Waits `delay`; returns false early if the connection closes first.
    private static func wait(_ delay: Duration, whileOpen channel: any Channel) async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await Task.sleep(for: delay)
                return true
            }
            group.addTask {
                await Self.untilClosed(channel)
                return false
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// Returns when `channel` has closed, or when the task is cancelled.
    private static func untilClosed(_ channel: any Channel) async {
        let waiter = CloseWaiter()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter.wait(continuation)
                channel.closeFuture.whenComplete { _ in waiter.finish() }
            }
        } onCancel: {
            waiter.finish()
        }
    }

    /// Closes the connection so that the client reads a reset: with SO_LINGER on and a
    /// zero timeout, close(2) discards what is unsent and sends RST instead of FIN.
    private func reset(_ channel: any Channel) async {
        if let socket = channel as? any SocketOptionProvider {
            try? await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
    }
}

/// One wait for a connection to close that either the close or a cancellation ends,
/// whichever comes first, and which resumes its continuation exactly once.
private final class CloseWaiter: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Void, Never>?, finished: Bool)>((nil, false))

    func wait(_ continuation: CheckedContinuation<Void, Never>) {
        let finished = state.withLock { state in
            if !state.finished { state.continuation = continuation }
            return state.finished
        }
        if finished { continuation.resume() }
    }

    func finish() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.finished else { return nil }
            state.finished = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }
}

/// The thread the fixture servers of a process run on: an event loop for their sockets,
/// and the preferred executor of their tasks. It lives as long as the process.
private let serverThread = EventLoopTaskExecutor(MultiThreadedEventLoopGroup(numberOfThreads: 1).next())

/// Runs tasks' jobs on a NIO event loop.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
