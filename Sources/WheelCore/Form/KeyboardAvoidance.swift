/// Keyboard avoidance as pure geometry: from the scroll view's frame, the keyboard's frame,
/// the content and the edited field, the insets and the offset that keep the field in
/// sight above the keyboard, and the same again, exactly, as any of them changes.
///
/// ```swift
/// var form = try KeyboardAvoidance(scrollFrame: Rect(x: 0, y: 0, width: 320, height: 480),
///                                  contentSize: Size(width: 320, height: 900), margin: 8)
/// _ = try form.beginEditing(Rect(x: 16, y: 400, width: 288, height: 44))   // visible: nil
/// let shown = try form.keyboardWillShow(Rect(x: 0, y: 264, width: 320, height: 216),
///                                       animation: KeyboardAnimation(duration: 0.25, curve: .init(rawValue: 7)))
/// // shown?.contentInset.bottom == 216, shown?.offset.y == 188 (the field's bottom + 8 at the keyboard's top)
/// let hidden = try form.keyboardWillHide(animation: KeyboardAnimation(duration: 0.25))
/// // hidden?.contentInset == .zero, hidden?.offset.y == 188 (still within the content)
/// ```
///
/// The host reports what happened (the keyboard will show, the field began editing, the
/// content grew) and applies the `Adjustment` it gets back (nil: nothing to change), with
/// the animation it carries. The core reads no clock and touches no view.
///
/// **Spaces.** The scroll view's frame is in its frame space (its superview's, or the
/// window's); `conversion` takes window coordinates there (`.identity` when the frame is
/// given in window coordinates). Keyboard frames are in window coordinates, as UIKit's
/// notifications give them. Field frames and the offset are in content coordinates, and
/// the visible rectangle is `offset` plus the scroll view's size, less the insets.
///
/// **Insets.** The baseline insets are the host's own (a navigation bar's top, a tab
/// bar's bottom), given at `init` and by `setBaseline`. They are never read back from what
/// the core applied, so a second show, a frame change or a show arriving while a hide
/// animates cannot overwrite them; a hide restores exactly them. While the keyboard is
/// shown, the bottom content and indicator insets are the covered height, but never less
/// than the baseline's bottom (the keyboard hides a tab bar, it does not add to it). The
/// other edges stay the baseline's.
///
/// **Covered height.** The keyboard, converted to the frame space, covers the scroll
/// view from its top edge down to the scroll view's bottom, if it overlaps the scroll view
/// at all. For a docked keyboard that is exactly the height of their intersection; a
/// keyboard floating over the middle hides everything below its top, since an inset can
/// only take a band off the bottom, and one beside, above or below the scroll view (or
/// off-screen) covers nothing. An empty keyboard frame (zero width or height, which some
/// keyboards send) says nothing about the keyboard: the event is ignored.
///
/// **Offset.** With a field being edited, the offset moves as little as it must to show
/// the field grown by `margin` on each side (the margin shrinks to what fits, so a field
/// that fits is always shown whole); a field longer than the visible rectangle stays where
/// it is if it already fills the view, and otherwise shows its top (its left edge across).
/// Then, with or without a field, the offset is clamped to the content under the insets
/// now in force: `-top ... max(-top, contentHeight + bottom - height)`, and across
/// likewise. So no event leaves the content displaced, a hide included.
///
/// **Events.** The state after an event depends only on the state before and the event.
/// The last keyboard event wins: a hide then a show ends shown, a show then a hide ends
/// hidden, with exactly the insets the last one asks for and nothing left over from the
/// other (and, with a field edited, the field in sight). Repeating a show or a frame
/// change with the same frame changes nothing (the second returns nil). A frame change
/// while hidden is ignored (UIKit sends one before every hide, with the keyboard off
/// screen). An event that throws changes nothing.
public struct KeyboardAvoidance: Sendable, Equatable {
    /// The largest magnitude a coordinate, length or inset may have: far beyond any
    /// screen, and small enough that sums of a few of them stay exact to a millionth.
    public static let limit = 1e12

