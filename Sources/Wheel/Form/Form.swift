/// A form a script declared: fields the user edits, checked by the script's `validate`
/// functions and handed to its `on_submit`, laid out by the host and kept clear of the
/// on-screen keyboard by `FormCore`.
///
/// ```swift
/// let form = runtime.form(named: "signup")!
/// // The host lays the fields out and says where (points, content coordinates):
/// var layout = FormLayout(scrollFrame: Rect(x: 0, y: 64, width: 320, height: 416),
///                         contentSize: Size(width: 320, height: 900), fieldFrames: frames)
/// layout.contentInset = Insets(top: 0, bottom: 49)          // its own tab bar: the baseline
/// try form.layout(layout).map(apply)
/// try form.focus("email").map { apply($0.adjustment) }        // began editing
/// try form.keyboardWillShow(keyboardEnd, animation: .init(duration: 0.25)).map(apply)
/// try form.setText("ana@example.org", of: "email")           // each edit
/// try form.keyboardWillHide(animation: .init(duration: 0.25)).map(apply)
/// switch form.submit() { case .submitted: ...; case .invalid(let errors): ...; case .failed(let problem): ... }
/// ```
///
/// **Geometry.** Nothing geometric works before the first `layout`, which says where the
/// scroll view is, how big the content is and where each field sits; call it again
/// after every layout pass (a multi-line field grew, the device rotated): the changes are
/// applied together and the avoidance re-runs. Every event returns the `Adjustment` to
/// apply (insets, offset, the keyboard's animation), or nil when nothing moves. Negative,
/// NaN or infinite geometry is refused with a `FormError` and changes nothing.
///
/// **Values.** Each field holds its text. `setText` is the user typing; a `picker` field
/// takes its text from its picker (the selected items, joined by spaces) when the picker
/// turns while the field is edited, and from the picker's selection when the field is
/// focused empty. A `number` field's value, for `validate` and `on_submit`, is a Lua number
/// (nil when empty).
///
/// **Validation.** A field is checked when the focus leaves it after an edit, as its text
/// changes while it shows an error, and, every field, on `submit`: first `required`, then
/// the kind (`email`, `number`), then the script's `validate(value, form)`, which returns
/// `true`, or `false` and a message. A `validate` that raises, runs out of time or returns
/// anything else marks the field invalid with the problem as its message (`file:line:
/// ...`), and the problem is reported. `on_submit(values, form)` runs only when every field
/// is valid; nothing typed is lost either way.
///
/// Like the runtime that made it, a form lives in one isolation domain.
import Lua
import WheelCore

public final class Form {
    public typealias Adjustment = KeyboardAvoidance.Adjustment
    public typealias FocusChange = FormCore<String>.FocusChange

    /// The name the script gave: `form "signup" { ... }`.
    public let name: String
    /// The fields in declaration order.
    public private(set) var fields: [FormField]
    /// A line of text the host shows with the form; scripts set `f.status`.
    public internal(set) var status: String {
        didSet { if status != oldValue { emit(.statusChanged(status)) } }
    }

    let state: LuaState
    let validators: [LuaFunction?]
    let onSubmit: LuaFunction?
    let indexByID: [String: Int]
    /// The picker of each `picker` field, by field index.
    let pickers: [Int: Picker]
    let reportProblem: (ScriptProblem) -> Void
    var scriptObject: LuaValue = .nil

    private var core: FormCore<String>?
    private var margin: Double = 0
    /// Fields edited since they were last checked: checked when the focus leaves them.
    private var edited: Set<Int> = []
    /// The problem each field's `validate` last reported: the same one again (a validate
    /// that raises at every keystroke) is shown but not reported again.
    private var reported: [Int: String] = [:]
    private var observers = Observers<FormEvent>()
    private var pickerObservers: [(Picker, Int)] = []

