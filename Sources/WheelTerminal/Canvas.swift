/// What the interactive UI draws: a grid of cells, each a character and a style, built
/// whole for every repaint and compared with the last one row by row, so that only rows
/// that changed are sent to the terminal (and curses sends only the cells that changed
/// within them).
///
/// ```swift
/// var canvas = Canvas(width: 40, height: 10)
/// canvas.put("picker \"resistor\"", row: 0, column: 0, style: [.bold, .accent])
/// canvas.text(row: 0)        // "picker "resistor"" padded to 40 cells
/// ```
///
/// Text is clipped at the right edge; a wide character that would straddle it is left out.
/// Control characters (a tab, an escape, a newline in a title) are drawn as `�`, so a
/// script's text can never move the cursor or restyle the terminal.
public struct Canvas: Equatable, Sendable {
    public struct Style: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let bold = Style(rawValue: 1)
        public static let dim = Style(rawValue: 2)
        public static let reverse = Style(rawValue: 4)
        public static let underline = Style(rawValue: 8)
        // Colours (bits 8-11: a colour pair of CNcurses), dropped under NO_COLOR.
        public static let accent = Style(rawValue: 1 << 8)
        public static let error = Style(rawValue: 2 << 8)
        public static let highlight = Style(rawValue: 3 << 8)
        public static let good = Style(rawValue: 4 << 8)

        static let colourMask = 0xF << 8

        /// The style without its colour.
        public var withoutColour: Style { Style(rawValue: rawValue & ~Self.colourMask) }
    }

    public struct Cell: Equatable, Sendable {
        /// One character; empty for the right half of a wide character.
        public var character: String
        public var style: Style

        public static let blank = Cell(character: " ", style: [])
    }

    public let width: Int
    public let height: Int
    public private(set) var rows: [[Cell]]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        rows = Array(repeating: Array(repeating: .blank, count: self.width), count: self.height)
    }

    /// Writes `text` from `column` on `row`, at most `limit` cells (to the right edge by
    /// default); returns the column after it.
    @discardableResult
    public mutating func put(_ text: String, row: Int, column: Int, style: Style = [], limit: Int? = nil) -> Int {
        guard row >= 0, row < height, column >= 0 else { return column }
        let end = min(width, limit.map { column + max(0, $0) } ?? width)
        var x = column
        for character in text {
            let shown = Self.isControl(character) ? "\u{FFFD}" : character
            let cells = TextWidth.width(of: shown)
            if cells == 0 {
                // A combining mark joins the character before it.
                if x > column, x - 1 < width {
                    var target = x - 1
                    if rows[row][target].character.isEmpty, target > 0 { target -= 1 }
                    rows[row][target].character.append(shown)
                }
                continue
            }
            guard x + cells <= end else { break }
            rows[row][x] = Cell(character: String(shown), style: style)
            if cells == 2 { rows[row][x + 1] = Cell(character: "", style: style) }
            x += cells
        }
        return x
    }

    /// Fills cells with a style (a highlighted row, a bar) without changing their text.
    public mutating func style(row: Int, from column: Int, to end: Int, _ style: Style) {
        guard row >= 0, row < height else { return }
        for x in max(0, column)..<max(0, column, min(width, end)) { rows[row][x].style = style }
    }

    /// A row's text, its trailing spaces kept: what a test or a screen capture sees.
    public func text(row: Int) -> String {
        rows[row].map(\.character).joined()
    }

    /// The whole canvas as text, trailing spaces removed from each row.
    public var text: String {
        (0..<height).map { row in
            var line = text(row: row)
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }

    /// A row as runs of one style: what the terminal writes.
    public func runs(row: Int) -> [(column: Int, text: String, style: Style)] {
        var runs: [(column: Int, text: String, style: Style)] = []
        for (x, cell) in rows[row].enumerated() {
            if let last = runs.last, last.style == cell.style {
                runs[runs.count - 1].text += cell.character
            } else {
                runs.append((x, cell.character, cell.style))
            }
        }
        return runs
    }

    static func isControl(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        return scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0)
    }
}
