import Testing
import WheelTerminal

/// The grid the interactive UI draws into: text clipped at the edges, wide characters as
/// two cells, control characters as U+FFFD, styles and the runs the terminal writes.
@Suite struct CanvasTests {
    @Test func aNewCanvasIsBlank() {
        let canvas = Canvas(width: 4, height: 2)
        #expect(canvas.text(row: 0) == "    ")
        #expect(canvas.text == "\n")
        #expect(canvas.rows.allSatisfy { $0 == Array(repeating: .blank, count: 4) })
    }

    @Test func negativeSizesMakeAnEmptyCanvas() {
        let canvas = Canvas(width: -3, height: -1)
        #expect(canvas.width == 0)
        #expect(canvas.height == 0)
        #expect(canvas.text == "")
    }

    @Test func putWritesFromTheColumnAndReturnsTheColumnAfter() {
        var canvas = Canvas(width: 10, height: 2)
        #expect(canvas.put("abc", row: 1, column: 2) == 5)
        #expect(canvas.text(row: 0) == "          ")
        #expect(canvas.text(row: 1) == "  abc     ")
        #expect(canvas.text == "\n  abc")
    }

    @Test func textIsCutAtTheRightEdgeWithoutAnEllipsis() {
        var canvas = Canvas(width: 6, height: 1)
        #expect(canvas.put("abcdef", row: 0, column: 3) == 6)
        #expect(canvas.text(row: 0) == "   abc")
    }

    @Test func aLimitStopsTheTextBeforeTheEdge() {
        var canvas = Canvas(width: 10, height: 1)
        #expect(canvas.put("abcdef", row: 0, column: 1, limit: 3) == 4)
        #expect(canvas.put("xyz", row: 0, column: 8, limit: 5) == 10)
        #expect(canvas.put("ignored", row: 0, column: 5, limit: -2) == 5)
        #expect(canvas.text(row: 0) == " abc    xy")
    }

    @Test func textOutsideTheCanvasChangesNothing() {
        var canvas = Canvas(width: 5, height: 2)
        #expect(canvas.put("abc", row: -1, column: 0) == 0)
        #expect(canvas.put("abc", row: 2, column: 0) == 0)
        #expect(canvas.put("abc", row: 0, column: -1) == -1)
        #expect(canvas.put("abc", row: 0, column: 5) == 5)
        #expect(canvas.put("abc", row: 0, column: 9) == 9)
        #expect(canvas == Canvas(width: 5, height: 2))
    }

    @Test func aWideCharacterTakesTwoCellsTheSecondEmpty() {
        var canvas = Canvas(width: 6, height: 1)
        #expect(canvas.put("日本", row: 0, column: 1) == 5)
        #expect(canvas.rows[0].map(\.character) == [" ", "日", "", "本", "", " "])
        #expect(canvas.text(row: 0) == " 日本 ")
    }

    @Test func aWideCharacterThatWouldStraddleTheEdgeIsLeftOut() {
        var canvas = Canvas(width: 5, height: 1)
        #expect(canvas.put("ab日本", row: 0, column: 0) == 4)
        #expect(canvas.rows[0].map(\.character) == ["a", "b", "日", "", " "])
        // Within a limit too.
        var limited = Canvas(width: 5, height: 1)
        #expect(limited.put("日本", row: 0, column: 0, limit: 3) == 2)
        #expect(limited.text(row: 0) == "日   ")
    }

    @Test func controlCharactersAreShownAsReplacementCharacters() {
        var canvas = Canvas(width: 16, height: 1)
        // A tab, an escape sequence, DEL and a C1 control (NEL): none may reach the terminal.
        #expect(canvas.put("a\tb\u{1B}[31mc\u{7F}\u{85}", row: 0, column: 0) == 11)
        #expect(canvas.text(row: 0) == "a\u{FFFD}b\u{FFFD}[31mc\u{FFFD}\u{FFFD}     ")
        #expect(!canvas.text(row: 0).unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) })
    }

    @Test func aLineBreakIsOneReplacementCharacter() {
        var canvas = Canvas(width: 8, height: 2)
        // "\r\n" is one Character, so one cell; nothing moves to the next row.
        #expect(canvas.put("ab\ncd\r\ne", row: 0, column: 0) == 7)
        #expect(canvas.text == "ab\u{FFFD}cd\u{FFFD}e\n")
    }

