/// The input events of `--events` and `--events-file`: what a user would do to the
/// declared objects, one event per line or separated by `;`.
///
/// ```
/// spin band1 +3        # pickers: turn a wheel by 3 rows (negative: up)
/// select tolerance 2   # select the 2nd item (1-based, as scripts count)
/// reload day           # ask the script again for the count and titles (all components: reload)
/// scroll +5            # feeds: move the viewport by 5 rows; scroll end, scroll top
/// select 12            # select row 12 (the script's on_select runs)
/// refresh              # fetch the first page again, back at the top
/// retry                # try a failed fetch again
/// swipe left           # pagers: the next page (swipe right: the previous one)
/// jump 40              # go to page 40
/// tap                  # print the URL the script's on_tap gives for the current page
/// focus email          # forms: edit a field (the keyboard shows)
/// type "ana@example.org"   # add text to the edited field (\n: a new line, \" and \\)
/// clear                # empty the edited field
/// next                 # edit the next field (prev: the previous one)
/// done                 # stop editing (the keyboard hides)
/// submit               # check every field; on_submit runs when all are valid
/// keyboard show 12     # the keyboard takes 12 rows (keyboard hide: it goes)
/// ```
///
/// A component may be named `picker.component` when several pickers declare it; a feed
/// event may name its feed first (`scroll articles +5`) when the script declares several;
/// a field may be named `form.field`, and the other form events act on the form being
/// edited (or the only one). Blank lines and `#` comments are skipped; `;` and `#` inside
/// quotes are text.
import Wheel
import WheelTerminal

struct InputEvent: Equatable {
    enum Action: Equatable {
        case spin(component: String, rows: Int)
        case select(component: String, index: Int)
        case reload(component: String?)
        case scroll(feed: String?, by: Scroll)
        case selectRow(feed: String?, row: Int)
        case refresh(feed: String?)
        case retry(feed: String?)
        case swipe(pager: String?, pages: Int)
        case jump(pager: String?, page: Int)
        case tap(pager: String?)
        case focus(field: String)
        case type(String)
        case clear
        case next
        case previous
        case done
        case submit
        /// `keyboard show n` (rows) or `keyboard hide` (nil).
        case keyboard(rows: Int?)
    }

    enum Scroll: Equatable {
        case rows(Int)
        case top
        case end
    }

    /// What an event acted on, whose frame is printed after it.
    enum Target {
        case picker(Picker)
        case feed(Feed)
        /// With what a tap gave, if the event was a tap.
        case pager(Pager, tap: PagerTap?)
        case form(FormScreen)
        /// A form to submit.
        case formSubmit(FormScreen)
    }

    var action: Action
    /// The event as written, echoed before its frame.
    var text: String
    /// Where it was written, for messages: `--events: event 2` or `moves.txt:4`.
    var origin: String