    /// What the host applies to its scroll view: the whole target state, with the
    /// keyboard's animation when a keyboard event caused it (nil otherwise: animate as
    /// the host animates its own scrolling).
    public struct Adjustment: Sendable, Equatable, CustomStringConvertible {
        public var contentInset: Insets
        public var indicatorInsets: Insets
        public var offset: Point
        public var animation: KeyboardAnimation?

        public init(contentInset: Insets, indicatorInsets: Insets, offset: Point, animation: KeyboardAnimation? = nil) {
            self.contentInset = contentInset
            self.indicatorInsets = indicatorInsets
            self.offset = offset
            self.animation = animation
        }

        public var description: String {
            "inset \(contentInset), indicators \(indicatorInsets), offset \(offset)"
                + (animation.map { ", animated \($0)" } ?? "")
        }
    }

    // MARK: What the host reported

    /// The scroll view's frame, in its frame space.
    public private(set) var scrollFrame: Rect
    /// From window coordinates to the frame space.
    public private(set) var conversion: WindowConversion
    public private(set) var contentSize: Size
    /// The host's own content inset, restored when the keyboard hides.
    public private(set) var baselineContentInset: Insets
    /// The host's own scroll indicator insets, restored when the keyboard hides.
    public private(set) var baselineIndicatorInsets: Insets
    /// The keyboard's frame in window coordinates while it is shown; nil while hidden.
    public private(set) var keyboardFrame: Rect?
    /// The edited field's frame in content coordinates; nil when no field is edited.
    public private(set) var fieldFrame: Rect?
    /// Room kept between the edited field and the edges of the visible rectangle.
    public let margin: Double

    // MARK: What the host was told (or reported, for the offset)

    public private(set) var contentInset: Insets
    public private(set) var indicatorInsets: Insets
    /// The content offset: the last one applied, or the one the host last reported.
    public private(set) var offset: Point

    /// - Parameters:
    ///   - contentInset, indicatorInsets: the host's own insets (the baseline).
    ///   - offset: the scroll view's offset now; kept as it is until an event moves it.
    public init(scrollFrame: Rect, contentSize: Size, contentInset: Insets = .zero,
                indicatorInsets: Insets = .zero, offset: Point = .zero, margin: Double = 8,
                conversion: WindowConversion = .identity) throws {
        try FormError.check(scrollFrame, .scrollViewFrame)
        try FormError.check(conversion)
        try FormError.check(contentSize, .contentSize)
        try FormError.check(contentInset, .contentInset)
        try FormError.check(indicatorInsets, .indicatorInsets)
        try FormError.check(offset, .contentOffset)
        try FormError.check(margin, .margin, .value, signed: false)
        self.scrollFrame = scrollFrame
        self.conversion = conversion
        self.contentSize = contentSize
        self.baselineContentInset = contentInset
        self.baselineIndicatorInsets = indicatorInsets
        self.margin = margin
        self.contentInset = contentInset
        self.indicatorInsets = indicatorInsets
        self.offset = offset
    }

    // MARK: - Reading

    public var isKeyboardShown: Bool { keyboardFrame != nil }

    /// The height of the scroll view the keyboard hides, from its top edge down: 0 while
    /// hidden, or when it overlaps the scroll view nowhere.
    public var coveredHeight: Double {
        guard let keyboardFrame,
              let covered = conversion.fromWindow(keyboardFrame).intersection(scrollFrame) else { return 0 }
        return scrollFrame.maxY - covered.minY
    }

    /// The part of the content in sight, in content coordinates: the offset and the
    /// scroll view's size, less the insets (no size below zero).
    public var visibleRect: Rect {
        Rect(origin: offset, size: scrollFrame.size).inset(by: contentInset)
    }

    /// The offsets the content can rest at under `insets`: from `-top` (and `-left`) to
    /// where the content's end meets the inset edge, or `-top` alone when the content is
    /// shorter than the view.
    public static func offsetRange(viewSize: Size, contentSize: Size, insets: Insets)
        -> (x: ClosedRange<Double>, y: ClosedRange<Double>) {
        let x = -insets.left...max(-insets.left, contentSize.width + insets.right - viewSize.width)
        let y = -insets.top...max(-insets.top, contentSize.height + insets.bottom - viewSize.height)
        return (x, y)
    }

