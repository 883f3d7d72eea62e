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

public enum PickerText {
    public static let maximumColumnWidth = 24

    public static func render(_ frame: PickerFrame, picker: Picker) -> String {
        var lines = ["picker \"\(frame.name)\"" + (frame.status.isEmpty ? "" : ": \(frame.status)")]
        let widths = columnWidths(frame) { widestItem(picker, $0) }
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
    /// Each column's width: its id, its rows' titles and (`widestItem`) all its items,
    /// at most `maximumColumnWidth` cells.
    public static func columnWidths(_ frame: PickerFrame, widestItem: (String) -> Int) -> [Int] {
        frame.columns.map { column in
            min(maximumColumnWidth, max(TextWidth.of(column.id), column.rows.map { TextWidth.of($0.title) }.max() ?? 0,
                                        widestItem(column.id)))
        }
    }

    public static func widestItem(_ picker: Picker, _ id: String) -> Int {
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
