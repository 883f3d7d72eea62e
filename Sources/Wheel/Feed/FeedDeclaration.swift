/// `feed "name" { ... }`: reads a script's declaration into a `Feed`, runs its `fetch`
/// and turns each reply into rows; and the methods scripts call on the feed object.
///
/// ```lua
/// local articles = feed "articles" {
///   page_size = 20, prefetch = 10, max_items = 500, first = 1,
///   fetch = function(key, size)                  -- runs in a coroutine: http.get waits
///     local res = http.get(BASE .. "/articles/" .. key .. ".json")
///     if res.status ~= 200 then error("HTTP " .. res.status) end
///     local page = json.decode(res.body)
///     return page.items, page.next                -- next = nil: the end of the feed
///   end,
///   id = function(item) return item.id end,       -- de-duplication across pages
///   row = function(item) return item.title end,   -- the row's text, made once per item
///   on_select = function(item, index) print(item.url) end,
///   retry = { attempts = 3, backoff = 0.5 },      -- tries in all; seconds before the first retry
/// }
/// articles:refresh()
/// ```
import Lua
import WheelCore

extension Feed {
    static let fields: Set<String> = ["page_size", "prefetch", "max_items", "first", "fetch", "id", "row",
                                      "on_select", "retry"]
    static let retryFields: Set<String> = ["attempts", "backoff"]

    /// Reads the declaration table `spec`. Runs inside the host function the script
    /// called, so `state.callerError` points at the script's `feed` line.
    static func declare(name: String, spec: LuaTable, state: LuaState, actor: @escaping () -> (any Actor)?,
                        reportProblem: @escaping (ScriptProblem) -> Void) throws -> Feed {
        func fail(_ message: String) -> LuaError { state.callerError("feed '\(name)': " + message) }
        try Declaring.checkFields(of: spec, allowed: fields, what: "feed '\(name)'", fail: { state.callerError($0) })

        func whole(_ field: String, default value: Int, minimum: Int, maximum: Int = 1_000_000) throws -> Int {
            switch try spec.rawGet(field, as: LuaValue.self) {
            case .nil: return value
            case .integer(let number) where number >= minimum && number <= maximum: return Int(number)
            case .number(let number) where number.rounded() == number && number >= Double(minimum) && number <= Double(maximum):
                return Int(number)
            case let other:
                throw fail("\(field) must be a whole number from \(minimum) to \(maximum), not \(Declaring.describe(other))")
            }
        }
        func function(_ field: String, required: Bool = false, signature: String) throws -> LuaFunction? {
            switch try spec.rawGet(field, as: LuaValue.self) {
            case .function(let function): return function
            case .nil where !required: return nil
            case let other: throw fail("\(field) must be a \(signature), not \(Declaring.describe(other))")
            }
        }

        var settings = FeedSettings()
        settings.pageSize = try whole("page_size", default: 20, minimum: 1, maximum: 10_000)
        settings.prefetch = try whole("prefetch", default: 10, minimum: 0)
        if case .nil = try spec.rawGet("max_items", as: LuaValue.self) {
            settings.maxItems = nil
        } else {
            settings.maxItems = try whole("max_items", default: 0, minimum: settings.pageSize, maximum: Int(Int32.max))
        }
        switch try spec.rawGet("retry", as: LuaValue.self) {
        case .nil: break
        case .table(let retry):
            try Declaring.checkFields(of: retry, allowed: retryFields, what: "feed '\(name)': retry", fail: { state.callerError($0) })
            switch try retry.rawGet("attempts", as: LuaValue.self) {
            case .nil: break
            case .integer(let number) where number >= 1 && number <= 100: settings.attempts = Int(number)
            case let other: throw fail("retry.attempts must be a whole number from 1 to 100, not \(Declaring.describe(other))")
            }
            switch try retry.rawGet("backoff", as: LuaValue.self) {
            case .nil: break
            case .integer(let seconds) where seconds >= 0 && seconds <= 3600: settings.backoff = .seconds(seconds)
            case .number(let seconds) where seconds >= 0 && seconds <= 3600: settings.backoff = .milliseconds(Int64((seconds * 1000).rounded()))
            case let other: throw fail("retry.backoff must be a number of seconds from 0 to 3600, not \(Declaring.describe(other))")
            }
        case let other:
            throw fail("retry must be a table { attempts = n, backoff = seconds }, not \(Declaring.describe(other))")
        }
        let firstValue = try spec.rawGet("first", as: LuaValue.self)
        let first: FeedKey
        if case .nil = firstValue {
            first = .integer(1)
        } else if let key = FeedKey(firstValue) {
            first = key
        } else {
            throw fail("first must be the first page's key, a number or a string, not \(Declaring.describe(firstValue))")
        }
        let functions = Functions(
            fetch: try function("fetch", required: true, signature: "function(key, size) returning the page's items and the next key")!,
            id: try function("id", signature: "function(item) returning the item's id"),
            row: try function("row", signature: "function(item) returning the row's text"),
            onSelect: try function("on_select", signature: "function(item, index)"))
        return Feed(name: name, settings: settings, first: first, functions: functions, state: state,
                    actor: actor, reportProblem: reportProblem)
    }

