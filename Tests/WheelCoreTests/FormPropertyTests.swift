import Testing
import WheelCore

/// Keyboard avoidance over seeded random scenes: windows, scroll views and conversions of
/// every shape, keyboards docked, floating, off-screen and empty, fields inside and outside
/// the content, and random runs of every event. After each event:
///
/// - the insets are the baseline's, with the bottom raised to the covered height that an
///   oracle of its own computes from the keyboard the events left shown;
/// - the offset lies within the content under those insets (but for a user's scroll,
///   recorded as it is);
/// - an edited field that fits the visible rectangle lies inside it, and so clear of the
///   keyboard, in window coordinates too;
/// - the same event again changes nothing.
///
/// Coordinates are multiples of a half and scales are 0.5, 1 or 2, so every sum is exact
/// and the checks compare exactly.
@Suite struct FormPropertyTests {
    @Test func afterEveryEventTheFieldIsInSightAndTheOffsetWithinTheContent() throws {
        var fieldsChecked = 0
        try forEachRandomCase(1_500, seed: 0xF0_4D) { random, label in
            var scene = try FormScene(&random)
            var steps: [String] = []
            for _ in 0..<Int.random(in: 1...30, using: &random) {
                let event = scene.randomEvent(&random)
                steps.append("\(event)")
                let context = "\(label): \(scene.setup), then \(steps.joined(separator: "; "))"
                try scene.apply(event)
                try scene.checkInsets(context)
                // A user's scroll is recorded as it is (past the ends, away from the field),
                // until an event that is not ignored settles it.
                guard !scene.userScrolled else { continue }
                try scene.checkOffset(context)
                fieldsChecked += try scene.checkField(context) ? 1 : 0
                let settled = scene.avoidance
                let again = try scene.apply(event)
                #expect(again == nil, "\(context): the same event again gave \(String(describing: again))")
                try #require(scene.avoidance == settled, "\(context): the same event again changed the state")
            }
        }
        // The scenes are not so hostile that fields rarely fit.
        print("FormPropertyTests: \(fieldsChecked) fitting fields checked")
        #expect(fieldsChecked > 5_000)
    }
}

/// One event, as the property test draws it.
private enum FormEvent: CustomStringConvertible {
    case show(Rect), changeFrame(Rect), hide
    case beginEditing(Rect), setFieldFrame(Rect), endEditing
    case setContentSize(Size), setScrollFrame(Rect, WindowConversion?), setBaseline(Insets, Insets), scroll(Point)

    var description: String {
        switch self {
        case .show(let frame): "show \(frame)"
        case .changeFrame(let frame): "change frame \(frame)"
        case .hide: "hide"
        case .beginEditing(let field): "begin editing \(field)"
        case .setFieldFrame(let field): "field frame \(field)"
        case .endEditing: "end editing"
        case .setContentSize(let size): "content \(size)"
        case .setScrollFrame(let frame, let conversion): "scroll frame \(frame)" + (conversion.map { ", \($0)" } ?? "")
        case .setBaseline(let content, let indicators): "baseline \(content), indicators \(indicators)"
        case .scroll(let offset): "scroll to \(offset)"
        }
    }
}

/// A random scene, the avoidance under test, and the test's own record of which keyboard
/// and field the events left.
private struct FormScene {
    var window: Size
    var avoidance: KeyboardAvoidance
    var keyboard: Rect?
    var field: Rect?
    /// The user scrolled (or the host gave its offset at `init`), and no event since has
    /// settled the offset.
    var userScrolled = true
    let setup: String

    init(_ random: inout SplitMix64) throws {
        window = Size(width: random.half(200...1_400), height: random.half(200...1_400))
        let conversion = random.conversion()
        let frame = random.scrollFrame()
        let content = random.contentSize(frame: frame)
        let (inset, indicators) = (random.insets(), random.insets())
        let margin = random.half(0...24)
        let offset = Point(x: random.half(-100...Int(content.width)), y: random.half(-100...Int(content.height)))
        avoidance = try KeyboardAvoidance(scrollFrame: frame, contentSize: content, contentInset: inset,
                                          indicatorInsets: indicators, offset: offset, margin: margin, conversion: conversion)
        setup = "window \(window), scroll frame \(frame), \(conversion), content \(content), inset \(inset), "
            + "indicators \(indicators), margin \(margin), offset \(offset)"
    }

