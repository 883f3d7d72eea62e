/// A feed frame as text: the headless output of `wheel-run`.
///
/// ```
/// feed "articles": rows 1–10 of 40
///     1  Wheels of the ancient world
///   ▸ 2  How the spoke was invented
///   ...
///    10  Carts and chariots
///   ── loading… ──
/// ```
///
/// The viewport's rows, numbered from 1 as scripts count; `▸` marks the selected row and
/// `…` a row whose page `max_items` dropped and is being fetched again. The footer shows
/// the load state: `loading…`, `error: <file:line: message> — retry`, `end of feed`, or
/// `more below` while rows remain to be fetched. Rows are cut at 72 cells with `…`.
import Wheel

public enum FeedText {
    public static let maximumRowWidth = 72
    /// The rows a headless viewport shows.
    public static let viewportRows = 10

    public static func render(_ feed: Feed) -> String {
        let viewport = feed.viewport
        let shown = viewport.clamped(to: 0..<feed.rowCount)
        var lines = ["feed \"\(feed.name)\": "
            + (shown.isEmpty ? "no rows" : "rows \(shown.lowerBound + 1)–\(shown.upperBound) of \(feed.rowCount)")]
        let numberWidth = String(max(1, shown.upperBound)).count
        for index in shown {
            let row = feed.row(index)
            let number = String(index + 1)
            let label = String(repeating: " ", count: numberWidth - number.count) + number
            let text = row.isPlaceholder ? "…" : TextWidth.cut(row.text, to: maximumRowWidth)
            lines.append((row.isSelected ? "  ▸ " : "    ") + label + "  " + text)
        }
        let footer: String
        switch feed.footer {
        case .more: footer = "more below"
        default: footer = feed.footer.text
        }
        lines.append("  ── \(footer) ──")
        return lines.joined(separator: "\n")
    }
}
