/// The input events of `--events` and `--events-file`: what a user would do to the
/// declared objects, one event per line or separated by `;`.
///
/// ```
/// spin band1 +3        # turn a wheel by 3 rows (negative: up)
/// select tolerance 2   # select the 2nd item (1-based, as scripts count)
/// reload day           # ask the script again for the count and titles (all components: reload)
/// ```
///
/// A component may be named `picker.component` when several pickers declare it. Blank
/// lines and `#` comments are skipped.
import Wheel

struct InputEvent: Equatable {
    enum Action: Equatable {
        case spin(component: String, rows: Int)
        case select(component: String, index: Int)
        case reload(component: String?)
    }

    var action: Action
    /// The event as written, echoed before its frame.
    var text: String
    /// Where it was written, for messages: `--events: event 2` or `moves.txt:4`.
    var origin: String

    /// Parses a whole list; `origin(n)` names the n-th event (1-based) or its line.
    static func parse(_ source: String, origin: (Int, Int) -> String) throws(EventError) -> [InputEvent] {
        var events: [InputEvent] = []
        for (lineNumber, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            for piece in content.split(separator: ";") {
                let text = piece.trimmingSpaces
                guard !text.isEmpty else { continue }
                let place = origin(events.count + 1, lineNumber + 1)
                events.append(InputEvent(action: try action(text, at: place), text: text, origin: place))
            }
        }
        return events
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
        switch (words.first, words.count) {
        case ("spin", 3): return .spin(component: words[1], rows: try number(words[2], "rows to turn, such as +3 or -2"))
        case ("select", 3): return .select(component: words[1], index: try number(words[2], "an index from 1"))
        case ("reload", 1): return .reload(component: nil)
        case ("reload", 2): return .reload(component: words[1])
        case ("spin", _): throw EventError("\(place): spin needs a component and a row count: spin band1 +3")
        case ("select", _): throw EventError("\(place): select needs a component and an index from 1: select tolerance 2")
        case ("reload", _): throw EventError("\(place): reload takes at most a component: reload day")
        default: throw EventError("\(place): unknown event '\(text)'; events are spin, select and reload")
        }
    }

    /// Applies the event to the picker that has the component; returns that picker.
    func apply(to pickers: [Picker]) throws(EventError) -> Picker {
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

struct EventError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" }).reversed().drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" }).reversed())
    }
}
