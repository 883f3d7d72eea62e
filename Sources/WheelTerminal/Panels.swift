/// The interactive views of the declared objects: each draws itself into an area of the
/// canvas and answers keys. The app around them draws the switcher and the status line.
import Foundation
import Wheel
import WheelCore

/// What a panel did with a key.
public enum PanelReply: Equatable, Sendable {
    /// Not a key it takes (the app may: `q` quits, digits switch).
    case ignored
    case handled
    /// Handled, with a line for the status bar (`open https://...`).
    case message(String, isError: Bool)
    /// A tap gave a URL to open.
    case open(String)
}

@MainActor
public protocol Panel: AnyObject {
    /// The switcher's label: `picker "resistor"`.
    var title: String { get }
    /// The keys it takes, for the status line.
    var hints: String { get }
    /// Whether it takes printable keys as text now (a form field is edited): `q` and the
    /// digits go to it, not to the app.
    var capturesTyping: Bool { get }
    /// Whether something is under way that a spinner shows.
    var isBusy: Bool { get }
    /// Draws into rows `top ..< top + height` of the canvas; `tick` turns spinners.
    func draw(into canvas: inout Canvas, top: Int, height: Int, tick: Int)
    func handle(_ key: Key, height: Int) -> PanelReply
    /// A message that came later than the key that caused it (a submit's outcome).
    func takeMessage() -> (text: String, isError: Bool)?
}

extension Panel {
    public func takeMessage() -> (text: String, isError: Bool)? { nil }
}

/// The spinner's frames.
let spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

// MARK: - Pickers

/// A picker: a column per component, the selected row highlighted and the rest dimmed,
/// the focused component's heading underlined, `p.status` above.
@MainActor
public final class PickerPanel: Panel {
    public let picker: Picker
    /// The component arrows spin.
    public private(set) var focused = 0
    /// Where each column was drawn, for the mouse.
    private var columns: [(component: Int, start: Int, end: Int)] = []

    public init(picker: Picker) {
        self.picker = picker
    }

    public var title: String { "picker \"\(picker.name)\"" }
    public var hints: String { "↑↓/jk spin · tab/←→ component · wheel spins · q quit" }
    public var capturesTyping: Bool { false }
    public var isBusy: Bool { false }

    public func draw(into canvas: inout Canvas, top: Int, height: Int, tick: Int) {
        guard height > 0 else { return }
        let frame = picker.frame()
        canvas.put(frame.status, row: top, column: 1, style: .bold)
        guard height > 2 else { return }
        let widths = PickerText.columnWidths(frame, widestItem: widestItem)
        // The rows that fit, centred on the selection row.
        let rowCount = frame.columns.map(\.rows.count).max() ?? 0
        let shown = min(rowCount, height - 2)
        let skip = (rowCount - shown) / 2
        columns = []
        // On a terminal too narrow for every wheel, the wheels scroll sideways so that
        // the focused one is in sight; `…` at an edge says there are more.
        var first = 0
        while first < focused, widths[first...focused].reduce(0, { $0 + $1 + 4 }) > canvas.width - 2 { first += 1 }
        if first > 0 { canvas.put("…", row: top + 1, column: 0, style: .dim) }
        var x = 1
        for (index, column) in frame.columns.enumerated() where index >= first {
            if x + widths[index] + 3 > canvas.width {
                canvas.put("…", row: top + 1, column: canvas.width - 1, style: .dim)
                break
            }
            let start = x
            let headingStyle: Canvas.Style = index == focused ? [.underline, .bold, .accent] : .bold
            canvas.put(column.id, row: top + 1, column: x + 2, style: headingStyle, limit: widths[index])
            for (line, cell) in column.rows.dropFirst(skip).prefix(shown).enumerated() {
                let row = top + 2 + line
                let style: Canvas.Style = cell.isError ? .error
                    : cell.isSelected ? (index == focused ? [.reverse, .bold, .highlight] : [.reverse, .highlight]) : .dim
                // The marker's cell and the gap after it share the row's style, so that a
                // repaint changes style once per row, not twice.
                canvas.style(row: row, from: x, to: cell.isSelected ? x + widths[index] + 3 : x + 2, style)
                canvas.put(cell.isSelected ? "▸" : " ", row: row, column: x, style: style)
                canvas.put(TextWidth.cut(cell.title, to: widths[index]), row: row, column: x + 2, style: style,
                           limit: widths[index])
            }
            x += widths[index] + 4
            columns.append((index, start, x - 1))
        }
    }

