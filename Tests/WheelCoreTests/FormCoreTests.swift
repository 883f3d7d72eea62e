import Testing
import WheelCore

/// `FieldOrder` and `FormCore`: fields visited by position, next, previous and done, and
/// the offset following the focus.
@Suite struct FormCoreTests {
    typealias Form = FormCore<String>

    /// A sign-up form declared out of order: name, e-mail, first and last names side by
    /// side, and a multi-line bio far below, in a 320 × 480 view over 736 points of content.
    static func signup() throws -> Form {
        let fields = try FieldOrder<String>([
            .init(id: "bio", frame: Rect(x: 16, y: 600, width: 288, height: 120)),
            .init(id: "last", frame: Rect(x: 168, y: 136, width: 136, height: 44)),
            .init(id: "email", frame: Rect(x: 16, y: 76, width: 288, height: 44)),
            .init(id: "first", frame: Rect(x: 16, y: 136, width: 136, height: 44)),
            .init(id: "name", frame: Rect(x: 16, y: 16, width: 288, height: 44)),
        ])
        let avoidance = try KeyboardAvoidance(scrollFrame: Rect(x: 0, y: 0, width: 320, height: 480),
                                              contentSize: Size(width: 320, height: 736), margin: 8)
        return Form(fields: fields, avoidance: avoidance)
    }

    static let keyboard = Rect(x: 0, y: 264, width: 320, height: 216)

    static func offset(_ y: Double, covered: Double = 216) -> KeyboardAvoidance.Adjustment {
        .init(contentInset: Insets(bottom: covered), indicatorInsets: Insets(bottom: covered), offset: Point(x: 0, y: y))
    }

    // MARK: Order

    @Test func fieldsAreVisitedTopToBottomThenLeftToRight() throws {
        let form = try Self.signup()
        #expect(form.fields.ids == ["name", "email", "first", "last", "bio"])
        #expect(form.fields.first == "name")
        #expect(form.fields.last == "bio")
        #expect(form.fields.next(after: "first") == "last")
        #expect(form.fields.previous(before: "first") == "email")
        #expect(form.fields.next(after: "bio") == nil)
        #expect(form.fields.previous(before: "name") == nil)
        #expect(form.fields.next(after: "nope") == nil)
        #expect(form.fields.frame(of: "last") == Rect(x: 168, y: 136, width: 136, height: 44))
    }

    @Test func fieldsInTheSamePlaceKeepTheirDeclaredOrder() throws {
        let spot = Rect(x: 0, y: 0, width: 10, height: 10)
        let order = try FieldOrder([.init(id: 3, frame: spot), .init(id: 1, frame: spot), .init(id: 2, frame: spot)])
        #expect(order.ids == [3, 1, 2])
    }

    @Test func aFieldThatMovesTakesItsNewPlace() throws {
        var order = try Self.signup().fields
        try order.setFrame(Rect(x: 16, y: 700, width: 288, height: 44), of: "email")
        #expect(order.ids == ["name", "first", "last", "bio", "email"])
        #expect(throws: FormError.unknownField("\"nope\"")) { try order.setFrame(.zero, of: "nope") }
    }

