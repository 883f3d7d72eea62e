/// A pager frame as text: the headless output of `wheel-run`.
///
/// ```
/// pager "timeline": 3 / 60
///   ┌──────────────────────────────────────────────────┐
///   │ ana_b                                            │
///   │                                                  │
///   │ Spokes came two thousand years after the first   │
///   │ wheels.                                          │
///   │                                                  │
///   │ image: 48×48 PNG, 1.2 KB                         │
///   └──────────────────────────────────────────────────┘
///   bound: 2–4
/// ```
///
/// A card for the current page: its title, its text wrapped to the card, and its image
/// state; then the pages bound (1-based). A page whose record failed shows the problem
/// instead of its text; a pager with no pages shows why (its feed is loading or failed).
import Wheel

public enum PagerText {
    public static let cardWidth = 50

    public static func render(_ pager: Pager) -> String {
        var lines = ["pager \"\(pager.name)\": " + (pager.pageCount == 0 ? "no pages" : "\(pager.current + 1) / \(pager.pageCount)")]
        var body: [String] = []
        if let page = pager.page(pager.current) {
            body.append(page.title)
            body.append("")
            if let problem = page.problem {
                body += wrap(problem)
            } else {
                body += wrap(page.text)
            }
            body.append("")
            body.append(page.image.description)
        } else {
            body.append(pager.sourceStatus ?? "")
        }
        lines.append("  ┌" + String(repeating: "─", count: cardWidth + 2) + "┐")
        for line in body {
            let text = TextWidth.cut(line, to: cardWidth)
            lines.append("  │ " + text + String(repeating: " ", count: cardWidth - TextWidth.of(text)) + " │")
        }
        lines.append("  └" + String(repeating: "─", count: cardWidth + 2) + "┘")
        let bound = pager.boundPages.map(\.index)
        if let first = bound.first, let last = bound.last {
            lines.append("  bound: " + (first == last ? "\(first + 1)" : "\(first + 1)–\(last + 1)"))
        }
        if pager.pageCount > 0, let status = pager.sourceStatus { lines.append("  " + status) }
        return lines.joined(separator: "\n")
    }

    /// Words wrapped to `width` cells (the card's by default); a word longer than a line
    /// is left whole, to be cut where it is drawn.
    public static func wrap(_ text: String, width: Int = cardWidth) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                let candidate = line.isEmpty ? String(word) : line + " " + word
                if TextWidth.of(candidate) <= width || line.isEmpty {
                    line = candidate
                } else {
                    lines.append(line)
                    line = String(word)
                }
            }
            lines.append(line)
        }
        return lines
    }
}
