import Testing
import WheelTerminal

/// Cells a text takes on a terminal, and cutting a text to a width with an ellipsis.
@Suite struct TextWidthTests {
    @Test(arguments: [("abc", 3), ("日本", 4), ("e\u{301}", 1), ("", 0), ("a\u{FFFD}b", 3)])
    func widths(text: String, cells: Int) {
        #expect(TextWidth.of(text) == cells)
    }

    @Test func aTextWiderThanTheColumnEndsInAnEllipsis() {
        #expect(TextWidth.cut("Massachusetts", to: 8) == "Massach…")
        #expect(TextWidth.cut("日本語の文字", to: 7) == "日本語…")
        #expect(TextWidth.cut("short", to: 8) == "short")
    }
}