    init(name: String, fields: [FormField], validators: [LuaFunction?], onSubmit: LuaFunction?, status: String,
         pickers: [Int: Picker], state: LuaState, reportProblem: @escaping (ScriptProblem) -> Void) {
        self.name = name
        self.fields = fields
        self.validators = validators
        self.onSubmit = onSubmit
        self.status = status
        self.pickers = pickers
        self.state = state
        self.reportProblem = reportProblem
        self.indexByID = Dictionary(uniqueKeysWithValues: fields.enumerated().map { ($1.id, $0) })
        for (index, picker) in pickers.sorted(by: { $0.key < $1.key }) {
            let token = picker.observe { [weak self] event in
                // A turn, or a reload (an on_change that reloads a dependent wheel
                // changes its title without turning it).
                switch event {
                case .changed, .reloaded: self?.pickerTurned(field: index)
                default: break
                }
            }
            pickerObservers.append((picker, token))
        }
    }

    deinit {
        for (picker, token) in pickerObservers { picker.removeObserver(token) }
    }

    // MARK: - Reading

    public func field(_ id: String) -> FormField? {
        indexByID[id].map { fields[$0] }
    }

    /// The field being edited.
    public var focused: String? { core?.focused }

    /// The declared picker a `picker` field shows in the keyboard's place.
    public func picker(of id: String) -> Picker? {
        indexByID[id].flatMap { pickers[$0] }
    }

    /// Whether `layout` has been called: until then, focus and keyboard events throw.
    public var isLaidOut: Bool { core != nil }

    /// The state of the scroll view the host should show (nil before the first layout).
    public var avoidance: KeyboardAvoidance? { core?.avoidance }

    /// The fields in the order next and previous visit them (their positions), once laid
    /// out; before that, declaration order.
    public var visitingOrder: [String] { core?.fields.ids ?? fields.map(\.id) }

    public var hasNext: Bool { core?.hasNext ?? false }
    public var hasPrevious: Bool { core?.hasPrevious ?? false }

    // MARK: - Layout

    /// Where everything is. The first call sets the form up (and its `margin`); later calls
    /// report a new layout pass, applied at once. Every field needs a frame.
    @discardableResult
    public func layout(_ layout: FormLayout) throws -> Adjustment? {
        let unknown = layout.fieldFrames.keys.filter { indexByID[$0] == nil }.sorted()
        if let id = unknown.first { throw FormUseError.unknownField(form: name, field: id, known: fields.map(\.id)) }
        let missing = fields.map(\.id).filter { layout.fieldFrames[$0] == nil }
        if !missing.isEmpty { throw FormUseError.missingFrames(form: name, fields: missing) }

        guard var core, layout.margin == margin else {
            // The first layout, or a new margin: a new core, brought to where the old one was.
            let previous = self.core
            let order = try FieldOrder(fields.map { FieldOrder.Field(id: $0.id, frame: layout.fieldFrames[$0.id]!) })
            let avoidance = try KeyboardAvoidance(
                scrollFrame: layout.scrollFrame, contentSize: layout.contentSize, contentInset: layout.contentInset,
                indicatorInsets: layout.indicatorInsets,
                offset: previous?.avoidance.offset ?? layout.offset
                    ?? Point(x: -layout.contentInset.left, y: -layout.contentInset.top),
                margin: layout.margin, conversion: layout.conversion)
            var fresh = FormCore(fields: order, avoidance: avoidance)
            if let keyboard = previous?.avoidance.keyboardFrame { _ = try fresh.keyboardWillShow(keyboard) }
            if let focused = previous?.focused { _ = try fresh.focus(focused) }
            _ = try fresh.layout(frames: [:])              // settles: the offset clamped to the content
            self.core = fresh
            margin = layout.margin
            let now = fresh.avoidance
            let before = previous?.avoidance
            guard before?.contentInset != now.contentInset || before?.indicatorInsets != now.indicatorInsets
                    || before?.offset != now.offset else { return nil }
            return Adjustment(contentInset: now.contentInset, indicatorInsets: now.indicatorInsets, offset: now.offset)
        }
        let adjustment = try core.layout(
            frames: layout.fieldFrames, contentSize: layout.contentSize, scrollFrame: layout.scrollFrame,
            conversion: layout.conversion, baselineContentInset: layout.contentInset,
            baselineIndicatorInsets: layout.indicatorInsets)
        self.core = core
        return adjustment
    }

