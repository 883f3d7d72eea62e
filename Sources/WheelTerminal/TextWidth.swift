/// Terminal cells a text takes: one per character, two for East Asian wide characters
/// and emoji, none for combining marks.
public enum TextWidth {
    public static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    public static func width(of character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        if scalar.properties.generalCategory == .nonspacingMark || scalar.value == 0x200B { return 0 }
        // A control character takes a cell: it is drawn as U+FFFD (or a space).
        if scalar.value < 0x7F { return 1 }
        // Emoji shown as emoji (🚀, ✅, ⌚, a flag, a joined sequence) take two cells, as
        // terminals and curses draw them.
        if character.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation || $0.value == 0xFE0F }) { return 2 }
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
    public static func cut(_ text: String, to width: Int) -> String {
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
