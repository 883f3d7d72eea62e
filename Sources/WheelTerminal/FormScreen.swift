/// A form on a virtual screen: the headless output of `wheel-run`, and the host that
/// drives the form as a phone would.
///
/// ```
/// form "signup": editing confirm (4 of 11) · rows 1–12 of 25 · keyboard 8 rows
///   Fields marked * are required
/// ┌────────────────────────────────────────────────────────────────┐
/// │   ...                                                          │
/// │   E-mail *                                                     │
/// │   [ana@example             ]  ✗ not an e-mail address          │
/// │ ▸ E-mail again *                                               │
/// │   [                        ]                                   │
/// │   ...                                                          │
/// ├─────────────────────────── keyboard ───────────────────────────┤
/// │   q  w  e  r  t  y  u  i  o  p                                 │
/// │   ...                                                          │
/// └────────────────────────────────────────────────────────────────┘
/// ```
///
/// The screen is the form's scroll view, `rows` rows of `width` cells; one row is one
/// point of geometry, so the form's core works on it as on a phone's points. Each field
/// takes a label row (`*`: required; `▸`: edited) and its input rows: one, or for a
/// multi-line field as many as its wrapped text needs (at least its `lines`, at most 6
/// unless `lines` says more; beyond that it scrolls inside, showing its end while
/// edited), so typing into it lays the form out again, as does a script's `f:set`. An
/// error shows beside its field; control characters in any text show as spaces. While a
/// field is edited, the keyboard takes the bottom rows (8 unless `keyboard show n` says
/// otherwise, never more than the screen's rows less 2),
/// or, for a picker field, the field's picker does, as tall as its wheels; the form's
/// bottom inset is what they cover, and it scrolls so that the edited field sits above.
import Wheel
import WheelCore

@MainActor
public final class FormScreen {
    /// The headless screen: 64 cells by 20 rows.
    public nonisolated static let defaultWidth = 64
    public nonisolated static let defaultRows = 20
    public nonisolated static let defaultKeyboardRows = 8
    /// A multi-line field grows to this many lines (or its `lines`, if more), then
    /// scrolls inside itself, as a text view does: so it always fits above a keyboard.
    public nonisolated static let maximumGrowth = 6

    public let form: Form
    /// The screen's size in cells; `resize` changes it, as a rotation does.
    public private(set) var screenWidth: Int
    public private(set) var screenRows: Int
    /// The cells between an input's brackets: 24 on the default screen.
    var inputWidth: Int { max(8, min(40, 24 + (screenWidth - Self.defaultWidth) / 2)) }
    /// The height of the text keyboard (`keyboard show n` changes it).
    public private(set) var keyboardRows = FormScreen.defaultKeyboardRows
    /// The rows the panel at the bottom takes now: 0 while the keyboard is hidden.
    private var shownPanelRows = 0
    /// Where each field's rows start, and how many input rows it has.
    private var places: [(top: Int, inputRows: Int)] = []
    private var contentRows = 0

    /// Set when a field's text changed by other means than this screen's (a script's
    /// `f:set`): the form is laid out again before the next event or drawing.
    private var stale = false

    public init(form: Form, width: Int = FormScreen.defaultWidth, rows: Int = FormScreen.defaultRows) throws {
        self.form = form
        screenWidth = max(width, 20)
        screenRows = max(rows, 1)
        try layout()
        form.observe { [weak self] event in
            if case .textChanged = event { self?.stale = true }
        }
    }

    private func layoutIfNeeded() throws {
        if stale { try layout() }
    }

    /// The screen changed size: the form is laid out again, and a shown keyboard measured
    /// again in the new frame.
    public func resize(width: Int, rows: Int) throws {
        guard width != screenWidth || rows != screenRows else { return }
        screenWidth = max(width, 20)
        screenRows = max(rows, 1)
        try layout()
        if shownPanelRows > 0 {
            // Measured again from the keyboard or picker, so that it grows back too.
            shownPanelRows = fittingPanelRows
            let frame = Rect(x: 0, y: Double(screenRows - shownPanelRows), width: Double(screenWidth), height: Double(shownPanelRows))
            _ = try form.keyboardWillChangeFrame(frame)
        }
    }

    public var isKeyboardShown: Bool { shownPanelRows > 0 }

    // MARK: - Events