    // MARK: - Keyboard and scrolling

    /// The keyboard (or a picker field's input view) will show, ending at `frame` in window
    /// coordinates.
    public func keyboardWillShow(_ frame: Rect, animation: KeyboardAnimation? = nil) throws -> Adjustment? {
        try withCore { try $0.keyboardWillShow(frame, animation: animation) }
    }

    public func keyboardWillChangeFrame(_ frame: Rect, animation: KeyboardAnimation? = nil) throws -> Adjustment? {
        try withCore { try $0.keyboardWillChangeFrame(frame, animation: animation) }
    }

    public func keyboardWillHide(animation: KeyboardAnimation? = nil) throws -> Adjustment? {
        try withCore { try $0.keyboardWillHide(animation: animation) }
    }

    /// The user scrolled the form to `offset`.
    public func scroll(to offset: Point) throws {
        try withCore { try $0.scroll(to: offset) }
    }

    // MARK: - Focus

    /// Field `id` began editing. The field left, if it was edited, is checked.
    public func focus(_ id: String) throws -> FocusChange? {
        guard indexByID[id] != nil else {
            throw FormUseError.unknownField(form: name, field: id, known: fields.map(\.id))
        }
        return try moveFocus { try $0.focus(id) }
    }

    /// Edits the next field in position order (the first, when none is edited); nil at the last.
    public func next() throws -> FocusChange? {
        try moveFocus { $0.next() }
    }

    /// Edits the previous field in position order (the last, when none is edited).
    public func previous() throws -> FocusChange? {
        try moveFocus { $0.previous() }
    }

    /// Ends editing; the host resigns the field, and reports the keyboard's hide.
    public func done() throws -> FocusChange? {
        try moveFocus { $0.done() }
    }

    // MARK: - Values

    /// The user changed field `id`'s text. A single-line field takes line breaks as
    /// spaces. A `picker` field's text comes from its picker: setting it throws.
    public func setText(_ text: String, of id: String) throws {
        guard let index = indexByID[id] else {
            throw FormUseError.unknownField(form: name, field: id, known: fields.map(\.id))
        }
        if fields[index].kind == .picker, let picker = pickers[index] {
            throw FormUseError.pickerField(form: name, field: id, picker: picker.name)
        }
        let text = fields[index].kind == .multiline ? text : Self.singleLine(text)
        guard text != fields[index].text else { return }
        store(text, at: index)
        // A field showing an error is checked as it changes, so the error goes as soon as
        // the text is right.
        if fields[index].error != nil { check(index) } else { edited.insert(index) }
        recheckOthers(than: index)
    }

    /// Checks again the other fields that show an error: theirs may have depended on this
    /// one ("does not match the e-mail").
    private func recheckOthers(than index: Int) {
        for other in fields.indices where other != index && fields[other].error != nil { check(other) }
    }

    /// Checks field `id` now and shows (or clears) its error; returns the error.
    @discardableResult
    public func validate(_ id: String) throws -> String? {
        guard let index = indexByID[id] else {
            throw FormUseError.unknownField(form: name, field: id, known: fields.map(\.id))
        }
        return check(index)
    }

    /// Whether an `on_submit` is running (it may be waiting for an `http` reply).
    public private(set) var isSubmitting = false

