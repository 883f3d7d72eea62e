import Testing
import WheelCore

/// A layout pass reported at once: `KeyboardAvoidance.setGeometry`, `FieldOrder.setFrames`
/// and `FormCore.layout`, on `FormPhone` (200 points of content in sight over the
/// keyboard, 367 under the baseline alone).
@Suite struct FormLayoutTests {
    typealias Phone = FormPhone

    /// Three fields, the multi-line bio between the others: the name at the top, the bio
    /// at 500 ... 544 and the e-mail below it at 560 ... 604.
    static let name = Rect(x: 16, y: 16, width: 288, height: 44)
    static let bio = Rect(x: 16, y: 500, width: 288, height: 44)
    static let email = Rect(x: 16, y: 560, width: 288, height: 44)

    /// The bio after its text grew by two lines: 500 ... 588, the e-mail pushed down to
    /// 604 ... 648, the content 44 points taller.
    static let grownBio = Rect(x: 16, y: 500, width: 288, height: 88)
    static let movedEmail = Rect(x: 16, y: 604, width: 288, height: 44)
    static let grownContent = Size(width: 320, height: 1_044)

    static func form() throws -> FormCore<String> {
        let order = try FieldOrder<String>([
            .init(id: "name", frame: name), .init(id: "bio", frame: bio), .init(id: "email", frame: email),
        ])
        return FormCore(fields: order, avoidance: try Phone.avoidance())
    }

    /// The form with the bio edited and the keyboard up: the bio's bottom and margin
    /// (552) at the keyboard's top, 200 points below the offset.
    static func editingBio() throws -> FormCore<String> {
        var form = try form()
        #expect(try form.focus("bio") == .init(from: nil, to: "bio", adjustment: Phone.adjustment(covered: nil, offsetY: 185)))
        #expect(try form.keyboardWillShow(Phone.keyboard) == Phone.adjustment(covered: 216, offsetY: 352))
        return form
    }

    // MARK: FormCore.layout

    @Test func aPassThatGrowsTheEditedFieldAndTheContentKeepsTheFieldJustAboveTheKeyboard() throws {
        var form = try Self.editingBio()
        let adjustment = try form.layout(frames: ["bio": Self.grownBio, "email": Self.movedEmail],
                                         contentSize: Self.grownContent)
        // 588 + 8 - 200: the bio's new bottom with its margin at the keyboard's top.
        #expect(adjustment == Phone.adjustment(covered: 216, offsetY: 396))
        #expect(form.avoidance.offset == Point(x: 0, y: 396))
        #expect(form.avoidance.contentInset == Phone.inset(covered: 216))
        #expect(form.avoidance.indicatorInsets == Phone.indicators(covered: 216))
        #expect(form.avoidance.contentSize == Self.grownContent)
        #expect(form.avoidance.fieldFrame == Self.grownBio)
        #expect(form.avoidance.visibleRect == Rect(x: 0, y: 396, width: 320, height: 200))
        #expect(form.fields.frame(of: "bio") == Self.grownBio)
        #expect(form.fields.frame(of: "email") == Self.movedEmail)
        #expect(form.focused == "bio")
    }