    public func handle(_ key: Key, height: Int) -> PanelReply {
        let count = picker.components.count
        switch key {
        case .up, .character("k"): spin(focused, by: -1)
        case .down, .character("j"): spin(focused, by: 1)
        case .pageUp: spin(focused, by: -max(1, picker.visibleRows))
        case .pageDown: spin(focused, by: max(1, picker.visibleRows))
        case .tab, .right, .character("l"): focused = (focused + 1) % count
        case .backTab, .left, .character("h"): focused = (focused + count - 1) % count
        case .mouse(_, let column, let wheel):
            guard let index = columns.first(where: { column >= $0.start && column < $0.end })?.component else { return .ignored }
            focused = index
            if wheel != 0 { spin(index, by: wheel) }
        default: return .ignored
        }
        return .handled
    }

    private func spin(_ index: Int, by rows: Int) {
        try? picker.scroll(picker.components[index].id, by: rows)
    }

    /// An `items` component's items never change after the declaration: measured once,
    /// not at every repaint.
    private var widestItems: [String: Int] = [:]

    private func widestItem(_ id: String) -> Int {
        if let width = widestItems[id] { return width }
        let width = PickerText.widestItem(picker, id)
        widestItems[id] = width
        return width
    }
}

// MARK: - Feeds

/// A feed: rows numbered from 1, a cursor the arrows move, the feed's selected row marked
/// `▸`, and a footer with a spinner while a page loads.
@MainActor
public final class FeedPanel: Panel {
    public let feed: Feed
    /// The row the cursor is on.
    public private(set) var cursor = 0
    private var first = 0

    public init(feed: Feed) {
        self.feed = feed
    }

    public var title: String { "feed \"\(feed.name)\"" }
    public var hints: String { "↑↓ PgUp/PgDn Home/End scroll · enter selects · r retry · R refresh · q quit" }
    public var capturesTyping: Bool { false }
    public var isBusy: Bool { feed.footer == .loading }

    /// Shows the feed the rows a panel of `height` shows (its prefetch follows).
    func follow(height: Int) {
        let rows = max(1, height - 1)
        cursor = max(0, min(cursor, feed.rowCount - 1))
        if cursor < first { first = cursor }
        if cursor >= first + rows { first = cursor - rows + 1 }
        first = max(0, min(first, max(0, feed.rowCount - rows)))
        let viewport = first..<(first + rows)
        if feed.viewport != viewport { feed.setViewport(viewport) }
    }

    public func draw(into canvas: inout Canvas, top: Int, height: Int, tick: Int) {
        guard height > 0 else { return }
        follow(height: height)
        let rows = max(1, height - 1)
        let last = min(feed.rowCount, first + rows)
        let numberWidth = String(max(1, last)).count
        for (line, index) in (first..<max(first, last)).enumerated() {
            let row = feed.row(index)
            let number = String(index + 1)
            let label = String(repeating: " ", count: numberWidth - number.count) + number
            let style: Canvas.Style = index == cursor ? [.reverse, .highlight] : row.isPlaceholder ? .dim : []
            if index == cursor { canvas.style(row: top + line, from: 0, to: canvas.width, style) }
            canvas.put((row.isSelected ? " ▸ " : "   ") + label + "  ", row: top + line, column: 0, style: style)
            canvas.put(row.isPlaceholder ? "…" : TextWidth.cut(row.text, to: max(1, canvas.width - numberWidth - 5)),
                       row: top + line, column: numberWidth + 5, style: style)
        }
        if height > 1 {
            let footer: (String, Canvas.Style)
            switch feed.footer {
            case .loading: footer = ("\(spinner[tick % spinner.count]) loading…", .accent)
            case .error(let message): footer = ("error: \(message) — r retries", .error)
            case .end: footer = ("end of feed", .dim)
            case .more: footer = ("more below", .dim)
            }
            canvas.put("── " + footer.0 + " ──", row: top + height - 1, column: 1, style: footer.1)
        }
    }