    /// Checks every field; when all are valid, runs `on_submit(values, form)` as a
    /// coroutine, so that it may post the values with `http` and wait for the reply. The
    /// values are taken when the submit starts. A submit while one runs returns `.busy`.
    public func submit(isolation: isolated (any Actor)? = #isolation) async -> FormSubmission {
        guard !isSubmitting else { return .busy }
        var errors: [FormFieldError] = []
        for index in fields.indices {
            if let message = check(index) { errors.append(FormFieldError(field: fields[index].id, message: message)) }
        }
        guard errors.isEmpty else { return .invalid(errors) }
        if let onSubmit {
            isSubmitting = true
            defer { isSubmitting = false }
            do {
                let values = try valuesTable()
                try await onSubmit.callAsync(LuaValue.table(values), scriptObject, isolation: isolation)
            } catch {
                let problem = ScriptProblem(error)
                self.problem(problem)
                return .failed(problem)
            }
        }
        emit(.submitted)
        return .submitted
    }

    @discardableResult
    public func observe(_ handler: @escaping (FormEvent) -> Void) -> Int {
        observers.add(handler)
    }

    public func removeObserver(_ token: Int) {
        observers.remove(token)
    }

    // MARK: - Inside

    private func withCore<T>(_ body: (inout FormCore<String>) throws -> T) throws -> T {
        guard var core else { throw FormUseError.noLayout(form: name) }
        let result = try body(&core)
        self.core = core
        return result
    }

    private func moveFocus(_ body: (inout FormCore<String>) throws -> FocusChange?) throws -> FocusChange? {
        let change = try withCore(body)
        guard let change, change.from != change.to else { return change }
        if let left = change.from.flatMap({ indexByID[$0] }), edited.contains(left) { check(left) }
        if let to = change.to.flatMap({ indexByID[$0] }), let picker = pickers[to] {
            // One holding an item shows it on the wheel, which may have turned since: a
            // one-wheel picker turns back to it; otherwise the field takes what the wheels
            // show, as it does when focused empty. (A picker with nothing selected gives
            // nothing: no edit, no event.)
            if !fields[to].text.isEmpty { Self.turn(picker, to: fields[to].text) }
            let text = Self.text(of: picker)
            if !text.isEmpty, text != fields[to].text {
                store(text, at: to)
                if fields[to].error != nil { check(to) } else { edited.insert(to) }
            }
        }
        // Last, so that a host hearing it finds the form settled.
        emit(.focusChanged(from: change.from, to: change.to))
        return change
    }

    private func pickerTurned(field index: Int) {
        guard core?.focused == fields[index].id, let picker = pickers[index] else { return }
        let text = Self.text(of: picker)
        guard text != fields[index].text else { return }
        store(text, at: index)
        if fields[index].error != nil { check(index) } else { edited.insert(index) }
    }

    /// Selects `text` in a one-wheel `items` picker, if it is one of the items.
    static func turn(_ picker: Picker, to text: String) {
        guard let component = picker.components.first, picker.components.count == 1,
              let items = try? picker.items(component.id), let index = items.firstIndex(of: text),
              component.selection != index else { return }
        try? picker.select(component.id, index: index)
    }

    /// A picker's selection as a field's text: the selected titles, joined by spaces.
    static func text(of picker: Picker) -> String {
        picker.components.compactMap { component in
            guard let selection = component.selection,
                  let title = try? picker.title(component.id, item: selection), !title.isFailure else { return nil }
            return title.text
        }.joined(separator: " ")
    }

    static func singleLine(_ text: String) -> String {
        guard text.contains(where: \.isNewline) else { return text }
        return String(text.map { $0.isNewline ? " " : $0 })
    }

    func store(_ text: String, at index: Int) {
        fields[index].text = text
        emit(.textChanged(field: fields[index].id, text: text))
    }

    /// Checks one field, shows the result, and returns its error.
    @discardableResult
    private func check(_ index: Int) -> String? {
        edited.remove(index)
        let error = problem(with: index)
        if fields[index].error != error {
            fields[index].error = error
            emit(.errorChanged(field: fields[index].id, error: error))
        }
        return error
    }