    @Test func aFieldGrowingPastTheOldEndOfTheContentIsShownWholeWhenTheContentGrowsInTheSamePass() throws {
        // The bio at the end of the content: 900 ... 944, then 900 ... 1032 in 1,044 points.
        // Reported one at a time, the field first, the offset would stop at the old end (800).
        let order = try FieldOrder<String>([.init(id: "bio", frame: Rect(x: 16, y: 900, width: 288, height: 44))])
        var form = FormCore(fields: order, avoidance: try Phone.avoidance())
        _ = try form.focus("bio")
        #expect(try form.keyboardWillShow(Phone.keyboard) == Phone.adjustment(covered: 216, offsetY: 752))
        let grown = Rect(x: 16, y: 900, width: 288, height: 132)
        var oneAtATime = form
        #expect(try oneAtATime.setFrame(grown, of: "bio") == Phone.adjustment(covered: 216, offsetY: 800))
        #expect(try form.layout(frames: ["bio": grown], contentSize: Self.grownContent)
            == Phone.adjustment(covered: 216, offsetY: 840))
        #expect(form.avoidance.visibleRect.contains(grown))
    }

    @Test func aPassGivesTheSameStateAsItsPartsReportedOneAtATimeInEitherOrder() throws {
        let start = try Self.editingBio()
        var atOnce = start
        let adjustment = try atOnce.layout(frames: ["bio": Self.grownBio, "email": Self.movedEmail],
                                           contentSize: Self.grownContent)
        #expect(adjustment?.offset == Point(x: 0, y: 396))

        var framesFirst = start
        _ = try framesFirst.setFrame(Self.movedEmail, of: "email")
        _ = try framesFirst.setFrame(Self.grownBio, of: "bio")
        _ = try framesFirst.setContentSize(Self.grownContent)
        #expect(framesFirst == atOnce)

        var contentFirst = start
        _ = try contentFirst.setContentSize(Self.grownContent)
        _ = try contentFirst.setFrame(Self.grownBio, of: "bio")
        _ = try contentFirst.setFrame(Self.movedEmail, of: "email")
        #expect(contentFirst == atOnce)
    }

    @Test func theFramesOfAPassMayBeGivenInAnyDictionaryOrder() throws {
        // The same pass built from its entries in both orders ends in the same state.
        var one = try Self.editingBio()
        var other = one
        var forwards: [String: Rect] = [:]
        forwards["bio"] = Self.grownBio
        forwards["email"] = Self.movedEmail
        var backwards: [String: Rect] = [:]
        backwards["email"] = Self.movedEmail
        backwards["bio"] = Self.grownBio
        _ = try one.layout(frames: forwards, contentSize: Self.grownContent)
        _ = try other.layout(frames: backwards, contentSize: Self.grownContent)
        #expect(one == other)
        #expect(one.avoidance.offset == Point(x: 0, y: 396))
    }

    @Test func aPassThatChangesNothingReturnsNil() throws {
        var form = try Self.editingBio()
        let before = form
        #expect(try form.layout(frames: ["bio": Self.bio, "name": Self.name], contentSize: Phone.contentSize,
                                scrollFrame: Phone.scrollFrame) == nil)
        #expect(try form.layout(frames: [:]) == nil)
        #expect(form == before)
    }

    @Test func fieldsNotNamedInAPassKeepTheirFrames() throws {
        var form = try Self.editingBio()
        // Only the e-mail moved: the bio, still edited, and the name stay where they were,
        // and so does the offset.
        #expect(try form.layout(frames: ["email": Self.movedEmail]) == nil)
        #expect(form.fields.frame(of: "name") == Self.name)
        #expect(form.fields.frame(of: "bio") == Self.bio)
        #expect(form.fields.frame(of: "email") == Self.movedEmail)
        #expect(form.avoidance.fieldFrame == Self.bio)
        #expect(form.avoidance.offset == Point(x: 0, y: 352))
    }

    @Test func aPassMovingAFieldThatIsNotEditedMovesNothingOnScreen() throws {
        var form = try Self.form()
        _ = try form.focus("name")
        #expect(try form.keyboardWillShow(Phone.keyboard) == Phone.adjustment(covered: 216, offsetY: 0))
        #expect(try form.layout(frames: ["bio": Self.grownBio, "email": Self.movedEmail]) == nil)
        #expect(form.avoidance.fieldFrame == Self.name)
        #expect(form.avoidance.offset == .zero)
    }

    @Test func aPassWithANewScrollFrameAndBaselineMeasuresTheKeyboardAgain() throws {
        var form = try Self.editingBio()
        // The scroll view lost 40 points at the top (a search bar appeared) and the tab bar
        // grew: the keyboard still covers 216 points of it, and 176 are in sight.
        let adjustment = try form.layout(frames: [:], scrollFrame: Rect(x: 0, y: 104, width: 320, height: 376),
                                         baselineContentInset: Insets(bottom: 60),
                                         baselineIndicatorInsets: Insets(top: 2, bottom: 56))
        // 552 - 160: the visible height is 376 - 216.
        #expect(adjustment == Phone.adjustment(covered: 216, offsetY: 392))
        #expect(form.avoidance.baselineContentInset == Insets(bottom: 60))
        #expect(try form.keyboardWillHide() == .init(contentInset: Insets(bottom: 60),
                                                    indicatorInsets: Insets(top: 2, bottom: 56),
                                                    offset: Point(x: 0, y: 392)))
    }

    // MARK: Bad passes change nothing

    @Test func aPassNamingAnUnknownFieldThrowsAndChangesNothing() throws {
        var form = try Self.editingBio()
        let before = form
        #expect(throws: FormError.unknownField("\"nope\"")) {
            try form.layout(frames: ["bio": Self.grownBio, "nope": Self.email], contentSize: Self.grownContent)
        }
        #expect(form == before)
        #expect(FormError.unknownField("\"nope\"").description == "there is no field \"nope\" in this form")
    }

    @Test func aPassWithANegativeFieldFrameThrowsAndChangesNothing() throws {
        var form = try Self.editingBio()
        let before = form
        let error = #expect(throws: FormError.self) {
            try form.layout(frames: ["bio": Self.grownBio, "email": Rect(x: 16, y: 604, width: 288, height: -44)],
                            contentSize: Self.grownContent)
        }
        #expect(error == .negative(.fieldFrame, .height, -44))
        #expect(error?.description == "field frame has a negative height (-44)")
        #expect(form == before)
    }

    /// Each bad part of an otherwise good pass, and the message naming it.
    @Test(arguments: [
        ("content height", "content size is not finite (its height is nan)"),
        ("field y", "field frame is not finite (its y is nan)"),
        ("scroll width", "scroll view frame is not finite (its width is inf)"),
        ("baseline bottom", "content inset has a negative bottom (-49)"),
        ("indicator top", "scroll indicator inset is not finite (its top is -inf)"),
        ("conversion scale", "window conversion has a scale that is not positive (0)"),
    ])
    func aPassWithABadPartThrowsNamingItAndChangesNothing(part: String, message: String) throws {
        var form = try Self.editingBio()
        let before = form
        var frames = ["bio": Self.grownBio, "email": Self.movedEmail]
        var contentSize = Self.grownContent
        var scrollFrame = Phone.scrollFrame
        var baseline = Phone.baseline
        var indicators = Phone.indicatorBaseline
        var conversion = WindowConversion.identity
        switch part {
        case "content height": contentSize.height = .nan
        case "field y": frames["email"]!.origin.y = .nan
        case "scroll width": scrollFrame.size.width = .infinity
        case "baseline bottom": baseline.bottom = -49
        case "indicator top": indicators.top = -.infinity
        default: conversion.scale = 0
        }
        let error = #expect(throws: FormError.self) {
            try form.layout(frames: frames, contentSize: contentSize, scrollFrame: scrollFrame, conversion: conversion,
                            baselineContentInset: baseline, baselineIndicatorInsets: indicators)
        }
        #expect(error?.description == message)
        #expect(form == before)
    }

    // MARK: KeyboardAvoidance.setGeometry

    @Test func setGeometryWithNothingGivenChangesNothing() throws {
        var avoidance = try Phone.avoidance()
        _ = try avoidance.beginEditing(Phone.field)
        _ = try avoidance.keyboardWillShow(Phone.keyboard)
        let before = avoidance
        #expect(try avoidance.setGeometry() == nil)
        #expect(avoidance == before)
    }

    @Test func setGeometryAppliesAFieldFrameOnlyWhileAFieldIsEdited() throws {
        var avoidance = try Phone.avoidance()
        _ = try avoidance.keyboardWillShow(Phone.keyboard)
        #expect(try avoidance.setGeometry(contentSize: Size(width: 320, height: 1_100), fieldFrame: Phone.field) == nil)
        #expect(avoidance.fieldFrame == nil)
        #expect(avoidance.contentSize == Size(width: 320, height: 1_100))
        #expect(avoidance.offset == .zero)
    }

    @Test func setGeometryChecksEveryPartBeforeApplyingAny() throws {
        var avoidance = try Phone.avoidance()
        _ = try avoidance.beginEditing(Phone.field)
        _ = try avoidance.keyboardWillShow(Phone.keyboard)
        let before = avoidance
        // Good parts first, the bad one last.
        let error = #expect(throws: FormError.self) {
            try avoidance.setGeometry(scrollFrame: Rect(x: 0, y: 0, width: 320, height: 480),
                                      contentSize: Size(width: 320, height: 2_000),
                                      fieldFrame: Rect(x: 16, y: 900, width: 288, height: 44),
                                      baselineContentInset: .zero, baselineIndicatorInsets: Insets(right: -.nan))
        }
        #expect(error?.description == "scroll indicator inset is not finite (its right is nan)")
        #expect(avoidance == before)
    }

    @Test func setGeometryMatchesTheSameChangesMadeOneAtATime() throws {
        // Rotation to a wider, shorter scroll view and a bigger content, with the field edited.
        var atOnce = try Phone.avoidance()
        _ = try atOnce.beginEditing(Phone.field)
        _ = try atOnce.keyboardWillShow(Phone.keyboard)
        var oneAtATime = atOnce
        let frame = Rect(x: 0, y: 32, width: 568, height: 288)
        let content = Size(width: 568, height: 1_200)
        let field = Rect(x: 16, y: 700, width: 536, height: 44)
        let adjustment = try atOnce.setGeometry(scrollFrame: frame, contentSize: content, fieldFrame: field)
        _ = try oneAtATime.setContentSize(content)
        _ = try oneAtATime.setScrollFrame(frame)
        _ = try oneAtATime.setFieldFrame(field)
        #expect(atOnce == oneAtATime)
        // The portrait keyboard (264 ... 480 in the window) now covers 320 - 264 = 56
        // points of the scroll view (32 ... 320), more than the baseline's 49. In sight:
        // 288 - 56 = 232 points, so the field's bottom with its margin (752) sits at the
        // bottom: 752 - 232 = 520.
        #expect(adjustment == .init(contentInset: Insets(bottom: 56), indicatorInsets: Insets(top: 2, bottom: 56),
                                    offset: Point(x: 0, y: 520)))
    }

    // MARK: FieldOrder.setFrames

    @Test func setFramesResortsTheVisitingOrderOnce() throws {
        var order = try FieldOrder<String>([
            .init(id: "name", frame: Self.name), .init(id: "bio", frame: Self.bio), .init(id: "email", frame: Self.email),
        ])
        #expect(order.ids == ["name", "bio", "email"])
        // The e-mail and the name trade places.
        try order.setFrames(["name": Self.email, "email": Self.name])
        #expect(order.ids == ["email", "bio", "name"])
        #expect(order.frame(of: "bio") == Self.bio)
        #expect(order.next(after: "email") == "bio")
        #expect(order.previous(before: "bio") == "email")
    }

    @Test func setFramesKeepsTheDeclaredOrderForFieldsMovedToTheSamePlace() throws {
        var order = try FieldOrder<String>([
            .init(id: "a", frame: Self.email), .init(id: "b", frame: Self.bio), .init(id: "c", frame: Self.name),
        ])
        #expect(order.ids == ["c", "b", "a"])
        let spot = Rect(x: 16, y: 300, width: 288, height: 44)
        try order.setFrames(["c": spot, "a": spot, "b": spot])
        #expect(order.ids == ["a", "b", "c"])
    }

    @Test func setFramesWithAnUnknownIdOrABadFrameChangesNothing() throws {
        var order = try FieldOrder<String>([.init(id: "name", frame: Self.name), .init(id: "bio", frame: Self.bio)])
        let before = order
        #expect(throws: FormError.unknownField("\"email\"")) {
            try order.setFrames(["name": Self.email, "email": Self.name])
        }
        #expect(order == before)
        let error = #expect(throws: FormError.self) {
            try order.setFrames(["name": Self.email, "bio": Rect(x: .nan, y: 0, width: 10, height: 10)])
        }
        #expect(error?.description == "field frame is not finite (its x is nan)")
        #expect(order == before)
        #expect(throws: FormError.negative(.fieldFrame, .width, -1)) {
            try order.setFrames(["bio": Rect(x: 0, y: 0, width: -1, height: 10)])
        }
        #expect(order == before)
        try order.setFrames([:])
        #expect(order == before)
    }
}
