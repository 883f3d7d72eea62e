/// The `http` library scripts see: `http.get` and `http.request`, async host functions that
/// park the calling coroutine while the transport works (bridge invariant 5).
///
/// ```lua
/// local res = http.get(BASE .. "/items?page=1", { headers = { accept = "application/json" }, timeout = 2 })
/// if res.status ~= 200 then error(("HTTP %d"):format(res.status)) end
/// local page = json.decode(res.body)
///
/// local created = http.request {
///   method = "POST", url = BASE .. "/items", timeout = 5,
///   headers = { ["content-type"] = "application/json" },
///   body = json.encode({ title = "new" }),
/// }
/// print(created.status, created.headers["location"])
/// ```
///
/// Both return `{ status = 200, headers = { ["content-type"] = "..." }, body = "..." }`:
/// every status is a response; header names are lower case, and a repeated header's values
/// are joined with ", "; the body is a Lua string of the bytes received. A request that got
/// no response raises an `HTTPFailure` at the call, which `pcall` catches and `tostring`
/// turns into `GET http://127.0.0.1:5/items: connection refused`. A wrong argument is a
/// script error at the calling line, raised before anything is sent.
import Lua

struct HTTPModule {
    let transport: any HTTPTransport
    /// The timeout of a request that does not give one.
    let timeout: Duration

    /// Puts `http` in the library every script environment copies.
    func install(in state: LuaState) throws {
        let module = try state.newTable()
        let transport = transport, timeout = timeout
        try module.set("get", state.asyncFunction { (url: GetURL, options: GetOptions?) async throws -> ResponseTable in
            try await Self.send(HTTPRequest(method: "GET", url: url.text, headers: options?.headers ?? [],
                                            timeout: options?.timeout ?? timeout), through: transport)
        })
        try module.set("request", state.asyncFunction { (spec: RequestSpec) async throws -> ResponseTable in
            try await Self.send(HTTPRequest(method: spec.method, url: spec.url, headers: spec.headers,
                                            body: spec.body, timeout: spec.timeout ?? timeout), through: transport)
        })
        try state.library().set("http", module)
    }

    /// Sends `request`; whatever a transport throws reaches the script as an `HTTPFailure`,
    /// so that every failure names the method and the URL.
    static func send(_ request: HTTPRequest, through transport: any HTTPTransport) async throws -> ResponseTable {
        do {
            return ResponseTable(response: try await transport.send(request))
        } catch let failure as HTTPFailure {
            throw failure
        } catch is CancellationError {
            throw HTTPFailure(method: request.method, url: request.url, cause: .cancelled)
        } catch {
            throw HTTPFailure(method: request.method, url: request.url, cause: .other("\(error)"))
        }
    }
}

// MARK: - Arguments

// Each argument is read, and checked, by the trampoline before the coroutine parks: a
// mistake is an error at the script's line (`state.callerError`), and nothing is sent.

/// `http.get`'s first argument.
struct GetURL: LuaReadable, Sendable {
    let text: String

    static func read(from state: LuaState, at index: Int32) throws -> GetURL {
        let checker = ArgumentChecker(function: "http.get", state: state)
        return GetURL(text: try checker.url(try LuaValue.read(from: state, at: index)))
    }
}

/// `http.get`'s second argument: `{ headers = {...}, timeout = seconds }`.
struct GetOptions: LuaReadable, Sendable {
    var headers: [(name: String, value: String)] = []
    var timeout: Duration?

    static func read(from state: LuaState, at index: Int32) throws -> GetOptions {
        let checker = ArgumentChecker(function: "http.get", state: state)
        guard case .table(let table) = try LuaValue.read(from: state, at: index) else {
            throw checker.fail("options must be a table { headers = ..., timeout = ... }, got \(LuaValue.typeName(in: state, at: index))")
        }
        var options = GetOptions()
        for (key, value) in try table.pairs() {
            switch try checker.fieldName(key) {
            case "headers": options.headers = try checker.headers(value)
            case "timeout": options.timeout = try checker.timeout(value)
            case let name: throw checker.fail("unknown option '\(name)' (the options are headers and timeout)")
            }
        }
        return options
    }
}