    public func handle(_ key: Key, height: Int) -> PanelReply {
        let rows = max(1, height - 1)
        switch key {
        case .up, .character("k"): cursor -= 1
        case .down, .character("j"): cursor += 1
        case .pageUp: cursor -= rows
        case .pageDown: cursor += rows
        case .home, .character("g"): cursor = 0
        case .end, .character("G"): cursor = feed.rowCount - 1
        case .mouse(_, _, let wheel) where wheel != 0: cursor += wheel * 3
        case .enter:
            do {
                try feed.select(cursor)
            } catch {
                return .message(error.description, isError: true)
            }
        case .character("r"): feed.retry()
        case .character("R"):
            feed.refresh()
            cursor = 0
        default: return .ignored
        }
        follow(height: height)
        return .handled
    }
}

// MARK: - Pagers

/// A pager: a card for the current page and the page indicator; enter taps.
@MainActor
public final class PagerPanel: Panel {
    public let pager: Pager

    public init(pager: Pager) {
        self.pager = pager
    }

    public var title: String { "pager \"\(pager.name)\"" }
    public var hints: String { "←→/hl swipe · Home/End · enter taps · q quit" }
    public var capturesTyping: Bool { false }
    public var isBusy: Bool {
        pager.boundPages.contains { if case .loading = $0.image { true } else { false } }
    }

    public func draw(into canvas: inout Canvas, top: Int, height: Int, tick: Int) {
        guard height > 0 else { return }
        canvas.put(pager.pageCount == 0 ? "no pages" : "\(pager.current + 1) / \(pager.pageCount)",
                   row: top, column: 1, style: .bold)
        guard height > 3 else { return }
        let width = max(10, min(canvas.width - 4, 72))
        var body: [(String, Canvas.Style)] = []
        if let page = pager.page(pager.current) {
            body.append((page.title, .bold))
            body.append(("", []))
            for line in PagerText.wrap(page.problem ?? page.text, width: width - 4) {
                body.append((line, page.problem == nil ? [] : .error))
            }
            body.append(("", []))
            if case .loading = page.image {
                body.append(("\(spinner[tick % spinner.count]) image: loading", .accent))
            } else {
                body.append((page.image.description, .dim))
            }
        } else {
            body.append((pager.sourceStatus ?? "", .dim))
        }
        let room = height - 3
        canvas.put("┌" + String(repeating: "─", count: width - 2) + "┐", row: top + 1, column: 1)
        for (line, entry) in body.prefix(room).enumerated() {
            canvas.put("│", row: top + 2 + line, column: 1)
            canvas.put(TextWidth.cut(entry.0, to: width - 4), row: top + 2 + line, column: 3, style: entry.1, limit: width - 4)
            canvas.put("│", row: top + 2 + line, column: width)
        }
        canvas.put("└" + String(repeating: "─", count: width - 2) + "┘", row: top + 2 + min(body.count, room), column: 1)
    }

    public func handle(_ key: Key, height: Int) -> PanelReply {
        switch key {
        case .left, .character("h"): pager.swipe(by: -1)
        case .right, .character("l"): pager.swipe(by: 1)
        case .home: pager.jump(to: 0)
        case .end: pager.jump(to: max(0, pager.pageCount - 1))
        case .mouse(_, _, let wheel) where wheel != 0: pager.swipe(by: wheel)
        case .enter:
            switch pager.tap() {
            case .open(let url): return .open(url)
            case .refused(let reason): return .message("tap refused: \(reason)", isError: true)
            }
        default: return .ignored
        }
        return .handled
    }
}

// MARK: - Forms

/// A form on the terminal: the virtual screen of `FormScreen` sized to the panel, the
/// keyboard (or a picker field's wheel) taking its bottom rows while a field is edited.
@MainActor
public final class FormPanel: Panel {
    public let screen: FormScreen

    public init(form: Form, width: Int, height: Int) throws {
        screen = try FormScreen(form: form, width: max(20, width - 2), rows: Self.screenRows(form, height))
    }

