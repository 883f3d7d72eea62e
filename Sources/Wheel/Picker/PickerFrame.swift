/// What a host draws for a picker at one moment: a column per component with its visible
/// rows, the selected row marked, and the status line.
///
/// ```swift
/// let frame = picker.frame()
/// for column in frame.columns {
///     for row in column.rows { draw(row.title, highlighted: row.isSelected, error: row.isError) }
/// }
/// ```
public struct PickerFrame: Sendable, Equatable {
    /// The text of a row whose title (or whose component's count) failed.
    public static let errorMarker = "<error>"

    public var name: String
    public var status: String
    public var columns: [Column]

    public struct Column: Sendable, Equatable {
        public var id: String
        /// Top to bottom; the selection is the row with offset 0.
        public var rows: [Row]
    }

    public struct Row: Sendable, Equatable {
        /// Rows from the selection: 0 is the selected row, negative rows are above it.
        public var offset: Int
        /// The item shown (0-based), or nil for a blank row or an error marker.
        public var item: Int?
        /// The title; empty for a blank row, `errorMarker` for an error.
        public var title: String
        /// The selected row, which the host highlights; the rest are dimmed.
        public var isSelected: Bool
        /// The title could not be had: the host shows the marker as an error.
        public var isError: Bool
    }
}
