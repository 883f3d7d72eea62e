import Foundation
import Testing
import Lua
@testable import Wheel
import WheelCore

/// The phone the form tests lay their forms out on, in points: a 320 × 568 window, the
/// scroll view 320 × 480 below a 64-point bar, and the host's tab bar as a baseline inset
/// of 49 at the bottom (content and indicators).
///
/// The keyboard, 216 high at the window's bottom (352 ... 568), covers the scroll view's
/// 352 ... 544: 192 points. So the view shows 431 points of content under the baseline
/// and 288 over the keyboard.
enum FormDevice {
    static let scrollFrame = Rect(x: 0, y: 64, width: 320, height: 480)
    static let baseline = Insets(bottom: 49)
    static let keyboard = Rect(x: 0, y: 352, width: 320, height: 216)
    static let animation = KeyboardAnimation(duration: 0.25, curve: .init(rawValue: 7))

    /// The sign-up form's fields in content coordinates, top to bottom: the multi-line bio
    /// sits between the e-mail and the age.
    static let frames: [String: Rect] = [
        "name": Rect(x: 16, y: 20, width: 288, height: 44),
        "email": Rect(x: 16, y: 300, width: 288, height: 44),
        "bio": Rect(x: 16, y: 380, width: 288, height: 88),
        "age": Rect(x: 16, y: 500, width: 288, height: 44),
        "state": Rect(x: 16, y: 580, width: 288, height: 44),
    ]
    static let contentSize = Size(width: 320, height: 700)

    static func layout(frames: [String: Rect] = frames, contentSize: Size = contentSize) -> FormLayout {
        FormLayout(scrollFrame: scrollFrame, contentSize: contentSize, fieldFrames: frames,
                   contentInset: baseline, indicatorInsets: baseline)
    }

    /// A form's layout with every field (in `ids`) stacked 60 points apart from the top.
    static func stacked(_ ids: [String]) -> FormLayout {
        var frames: [String: Rect] = [:]
        for (index, id) in ids.enumerated() { frames[id] = Rect(x: 16, y: 20 + 60 * Double(index), width: 288, height: 44) }
        return layout(frames: frames)
    }

    /// What the form asks the host to apply with `covered` points under the keyboard (nil:
    /// the baseline).
    static func adjustment(covered: Double?, offsetY: Double, animation: KeyboardAnimation? = nil) -> Form.Adjustment {
        let insets = covered.map { Insets(bottom: $0) } ?? baseline
        return Form.Adjustment(contentInset: insets, indicatorInsets: insets, offset: Point(x: 0, y: offsetY),
                               animation: animation)
    }
}

extension ScriptRun {
    /// The first form the script declared.
    var form: Form { runtime.forms[0] }

    /// Whether the runtime still runs a script that declares a form (after a failure).
    func runsAnotherForm() async throws -> Bool {
        let path = URL(fileURLWithPath: self.path).deletingLastPathComponent().appendingPathComponent("again.lua").path
        try #"form "again" { fields = { { id = "a", value = "kept" } } }"#.write(toFile: path, atomically: true, encoding: .utf8)
        try await runtime.run(file: path)
        return runtime.form(named: "again")?.field("a")?.text == "kept"
    }
}

extension Form {
    /// Records the form's events from now on.
    func record() -> Recorder<FormEvent> {
        let recorder = Recorder<FormEvent>()
        observe { recorder.all.append($0) }
        return recorder
    }

    /// Every field's text, by id.
    var texts: [String: String] {
        Dictionary(uniqueKeysWithValues: fields.map { ($0.id, $0.text) })
    }
}
