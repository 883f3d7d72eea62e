/// The state machine behind a form: which field is edited, next, previous and done in the
/// order of the fields' positions, and keyboard avoidance for the edited field.
///
/// ```swift
/// var form = FormCore(fields: try FieldOrder([
///                         .init(id: "name", frame: Rect(x: 16, y: 16, width: 288, height: 44)),
///                         .init(id: "bio", frame: Rect(x: 16, y: 600, width: 288, height: 120)),
///                     ]),
///                     avoidance: try KeyboardAvoidance(scrollFrame: Rect(x: 0, y: 0, width: 320, height: 480),
///                                                      contentSize: Size(width: 320, height: 736)))
/// _ = try form.focus("name")          // FocusChange(from: nil, to: "name", adjustment: nil)
/// _ = try form.keyboardWillShow(Rect(x: 0, y: 264, width: 320, height: 216))   // bottom inset 216
/// let step = form.next()              // to "bio"; its adjustment scrolls it into view (offset.y 464)
/// _ = form.done()                     // to nil: the host resigns the field, and the hide follows
/// ```
///
/// **Focus.** At most one field is edited. `focus(_:)` is the host's began-editing (a tap,
/// or the first responder moving by itself); `next()` and `previous()` walk `fields` in
/// its order, and `done()` ends editing. Every move of the focus runs the avoidance for
/// the newly edited field, so moving the focus moves the offset. `done()` ends the focus,
/// not the keyboard: the host resigns the field and reports the keyboard's hide when it
/// comes, which restores the insets.
///
/// **Ends.** `next()` at the last field and `previous()` at the first change nothing (a
/// host shows "Done" on the last field's return key; `hasNext` tells it when). With no
/// field edited, `next()` edits the first field and `previous()` the last.
///
/// Keyboard and geometry events are `KeyboardAvoidance`'s, passed through.
public struct FormCore<ID: Hashable & Sendable>: Sendable, Equatable {
    public typealias Adjustment = KeyboardAvoidance.Adjustment

    /// The focus moved from one field (or none) to another (or none).
    public struct FocusChange: Sendable, Equatable {
        public let from: ID?
        public let to: ID?
        /// What to apply to the scroll view to show the field now edited; nil when it is
        /// already in sight.
        public let adjustment: Adjustment?

        public init(from: ID?, to: ID?, adjustment: Adjustment?) {
            self.from = from
            self.to = to
            self.adjustment = adjustment
        }
    }

    public private(set) var fields: FieldOrder<ID>
    public private(set) var avoidance: KeyboardAvoidance
    /// The field being edited.
    public private(set) var focused: ID?

    /// A form with no field edited (a field the avoidance was editing is let go).
    public init(fields: FieldOrder<ID>, avoidance: KeyboardAvoidance) {
        self.fields = fields
        self.avoidance = avoidance
        self.avoidance.endEditing()
    }

    /// Whether `next()` would move: there is a field after the edited one (or any field,
    /// when none is edited).
    public var hasNext: Bool {
        guard let focused else { return fields.first != nil }
        return fields.next(after: focused) != nil
    }

    /// Whether `previous()` would move.
    public var hasPrevious: Bool {
        guard let focused else { return fields.last != nil }
        return fields.previous(before: focused) != nil
    }

    // MARK: - Focus

    /// Field `id` began editing. Nil when it already was and nothing moved.
    public mutating func focus(_ id: ID) throws -> FocusChange? {
        guard let frame = fields.frame(of: id) else { throw FormError.unknownField(String(reflecting: id)) }
        return move(to: id, frame: frame)
    }

    /// Edits the field after the edited one (the first, when none is edited).
    public mutating func next() -> FocusChange? {
        let target = if let focused { fields.next(after: focused) } else { fields.first }
        guard let target, let frame = fields.frame(of: target) else { return nil }
        return move(to: target, frame: frame)
    }

    /// Edits the field before the edited one (the last, when none is edited).
    public mutating func previous() -> FocusChange? {
        let target = if let focused { fields.previous(before: focused) } else { fields.last }
        guard let target, let frame = fields.frame(of: target) else { return nil }
        return move(to: target, frame: frame)
    }

    /// Ends editing. Nil when no field was edited.
    public mutating func done() -> FocusChange? {
        guard let previous = focused else { return nil }
        focused = nil
        avoidance.endEditing()
        return FocusChange(from: previous, to: nil, adjustment: nil)
    }

    /// Field `id` moved or changed size (a multi-line field grew, or one above it did).
    /// When it is the edited field, the offset follows it.
    public mutating func setFrame(_ frame: Rect, of id: ID) throws -> Adjustment? {
        var order = fields
        try order.setFrame(frame, of: id)
        guard id == focused else {
            fields = order
            return nil
        }
        let adjustment = try avoidance.setFieldFrame(frame)
        fields = order
        return adjustment
    }

    /// A layout pass: fields moved or grew (a multi-line field gained a line and pushed
    /// the fields below it down), and with them, perhaps, the content's size and the
    /// scroll view's frame. Everything is checked first and applied together, settled
    /// once (see `KeyboardAvoidance.setGeometry`); frames of fields not named stay.
    public mutating func layout(frames: [ID: Rect], contentSize: Size? = nil, scrollFrame: Rect? = nil,
                                conversion: WindowConversion? = nil, baselineContentInset: Insets? = nil,
                                baselineIndicatorInsets: Insets? = nil) throws -> Adjustment? {
        var order = fields
        try order.setFrames(frames)
        var avoidance = avoidance
        let adjustment = try avoidance.setGeometry(
            scrollFrame: scrollFrame, conversion: conversion, contentSize: contentSize,
            fieldFrame: focused.flatMap { order.frame(of: $0) },
            baselineContentInset: baselineContentInset, baselineIndicatorInsets: baselineIndicatorInsets)
        fields = order
        self.avoidance = avoidance
        return adjustment
    }

    // MARK: - Keyboard and geometry (see KeyboardAvoidance)

    public mutating func keyboardWillShow(_ frame: Rect, animation: KeyboardAnimation? = nil) throws -> Adjustment? {
        try avoidance.keyboardWillShow(frame, animation: animation)
    }

    public mutating func keyboardWillChangeFrame(_ frame: Rect, animation: KeyboardAnimation? = nil) throws -> Adjustment? {
        try avoidance.keyboardWillChangeFrame(frame, animation: animation)
    }

    public mutating func keyboardWillHide(animation: KeyboardAnimation? = nil) throws -> Adjustment? {
        try avoidance.keyboardWillHide(animation: animation)
    }

    public mutating func setContentSize(_ size: Size) throws -> Adjustment? {
        try avoidance.setContentSize(size)
    }

    public mutating func setScrollFrame(_ frame: Rect, conversion: WindowConversion? = nil) throws -> Adjustment? {
        try avoidance.setScrollFrame(frame, conversion: conversion)
    }

    public mutating func setBaseline(contentInset: Insets, indicatorInsets: Insets) throws -> Adjustment? {
        try avoidance.setBaseline(contentInset: contentInset, indicatorInsets: indicatorInsets)
    }

    public mutating func scroll(to offset: Point) throws {
        try avoidance.scroll(to: offset)
    }

    // MARK: - Inside

    private mutating func move(to id: ID, frame: Rect) -> FocusChange? {
        let previous = focused
        focused = id
        let adjustment = avoidance.edit(frame)
        guard previous != id || adjustment != nil else { return nil }
        return FocusChange(from: previous, to: id, adjustment: adjustment)
    }
}