    /// The offset nearest to `offset` that shows `field` (see **Offset** above), clamped
    /// to `offsetRange`. With no field, `offset` clamped.
    public static func offset(revealing field: Rect?, from offset: Point, viewSize: Size,
                              contentSize: Size, insets: Insets, margin: Double) -> Point {
        let range = offsetRange(viewSize: viewSize, contentSize: contentSize, insets: insets)
        var target = offset
        if let field {
            target.x = reveal(field.minX, field.maxX, from: offset.x, length: viewSize.width,
                              lead: insets.left, trail: insets.right, margin: margin)
            target.y = reveal(field.minY, field.maxY, from: offset.y, length: viewSize.height,
                              lead: insets.top, trail: insets.bottom, margin: margin)
        }
        return Point(x: min(max(target.x, range.x.lowerBound), range.x.upperBound),
                     y: min(max(target.y, range.y.lowerBound), range.y.upperBound))
    }

    /// Along one axis: the offset nearest to `offset` whose window
    /// `offset + lead ... offset + length - trail` holds `low ... high` with `margin` round it.
    private static func reveal(_ low: Double, _ high: Double, from offset: Double, length: Double,
                               lead: Double, trail: Double, margin: Double) -> Double {
        let visible = length - lead - trail
        let extent = high - low
        if extent <= visible {
            let room = min(margin, (visible - extent) / 2)
            let showingTop = low - room - lead              // the most the offset may be
            let showingBottom = high + room - (length - trail)   // the least; never above showingTop
            return min(max(offset, showingBottom), showingTop)
        }
        // Longer than the window: leave it if it fills the window, else show its start.
        let fillsWindow = offset + lead >= low && offset + length - trail <= high
        return fillsWindow ? offset : low - lead
    }

    // MARK: - Keyboard events

    /// The keyboard will show with `frame` (window coordinates) at its end. A second show
    /// is a frame change; the same frame again changes nothing. An empty frame is ignored.
    public mutating func keyboardWillShow(_ frame: Rect, animation: KeyboardAnimation? = nil) throws -> Adjustment? {
        try FormError.check(frame, .keyboardFrame)
        try FormError.check(animation)
        guard !frame.isEmpty else { return nil }
        keyboardFrame = frame
        return settle(animation: animation)
    }

    /// The shown keyboard will end at `frame` (a different keyboard, a rotation, a
    /// predictive bar appearing). Ignored while the keyboard is hidden, and when empty.
    public mutating func keyboardWillChangeFrame(_ frame: Rect, animation: KeyboardAnimation? = nil) throws -> Adjustment? {
        try FormError.check(frame, .keyboardFrame)
        try FormError.check(animation)
        guard keyboardFrame != nil, !frame.isEmpty else { return nil }
        keyboardFrame = frame
        return settle(animation: animation)
    }

    /// The keyboard will hide: the baseline insets come back, and the offset is clamped
    /// to the content under them. A hide while hidden changes nothing.
    public mutating func keyboardWillHide(animation: KeyboardAnimation? = nil) throws -> Adjustment? {
        try FormError.check(animation)
        keyboardFrame = nil
        return settle(animation: animation)
    }

    // MARK: - Field events

    /// A field began editing (focus moved to it, or to it from another field): the offset
    /// moves to show it.
    public mutating func beginEditing(_ field: Rect) throws -> Adjustment? {
        try FormError.check(field, .fieldFrame)
        return edit(field)
    }

    /// `beginEditing` for a frame validated already (by `FieldOrder`).
    mutating func edit(_ field: Rect) -> Adjustment? {
        fieldFrame = field
        return settle(animation: nil)
    }

    /// The edited field moved or grew (a multi-line field gained a line). Ignored when no
    /// field is edited.
    public mutating func setFieldFrame(_ field: Rect) throws -> Adjustment? {
        try FormError.check(field, .fieldFrame)
        guard fieldFrame != nil else { return nil }
        fieldFrame = field
        return settle(animation: nil)
    }

    /// Editing ended (done, or the field resigned). Nothing moves: the keyboard's hide, if
    /// one follows, restores the insets.
    public mutating func endEditing() {
        fieldFrame = nil
    }