    /// What is wrong with field `index`'s value, if anything.
    private func problem(with index: Int) -> String? {
        let field = fields[index]
        let trimmed = field.text.trimmingWhitespace
        if trimmed.isEmpty {
            if field.required { return "required" }
        } else {
            switch field.kind {
            case .email where !Self.looksLikeEmail(trimmed): return "not an e-mail address"
            case .number where Self.number(trimmed) == nil: return "not a number"
            default: break
            }
        }
        guard let validate = validators[index] else { return nil }
        let results: [LuaValue]
        do {
            results = try validate.callForValues([value(of: index), scriptObject])
        } catch {
            return report(ScriptProblem(error), field: index)
        }
        if case .boolean = results.first ?? .nil { reported[index] = nil }
        switch (results.first ?? .nil, results.count > 1 ? results[1] : .nil) {
        case (.boolean(true), _):
            return nil
        case (.boolean(false), .string(let message)) where !message.bytes.isEmpty:
            return message.description
        case (.boolean(false), .nil), (.boolean(false), .string):   // no message, or an empty one
            return "invalid"
        case (.boolean(false), let other):
            return report(ScriptProblem("validate for field '\(field.id)' returned false and \(Declaring.describe(other)); the message must be a string", in: validate), field: index)
        case (let other, _):
            return report(ScriptProblem("validate for field '\(field.id)' returned \(Declaring.describe(other)); it must return true, or false and a message", in: validate), field: index)
        }
    }

    /// Reports a `validate` problem, unless it is the one this field reported last; its
    /// message is the field's error.
    private func report(_ problem: ScriptProblem, field index: Int) -> String {
        if reported[index] != problem.message {
            reported[index] = problem.message
            self.problem(problem)
        }
        return problem.message
    }

    /// A field's value as scripts get it: a multi-line field's text as it is; a one-line
    /// field's without the spaces round it; a `number` field's a number (nil when empty).
    func value(of index: Int) -> LuaValue {
        let field = fields[index]
        switch field.kind {
        case .multiline: return .string(LuaString(field.text))
        case .number: return Self.number(field.text.trimmingWhitespace) ?? .nil
        default: return .string(LuaString(field.text.trimmingWhitespace))
        }
    }

    /// `{ id = value, ... }` for `on_submit`.
    private func valuesTable() throws -> LuaTable {
        let table = try state.newTable()
        for index in fields.indices { try table.set(fields[index].id, value(of: index)) }
        return table
    }

    /// A number field's text as Lua reads a numeral: an integer when it is written as
    /// one (`42`, `-7`), a float otherwise (`42.0`, `1e3`, `2.5`); nil for anything else,
    /// `nan` and `inf` included.
    static func number(_ text: String) -> LuaValue? {
        if let integer = Int64(text) { return .integer(integer) }
        guard text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }),
              let number = Double(text), number.isFinite else { return nil }
        return .number(number)
    }

    /// What an address people type needs, not all RFC 5322 allows: one `@`; before it, no
    /// spaces, none of `<>()[],;:\"`, and no dot at either end or twice in a row; after
    /// it, two or more dot-separated labels of letters, digits and inner hyphens.
    static func looksLikeEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let local = parts[0], domain = parts[1]
        guard !local.isEmpty, local.first != ".", local.last != ".", !local.contains(".."),
              !local.contains(where: { $0.isWhitespace || "<>()[],;:\\\"".contains($0) }) else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { label in
            !label.isEmpty && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0 == "-" || $0.isLetter || $0.isNumber }
        }
    }

    func emit(_ event: FormEvent) {
        let current = observers
        current.emit(event)
    }

    func problem(_ problem: ScriptProblem) {
        reportProblem(problem)
        emit(.problem(problem))
    }
}