    @Test func aCombiningMarkStaysWithItsLetter() {
        var canvas = Canvas(width: 4, height: 1)
        #expect(canvas.put("e\u{301}x", row: 0, column: 0) == 2)
        #expect(canvas.rows[0].map(\.character) == ["e\u{301}", "x", " ", " "])
    }

    @Test func aZeroWidthCharacterJoinsTheCellBeforeIt() {
        var canvas = Canvas(width: 4, height: 1)
        // U+200B is a character of its own (not part of the letter's cluster) but takes no cell.
        #expect(canvas.put("a\u{200B}b", row: 0, column: 0) == 2)
        #expect(canvas.rows[0].map(\.character) == ["a\u{200B}", "b", " ", " "])
        // At the start of a put, with nothing before it in this text, it is dropped.
        #expect(canvas.put("\u{200B}c", row: 0, column: 2) == 3)
        #expect(canvas.rows[0].map(\.character) == ["a\u{200B}", "b", "c", " "])
    }

    @Test func aLaterPutOverwritesCells() {
        var canvas = Canvas(width: 6, height: 1)
        canvas.put("abcdef", row: 0, column: 0, style: .dim)
        canvas.put("XY", row: 0, column: 2, style: .bold)
        #expect(canvas.text(row: 0) == "abXYef")
        #expect(canvas.rows[0].map(\.style) == [.dim, .dim, .bold, .bold, .dim, .dim])
    }

    @Test func runsGroupCellsOfOneStyle() {
        var canvas = Canvas(width: 10, height: 1)
        canvas.put("ab", row: 0, column: 1, style: .bold)
        canvas.put("cd", row: 0, column: 3, style: [.reverse, .accent])
        canvas.put("e", row: 0, column: 5, style: .bold)
        let runs = canvas.runs(row: 0)
        #expect(runs.map(\.column) == [0, 1, 3, 5, 6])
        #expect(runs.map(\.text) == [" ", "ab", "cd", "e", "    "])
        #expect(runs.map(\.style) == [[], .bold, [.reverse, .accent], .bold, []])
    }

    @Test func aWideCharacterIsOneRunOfTwoColumns() {
        var canvas = Canvas(width: 6, height: 1)
        canvas.put("a", row: 0, column: 0)
        canvas.put("日", row: 0, column: 1, style: .underline)
        canvas.put("b", row: 0, column: 3)
        let runs = canvas.runs(row: 0)
        #expect(runs.map(\.column) == [0, 1, 3])
        #expect(runs.map(\.text) == ["a", "日", "b  "])
    }

    @Test func styleRestylesCellsAndKeepsTheirText() {
        var canvas = Canvas(width: 8, height: 2)
        canvas.put("abcdef", row: 0, column: 0)
        canvas.style(row: 0, from: 2, to: 5, .reverse)
        #expect(canvas.text(row: 0) == "abcdef  ")
        #expect(canvas.rows[0].map(\.style) == [[], [], .reverse, .reverse, .reverse, [], [], []])
        // Clamped to the canvas.
        canvas.style(row: 1, from: -3, to: 2, .dim)
        canvas.style(row: 1, from: 6, to: 40, .bold)
        #expect(canvas.rows[1].map(\.style) == [.dim, .dim, [], [], [], [], .bold, .bold])
    }

    @Test func styleOutsideTheCanvasChangesNothing() {
        var canvas = Canvas(width: 5, height: 1)
        // A picker's column past the right edge of a narrow terminal styles from beyond it.
        canvas.style(row: 0, from: 7, to: 12, .reverse)
        canvas.style(row: 0, from: 5, to: 9, .reverse)
        canvas.style(row: 0, from: 3, to: 1, .reverse)
        canvas.style(row: 0, from: -6, to: -2, .reverse)
        canvas.style(row: 3, from: 0, to: 5, .reverse)
        canvas.style(row: -1, from: 0, to: 5, .reverse)
        #expect(canvas == Canvas(width: 5, height: 1))
    }

    @Test func withoutColourKeepsTheAttributes() {
        let style: Canvas.Style = [.bold, .reverse, .underline, .dim, .highlight]
        #expect(style.withoutColour == [.bold, .reverse, .underline, .dim])
        #expect(Canvas.Style.error.withoutColour == [])
        #expect(Canvas.Style.accent != Canvas.Style.good)
        #expect(Canvas.Style.accent.rawValue >> 8 == 1)
        #expect(Canvas.Style.error.rawValue >> 8 == 2)
        #expect(Canvas.Style.highlight.rawValue >> 8 == 3)
        #expect(Canvas.Style.good.rawValue >> 8 == 4)
    }
}