    // MARK: - Geometry events

    /// The content's size changed. The offset follows to keep the edited field shown and
    /// to stay within the content.
    public mutating func setContentSize(_ size: Size) throws -> Adjustment? {
        try FormError.check(size, .contentSize)
        contentSize = size
        return settle(animation: nil)
    }

    /// The scroll view's frame changed (a rotation, a resize), and with it, if given, the
    /// conversion from window coordinates. The keyboard frame held is measured again in
    /// the new geometry; the frame change a rotation brings for the keyboard follows.
    public mutating func setScrollFrame(_ frame: Rect, conversion: WindowConversion? = nil) throws -> Adjustment? {
        try FormError.check(frame, .scrollViewFrame)
        if let conversion { try FormError.check(conversion) }
        scrollFrame = frame
        if let conversion { self.conversion = conversion }
        return settle(animation: nil)
    }

    /// The host's own insets changed (a bar appeared). While the keyboard is hidden they
    /// apply at once; while it is shown, the bottom stays the larger of the keyboard's
    /// and theirs, and the hide restores these.
    public mutating func setBaseline(contentInset: Insets, indicatorInsets: Insets) throws -> Adjustment? {
        try FormError.check(contentInset, .contentInset)
        try FormError.check(indicatorInsets, .indicatorInsets)
        baselineContentInset = contentInset
        baselineIndicatorInsets = indicatorInsets
        return settle(animation: nil)
    }

    /// Several geometry changes at once, as a layout pass makes them: all are checked,
    /// then applied together and settled once, so the result does not depend on the order
    /// they would otherwise be reported in. A nil argument leaves that part as it is;
    /// `fieldFrame` applies only while a field is edited. Throws, changing nothing, when
    /// any part is bad.
    public mutating func setGeometry(scrollFrame: Rect? = nil, conversion: WindowConversion? = nil,
                                     contentSize: Size? = nil, fieldFrame: Rect? = nil,
                                     baselineContentInset: Insets? = nil,
                                     baselineIndicatorInsets: Insets? = nil) throws -> Adjustment? {
        if let scrollFrame { try FormError.check(scrollFrame, .scrollViewFrame) }
        if let conversion { try FormError.check(conversion) }
        if let contentSize { try FormError.check(contentSize, .contentSize) }
        if let fieldFrame { try FormError.check(fieldFrame, .fieldFrame) }
        if let baselineContentInset { try FormError.check(baselineContentInset, .contentInset) }
        if let baselineIndicatorInsets { try FormError.check(baselineIndicatorInsets, .indicatorInsets) }
        if let scrollFrame { self.scrollFrame = scrollFrame }
        if let conversion { self.conversion = conversion }
        if let contentSize { self.contentSize = contentSize }
        if let fieldFrame, self.fieldFrame != nil { self.fieldFrame = fieldFrame }
        if let baselineContentInset { self.baselineContentInset = baselineContentInset }
        if let baselineIndicatorInsets { self.baselineIndicatorInsets = baselineIndicatorInsets }
        return settle(animation: nil)
    }

    /// The user scrolled to `offset`. Recorded as it is, not clamped: the next event that
    /// moves anything starts from here.
    public mutating func scroll(to offset: Point) throws {
        try FormError.check(offset, .contentOffset)
        self.offset = offset
    }

    // MARK: - Inside

    /// Brings the insets and the offset to what the state asks for; nil when they are
    /// already there.
    private mutating func settle(animation: KeyboardAnimation?) -> Adjustment? {
        let covered = coveredHeight
        let content = baselineContentInset.with(bottom: max(baselineContentInset.bottom, covered))
        let indicators = baselineIndicatorInsets.with(bottom: max(baselineIndicatorInsets.bottom, covered))
        let target = Self.offset(revealing: fieldFrame, from: offset, viewSize: scrollFrame.size,
                                 contentSize: contentSize, insets: content, margin: margin)
        guard content != contentInset || indicators != indicatorInsets || target != offset else { return nil }
        contentInset = content
        indicatorInsets = indicators
        offset = target
        return Adjustment(contentInset: content, indicatorInsets: indicators, offset: target, animation: animation)
    }
}