    mutating func randomEvent(_ random: inout SplitMix64) -> FormEvent {
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<4: return .show(random.keyboard(in: window))
        case 4..<6: return .changeFrame(random.keyboard(in: window))
        case 6..<8: return .hide
        case 8..<12: return .beginEditing(random.field(in: avoidance.contentSize))
        case 12: return .setFieldFrame(random.grown(field ?? random.field(in: avoidance.contentSize)))
        case 13: return .endEditing
        case 14: return .setContentSize(random.contentSize(frame: avoidance.scrollFrame))
        case 15: return .setScrollFrame(random.scrollFrame(), random.oneIn(3) ? random.conversion() : nil)
        case 16: return .setBaseline(random.insets(), random.insets())
        default:
            let size = avoidance.contentSize
            return .scroll(Point(x: random.half(-200...Int(size.width) + 200), y: random.half(-200...Int(size.height) + 200)))
        }
    }

    /// Applies `event` to the avoidance, and to the test's record by the documented rules.
    @discardableResult
    mutating func apply(_ event: FormEvent) throws -> KeyboardAvoidance.Adjustment? {
        if userScrolled, settles(event) { userScrolled = false }
        switch event {
        case .show(let frame):
            if !frame.isEmpty { keyboard = frame }
            return try avoidance.keyboardWillShow(frame)
        case .changeFrame(let frame):
            if keyboard != nil, !frame.isEmpty { keyboard = frame }
            return try avoidance.keyboardWillChangeFrame(frame)
        case .hide:
            keyboard = nil
            return try avoidance.keyboardWillHide()
        case .beginEditing(let frame):
            field = frame
            return try avoidance.beginEditing(frame)
        case .setFieldFrame(let frame):
            if field != nil { field = frame }
            return try avoidance.setFieldFrame(frame)
        case .endEditing:
            field = nil
            avoidance.endEditing()
            return nil
        case .setContentSize(let size):
            return try avoidance.setContentSize(size)
        case .setScrollFrame(let frame, let conversion):
            return try avoidance.setScrollFrame(frame, conversion: conversion)
        case .setBaseline(let content, let indicators):
            return try avoidance.setBaseline(contentInset: content, indicatorInsets: indicators)
        case .scroll(let offset):
            userScrolled = true
            try avoidance.scroll(to: offset)
            return nil
        }
    }

    /// Whether `event` settles the offset: every event but a scroll, the end of editing and
    /// the ones the core ignores (an empty keyboard, a frame change while hidden, a field
    /// frame with no field edited).
    func settles(_ event: FormEvent) -> Bool {
        switch event {
        case .show(let frame): !frame.isEmpty
        case .changeFrame(let frame): keyboard != nil && !frame.isEmpty
        case .setFieldFrame: field != nil
        case .scroll, .endEditing: false
        case .hide, .beginEditing, .setContentSize, .setScrollFrame, .setBaseline: true
        }
    }

    /// The height of the scroll view the recorded keyboard covers, worked out here from
    /// the documented rule rather than asked of the core.
    var covered: Double {
        guard let keyboard else { return 0 }
        let conversion = avoidance.conversion
        let frame = avoidance.scrollFrame
        let top = (keyboard.minY - conversion.origin.y) / conversion.scale
        let bottom = (keyboard.maxY - conversion.origin.y) / conversion.scale
        let left = (keyboard.minX - conversion.origin.x) / conversion.scale
        let right = (keyboard.maxX - conversion.origin.x) / conversion.scale
        let overlaps = left < frame.maxX && right > frame.minX && top < frame.maxY && bottom > frame.minY
        return overlaps ? frame.maxY - max(top, frame.minY) : 0
    }

    func checkInsets(_ context: String) throws {
        let content = avoidance.baselineContentInset
        let indicators = avoidance.baselineIndicatorInsets
        try #require(avoidance.isKeyboardShown == (keyboard != nil), "\(context): shown")
        try #require(avoidance.contentInset == content.with(bottom: max(content.bottom, covered)),
                     "\(context): content inset \(avoidance.contentInset), covered \(covered)")
        try #require(avoidance.indicatorInsets == indicators.with(bottom: max(indicators.bottom, covered)),
                     "\(context): indicator insets \(avoidance.indicatorInsets), covered \(covered)")
    }

    func checkOffset(_ context: String) throws {
        let inset = avoidance.contentInset
        let view = avoidance.scrollFrame.size
        let content = avoidance.contentSize
        let offset = avoidance.offset
        try #require(offset.x >= -inset.left && (offset.x <= content.width + inset.right - view.width || offset.x == -inset.left),
                     "\(context): offset \(offset) across, content \(content), inset \(inset)")
        try #require(offset.y >= -inset.top && (offset.y <= content.height + inset.bottom - view.height || offset.y == -inset.top),
                     "\(context): offset \(offset) down, content \(content), inset \(inset)")
    }

    /// Whether the edited field fits: no longer than the visible rectangle along either
    /// axis, and within the stretch of content a window can reach (`0 ... max(content,
    /// visible)`). When it does, it must be inside the visible rectangle, and clear of the
    /// keyboard. Returns whether it was checked.
    func checkField(_ context: String) throws -> Bool {
        guard let field else { return false }
        let visible = avoidance.visibleRect
        let content = avoidance.contentSize
        let fits = field.width <= visible.width && field.height <= visible.height
            && field.minX >= 0 && field.maxX <= max(content.width, visible.width)
            && field.minY >= 0 && field.maxY <= max(content.height, visible.height)
        guard fits else { return false }
        try #require(visible.contains(field), "\(context): field \(field) outside the visible \(visible)")
        if let keyboard {
            let frame = avoidance.scrollFrame
            let offset = avoidance.offset
            let onScreen = avoidance.conversion.toWindow(field.offsetBy(dx: frame.minX - offset.x, dy: frame.minY - offset.y))
            try #require(onScreen.intersection(keyboard) == nil, "\(context): field at \(onScreen) under the keyboard")
        }
        return true
    }
}

