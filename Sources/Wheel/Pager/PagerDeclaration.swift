/// `pager "name" { ... }`: reads a script's declaration into a `Pager`; the script's pager
/// object; and the `url(template, record)` function.
///
/// ```lua
/// pager "timeline" {
///   source = "search",                  -- a feed's name; or items = { record, ... }
///   keep = 1,                           -- pages bound on each side of the current one
///   bind = { title = "from_user", text = "text", image = "profile_image_url" },  -- default: title, text, image
///   -- or bind = function(tweet) return { title = tweet.from_user, text = tweet.text } end
///   on_tap = function(tweet) return url("https://twitter.com/{from_user}/status/{id}", tweet) end,
///   on_bind = function(tweet, index) end,
///   on_unbind = function(tweet, index) end,
/// }
/// ```
import Lua
import WheelCore

extension Pager {
    static let fields: Set<String> = ["source", "items", "keep", "bind", "on_tap", "on_bind", "on_unbind"]

    static func declare(name: String, spec: LuaTable, state: LuaState, images: ImageLoader,
                        feedNamed: @escaping (String) -> Feed?,
                        reportProblem: @escaping (ScriptProblem) -> Void) throws -> Pager {
        func fail(_ message: String) -> LuaError { state.callerError("pager '\(name)': " + message) }
        try Declaring.checkFields(of: spec, allowed: fields, what: "pager '\(name)'", fail: { state.callerError($0) })

        let source: Source
        switch (try spec.rawGet("source", as: LuaValue.self), try spec.rawGet("items", as: LuaValue.self)) {
        case (.string(let feedName), .nil) where !feedName.bytes.isEmpty:
            source = .feed(feedName.description)
        case (.nil, .table(let list)):
            // The records are held as they are (their fields are read when bound).
            source = .items(try (0..<list.count).map { try list.rawGet($0 + 1, as: LuaValue.self) })
        case (.nil, .nil):
            throw fail("give its records: source = \"feed name\", or items = { ... }")
        case (.nil, let other):
            throw fail("items must be a list of records, not \(Declaring.describe(other))")
        case (let other, .nil):
            throw fail("source must be the name of a feed, not \(Declaring.describe(other))")
        default:
            throw fail("give source or items, not both")
        }

        let keep: Int
        switch try spec.rawGet("keep", as: LuaValue.self) {
        case .nil: keep = 1
        case .integer(let number) where number >= 0 && number <= 100: keep = Int(number)
        case let other: throw fail("keep must be a whole number from 0 to 100, not \(Declaring.describe(other))")
        }

        let binding: Binding
        switch try spec.rawGet("bind", as: LuaValue.self) {
        case .function(let function):
            binding = .function(function)
        case .table(let table):
            var paths: [(field: String, path: FieldPath)] = []
            for (key, value) in try table.pairs() {
                guard case .string(let field) = key, case .string(let path) = value, !path.bytes.isEmpty else {
                    throw fail("bind must map field names to paths in the record (title = \"user.name\"), not \(Declaring.describe(key)) = \(Declaring.describe(value))")
                }
                paths.append((field.description, FieldPath(path.description)))
            }
            binding = .paths(paths.sorted { $0.field < $1.field })
        case .nil:
            binding = .paths(["image", "text", "title"].map { ($0, FieldPath($0)) })
        case let other:
            throw fail("bind must be a table of field paths or a function(record, index), not \(Declaring.describe(other))")
        }

        func function(_ field: String, _ signature: String) throws -> LuaFunction? {
            switch try spec.rawGet(field, as: LuaValue.self) {
            case .nil: return nil
            case .function(let function): return function
            case let other: throw fail("\(field) must be a \(signature), not \(Declaring.describe(other))")
            }
        }
        let functions = Functions(
            onTap: try function("on_tap", "function(record, index) returning a URL"),
            onBind: try function("on_bind", "function(record, index)"),
            onUnbind: try function("on_unbind", "function(record, index)"))
        return Pager(name: name, source: source, binding: binding, functions: functions, keep: keep, state: state,
                     images: images, feedNamed: feedNamed, reportProblem: reportProblem)
    }

    /// `url(template, record)`, for every script.
    static func urlFunction(in state: LuaState) -> LuaFunction {
        state.function { (call: LuaCall) -> LuaReturn in
            let template: String = try call.argument(1)
            let record: LuaTable = try call.argument(2)
            do throws(URLTemplate.Failure) {
                return call.return(try URLTemplate.fill(template, from: record))
            } catch {
                throw call.state.callerError("url: \(error.description)")
            }
        }
    }
}

// MARK: - The script's pager object

extension Pager: LuaUserdata {
    public static let luaTypeName = "pager"

    /// `pg.current` (1-based), `pg.count`, `pg:jump(index)`, `pg.name`.
    public static func describe(_ type: inout LuaUserdataType<Pager>) {
        type.property("current") { $0.core.pageCount == 0 ? 0 : $0.core.current + 1 }
        type.property("count") { $0.core.pageCount }
        type.method("jump") { (pager: Pager, index: Int) in pager.jump(to: index - 1) }
        type.property("name") { $0.name }
        type.method("__tostring") { (pager: Pager) -> String in "pager '\(pager.name)'" }
    }
}