    public func focus(_ id: String) throws {
        try layoutIfNeeded()
        _ = try form.focus(id)
        try showPanel()
    }

    public func next() throws {
        try layoutIfNeeded()
        _ = try form.next()
        try showPanel()
    }

    public func previous() throws {
        try layoutIfNeeded()
        _ = try form.previous()
        try showPanel()
    }

    /// Ends editing, and the keyboard goes.
    public func done() throws {
        try layoutIfNeeded()
        _ = try form.done()
        try hidePanel()
    }

    /// Adds `text` to the edited field, as typing it does; a multi-line field may grow.
    public func type(_ text: String) throws {
        try layoutIfNeeded()
        guard let id = form.focused, let field = form.field(id) else {
            throw FormScreenError("no field is edited; focus one first: focus \(form.fields[0].id)")
        }
        guard field.kind != .picker else {
            throw FormScreenError("field '\(id)' is a picker field; spin its picker instead: spin \(pickerComponent(id)) +1")
        }
        try form.setText(field.text + text, of: id)
        try layout()
    }

    /// Deletes the edited field's last character, as the backspace key does.
    public func deleteBackward() throws {
        guard let id = form.focused, let field = form.field(id) else { throw FormScreenError("no field is edited") }
        guard field.kind != .picker, !field.text.isEmpty else { return }
        try form.setText(String(field.text.dropLast()), of: id)
        try layout()
    }

    /// Empties the edited field.
    public func clear() throws {
        guard let id = form.focused else { throw FormScreenError("no field is edited; focus one first") }
        guard form.field(id)?.kind != .picker else { throw FormScreenError("field '\(id)' is a picker field; spin its picker instead") }
        try form.setText("", of: id)
        try layout()
    }

    /// `keyboard show n`: the text keyboard takes n rows from now on (at most the
    /// screen's rows less 2, so the edited field stays in sight), shown now if a field is
    /// edited; `nil`: the keyboard hides, the field staying edited.
    public func keyboard(rows: Int?) throws {
        try layoutIfNeeded()
        guard let rows else { return try hidePanel() }
        keyboardRows = max(1, min(rows, screenRows - 2))
        guard form.focused != nil else { return }
        try showPanel()
    }

    /// Submits: editing ends and the keyboard goes; when fields are invalid, the first is
    /// edited again. Returns the line that reports what happened.
    public func submit() async throws -> String {
        try layoutIfNeeded()
        _ = try form.done()
        try hidePanel()
        switch await form.submit() {
        case .submitted:
            return "submitted"
        case .failed(let problem):
            return "on_submit failed: \(problem.message)"
        case .busy:
            return "not submitted: the last submit is still running"
        case .invalid(let errors):
            try focus(errors[0].field)
            return "not submitted: " + errors.map { "\($0.field) (\($0.message))" }.joined(separator: ", ")
        }
    }

    // MARK: - Geometry

    /// The panel's rows on this screen: never more than the rows less 2, so that the
    /// edited field stays in sight (a short terminal, a tall picker).
    private var fittingPanelRows: Int { max(1, min(panelRows, screenRows - 2)) }

    /// The panel the edited field needs: its picker, or the keyboard.
    private var panelRows: Int {
        guard let id = form.focused, let picker = form.picker(of: id) else { return keyboardRows }
        return picker.visibleRows + 1
    }

    private func showPanel() throws {
        guard form.focused != nil else { return try hidePanel() }
        let rows = fittingPanelRows
        let frame = Rect(x: 0, y: Double(screenRows - rows), width: Double(screenWidth), height: Double(rows))
        if shownPanelRows == 0 {
            _ = try form.keyboardWillShow(frame)
        } else if shownPanelRows != rows {
            _ = try form.keyboardWillChangeFrame(frame)
        }
        shownPanelRows = rows
    }

    private func hidePanel() throws {
        guard shownPanelRows > 0 else { return }
        _ = try form.keyboardWillHide()
        shownPanelRows = 0
    }

