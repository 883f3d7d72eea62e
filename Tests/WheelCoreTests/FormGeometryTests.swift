import Testing
import WheelCore

/// The form's geometry values, and the errors for what a host must not hand over: each
/// named by its case, described for people, and leaving the core as it was.
@Suite struct FormGeometryTests {
    // MARK: Values

    @Test func rectanglesIntersectOnlyWhereTheyShareArea() {
        let view = Rect(x: 0, y: 64, width: 320, height: 416)
        #expect(view.intersection(Rect(x: -10, y: 264, width: 400, height: 300)) == Rect(x: 0, y: 264, width: 320, height: 216))
        #expect(view.intersection(Rect(x: 0, y: 480, width: 320, height: 216)) == nil)   // an edge only
        #expect(view.intersection(Rect(x: 100, y: 100, width: 0, height: 50)) == nil)    // no width
        #expect(Rect(x: 0, y: 0, width: 5, height: 0).isEmpty)
        #expect(!view.isEmpty)
        #expect(!Rect(x: .nan, y: 0, width: 1, height: 1).isFinite)
        #expect(view.contains(Rect(x: 0, y: 64, width: 320, height: 416)))
        #expect(!view.contains(Rect(x: 0, y: 63, width: 10, height: 10)))
        #expect(view.inset(by: Insets(top: 10, left: 1, bottom: 500, right: 2)) == Rect(x: 1, y: 74, width: 317, height: 0))
        #expect(view.offsetBy(dx: 5, dy: -4) == Rect(x: 5, y: 60, width: 320, height: 416))
    }

    @Test func aConversionMapsWindowRectanglesIntoTheFrameSpaceAndBack() {
        let conversion = WindowConversion(origin: Point(x: 10, y: 64), scale: 2)
        let keyboard = Rect(x: 0, y: 264, width: 320, height: 216)
        #expect(conversion.fromWindow(keyboard) == Rect(x: -5, y: 100, width: 160, height: 108))
        #expect(conversion.toWindow(conversion.fromWindow(keyboard)) == keyboard)
        #expect(WindowConversion.identity.fromWindow(keyboard) == keyboard)
    }

    @Test func valuesDescribeThemselvesAsPeopleWriteNumbers() {
        #expect(Rect(x: 0, y: 264.5, width: 320, height: 216).description == "(0, 264.5, 320 × 216)")
        #expect(Insets(bottom: 216).description == "(top 0, left 0, bottom 216, right 0)")
        #expect(KeyboardAnimation(duration: 0.25, curve: .linear).description == "0.25 s, curve linear")
    }

    // MARK: Bad input

