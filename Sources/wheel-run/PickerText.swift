/// A picker frame as text: the headless output of `wheel-run`.
///
/// ```
/// picker "clock": 10:30 AM
///   hour  minute  ampm
///   7     27
///   8     28
///   9     29      AM
/// ▸ 10  ▸ 30    ▸ PM
/// ```
///
/// A column per component with its visible rows; `▸` marks the selected row, `<error>`
/// a row whose title failed. Rows blank in every column are left out. Columns are as wide as their widest title (all the items of
/// an `items` component, so they do not jump as the wheel turns), at most 24 cells; a
/// longer title is cut with `…`.
import Wheel

enum PickerText {
    static let maximumColumnWidth = 24

    static func render(_ frame: PickerFrame, picker: Picker) -> String {
        var lines = ["picker \"\(frame.name)\"" + (frame.status.isEmpty ? "" : ": \(frame.status)")]
        let widths = frame.columns.map { column in
            min(maximumColumnWidth, max(TextWidth.of(column.id), column.rows.map { TextWidth.of($0.title) }.max() ?? 0,
                                        widestItem(picker, column.id)))
        }
        lines.append(line(frame.columns.indices.map { ("  ", frame.columns[$0].id) }, widths))
        let rowCount = frame.columns.map(\.rows.count).max() ?? 0
        for row in 0..<rowCount {
            // A row blank in every column (a short list that does not wrap) is left out,
            // so that an empty line only ever separates frames.
            if frame.columns.allSatisfy({ row >= $0.rows.count || $0.rows[row].title.isEmpty }) { continue }
            lines.append(line(frame.columns.map { column in
                guard row < column.rows.count else { return ("  ", "") }
                let cell = column.rows[row]
                return (cell.isSelected ? "▸ " : "  ", cell.title)
            }, widths))
        }
        return lines.joined(separator: "\n")
    }

    /// The widest title of an `items` component (whose titles cost nothing to read).
    private static func widestItem(_ picker: Picker, _ id: String) -> Int {
        guard let items = try? picker.items(id), items.count <= 1000 else { return 0 }
        return items.map(TextWidth.of).max() ?? 0
    }

    private static func line(_ cells: [(marker: String, text: String)], _ widths: [Int]) -> String {
        var line = ""
        for (index, cell) in cells.enumerated() {
            let text = TextWidth.cut(cell.text, to: widths[index])
            line += cell.marker + text
            if index < cells.count - 1 { line += String(repeating: " ", count: widths[index] - TextWidth.of(text) + 2) }
        }
        while line.last == " " { line.removeLast() }
        return line
    }
}

/// Terminal cells a text takes: one per character, two for East Asian wide characters
/// and emoji, none for combining marks.
enum TextWidth {
    static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    static func width(of character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        if scalar.properties.generalCategory == .nonspacingMark || scalar.value == 0x200B { return 0 }
        if scalar.value < 0x7F { return scalar.value < 0x20 ? 0 : 1 }
        return isWide(scalar.value) ? 2 : 1
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to `width` cells, ending in `…` when it was longer.
    static func cut(_ text: String, to width: Int) -> String {
        guard of(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let cells = self.width(of: character)
            if used + cells > width - 1 { break }
            result.append(character)
            used += cells
        }
        return result + "…"
    }
}