    /// Lays the fields out from their texts and tells the form.
    private func layout() throws {
        stale = false
        places = []
        var top = 0
        var frames: [String: Rect] = [:]
        for field in form.fields {
            let inputRows = field.kind == .multiline
                ? min(max(field.lines, Self.wrap(field.text, width: inputWidth).count), max(field.lines, Self.maximumGrowth)) : 1
            places.append((top, inputRows))
            frames[field.id] = Rect(x: 0, y: Double(top), width: Double(screenWidth), height: Double(1 + inputRows))
            top += 1 + inputRows
        }
        contentRows = top + 2                   // a blank row and the submit button
        _ = try form.layout(FormLayout(
            scrollFrame: Rect(x: 0, y: 0, width: Double(screenWidth), height: Double(screenRows)),
            contentSize: Size(width: Double(screenWidth), height: Double(contentRows)),
            fieldFrames: frames, margin: 0))
    }

    private func pickerComponent(_ id: String) -> String {
        form.picker(of: id)?.components.first?.id ?? id
    }

    // MARK: - Drawing

    public func render() -> String {
        try? layoutIfNeeded()
        guard let avoidance = form.avoidance else { return "form \"\(form.name)\": not laid out" }
        let visible = screenRows - Int(avoidance.contentInset.bottom.rounded())
        let first = Int(avoidance.offset.y.rounded())
        var heading = "form \"\(form.name)\": "
        if let id = form.focused, let place = form.visitingOrder.firstIndex(of: id) {
            heading += "editing \(id) (\(place + 1) of \(form.fields.count))"
        } else {
            heading += form.fields.count == 1 ? "1 field" : "\(form.fields.count) fields"
        }
        heading += visible > 0 ? " · rows \(max(first, 0) + 1)–\(min(first + visible, contentRows)) of \(contentRows)" : " · no rows"
        if shownPanelRows > 0 {
            heading += form.focused.flatMap(form.picker(of:)) != nil ? " · picker \(shownPanelRows) rows" : " · keyboard \(shownPanelRows) rows"
        }
        var lines = [Self.shown(heading)]
        if !form.status.isEmpty { lines.append("  " + Self.shown(form.status)) }
        lines.append("┌" + String(repeating: "─", count: screenWidth) + "┐")
        let content = contentLines()
        for row in first..<(first + visible) {
            lines.append(boxed(row >= 0 && row < content.count ? content[row] : ""))
        }
        if shownPanelRows > 0 {
            let name = form.focused.flatMap(form.picker(of:)).map { picker in
                "picker \"\(picker.name)\"" + (picker.status.isEmpty ? "" : ": \(picker.status)")
            } ?? "keyboard"
            // Cut to the screen, in cells: a long or wide name never breaks the border.
            let title = " " + TextWidth.cut(Self.shown(name), to: max(1, screenWidth - 4)) + " "
            let left = (screenWidth - TextWidth.of(title)) / 2
            lines.append("├" + String(repeating: "─", count: left) + title
                + String(repeating: "─", count: max(0, screenWidth - left - TextWidth.of(title))) + "┤")
            let panel = panelLines()
            for row in 0..<(shownPanelRows - 1) { lines.append(boxed(row < panel.count ? panel[row] : "")) }
        }
        lines.append("└" + String(repeating: "─", count: screenWidth) + "┘")
        return lines.joined(separator: "\n")
    }

    private func boxed(_ text: String) -> String {
        let cut = TextWidth.cut(Self.shown(text), to: screenWidth)
        return "│" + cut + String(repeating: " ", count: screenWidth - TextWidth.of(cut)) + "│"
    }

    /// Every row of the content, top to bottom.
    private func contentLines() -> [String] {
        var lines: [String] = []
        for (index, field) in form.fields.enumerated() {
            let edited = form.focused == field.id
            // A long label is cut before its `*`, which always shows.
            let mark = field.required ? " *" : ""
            lines.append((edited ? " ▸ " : "   ") + TextWidth.cut(Self.shown(field.label), to: screenWidth - 3 - mark.count) + mark)
            let inputs = inputLines(field, edited: edited, rows: places[index].inputRows)
            for (row, text) in inputs.enumerated() {
                let text = Self.shown(text)              // padded as it is shown
                var line = "   [" + text + String(repeating: " ", count: max(0, inputWidth - TextWidth.of(text))) + "]"
                if row == 0, let error = field.error { line += "  ✗ " + error }
                lines.append(line)
            }
        }
        lines.append("")
        lines.append("   [ Submit ]")
        return lines
    }