    /// Parses a whole list; `origin(n)` names the n-th event (1-based) or its line.
    static func parse(_ source: String, origin: (Int, Int) -> String) throws(EventError) -> [InputEvent] {
        var events: [InputEvent] = []
        // Any line break: "\r\n" (a file saved on Windows) is one Character, not "\n".
        for (lineNumber, line) in source.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            for piece in pieces(of: line) {
                let text = piece.trimmingSpaces
                guard !text.isEmpty else { continue }
                let place = origin(events.count + 1, lineNumber + 1)
                events.append(InputEvent(action: try action(text, at: place), text: text, origin: place))
            }
        }
        return events
    }

    /// A line's events: split at `;`, up to a `#`, except inside double quotes.
    private static func pieces(of line: Substring) -> [Substring] {
        var pieces: [Substring] = []
        var start = line.startIndex
        var quoted = false
        var escaped = false
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            if escaped {
                escaped = false
            } else if quoted {
                if character == "\\" { escaped = true } else if character == "\"" { quoted = false }
            } else if character == "\"" {
                quoted = true
            } else if character == ";" {
                pieces.append(line[start..<index])
                start = line.index(after: index)
            } else if character == "#" {
                break
            }
            index = line.index(after: index)
        }
        pieces.append(line[start..<index])
        return pieces
    }

    /// The text of `type "..."`: one double-quoted string, with \n, \t, \" and \\.
    private static func quoted(_ text: String, at place: String) throws(EventError) -> String {
        let usage = "\(place): type takes one double-quoted text: type \"ana@example.org\""
        var rest = Substring(text.dropFirst("type".count)).drop(while: { $0 == " " || $0 == "\t" })
        guard rest.first == "\"" else { throw EventError(usage) }
        rest = rest.dropFirst()
        var result = ""
        var escaped = false
        while let character = rest.first {
            rest = rest.dropFirst()
            if escaped {
                switch character {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "\"", "\\": result.append(character)
                default: throw EventError("\(place): unknown escape \\\(character) in '\(text)' (use \\n, \\t, \\\" or \\\\)")
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                guard rest.allSatisfy({ $0 == " " || $0 == "\t" }) else { throw EventError(usage) }
                return result
            } else {
                result.append(character)
            }
        }
        throw EventError("\(place): the text of '\(text)' has no closing quote")
    }

    private static func action(_ text: String, at place: String) throws(EventError) -> Action {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        func number(_ word: String, _ what: String) throws(EventError) -> Int {
            let digits = word.hasPrefix("+") ? String(word.dropFirst()) : word
            guard let value = Int(digits) else {
                throw EventError("\(place): '\(word)' is not a whole number (\(what)) in '\(text)'")
            }
            return value
        }
        func scroll(_ word: String) throws(EventError) -> Scroll {
            switch word {
            case "top": return .top
            case "end": return .end
            default: return .rows(try number(word, "rows to scroll, such as +5, -3, top or end"))
            }
        }
        switch (words.first, words.count) {
        case ("spin", 3): return .spin(component: words[1], rows: try number(words[2], "rows to turn, such as +3 or -2"))
        case ("select", 2): return .selectRow(feed: nil, row: try number(words[1], "a row from 1"))
        // `select <name> <n>`: a feed's row when <name> is a feed, else a picker's component.
        case ("select", 3): return .select(component: words[1], index: try number(words[2], "an index from 1"))
        case ("reload", 1): return .reload(component: nil)
        case ("reload", 2): return .reload(component: words[1])
        case ("scroll", 2): return .scroll(feed: nil, by: try scroll(words[1]))
        case ("scroll", 3): return .scroll(feed: words[1], by: try scroll(words[2]))
        case ("swipe", 2), ("swipe", 3):
            // A swipe to the left shows the next page, as a finger moving left does.
            switch words.last {
            case "left": return .swipe(pager: words.count == 3 ? words[1] : nil, pages: 1)
            case "right": return .swipe(pager: words.count == 3 ? words[1] : nil, pages: -1)
            default: throw EventError("\(place): swipe takes left or right: swipe left")
            }
        case ("jump", 2): return .jump(pager: nil, page: try number(words[1], "a page from 1"))
        case ("jump", 3): return .jump(pager: words[1], page: try number(words[2], "a page from 1"))
        case ("tap", 1), ("tap", 2): return .tap(pager: words.count == 2 ? words[1] : nil)
        case ("type", _): return .type(try quoted(text, at: place))
        case ("focus", 2): return .focus(field: words[1])
        case ("clear", 1): return .clear
        case ("next", 1): return .next
        case ("prev", 1), ("previous", 1): return .previous
        case ("done", 1): return .done
        case ("submit", 1): return .submit
        case ("keyboard", 2) where words[1] == "hide": return .keyboard(rows: nil)
        case ("keyboard", 3) where words[1] == "show":
            let rows = try number(words[2], "the keyboard's rows")
            guard rows >= 1, rows <= FormScreen.defaultRows else {
                throw EventError("\(place): the keyboard takes 1 to \(FormScreen.defaultRows) rows, not \(rows)")
            }
            return .keyboard(rows: rows)
        case ("focus", _): throw EventError("\(place): focus needs a field: focus email")
        case ("keyboard", _): throw EventError("\(place): keyboard show <rows> or keyboard hide")
        case ("clear", _), ("next", _), ("prev", _), ("previous", _), ("done", _), ("submit", _):
            throw EventError("\(place): \(words[0]) takes nothing after it")
        case ("refresh", 1), ("refresh", 2): return .refresh(feed: words.count == 2 ? words[1] : nil)
        case ("retry", 1), ("retry", 2): return .retry(feed: words.count == 2 ? words[1] : nil)
        case ("spin", _): throw EventError("\(place): spin needs a component and a row count: spin band1 +3")
        case ("select", _): throw EventError("\(place): select needs a component and an index from 1 (select tolerance 2), or a feed's row (select 12)")
        case ("reload", _): throw EventError("\(place): reload takes at most a component: reload day")
        case ("scroll", _): throw EventError("\(place): scroll needs a row count, top or end, after the feed's name if there are several: scroll +5")
        case ("refresh", _), ("retry", _): throw EventError("\(place): \(words[0]) takes at most a feed's name: \(words[0]) articles")
        case ("swipe", _): throw EventError("\(place): swipe takes left or right, after the pager's name if there are several: swipe left")
        case ("jump", _): throw EventError("\(place): jump needs a page from 1, after the pager's name if there are several: jump 40")
        case ("tap", _): throw EventError("\(place): tap takes at most a pager's name: tap timeline")
        default: throw EventError("\(place): unknown event '\(text)'; events are spin, select, reload, scroll, refresh, retry, swipe, jump, tap, focus, type, clear, next, prev, done, submit and keyboard")
        }
    }

    /// Applies the event to the object it names; returns that object.
    @MainActor
    func apply(to runtime: Runtime, forms: FormScreens) throws(EventError) -> Target {
        switch action {
        case .focus(let name):
            let (screen, id) = try forms.field(name, origin: origin)
            try run { try screen.focus(id) }
            forms.active = screen
            return .form(screen)
        case .type(let text):
            let screen = try forms.acting(origin: origin, text: self.text)
            try run { try screen.type(text) }
            return .form(screen)
        case .clear:
            let screen = try forms.acting(origin: origin, text: self.text)
            try run { try screen.clear() }
            return .form(screen)
        case .next, .previous, .done, .keyboard:
            let screen = try forms.acting(origin: origin, text: self.text)
            try run {
                switch action {
                case .next: try screen.next()
                case .previous: try screen.previous()
                case .keyboard(let rows): try screen.keyboard(rows: rows)
                default: try screen.done()
                }
            }
            return .form(screen)
        case .submit:
            // `present` submits: on_submit runs as a coroutine and is awaited.
            return .formSubmit(try forms.acting(origin: origin, text: self.text))
        case .select(let name, let index) where runtime.feed(named: name) != nil:
            return .feed(try selectRow(index, in: try feed(name, in: runtime)))
        case .spin, .select, .reload:
            return .picker(try apply(to: runtime.pickers))
        case .scroll(let name, let scroll):
            let feed = try feed(name, in: runtime)
            let height = feed.viewport.isEmpty ? FeedText.viewportRows : feed.viewport.count
            let first: Int
            switch scroll {
            case .top: first = 0
            case .end: first = max(0, feed.rowCount - height)
            case .rows(let rows): first = max(0, min(feed.viewport.lowerBound + rows, feed.rowCount - 1))
            }
            feed.setViewport(first..<(first + height))
            return .feed(feed)
        case .selectRow(let name, let row):
            return .feed(try selectRow(row, in: try feed(name, in: runtime)))
        case .refresh(let name):
            // As a user pulls to refresh: at the top of the list.
            let feed = try feed(name, in: runtime)
            let height = feed.viewport.isEmpty ? FeedText.viewportRows : feed.viewport.count
            feed.refresh()
            feed.setViewport(0..<height)
            return .feed(feed)
        case .retry(let name):
            let feed = try feed(name, in: runtime)
            feed.retry()
            return .feed(feed)
        case .swipe(let name, let pages):
            let pager = try pager(name, in: runtime)
            pager.swipe(by: pages)
            return .pager(pager, tap: nil)
        case .jump(let name, let page):
            let pager = try pager(name, in: runtime)
            // A pager over a feed may have more pages than it has loaded: `present` asks
            // the feed for them (`Pager.reach`).
            guard page >= 1, page <= max(1, pager.pageCount) || pager.sourceFeedName != nil else {
                throw EventError("\(origin): page \(page) is out of range for pager '\(pager.name)' (1 to \(pager.pageCount))")
            }
            pager.jump(to: page - 1)
            return .pager(pager, tap: nil)
        case .tap(let name):
            let pager = try pager(name, in: runtime)
            return .pager(pager, tap: pager.tap())
        }
    }

    /// Runs a form screen's step; its errors become this event's.
    private func run(_ step: () throws -> Void) throws(EventError) {
        do {
            try step()
        } catch let error as EventError {
            throw EventError("\(origin): \(error.description)")
        } catch {
            throw EventError("\(origin): \(error)")
        }
    }

    /// The pager an event names, or the only one.
    private func pager(_ name: String?, in runtime: Runtime) throws(EventError) -> Pager {
        let pagers = runtime.pagers
        if let name {
            guard let pager = runtime.pager(named: name) else {
                throw EventError("\(origin): no pager '\(name)'" + (pagers.isEmpty ? " (the script declares no pager)" : " (pagers: \(pagers.map(\.name).joined(separator: ", ")))"))
            }
            return pager
        }
        guard pagers.count == 1, let pager = pagers.first else {
            throw EventError(pagers.isEmpty
                ? "\(origin): '\(text)' acts on a pager, and the script declares none"
                : "\(origin): the script declares \(pagers.count) pagers; name one: \(text.split(separator: " ")[0]) \(pagers[0].name) ...")
        }
        return pager
    }

    private func selectRow(_ row: Int, in feed: Feed) throws(EventError) -> Feed {
        do { try feed.select(row - 1) } catch { throw EventError("\(origin): \(error)") }
        return feed
    }

    /// The feed an event names, or the only one.
    private func feed(_ name: String?, in runtime: Runtime) throws(EventError) -> Feed {
        let feeds = runtime.feeds
        if let name {
            guard let feed = runtime.feed(named: name) else {
                throw EventError("\(origin): no feed '\(name)'" + (feeds.isEmpty ? " (the script declares no feed)" : " (feeds: \(feeds.map(\.name).joined(separator: ", ")))"))
            }
            return feed
        }
        guard feeds.count == 1, let feed = feeds.first else {
            throw EventError(feeds.isEmpty
                ? "\(origin): '\(text)' acts on a feed, and the script declares none"
                : "\(origin): the script declares \(feeds.count) feeds; name one: \(text.split(separator: " ")[0]) \(feeds[0].name) ...")
        }
        return feed
    }

    /// Applies a picker event to the picker that has the component; returns that picker.
    private func apply(to pickers: [Picker]) throws(EventError) -> Picker {
        guard !pickers.isEmpty else { throw EventError("\(origin): '\(text)' acts on a picker, and the script declares none") }
        switch action {
        case .spin(let name, let rows):
            let (picker, id) = try resolve(name, in: pickers)
            do { try picker.scroll(id, by: rows) } catch { throw EventError("\(origin): \(error)") }
            return picker
        case .select(let name, let index):
            let (picker, id) = try resolve(name, in: pickers)
            let count = (try? picker.component(id).count) ?? 0
            guard index >= 1, index <= count else {
                throw EventError("\(origin): index \(index) is out of range for component '\(id)' "
                    + (count == 0 ? "(it is empty)" : "(1 to \(count))"))
            }
            do { try picker.select(id, index: index - 1) } catch { throw EventError("\(origin): \(error)") }
            return picker
        case .reload(let name?):
            let (picker, id) = try resolve(name, in: pickers)
            do { try picker.reload(id) } catch { throw EventError("\(origin): \(error)") }
            return picker
        case .reload(nil):
            guard pickers.count == 1, let picker = pickers.first else {
                throw EventError("\(origin): the script declares \(pickers.count) pickers; name a component: reload picker.component")
            }
            do { try picker.reload() } catch { throw EventError("\(origin): \(error)") }
            return picker
        case .scroll, .selectRow, .refresh, .retry, .swipe, .jump, .tap, .focus, .type, .clear, .next, .previous,
             .done, .submit, .keyboard:
            preconditionFailure("a feed, pager or form event applied to pickers")
        }
    }

    /// The picker and component a name means: a component id that one picker has, or
    /// `picker.component`.
    private func resolve(_ name: String, in pickers: [Picker]) throws(EventError) -> (Picker, String) {
        let owners = pickers.filter { (try? $0.component(name)) != nil }
        if owners.count == 1 { return (owners[0], name) }
        if owners.count > 1 {
            throw EventError("\(origin): pickers \(owners.map { "'\($0.name)'" }.joined(separator: " and ")) both have a component '\(name)'; write \(owners[0].name).\(name)")
        }
        if let dot = name.firstIndex(of: "."),
           let picker = pickers.first(where: { $0.name == name[..<dot] }) {
            let id = String(name[name.index(after: dot)...])
            if (try? picker.component(id)) != nil { return (picker, id) }
        }
        let known = pickers.flatMap { picker in picker.components.map { pickers.count > 1 ? "\(picker.name).\($0.id)" : $0.id } }
        throw EventError("\(origin): no component '\(name)' (components: \(known.joined(separator: ", ")))")
    }
}

