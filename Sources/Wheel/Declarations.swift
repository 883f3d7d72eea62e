/// The declaration functions scripts call (`picker "name" { ... }`, `feed "name" { ... }`,
/// `pager "name" { ... }`, `form "name" { ... }`) and the objects they made, kept in declaration order.
///
/// ```lua
/// picker "resistor" { components = { ... } }       -- the DSL form: a name, then a table
/// local p = picker("clock", { components = { ... } })  -- the same, called plainly; p is the picker
/// ```
import Lua

final class Declarations {
    private(set) var pickers: [Picker] = []
    private(set) var feeds: [Feed] = []
    private(set) var pagers: [Pager] = []
    private(set) var forms: [Form] = []
    /// How pagers fetch images (the runtime's HTTP transport); nil: pages' images fail.
    var transport: (any HTTPTransport)?
    var onProblem: ((ScriptProblem) -> Void)?
    /// The actor the runtime lives on, where feeds run their fetches; nil when the
    /// runtime was made and run outside any actor.
    var actor: (any Actor)?

    /// Puts `picker`, `feed`, `pager`, `form` and `url` in the library every script environment copies.
    func install(in state: LuaState) throws {
        try state.library().set("picker", declaration("picker", example: "components = { ... }", in: state) { [unowned self] in
            try self.declarePicker($0, spec: $1, in: $2)
        })
        try state.library().set("feed", declaration("feed", example: "fetch = function(key, size) ... end", in: state) { [unowned self] in
            try self.declareFeed($0, spec: $1, in: $2)
        })
        try state.library().set("pager", declaration("pager", example: "items = { ... }, bind = { title = \"name\" }", in: state) { [unowned self] in
            try self.declarePager($0, spec: $1, in: $2)
        })
        try state.library().set("form", declaration("form", example: "fields = { { id = \"name\" } }", in: state) { [unowned self] in
            try self.declareForm($0, spec: $1, in: $2)
        })
        try state.library().set("url", Pager.urlFunction(in: state))
    }

    /// The function scripts call as `kind "name" { ... }` or `kind("name", { ... })`;
    /// `declare` makes the object and returns the script's handle on it.
    private func declaration(_ kind: String, example: String, in state: LuaState,
                             declare: @escaping (String, LuaTable, LuaState) throws -> LuaValue) -> LuaFunction {
        state.function { (call: LuaCall) -> LuaReturn in
            guard case .string(let raw) = try call.argument(1, as: LuaValue.self), let name = raw.string, !name.isEmpty else {
                throw ArgumentError(position: 1, message: "a \(kind)'s name must be a non-empty string: \(kind) \"name\" { ... }")
            }
            if call.count >= 2 {
                return call.return(try declare(name, try call.argument(2), call.state))
            }
            // `kind "name"` returns the function that takes the table.
            return call.return(call.state.function { (spec: LuaCall) -> LuaReturn in
                let table: LuaTable
                do {
                    table = try spec.argument(1)
                } catch {
                    throw spec.state.callerError("\(kind) '\(name)' needs a table: \(kind) \"\(name)\" { \(example) }")
                }
                return spec.return(try declare(name, table, spec.state))
            })
        }
    }

    private func declarePicker(_ name: String, spec: LuaTable, in state: LuaState) throws -> LuaValue {
        guard !pickers.contains(where: { $0.name == name }) else {
            throw state.callerError("a picker named '\(name)' is already declared")
        }
        let picker = try Picker.declare(name: name, spec: spec, state: state) { [weak self] problem in
            self?.onProblem?(problem)
        }
        // The script's `p`, made once (invariant 1 holds: pushing a userdata cannot raise).
        picker.scriptObject = try state.value(picker)
        pickers.append(picker)
        // Counts are computed now, in order; a count function that asks for another
        // component's selection computes that one first.
        for index in picker.slots.indices { picker.resolve(index) }
        return picker.scriptObject
    }

    private func declareFeed(_ name: String, spec: LuaTable, in state: LuaState) throws -> LuaValue {
        guard !feeds.contains(where: { $0.name == name }) else {
            throw state.callerError("a feed named '\(name)' is already declared")
        }
        let feed = try Feed.declare(name: name, spec: spec, state: state, actor: { [weak self] in self?.actor }) { [weak self] problem in
            self?.onProblem?(problem)
        }
        feed.scriptObject = try state.value(feed)
        feeds.append(feed)
        return feed.scriptObject
    }

    private func declarePager(_ name: String, spec: LuaTable, in state: LuaState) throws -> LuaValue {
        guard !pagers.contains(where: { $0.name == name }) else {
            throw state.callerError("a pager named '\(name)' is already declared")
        }
        let images = ImageLoader(transport: transport ?? NoTransport(), actor: { [weak self] in self?.actor })
        let pager = try Pager.declare(name: name, spec: spec, state: state, images: images,
                                      feedNamed: { [weak self] name in self?.feeds.first { $0.name == name } }) { [weak self] problem in
            self?.onProblem?(problem)
        }
        pager.scriptObject = try state.value(pager)
        pagers.append(pager)
        return pager.scriptObject
    }

    private func declareForm(_ name: String, spec: LuaTable, in state: LuaState) throws -> LuaValue {
        guard !forms.contains(where: { $0.name == name }) else {
            throw state.callerError("a form named '\(name)' is already declared")
        }
        let form = try Form.declare(name: name, spec: spec, state: state,
                                    pickerNamed: { [unowned self] name in self.pickers.first { $0.name == name } },
                                    pickerNames: pickers.map(\.name)) { [weak self] problem in
            self?.onProblem?(problem)
        }
        form.scriptObject = try state.value(form)
        forms.append(form)
        return form.scriptObject
    }

    /// Stops what the declared objects have in flight (the runtime is going away).
    func stop() {
        for feed in feeds { feed.stop() }
        for pager in pagers { pager.stopAll() }
    }
}

/// The transport of a runtime made without one: every request fails, saying why.
struct NoTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw HTTPFailure(method: request.method, url: request.url, cause: .other("the runtime has no HTTP transport"))
    }
}
