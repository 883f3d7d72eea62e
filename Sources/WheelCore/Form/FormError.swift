/// What was wrong with what a host handed a form: a number that is not a number, a size
/// or inset below zero, a coordinate beyond any screen, a field id twice or never declared.
///
/// ```swift
/// do {
///     _ = try avoidance.keyboardWillShow(Rect(x: 0, y: 264, width: 320, height: -12))
/// } catch let error as FormError {
///     print(error)   // keyboard frame has a negative height (-12)
///     if case .negative(.keyboardFrame, .height, _) = error { ... }
/// }
/// ```
///
/// Match on the cases; the descriptions are for people. An event that throws changes
/// nothing: the core is as it was before the call.
public enum FormError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The value named is NaN or infinite.
    case notFinite(Quantity, Part, Double)
    /// A size, an inset, a margin or a duration below zero.
    case negative(Quantity, Part, Double)
    /// A value whose magnitude is beyond `KeyboardAvoidance.limit`.
    case outOfRange(Quantity, Part, Double)
    /// A scale of zero or less.
    case notPositive(Quantity, Part, Double)
    /// Two fields with the same id (the id, as `String(reflecting:)` writes it).
    case duplicateField(String)
    /// An id that names no field of the form (written likewise).
    case unknownField(String)

    /// The quantity a host handed over.
    public enum Quantity: String, Sendable, Equatable, CaseIterable {
        case scrollViewFrame = "scroll view frame"
        case windowConversion = "window conversion"
        case keyboardFrame = "keyboard frame"
        case fieldFrame = "field frame"
        case contentSize = "content size"
        case contentOffset = "content offset"
        case contentInset = "content inset"
        case indicatorInsets = "scroll indicator inset"
        case margin
        case animationDuration = "animation duration"
    }

    /// The number within the quantity; `.value` for a quantity that is a single number.
    public enum Part: String, Sendable, Equatable, CaseIterable {
        case x, y, width, height, top, left, bottom, right, scale, value
    }

    public var description: String {
        switch self {
        case .notFinite(let quantity, .value, let value):
            return "\(quantity.rawValue) is not finite (\(formText(value)))"
        case .notFinite(let quantity, let part, let value):
            return "\(quantity.rawValue) is not finite (its \(part.rawValue) is \(formText(value)))"
        case .negative(let quantity, .value, let value):
            return "\(quantity.rawValue) is negative (\(formText(value)))"
        case .negative(let quantity, let part, let value):
            return "\(quantity.rawValue) has a negative \(part.rawValue) (\(formText(value)))"
        case .outOfRange(let quantity, .scale, let value):
            return "\(quantity.rawValue) has a scale out of range (\(formText(value))); "
                + "it must lie within \(formText(WindowConversion.scales.lowerBound)) ... \(formText(WindowConversion.scales.upperBound))"
        case .outOfRange(let quantity, .value, let value):
            return "\(quantity.rawValue) is out of range (\(formText(value))); geometry must lie within ±1e12"
        case .outOfRange(let quantity, let part, let value):
            // ±1e12 is `KeyboardAvoidance.limit`.
            return "\(quantity.rawValue) has a \(part.rawValue) out of range (\(formText(value))); geometry must lie within ±1e12"
        case .notPositive(let quantity, let part, let value):
            return "\(quantity.rawValue) has a \(part.rawValue) that is not positive (\(formText(value)))"
        case .duplicateField(let id):
            return "the field \(id) is declared twice; field ids must be unique"
        case .unknownField(let id):
            return "there is no field \(id) in this form"
        }
    }
}

// MARK: - Validation

extension FormError {
    /// Throws unless `value` is finite and within the limit (and not negative, unless
    /// `signed`).
    static func check(_ value: Double, _ quantity: Quantity, _ part: Part, signed: Bool) throws {
        guard value.isFinite else { throw FormError.notFinite(quantity, part, value) }
        if !signed, value < 0 { throw FormError.negative(quantity, part, value) }
        guard abs(value) <= KeyboardAvoidance.limit else { throw FormError.outOfRange(quantity, part, value) }
    }

    static func check(_ rect: Rect, _ quantity: Quantity) throws {
        try check(rect.minX, quantity, .x, signed: true)
        try check(rect.minY, quantity, .y, signed: true)
        try check(rect.width, quantity, .width, signed: false)
        try check(rect.height, quantity, .height, signed: false)
    }

    static func check(_ size: Size, _ quantity: Quantity) throws {
        try check(size.width, quantity, .width, signed: false)
        try check(size.height, quantity, .height, signed: false)
    }

    static func check(_ point: Point, _ quantity: Quantity) throws {
        try check(point.x, quantity, .x, signed: true)
        try check(point.y, quantity, .y, signed: true)
    }

    static func check(_ insets: Insets, _ quantity: Quantity) throws {
        try check(insets.top, quantity, .top, signed: false)
        try check(insets.left, quantity, .left, signed: false)
        try check(insets.bottom, quantity, .bottom, signed: false)
        try check(insets.right, quantity, .right, signed: false)
    }

    static func check(_ conversion: WindowConversion) throws {
        try check(conversion.origin.x, .windowConversion, .x, signed: true)
        try check(conversion.origin.y, .windowConversion, .y, signed: true)
        guard conversion.scale.isFinite else { throw FormError.notFinite(.windowConversion, .scale, conversion.scale) }
        guard conversion.scale > 0 else { throw FormError.notPositive(.windowConversion, .scale, conversion.scale) }
        guard WindowConversion.scales.contains(conversion.scale) else {
            throw FormError.outOfRange(.windowConversion, .scale, conversion.scale)
        }
    }

    static func check(_ animation: KeyboardAnimation?) throws {
        guard let animation else { return }
        try check(animation.duration, .animationDuration, .value, signed: false)
    }
}
