/// The terminal, through curses: started and restored, read without waiting, and drawn
/// from a `Canvas` by sending only the rows that changed since the last repaint.
///
/// Curses is not thread-safe: a `Terminal` lives on the main actor, and every call into
/// curses is made there.
import CNcurses
import Foundation

/// A key or other input, decoded from curses.
public enum Key: Equatable, Sendable {
    case character(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case tab, backTab, enter, backspace, delete, escape
    /// Ctrl and a letter: `.control("c")`.
    case control(Character)
    case function(Int)
    /// The mouse wheel (-1 up, +1 down) or a click (0) at a cell.
    case mouse(row: Int, column: Int, wheel: Int)
    case resize

    /// Decodes what `wget_wch` gave: a character (`isKey` false) or a curses key code.
    static func decode(_ code: Int32, isKey: Bool) -> Key? {
        if isKey {
            switch code {
            case KEY_UP: return .up
            case KEY_DOWN: return .down
            case KEY_LEFT: return .left
            case KEY_RIGHT: return .right
            case KEY_PPAGE: return .pageUp
            case KEY_NPAGE: return .pageDown
            case KEY_HOME: return .home
            case KEY_END: return .end
            case KEY_BTAB: return .backTab
            case KEY_ENTER: return .enter
            case KEY_BACKSPACE: return .backspace
            case KEY_DC: return .delete
            case KEY_RESIZE: return .resize
            case KEY_F0 + 1...KEY_F0 + 12: return .function(Int(code - KEY_F0))
            default: return nil
            }
        }
        switch code {
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 1...26: return .control(Character(UnicodeScalar(UInt8(code) + 0x60)))
        case 0, 28...31: return nil                    // Ctrl-@, Ctrl-\ and the like: not text
        default:
            guard let scalar = UnicodeScalar(UInt32(truncatingIfNeeded: code)) else { return nil }
            return .character(Character(scalar))
        }
    }
}

@MainActor
public final class Terminal {
    /// Whether styles carry colours (not under `NO_COLOR`).
    public let colour: Bool
    private var shown: Canvas?
    private var started = false

    /// Starts curses on standard input and output. Throws when the terminal cannot be
    /// used (an unknown `TERM`).
    public init(colour: Bool) throws {
        self.colour = colour
        // Curses draws UTF-8 only under a UTF-8 locale: the user's, or C.UTF-8.
        // Only the character type: the number format stays C's, so that scripts format
        // numbers (`%.2f`, `tostring`, json) as they do in text frames.
        setlocale(LC_CTYPE, "")
        if let codeset = nl_langinfo(nl_item(CODESET)), String(cString: codeset) != "UTF-8" {
            setlocale(LC_CTYPE, "C.UTF-8")
        }
        guard wt_start(colour ? 1 : 0) == 0 else {
            throw TerminalError("cannot use the terminal (TERM=\(ProcessInfo.processInfo.environment["TERM"] ?? "unset"))")
        }
        started = true
    }

    /// Gives the terminal back as it was: the screen, the cursor and the settings.
    public func stop() {
        guard started else { return }
        started = false
        wt_stop()
    }

    public var size: (width: Int, height: Int) { (Int(wt_cols()), Int(wt_rows())) }

    /// Every input waiting now, decoded; none when there is none.
    public func read() -> [Key] {
        var keys: [Key] = []
        while keys.count < 256 {
            var code: Int32 = 0
            let status = wt_read(&code)
            if status == ERR { break }
            if status == KEY_CODE_YES, code == KEY_MOUSE {
                var row: Int32 = 0, column: Int32 = 0, wheel: Int32 = 0
                if wt_mouse(&row, &column, &wheel) == 0 { keys.append(.mouse(row: Int(row), column: Int(column), wheel: Int(wheel))) }
                continue
            }
            if let key = Key.decode(code, isKey: status == KEY_CODE_YES) { keys.append(key) }
        }
        return keys
    }

    /// Draws `canvas`: rows equal to the last repaint's are not touched. Returns how many
    /// rows were sent.
    @discardableResult
    public func draw(_ canvas: Canvas) -> Int {
        if shown?.width != canvas.width || shown?.height != canvas.height {
            wt_erase()
            shown = nil
        }
        var sent = 0
        for row in 0..<canvas.height where shown?.rows[row] != canvas.rows[row] {
            wt_clear_line(Int32(row))
            for run in canvas.runs(row: row) {
                let style = colour ? run.style : run.style.withoutColour
                run.text.withCString { wt_put(Int32(row), Int32(run.column), $0, Int32(style.rawValue)) }
            }
            sent += 1
        }
        wt_refresh()
        shown = canvas
        return sent
    }

    /// Forgets what is on the screen, so that the next `draw` sends everything.
    public func invalidate() {
        shown = nil
    }
}

public struct TerminalError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