    @Test func duplicateIdsAndBadFramesAreRejected() {
        let frame = Rect(x: 0, y: 0, width: 10, height: 10)
        let error = #expect(throws: FormError.self) {
            try FieldOrder([.init(id: "email", frame: frame), .init(id: "email", frame: frame)])
        }
        #expect(error == .duplicateField("\"email\""))
        #expect(throws: FormError.negative(.fieldFrame, .width, -10)) {
            try FieldOrder([.init(id: "a", frame: Rect(x: 0, y: 0, width: -10, height: 10))])
        }
    }

    // MARK: Navigation

    @Test func nextAndPreviousWalkTheFieldsAndMovingTheFocusMovesTheOffset() throws {
        var form = try Self.signup()
        #expect(try form.focus("name") == .init(from: nil, to: "name", adjustment: nil))
        #expect(try form.keyboardWillShow(Self.keyboard) == Self.offset(0))
        #expect(form.next() == .init(from: "name", to: "email", adjustment: nil))
        #expect(form.next() == .init(from: "email", to: "first", adjustment: nil))
        #expect(form.next() == .init(from: "first", to: "last", adjustment: nil))
        // The bio (600 ... 720) under a 264-point window: 728 - 264.
        #expect(form.next() == .init(from: "last", to: "bio", adjustment: Self.offset(464)))
        #expect(!form.hasNext)
        #expect(form.next() == nil)
        #expect(form.focused == "bio")
        // Back up to the last name (136 ... 180): its top, less the margin, at the top.
        #expect(form.previous() == .init(from: "bio", to: "last", adjustment: Self.offset(128)))
        #expect(form.avoidance.offset == Point(x: 0, y: 128))
        #expect(form.avoidance.contentInset == Insets(bottom: 216))
    }

    @Test func previousStopsAtTheFirstField() throws {
        var form = try Self.signup()
        _ = try form.focus("email")
        #expect(form.hasPrevious)
        #expect(form.previous() == .init(from: "email", to: "name", adjustment: nil))
        #expect(!form.hasPrevious)
        #expect(form.previous() == nil)
        #expect(form.focused == "name")
    }

    @Test func withNoFieldEditedNextEditsTheFirstAndPreviousTheLast() throws {
        var form = try Self.signup()
        #expect(form.hasNext && form.hasPrevious)
        #expect(form.next() == .init(from: nil, to: "name", adjustment: nil))
        _ = form.done()
        // The bio (600 ... 720) in the 480-point view: 728 - 480.
        #expect(form.previous() == .init(from: nil, to: "bio", adjustment: Self.offset(248, covered: 0)))
    }

    @Test func doneEndsTheFocusButNotTheKeyboard() throws {
        var form = try Self.signup()
        _ = try form.focus("bio")
        _ = try form.keyboardWillShow(Self.keyboard)
        let shown = form.avoidance.offset
        #expect(form.done() == .init(from: "bio", to: nil, adjustment: nil))
        #expect(form.focused == nil)
        #expect(form.avoidance.fieldFrame == nil)
        #expect(form.avoidance.isKeyboardShown)
        #expect(form.done() == nil)
        // The host resigns the field; the keyboard hides and the insets come back.
        #expect(try form.keyboardWillHide() == .init(contentInset: .zero, indicatorInsets: .zero, offset: Point(x: 0, y: 256)))
        #expect(shown == Point(x: 0, y: 464))                    // 464 was past the end without the keyboard (736 - 480)
    }

    @Test func focusingTheEditedFieldAgainChangesNothing() throws {
        var form = try Self.signup()
        _ = try form.focus("bio")
        #expect(try form.focus("bio") == nil)
    }

    @Test func anUnknownFieldCannotBeFocused() throws {
        var form = try Self.signup()
        let before = form
        let error = #expect(throws: FormError.self) { try form.focus("nope") }
        #expect(error?.description == "there is no field \"nope\" in this form")
        #expect(form == before)
    }

    @Test func theEditedFieldGrowingMovesTheOffsetAndOtherFieldsMovingDoNot() throws {
        var form = try Self.signup()
        _ = try form.focus("bio")
        _ = try form.keyboardWillShow(Self.keyboard)
        #expect(form.avoidance.offset == Point(x: 0, y: 464))
        _ = try form.setContentSize(Size(width: 320, height: 776))
        #expect(try form.setFrame(Rect(x: 16, y: 600, width: 288, height: 160), of: "bio") == Self.offset(504))
        #expect(try form.setFrame(Rect(x: 16, y: 20, width: 288, height: 44), of: "name") == nil)
        #expect(form.fields.frame(of: "bio") == Rect(x: 16, y: 600, width: 288, height: 160))
        #expect(form.avoidance.fieldFrame == Rect(x: 16, y: 600, width: 288, height: 160))
        let before = form
        #expect(throws: FormError.negative(.fieldFrame, .height, -1)) {
            try form.setFrame(Rect(x: 0, y: 0, width: 1, height: -1), of: "bio")
        }
        #expect(form == before)
    }

    @Test func aFormLetsGoOfAFieldItsAvoidanceWasEditing() throws {
        var avoidance = try KeyboardAvoidance(scrollFrame: Rect(x: 0, y: 0, width: 320, height: 480), contentSize: .zero)
        _ = try avoidance.beginEditing(Rect(x: 0, y: 0, width: 10, height: 10))
        let form = FormCore(fields: try FieldOrder<Int>([]), avoidance: avoidance)
        #expect(form.avoidance.fieldFrame == nil)
        #expect(form.focused == nil)
        #expect(!form.hasNext && !form.hasPrevious)
    }
}