    private func inputLines(_ field: FormField, edited: Bool, rows: Int) -> [String] {
        if field.text.isEmpty {
            let placeholder = field.placeholder.isEmpty ? "" : "‹" + TextWidth.cut(field.placeholder, to: inputWidth - 2) + "›"
            return [placeholder] + Array(repeating: "", count: rows - 1)
        }
        switch field.kind {
        case .multiline:
            let wrapped = Self.wrap(field.text, width: inputWidth)
            guard wrapped.count > rows else { return wrapped + Array(repeating: "", count: rows - wrapped.count) }
            // Longer than the field: an edited field shows its end, where the cursor is,
            // the others their start; `…` marks the lines out of sight.
            if edited { return ["…" + TextWidth.cut(wrapped[wrapped.count - rows], to: inputWidth - 1)] + wrapped.suffix(rows - 1) }
            return wrapped.prefix(rows - 1) + [TextWidth.cut(wrapped[rows - 1], to: inputWidth - 1) + "…"]
        case .picker:
            return [TextWidth.cut(field.text, to: inputWidth - 2) + " ▾"]
        default:
            // An edited field shows its end, where the cursor is; the others their start.
            return [edited ? Self.tail(field.text, width: inputWidth) : TextWidth.cut(field.text, to: inputWidth)]
        }
    }

    /// The panel's rows under its top border: the picker's wheels, or a keyboard's keys.
    private func panelLines() -> [String] {
        if let id = form.focused, let picker = form.picker(of: id) {
            return PickerText.render(picker.frame(), picker: picker).split(separator: "\n").dropFirst(2).map { "  " + $0 }
        }
        let kind = form.focused.flatMap(form.field).map(\.kind) ?? .text
        let returnKey = form.hasNext ? "next" : "done"
        switch kind {
        case .number:
            return ["      1   2   3", "      4   5   6", "      7   8   9", "      .   0   ⌫      \(returnKey)"]
        case .email:
            return ["   q  w  e  r  t  y  u  i  o  p", "    a  s  d  f  g  h  j  k  l", "      z  x  c  v  b  n  m  ⌫",
                    "   123   @   .   space   \(returnKey)"]
        case .multiline:
            return ["   q  w  e  r  t  y  u  i  o  p", "    a  s  d  f  g  h  j  k  l", "      z  x  c  v  b  n  m  ⌫",
                    "   123   space   return   \(returnKey)"]
        case .text, .picker:
            return ["   q  w  e  r  t  y  u  i  o  p", "    a  s  d  f  g  h  j  k  l", "      z  x  c  v  b  n  m  ⌫",
                    "   123   space   \(returnKey)"]
        }
    }

    /// A multi-line field's text, wrapped at the input's width (words kept whole when
    /// they fit).
    static func wrap(_ text: String, width inputWidth: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                var word = String(word)
                let candidate = line.isEmpty ? word : line + " " + word
                if TextWidth.of(candidate) <= inputWidth {
                    line = candidate
                    continue
                }
                if !line.isEmpty { lines.append(line) }
                // A word longer than a line is broken across lines, by cells.
                while TextWidth.of(word) > inputWidth {
                    var head = "", used = 0
                    for character in word {
                        let cells = TextWidth.width(of: character)
                        if used + cells > inputWidth { break }
                        head.append(character)
                        used += cells
                    }
                    if head.isEmpty { head = String(word.prefix(1)) }
                    lines.append(head)
                    word = String(word.dropFirst(head.count))
                }
                line = word
            }
            lines.append(line)
        }
        return lines
    }

    /// Text as the screen shows it: control characters (a tab, a line break in a label or
    /// a message) as spaces, so that no line is split or misaligned.
    static func shown(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || ($0.value >= 0x7F && $0.value < 0xA0) }) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0) ? " " : scalar
        }))
    }

    /// The end of `text` that fits `width` cells, after `…` when cut.
    static func tail(_ text: String, width: Int) -> String {
        guard TextWidth.of(text) > width else { return text }
        var result = ""
        var used = 1
        for character in text.reversed() {
            let cells = TextWidth.width(of: character)
            if used + cells > width { break }
            result.insert(character, at: result.startIndex)
            used += cells
        }
        return "…" + result
    }
}

/// An input a form screen cannot take: typing with no field edited, typing into a picker
/// field.
public struct FormScreenError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