/// The forms on the virtual screen, and the one form events act on.
@MainActor
final class FormScreens {
    let screens: [FormScreen]
    /// The form last focused: where `type`, `next`, `done` and the others go.
    var active: FormScreen?

    init(_ forms: [Form]) throws {
        screens = try forms.map { try FormScreen(form: $0) }
        active = screens.count == 1 ? screens[0] : nil
    }

    /// The screen of the form whose field is `picker`, if any.
    func screen(showing picker: Picker) -> FormScreen? {
        screens.first { screen in screen.form.fields.contains { screen.form.picker(of: $0.id) === picker } }
    }

    /// The form event acting on: the form being edited, or the only one.
    func acting(origin: String, text: String) throws(EventError) -> FormScreen {
        if let active { return active }
        if let editing = screens.first(where: { $0.form.focused != nil }) { return editing }
        throw EventError(screens.isEmpty
            ? "\(origin): '\(text)' acts on a form, and the script declares none"
            : "\(origin): the script declares \(screens.count) forms; focus a field first: focus \(screens[0].form.name).\(screens[0].form.fields[0].id)")
    }

    /// The form and field `name` means: a field id one form has, or `form.field`.
    func field(_ name: String, origin: String) throws(EventError) -> (FormScreen, String) {
        guard !screens.isEmpty else { throw EventError("\(origin): 'focus \(name)' acts on a form, and the script declares none") }
        let owners = screens.filter { $0.form.field(name) != nil }
        if owners.count == 1 { return (owners[0], name) }
        if owners.count > 1 {
            throw EventError("\(origin): forms \(owners.map { "'\($0.form.name)'" }.joined(separator: " and ")) both have a field '\(name)'; write \(owners[0].form.name).\(name)")
        }
        if let dot = name.firstIndex(of: "."), let screen = screens.first(where: { $0.form.name == name[..<dot] }) {
            let id = String(name[name.index(after: dot)...])
            if screen.form.field(id) != nil { return (screen, id) }
        }
        let known = screens.flatMap { screen in screen.form.fields.map { screens.count > 1 ? "\(screen.form.name).\($0.id)" : $0.id } }
        throw EventError("\(origin): no field '\(name)' (fields: \(known.joined(separator: ", ")))")
    }
}

struct EventError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" }).reversed().drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" }).reversed())
    }
}
