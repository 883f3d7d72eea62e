/// The plane geometry of forms: points, sizes, rectangles and insets in `Double`, with
/// y growing downwards as in UIKit, AppKit's flipped views and a terminal's rows.
///
/// ```swift
/// let scrollView = Rect(x: 0, y: 64, width: 320, height: 416)
/// let keyboard = Rect(x: 0, y: 264, width: 320, height: 216)
/// scrollView.intersection(keyboard)   // Rect(x: 0, y: 264, width: 320, height: 216)
/// Rect(x: 0, y: 480, width: 320, height: 216).intersection(scrollView)   // nil: only the edge touches
/// ```
///
/// The types are plain values; they check nothing on construction. `KeyboardAvoidance`
/// validates what a host hands it (finite, within `KeyboardAvoidance.limit`, sizes and
/// insets not negative) and throws a `FormError` naming the first bad number.

public struct Point: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public static let zero = Point(x: 0, y: 0)

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public var description: String { "(\(formText(x)), \(formText(y)))" }
}

public struct Size: Sendable, Hashable, CustomStringConvertible {
    public var width: Double
    public var height: Double

    public static let zero = Size(width: 0, height: 0)

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(formText(width)) × \(formText(height))" }
}

/// An axis-aligned rectangle: `origin` is its top-left corner, and `size` is not expected
/// to be negative (the validation in `KeyboardAvoidance` rejects negative sizes rather than
/// standardizing them, since a negative height from a host is a bug worth reporting).
public struct Rect: Sendable, Hashable, CustomStringConvertible {
    public var origin: Point
    public var size: Size

    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    public init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }

    public var minX: Double { origin.x }
    public var minY: Double { origin.y }
    public var maxX: Double { origin.x + size.width }
    public var maxY: Double { origin.y + size.height }
    public var width: Double { size.width }
    public var height: Double { size.height }

    /// No area: a width or a height of zero (or less).
    public var isEmpty: Bool { !(size.width > 0 && size.height > 0) }

    /// Every coordinate and length is a number (no NaN, no infinity).
    public var isFinite: Bool {
        origin.x.isFinite && origin.y.isFinite && size.width.isFinite && size.height.isFinite
    }

    /// The rectangle both cover, or nil when they share no area (rectangles that only touch
    /// along an edge do not intersect).
    public func intersection(_ other: Rect) -> Rect? {
        let left = max(minX, other.minX)
        let right = min(maxX, other.maxX)
        let top = max(minY, other.minY)
        let bottom = min(maxY, other.maxY)
        guard left < right, top < bottom else { return nil }
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Whether `other` lies wholly inside this rectangle (edges included).
    public func contains(_ other: Rect) -> Bool {
        other.minX >= minX && other.maxX <= maxX && other.minY >= minY && other.maxY <= maxY
    }

    /// The rectangle moved by `dx` and `dy`.
    public func offsetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: origin.x + dx, y: origin.y + dy, width: size.width, height: size.height)
    }

    /// The rectangle with `insets` taken off its edges; its size does not go below zero.
    public func inset(by insets: Insets) -> Rect {
        Rect(x: minX + insets.left, y: minY + insets.top,
             width: max(0, width - insets.left - insets.right),
             height: max(0, height - insets.top - insets.bottom))
    }

    public var description: String {
        "(\(formText(minX)), \(formText(minY)), \(formText(width)) × \(formText(height)))"
    }
}

/// Distances in from each edge of a rectangle, as a scroll view's content inset or its
/// scroll indicators' insets.
public struct Insets: Sendable, Hashable, CustomStringConvertible {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    public static let zero = Insets(top: 0, left: 0, bottom: 0, right: 0)

    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// These insets with `bottom` replaced.
    public func with(bottom: Double) -> Insets {
        Insets(top: top, left: left, bottom: bottom, right: right)
    }

    public var description: String {
        "(top \(formText(top)), left \(formText(left)), bottom \(formText(bottom)), right \(formText(right)))"
    }
}

/// How window coordinates map to the space the scroll view's frame is given in (its
/// superview's space): `frameSpace = (window - origin) / scale`.
///
/// `origin` is where the frame space's (0, 0) lies in the window, and `scale` is how many
/// window points one frame-space point spans. When the host gives the scroll view's frame
/// in window coordinates, as most do, this is `.identity`. Rotation is not part of it:
/// UIKit's window coordinates turn with the interface, and a host that gets keyboard
/// frames in a fixed screen space converts them to the window before handing them on.
public struct WindowConversion: Sendable, Hashable, CustomStringConvertible {
    public var origin: Point
    public var scale: Double

    public static let identity = WindowConversion(origin: .zero, scale: 1)

    /// The scales a host may give: a million times smaller or larger, no further.
    public static let scales: ClosedRange<Double> = 1e-6...1e6

    public init(origin: Point = .zero, scale: Double = 1) {
        self.origin = origin
        self.scale = scale
    }

    /// `rect`, given in window coordinates, in the frame space.
    public func fromWindow(_ rect: Rect) -> Rect {
        Rect(x: (rect.minX - origin.x) / scale, y: (rect.minY - origin.y) / scale,
             width: rect.width / scale, height: rect.height / scale)
    }

    /// `rect`, given in the frame space, in window coordinates.
    public func toWindow(_ rect: Rect) -> Rect {
        Rect(x: rect.minX * scale + origin.x, y: rect.minY * scale + origin.y,
             width: rect.width * scale, height: rect.height * scale)
    }

    public var description: String { "origin \(origin), scale \(formText(scale))" }
}

/// A number as people write it: whole numbers without ".0", NaN as "nan".
func formText(_ value: Double) -> String {
    if value.isNaN { return "nan" }
    if value.isInfinite { return value < 0 ? "-inf" : "inf" }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}
