/// How the keyboard moves: its duration and curve, as the host's keyboard notification
/// gave them, handed back untouched on the adjustment the notification causes so that
/// the insets and the offset move with the keyboard, not after it.
///
/// ```swift
/// let animation = KeyboardAnimation(duration: 0.25, curve: KeyboardAnimation.Curve(rawValue: 7))
/// animation.curve             // .keyboard(rawValue: 7), UIKit's private keyboard curve
/// animation.curve.rawValue    // 7, for UIView.AnimationOptions(rawValue: UInt(7 << 16))
/// ```
///
/// The core never reads the duration; it only checks that it is a number of seconds not
/// below zero.
public struct KeyboardAnimation: Sendable, Equatable, CustomStringConvertible {
    /// The timing curve. The raw values are UIKit's `UIView.AnimationCurve`; any other
    /// value a keyboard reports (iOS uses 7) is kept as `.keyboard(rawValue:)`.
    public enum Curve: Sendable, Hashable {
        case easeInOut
        case easeIn
        case easeOut
        case linear
        case keyboard(rawValue: Int)

        public init(rawValue: Int) {
            switch rawValue {
            case 0: self = .easeInOut
            case 1: self = .easeIn
            case 2: self = .easeOut
            case 3: self = .linear
            default: self = .keyboard(rawValue: rawValue)
            }
        }

        public var rawValue: Int {
            switch self {
            case .easeInOut: 0
            case .easeIn: 1
            case .easeOut: 2
            case .linear: 3
            case .keyboard(let rawValue): rawValue
            }
        }
    }

    /// Seconds.
    public var duration: Double
    public var curve: Curve

    public init(duration: Double, curve: Curve = .easeInOut) {
        self.duration = duration
        self.curve = curve
    }

    public var description: String { "\(formText(duration)) s, curve \(curve)" }
}