    @Test func aNegativeKeyboardHeightIsRejectedWithItsValue() throws {
        var form = try FormPhone.avoidance()
        let before = form
        let error = #expect(throws: FormError.self) {
            try form.keyboardWillShow(Rect(x: 0, y: 264, width: 320, height: -12))
        }
        #expect(error == .negative(.keyboardFrame, .height, -12))
        #expect(error?.description == "keyboard frame has a negative height (-12)")
        #expect(form == before)
    }

    @Test func aScrollViewFrameThatIsNotFiniteIsRejectedNamingTheCoordinate() throws {
        var form = try FormPhone.avoidance()
        _ = try form.keyboardWillShow(FormPhone.keyboard)
        let before = form
        let error = #expect(throws: FormError.self) { try form.setScrollFrame(Rect(x: 0, y: .nan, width: 320, height: 416)) }
        guard case .notFinite(.scrollViewFrame, .y, let value)? = error else {
            Issue.record("\(String(describing: error)) is not a y that is not finite")
            return
        }
        #expect(value.isNaN)
        #expect(error?.description == "scroll view frame is not finite (its y is nan)")
        #expect(form == before)
        #expect(throws: FormError.notFinite(.scrollViewFrame, .width, .infinity)) {
            try KeyboardAvoidance(scrollFrame: Rect(x: 0, y: 0, width: .infinity, height: 1), contentSize: .zero)
        }
    }

    /// Each quantity an event or `init` takes, made bad in one way, and the error it gives.
    @Test func everyQuantityIsChecked() throws {
        let phone = FormPhone.scrollFrame
        let size = FormPhone.contentSize
        let cases: [(FormError, (inout KeyboardAvoidance) throws -> Void)] = [
            (.negative(.scrollViewFrame, .width, -1), { _ = try $0.setScrollFrame(Rect(x: 0, y: 0, width: -1, height: 1)) }),
            (.notPositive(.windowConversion, .scale, 0), { _ = try $0.setScrollFrame(phone, conversion: .init(scale: 0)) }),
            (.outOfRange(.windowConversion, .scale, 1e7), { _ = try $0.setScrollFrame(phone, conversion: .init(scale: 1e7)) }),
            (.notFinite(.windowConversion, .x, -.infinity),
             { _ = try $0.setScrollFrame(phone, conversion: .init(origin: Point(x: -.infinity, y: 0))) }),
            (.outOfRange(.keyboardFrame, .x, 1e300), { _ = try $0.keyboardWillShow(Rect(x: 1e300, y: 0, width: 1, height: 1)) }),
            (.negative(.keyboardFrame, .width, -320), { _ = try $0.keyboardWillChangeFrame(Rect(x: 0, y: 0, width: -320, height: 1)) }),
            (.negative(.animationDuration, .value, -0.25),
             { _ = try $0.keyboardWillHide(animation: KeyboardAnimation(duration: -0.25)) }),
            (.negative(.fieldFrame, .height, -44), { _ = try $0.beginEditing(Rect(x: 0, y: 0, width: 10, height: -44)) }),
            (.outOfRange(.fieldFrame, .y, -2e12), { _ = try $0.setFieldFrame(Rect(x: 0, y: -2e12, width: 10, height: 44)) }),
            (.negative(.contentSize, .height, -1), { _ = try $0.setContentSize(Size(width: 320, height: -1)) }),
            (.notFinite(.contentOffset, .x, .infinity), { try $0.scroll(to: Point(x: .infinity, y: 0)) }),
            (.negative(.contentInset, .top, -20), { _ = try $0.setBaseline(contentInset: Insets(top: -20), indicatorInsets: .zero) }),
            (.negative(.indicatorInsets, .right, -1), { _ = try $0.setBaseline(contentInset: .zero, indicatorInsets: Insets(right: -1)) }),
        ]
        for (expected, event) in cases {
            var form = try KeyboardAvoidance(scrollFrame: phone, contentSize: size)
            let before = form
            #expect(throws: expected) { try event(&form) }
            #expect(form == before, "\(expected)")
        }
        #expect(throws: FormError.negative(.margin, .value, -8)) {
            try KeyboardAvoidance(scrollFrame: phone, contentSize: size, margin: -8)
        }
    }

    @Test func errorsReadAsSentences() {
        #expect(FormError.negative(.margin, .value, -8).description == "margin is negative (-8)")
        #expect(FormError.notFinite(.animationDuration, .value, .infinity).description == "animation duration is not finite (inf)")
        #expect(FormError.notPositive(.windowConversion, .scale, 0).description == "window conversion has a scale that is not positive (0)")
        #expect(FormError.outOfRange(.contentSize, .width, 1e300).description
            == "content size has a width out of range (1e+300); geometry must lie within ±1e12")
        #expect(FormError.outOfRange(.margin, .value, -1e13).description
            == "margin is out of range (-10000000000000); geometry must lie within ±1e12")
        #expect(FormError.outOfRange(.windowConversion, .scale, 1e7).description
            == "window conversion has a scale out of range (10000000); it must lie within 1e-06 ... 1000000")
        #expect(FormError.duplicateField("\"email\"").description == "the field \"email\" is declared twice; field ids must be unique")
        #expect(FormError.unknownField("\"nope\"").description == "there is no field \"nope\" in this form")
    }
}
