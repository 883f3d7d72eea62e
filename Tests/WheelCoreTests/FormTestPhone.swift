import WheelCore

/// The phone the form tests run on, in points: a 320 × 480 window with a 64-point bar above
/// the scroll view, which fills the rest, and a 49-point tab bar over its bottom (the
/// baseline insets). The content is 1,000 points tall; the margin is 8.
///
/// Under the baseline the view shows 367 points of content and rests at 0 ... 633; with
/// the keyboard up, 200 points (0 ... 800); with the tall keyboard, 163 (0 ... 837).
enum FormPhone {
    static let window = Rect(x: 0, y: 0, width: 320, height: 480)
    static let scrollFrame = Rect(x: 0, y: 64, width: 320, height: 416)
    static let contentSize = Size(width: 320, height: 1_000)
    static let baseline = Insets(bottom: 49)
    static let indicatorBaseline = Insets(top: 2, bottom: 45)

    /// The keyboard docked at the bottom: it covers 216 points of the scroll view.
    static let keyboard = Rect(x: 0, y: 264, width: 320, height: 216)
    /// The same keyboard with its predictive bar: 253 points.
    static let tallKeyboard = Rect(x: 0, y: 227, width: 320, height: 253)
    /// The keyboard's end frame when it hides: just below the window.
    static let offScreenKeyboard = Rect(x: 0, y: 480, width: 320, height: 216)
    static let animation = KeyboardAnimation(duration: 0.25, curve: .init(rawValue: 7))

    /// A field below the fold: 500 ... 544, so 492 ... 552 with its margin.
    static let field = Rect(x: 16, y: 500, width: 288, height: 44)

    /// The insets with the keyboard covering `covered` points.
    static func inset(covered: Double) -> Insets { Insets(bottom: covered) }
    static func indicators(covered: Double) -> Insets { Insets(top: 2, bottom: covered) }

    static func avoidance(offset: Point = .zero) throws -> KeyboardAvoidance {
        try KeyboardAvoidance(scrollFrame: scrollFrame, contentSize: contentSize, contentInset: baseline,
                              indicatorInsets: indicatorBaseline, offset: offset, margin: 8)
    }

    static func adjustment(covered: Double?, offsetY: Double, animation: KeyboardAnimation? = nil)
        -> KeyboardAvoidance.Adjustment {
        KeyboardAvoidance.Adjustment(
            contentInset: covered.map(inset(covered:)) ?? baseline,
            indicatorInsets: covered.map(indicators(covered:)) ?? indicatorBaseline,
            offset: Point(x: 0, y: offsetY), animation: animation)
    }
}