/// `http.request`'s argument: `{ method = "GET", url = ..., headers = {...}, body = ..., timeout = seconds }`.
struct RequestSpec: LuaReadable, Sendable {
    var method = "GET"
    var url = ""
    var headers: [(name: String, value: String)] = []
    var body: [UInt8]?
    var timeout: Duration?

    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    static func read(from state: LuaState, at index: Int32) throws -> RequestSpec {
        let checker = ArgumentChecker(function: "http.request", state: state)
        guard case .table(let table) = try LuaValue.read(from: state, at: index) else {
            throw checker.fail("expected a table { method = ..., url = ..., headers = ..., body = ..., timeout = ... }, got \(LuaValue.typeName(in: state, at: index))")
        }
        var spec = RequestSpec()
        var url: String?
        for (key, value) in try table.pairs() {
            switch try checker.fieldName(key) {
            case "method":
                guard case .string(let raw) = value, let text = raw.string else {
                    throw checker.fail("method must be a string, got \(checker.typeName(value))")
                }
                guard Self.methods.contains(text.uppercased()) else {
                    throw checker.fail("unknown method '\(text)' (\(Self.methods.joined(separator: ", ")))")
                }
                spec.method = text.uppercased()
            case "url": url = try checker.url(value)
            case "headers": spec.headers = try checker.headers(value)
            case "body":
                switch value {
                case .nil: spec.body = nil
                case .string(let bytes): spec.body = bytes.bytes
                default: throw checker.fail("body must be a string, got \(checker.typeName(value))")
                }
            case "timeout": spec.timeout = try checker.timeout(value)
            case let name:
                throw checker.fail("unknown field '\(name)' (the fields are method, url, headers, body and timeout)")
            }
        }
        guard let url else { throw checker.fail("url must be a string, got nil") }
        spec.url = url
        return spec
    }
}

/// Checks the parts of an argument; its errors start with the script's `file:line:` and
/// the function's name.
struct ArgumentChecker {
    let function: String
    let state: LuaState

    func fail(_ message: String) -> LuaError {
        state.callerError("\(function): \(message)")
    }

    func typeName(_ value: LuaValue) -> String {
        value.typeName
    }

    func fieldName(_ key: LuaValue) throws -> String {
        guard case .string(let raw) = key, let name = raw.string else {
            throw fail("a table with string keys expected, found a \(typeName(key)) key")
        }
        return name
    }

    func url(_ value: LuaValue) throws -> String {
        guard case .string(let raw) = value else { throw fail("url must be a string, got \(typeName(value))") }
        guard let text = raw.string else { throw fail("url must be UTF-8 text") }
        return text
    }

    /// A table of names to strings (whole numbers are written out): `{ accept = "text/plain" }`.
    func headers(_ value: LuaValue) throws -> [(name: String, value: String)] {
        guard case .table(let table) = value else {
            throw fail("headers must be a table of strings, got \(typeName(value))")
        }
        var headers: [(name: String, value: String)] = []
        for (key, field) in try table.pairs() {
            guard case .string(let rawName) = key, let name = rawName.string else {
                throw fail("headers must be a table of strings, found a \(typeName(key)) key")
            }
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
                throw fail("'\(name)' is not a valid header name")
            }
            let text: String
            switch field {
            case .string(let raw):
                guard let string = raw.string else { throw fail("header '\(name)' must be UTF-8 text") }
                text = string
            case .integer(let number):
                text = String(number)
            default:
                throw fail("headers must be a table of strings, header '\(name)' is a \(typeName(field))")
            }
            guard !text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw fail("header '\(name)' contains a line break")
            }
            headers.append((name, text))
        }
        return headers
    }

    /// A positive number of seconds.
    func timeout(_ value: LuaValue) throws -> Duration? {
        let seconds: Double, written: String
        switch value {
        case .nil: return nil
        case .integer(let number): (seconds, written) = (Double(number), String(number))
        case .number(let number): (seconds, written) = (number, String(number))
        default: throw fail("timeout must be a number of seconds, got \(typeName(value))")
        }
        guard seconds > 0, seconds.isFinite else {
            throw fail("timeout must be a positive number of seconds, got \(written)")
        }
        // A year is as good as forever, and keeps the nanoseconds inside Int64.
        return .nanoseconds(Int64((min(seconds, 31_536_000) * 1e9).rounded()))
    }

    /// RFC 9110 `tchar`: the characters of a header name.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

// MARK: - The result

/// The table a script gets back: `{ status = ..., headers = { ... }, body = "..." }`.
struct ResponseTable: LuaPushable, Sendable {
    let response: HTTPResponse

    /// Lower-case names; the values of a repeated header joined with ", ", in order.
    var headers: [String: String] {
        var joined: [String: String] = [:]
        for header in response.headers {
            let name = header.name.lowercased()
            joined[name] = joined[name].map { $0 + ", " + header.value } ?? header.value
        }
        return joined
    }

    func push(to state: LuaState) {
        let fields: [String: Field] = [
            "status": .integer(response.status),
            "headers": .table(headers),
            "body": .bytes(LuaString(bytes: response.body)),
        ]
        fields.push(to: state)
    }

    enum Field: LuaPushable {
        case integer(Int)
        case bytes(LuaString)
        case table([String: String])

        func push(to state: LuaState) {
            switch self {
            case .integer(let value): value.push(to: state)
            case .bytes(let value): value.push(to: state)
            case .table(let value): value.push(to: state)
            }
        }
    }
}