    // MARK: - Fetching a page

    /// Runs the script's `fetch(key, size)` as a coroutine on `isolation` and reads its
    /// reply.
    func execute(_ fetch: Core.Fetch, isolation: isolated any Actor) async -> Result<Core.Reply, Core.FetchError> {
        let values: [LuaValue]
        do {
            values = try await functions.fetch.callAsyncForValues(
                [fetch.key.luaValue, .integer(Int64(fetch.size))], isolation: isolation)
        } catch {
            return .failure(failure(of: error))
        }
        return ingest(values)
    }

    /// A failed `fetch` call as the core sees it. Errors the script raised (an HTTP error,
    /// `error("HTTP 500")`) are tried again by themselves; a deadline or the memory
    /// ceiling would only fire again, so they wait for `retry()` and are reported.
    private func failure(of error: any Error) -> Core.FetchError {
        switch error {
        case is CancellationError:
            return Core.FetchError("cancelled", retryable: false)
        case LuaError.timeout, LuaError.memory, LuaError.closed:
            let problem = ScriptProblem(error)
            self.problem(problem)
            return Core.FetchError(problem.message, retryable: false)
        default:
            return Core.FetchError(ScriptProblem(error).message, retryable: true)
        }
    }

    /// Turns `fetch`'s results (items, next key) into the core's reply: each item's row
    /// text and id are made here, once. A wrong result is an error located at the function
    /// that gave it, and is reported; the page is not used.
    private func ingest(_ values: [LuaValue]) -> Result<Core.Reply, Core.FetchError> {
        func wrong(_ text: String, in function: LuaFunction) -> Result<Core.Reply, Core.FetchError> {
            let problem = ScriptProblem(text, in: function)
            self.problem(problem)
            return .failure(Core.FetchError(problem.message, retryable: false))
        }
        guard case .table(let list) = values.first ?? .nil else {
            return wrong("fetch returned \(Declaring.describe(values.first ?? .nil)), expected a list of items and the next key",
                         in: functions.fetch)
        }
        let nextValue = values.count > 1 ? values[1] : .nil
        var next: FeedKey?
        if nextValue.isNothing {
            next = nil
        } else if let key = FeedKey(nextValue) {
            next = key
        } else {
            return wrong("fetch returned \(Declaring.describe(nextValue)) as the next key, expected a number, a string or nil (the end)",
                         in: functions.fetch)
        }
        let count = list.count
        var entries: [Core.Entry] = []
        entries.reserveCapacity(count)
        do {
            // One run of calls for the page's `row` and `id` calls: one message handler.
            let problem: WrongValue? = try state.repeatedly { calls in
                for position in stride(from: 1, through: count, by: 1) {
                    let item = try list.rawGet(position, as: LuaValue.self)
                    let text: String
                    switch try rowText(item, position: position, calls: calls) {
                    case .text(let made): text = made
                    case .wrong(let problem): return problem
                    }
                    var id: FeedKey?
                    if let function = functions.id {
                        let value = try calls.call(function, item, returning: LuaValue.self)
                        if value.isNothing {
                            id = nil
                        } else if let key = FeedKey(value) {
                            id = key
                        } else {
                            return WrongValue(text: "id returned \(Declaring.describe(value)) for item \(position), expected a number, a string or nil",
                                              function: function)
                        }
                    }
                    entries.append(Core.Entry(item: FeedItem(value: item, text: text), id: id))
                }
                return nil
            }
            if let problem { return wrong(problem.text, in: problem.function) }
        } catch {
            // A `row` or `id` that raised: its own message says where.
            let problem = ScriptProblem(error)
            self.problem(problem)
            return .failure(Core.FetchError(problem.message, retryable: false))
        }
        return .success(Core.Reply(entries: entries, next: next))
    }