private extension SplitMix64 {
    /// A multiple of a half in `range`.
    mutating func half(_ range: ClosedRange<Int>) -> Double {
        Double(Int.random(in: (range.lowerBound * 2)...(range.upperBound * 2), using: &self)) / 2
    }

    mutating func conversion() -> WindowConversion {
        guard oneIn(3) else { return .identity }
        return WindowConversion(origin: Point(x: half(-200...200), y: half(-200...200)),
                                scale: [0.5, 1, 2].randomElement(using: &self)!)
    }

    mutating func scrollFrame() -> Rect {
        Rect(x: half(-50...300), y: half(-50...400), width: half(50...1_200), height: half(50...1_200))
    }

    mutating func contentSize(frame: Rect) -> Size {
        let width = oneIn(2) ? frame.width : half(0...2_000)
        return Size(width: width, height: oneIn(8) ? half(0...Int(frame.height)) : half(0...6_000))
    }

    mutating func insets() -> Insets {
        Insets(top: oneIn(3) ? 0 : half(0...100), left: oneIn(2) ? 0 : half(0...20),
               bottom: oneIn(3) ? 0 : half(0...100), right: oneIn(2) ? 0 : half(0...20))
    }

    /// A keyboard frame in window coordinates: docked at the bottom of `window` (most
    /// often), floating anywhere, off-screen below, or empty.
    mutating func keyboard(in window: Size) -> Rect {
        let width = Int(window.width)
        let height = Int(window.height)
        switch Int.random(in: 0..<10, using: &self) {
        case 0..<5:
            let tall = half(100...max(100, height * 2 / 3))
            return Rect(x: 0, y: window.height - tall, width: window.width, height: tall)
        case 5..<8:
            return Rect(x: half(-100...width), y: half(-100...height), width: half(1...width), height: half(1...height))
        case 8:
            return Rect(x: 0, y: window.height + half(0...50), width: window.width, height: half(100...400))
        default:
            return oneIn(2) ? .zero : Rect(x: 0, y: half(0...height), width: window.width, height: 0)
        }
    }

    /// A field within `content` (mostly), sometimes poking out of it or taller than a view.
    mutating func field(in content: Size) -> Rect {
        let width = min(half(0...600), content.width)
        let height = oneIn(10) ? half(0...1_500) : half(0...120)
        let x = half(0...max(0, Int(content.width - width)))
        let y = half(0...max(0, Int(content.height - height)))
        guard !oneIn(10) else { return Rect(x: x + half(-300...300), y: y + half(-300...300), width: width, height: height) }
        return Rect(x: x, y: y, width: width, height: height)
    }

    /// `field` grown downwards by a few lines, as a multi-line field grows.
    mutating func grown(_ field: Rect) -> Rect {
        Rect(x: field.minX, y: field.minY, width: field.width, height: field.height + half(0...200))
    }
}