    public var title: String { "form \"\(screen.form.name)\"" }
    public var hints: String {
        screen.form.focused == nil
            ? "tab/enter edit · shift-tab back · s submit · q quit"
            : "type · tab/enter next · shift-tab previous · esc done · ctrl-s submit"
    }
    public var capturesTyping: Bool { screen.form.focused != nil }
    public var isBusy: Bool { false }

    /// The virtual screen's rows in a panel of `height`: less its heading, status and box.
    static func screenRows(_ form: Form, _ height: Int) -> Int {
        max(1, height - 3 - (form.status.isEmpty ? 0 : 1))
    }

    public func draw(into canvas: inout Canvas, top: Int, height: Int, tick: Int) {
        try? screen.resize(width: max(20, canvas.width - 2), rows: Self.screenRows(screen.form, height))
        var lines = screen.render().split(separator: "\n", omittingEmptySubsequences: false)
        // The app's top row names the form already.
        let named = "form \"\(screen.form.name)\": "
        if let heading = lines.first, heading.hasPrefix(named) { lines[0] = heading.dropFirst(named.count) }
        var inPanel = false
        for (index, line) in lines.prefix(height).enumerated() {
            let row = top + index
            let text = String(line)
            if text.hasPrefix("├") { inPanel = true }
            var style: Canvas.Style = index == 0 ? [.bold, .accent] : inPanel && !text.hasPrefix("├") ? .dim : []
            if text.contains("▸") { style.insert(.bold) }
            if let mark = text.range(of: "  ✗ ") {
                let end = canvas.put(String(text[..<mark.lowerBound]), row: row, column: 0, style: style)
                // The box's right edge keeps the line's style; the error between is red.
                let error = String(text[mark.lowerBound...])
                let edge = error.hasSuffix("│") ? "│" : ""
                let next = canvas.put(String(error.dropLast(edge.count)), row: row, column: end, style: .error)
                canvas.put(edge, row: row, column: next, style: style)
            } else {
                canvas.put(text, row: row, column: 0, style: style)
            }
        }
    }

    public func handle(_ key: Key, height: Int) -> PanelReply {
        let form = screen.form
        do {
            guard let id = form.focused else {
                switch key {
                case .tab, .down, .enter, .character("j"): try screen.next()
                case .backTab, .up, .character("k"): try screen.previous()
                case .character("s"), .control("s"): return submit()
                default: return .ignored
                }
                return .handled
            }
            let isPicker = form.field(id)?.kind == .picker
            switch key {
            case .tab: try screen.next()
            case .backTab: try screen.previous()
            case .escape: try screen.done()
            case .control("s"): return submit()
            case .enter:
                if form.field(id)?.kind == .multiline {
                    try screen.type("\n")
                } else if form.hasNext {
                    try screen.next()
                } else {
                    try screen.done()
                }
            case .up where isPicker, .down where isPicker:
                if let picker = form.picker(of: id), let component = picker.components.first {
                    try picker.scroll(component.id, by: key == .up ? -1 : 1)
                }
            case .mouse(_, _, let wheel) where isPicker && wheel != 0:
                if let picker = form.picker(of: id), let component = picker.components.first {
                    try picker.scroll(component.id, by: wheel)
                }
            case .backspace:
                guard !isPicker else { return .ignored }
                try screen.deleteBackward()
            case .character(let character) where !isPicker && !Canvas.isControl(character):
                try screen.type(String(character))
            default:
                return .ignored
            }
            return .handled
        } catch {
            return .message("\(error)", isError: true)
        }
    }

    /// Called when a submit started by a key has ended (the app draws its message).
    public var changed: (() -> Void)?
    private var pending: (text: String, isError: Bool)?

    /// Submits in a task: `on_submit` may wait for an `http` reply, and the UI goes on.
    private func submit() -> PanelReply {
        Task { @MainActor [weak self] in
            guard let self else { return }
            do {
                let note = try await screen.submit()
                pending = (note, !note.hasPrefix("submitted"))
            } catch {
                pending = ("\(error)", true)
            }
            changed?()
        }
        return .message("submitting…", isError: false)
    }

    public func takeMessage() -> (text: String, isError: Bool)? {
        defer { pending = nil }
        return pending
    }
}