    /// A value a script function gave that the feed cannot use, and that function.
    private struct WrongValue {
        let text: String
        let function: LuaFunction
    }

    private enum RowText {
        case text(String)
        case wrong(WrongValue)
    }

    /// The text of an item's row: `row(item)` when the feed has one, else the item itself
    /// when it is a string or a number.
    private func rowText(_ item: LuaValue, position: Int, calls: LuaRepeatedCalls) throws -> RowText {
        guard let row = functions.row else {
            switch item {
            case .string(let text): return .text(text.description)
            case .integer(let number): return .text(String(number))
            case .number(let number): return .text(ComponentCount.luaNumber(number))
            default:
                return .wrong(WrongValue(text: "item \(position) is \(Declaring.describe(item)); give the feed a row function(item) that returns its text",
                                           function: functions.fetch))
            }
        }
        switch try calls.call(row, item, returning: LuaValue.self) {
        case .string(let text): return .text(text.description)
        case .integer(let number): return .text(String(number))
        case .number(let number): return .text(ComponentCount.luaNumber(number))
        case let other:
            return .wrong(WrongValue(text: "row returned \(Declaring.describe(other)) for item \(position), expected a string",
                                       function: row))
        }
    }
}

// MARK: - The script's feed object

extension Feed: LuaUserdata {
    public static let luaTypeName = "feed"

    /// `f:refresh()`, `f:retry()`, `f:item(i)` (nil while not loaded), `f.count` (rows),
    /// `f.loaded` (items held), `f.state` (`"idle"`, `"loading"`, `"error"` or `"end"`),
    /// `f.error` (the message, or nil), `f.name`.
    public static func describe(_ type: inout LuaUserdataType<Feed>) {
        type.method("refresh") { (feed: Feed) in feed.refresh() }
        type.method("retry") { (feed: Feed) in feed.retry() }
        type.method("item") { (feed: Feed, index: Int) -> LuaValue in feed.item(index - 1) ?? .nil }
        type.property("count") { $0.rowCount }
        type.property("loaded") { $0.itemCount }
        type.property("state") { (feed: Feed) -> String in
            switch feed.footer {
            case .more: "idle"
            case .loading: "loading"
            case .error: "error"
            case .end: "end"
            }
        }
        type.property("error") { (feed: Feed) -> String? in
            if case .error(let message) = feed.footer { return message }
            return nil
        }
        type.property("name") { $0.name }
        type.method("__tostring") { (feed: Feed) -> String in "feed '\(feed.name)'" }
    }
}

extension LuaValue {
    /// nil, or JSON's null (`json.null`): a decoded `"next": null` ends a feed.
    var isNothing: Bool {
        switch self {
        case .nil: true
        case .lightUserdata(let pointer): pointer == nil
        default: false
        }
    }
}