/// A form field: what the script declared, and what it holds now.
public struct FormField: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// One line of text.
        case text
        /// One line, checked as an e-mail address; a host shows its e-mail keyboard.
        case email
        /// One line, checked as a number; scripts get a number.
        case number
        /// Several lines; it grows with its text, and the host lays the form out again.
        case multiline
        /// Its input view is a declared picker instead of keys.
        case picker
    }

    public let id: String
    public let label: String
    public let kind: Kind
    /// Shown in an empty field.
    public let placeholder: String
    /// An empty value is an error (`required`).
    public let required: Bool
    /// The lines a `multiline` field shows at least (1 for other kinds).
    public let lines: Int
    /// The name of a `picker` field's picker.
    public let pickerName: String?
    /// The field's text.
    public internal(set) var text: String
    /// The error shown beside the field; nil when it is valid or not yet checked.
    public internal(set) var error: String?
}

/// Where a host laid the form out.
public struct FormLayout: Sendable, Equatable {
    /// The scroll view's frame, in its frame space.
    public var scrollFrame: Rect
    public var contentSize: Size
    /// Every field's frame, in content coordinates.
    public var fieldFrames: [String: Rect]
    /// The host's own insets (bars): the baseline restored when the keyboard hides. Give
    /// your own, never the ones read back from a scroll view the form has adjusted.
    public var contentInset: Insets
    public var indicatorInsets: Insets
    /// From window coordinates (the keyboard's) to the scroll view's frame space.
    public var conversion: WindowConversion
    /// Room kept round the edited field.
    public var margin: Double
    /// The scroll view's offset now, read at the first layout only (later, `scroll(to:)`
    /// reports the user's scrolling); nil: at rest at the top, `(-left, -top)` of the inset.
    public var offset: Point?

    public init(scrollFrame: Rect, contentSize: Size, fieldFrames: [String: Rect], contentInset: Insets = .zero,
                indicatorInsets: Insets = .zero, conversion: WindowConversion = .identity, margin: Double = 8,
                offset: Point? = nil) {
        self.offset = offset
        self.scrollFrame = scrollFrame
        self.contentSize = contentSize
        self.fieldFrames = fieldFrames
        self.contentInset = contentInset
        self.indicatorInsets = indicatorInsets
        self.conversion = conversion
        self.margin = margin
    }
}

public struct FormFieldError: Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var message: String

    public var description: String { "\(field): \(message)" }
}

/// What `submit()` did.
public enum FormSubmission: Sendable, Equatable {
    /// Every field was valid and `on_submit` ran (or there is none).
    case submitted
    /// These fields are invalid, in declaration order; `on_submit` did not run. A host
    /// usually focuses the first.
    case invalid([FormFieldError])
    /// `on_submit` raised; the values are kept.
    case failed(ScriptProblem)
    /// An earlier submit's `on_submit` is still running; nothing was done.
    case busy
}

public enum FormEvent: Sendable, Equatable {
    case textChanged(field: String, text: String)
    case errorChanged(field: String, error: String?)
    case focusChanged(from: String?, to: String?)
    case statusChanged(String)
    case submitted
    case problem(ScriptProblem)
}

/// A host asked a form for something it cannot do.
public enum FormUseError: Error, Sendable, Equatable, CustomStringConvertible {
    case noLayout(form: String)
    case unknownField(form: String, field: String, known: [String])
    case missingFrames(form: String, fields: [String])
    case pickerField(form: String, field: String, picker: String)

    public var description: String {
        switch self {
        case .noLayout(let form):
            "form '\(form)' has no layout yet: call layout(_:) with the scroll view's frame and the fields' frames first"
        case .unknownField(let form, let field, let known):
            "form '\(form)' has no field '\(field)' (fields: \(known.joined(separator: ", ")))"
        case .missingFrames(let form, let fields):
            "form '\(form)': the layout has no frame for \(fields.map { "'\($0)'" }.joined(separator: ", "))"
        case .pickerField(let form, let field, let picker):
            "form '\(form)': field '\(field)' takes its value from picker '\(picker)'; turn the picker instead"
        }
    }
}

extension String {
    var trimmingWhitespace: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return String(text)
    }
}
