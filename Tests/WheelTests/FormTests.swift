import Testing
import Lua
@testable import Wheel
import WheelCore

/// Forms from real scripts run by a `Runtime`: what a declaration gives, the embedding API
/// driven as a host drives it on `FormDevice` (exact insets and offsets), picker-backed
/// fields, validation, values as scripts see them, submission, the script's `f`, and the
/// events a host hears. Mistakes are in FormBadInputTests.
@Suite struct FormTests {
    let scripts = PickerScripts()

    /// A sign-up form declared in another order than its fields are laid out (the bio is
    /// declared last and sits between the e-mail and the age). `on_submit` notes the
    /// values it got.
    static let signup = """
        picker "states" { components = { { id = "state", items = { "Alabama", "Alaska", "Arizona" } } } }

        local f = form "signup" {
          status = "All fields but About are needed",
          fields = {
            { id = "name", label = "Name", required = true, placeholder = "your name" },
            { id = "email", label = "E-mail", kind = "email", required = true,
              validate = function(v) return not v:find("example%.com$"), "use your own address" end },
            { id = "age", label = "Age", kind = "number",
              validate = function(n, f) return n == nil or n >= 18, "must be 18 or over" end },
            { id = "state", label = "State", kind = "picker", picker = "states" },
            { id = "bio", label = "About", kind = "multiline", lines = 4, value = "hi" },
          },
          on_submit = function(values, f)
            note("submitted", values.name, values.email, values.age, math.type(values.age), values.state, values.bio)
            f.status = "welcome, " .. values.name
          end,
        }
        """

    /// The sign-up form, laid out on `FormDevice`.
    func signup() async throws -> ScriptRun {
        let run = try await scripts.run(Self.signup)
        #expect(try run.form.layout(FormDevice.layout()) == FormDevice.adjustment(covered: nil, offsetY: 0))
        return run
    }

    // MARK: - Declaration

    @Test func aDeclarationGivesEveryKindOfField() async throws {
        let run = try await scripts.run(Self.signup)
        let form = run.form
        #expect(form.name == "signup")
        #expect(run.runtime.form(named: "signup") === form)
        #expect(run.runtime.forms.count == 1)
        #expect(form.status == "All fields but About are needed")
        #expect(form.fields == [
            FormField(id: "name", label: "Name", kind: .text, placeholder: "your name", required: true, lines: 1,
                      pickerName: nil, text: "", error: nil),
            FormField(id: "email", label: "E-mail", kind: .email, placeholder: "", required: true, lines: 1,
                      pickerName: nil, text: "", error: nil),
            FormField(id: "age", label: "Age", kind: .number, placeholder: "", required: false, lines: 1,
                      pickerName: nil, text: "", error: nil),
            FormField(id: "state", label: "State", kind: .picker, placeholder: "", required: false, lines: 1,
                      pickerName: "states", text: "", error: nil),
            FormField(id: "bio", label: "About", kind: .multiline, placeholder: "", required: false, lines: 4,
                      pickerName: nil, text: "hi", error: nil),
        ])
        #expect(form.picker(of: "state") === run.runtime.picker(named: "states"))
        #expect(form.picker(of: "name") == nil)
        #expect(form.field("nope") == nil)
        // Before a layout: declaration order, nothing focused, no geometry.
        #expect(form.visitingOrder == ["name", "email", "age", "state", "bio"])
        #expect(!form.isLaidOut)
        #expect(form.avoidance == nil)
        #expect(form.focused == nil)
        #expect(run.problems.all.isEmpty)
    }

    @Test func aFieldsLabelIsItsIdAndAMultilineFieldShowsThreeLinesByDefault() async throws {
        let run = try await scripts.run("""
            local f = form("plain", { fields = { { id = "title" }, { id = "notes", kind = "multiline", value = "a\\nb" },
                                                 { id = "code", value = 42 } } })
            note(tostring(f), f.name, f.status)
            """)
        #expect(run.form.fields.map(\.label) == ["title", "notes", "code"])
        #expect(run.form.fields.map(\.kind) == [.text, .multiline, .text])
        #expect(run.form.fields.map(\.lines) == [1, 3, 1])
        #expect(run.form.fields.map(\.text) == ["", "a\nb", "42"])
        #expect(run.host.notes == ["form 'plain' plain "])
    }

    @Test func aSingleLineFieldsInitialValueAndTypedTextTakeLineBreaksAsSpaces() async throws {
        let run = try await scripts.run("""
            form "f" { fields = { { id = "a", value = "one\\ntwo" }, { id = "m", kind = "multiline" } } }
            """)
        #expect(run.form.field("a")?.text == "one two")
        try run.form.setText("x\ny\r\nz", of: "a")
        #expect(run.form.field("a")?.text == "x y z")
        try run.form.setText("x\ny", of: "m")
        #expect(run.form.field("m")?.text == "x\ny")
    }

    // MARK: - Keyboard avoidance, end to end

    @Test func focusingAFieldBelowTheKeyboardAndShowingItGiveExactInsetsAndOffset() async throws {
        let run = try await signup()
        let form = run.form
        #expect(form.isLaidOut)
        #expect(form.visitingOrder == ["name", "email", "bio", "age", "state"])
        // The age (500 ... 544) with its margin ends at 552; 431 points are in sight.
        #expect(try form.focus("age") == .init(from: nil, to: "age",
                                               adjustment: FormDevice.adjustment(covered: nil, offsetY: 121)))
        #expect(form.focused == "age")
        // Over the keyboard 288 points are in sight: 552 - 288.
        #expect(try form.keyboardWillShow(FormDevice.keyboard, animation: FormDevice.animation)
            == FormDevice.adjustment(covered: 192, offsetY: 264, animation: FormDevice.animation))
        let avoidance = try #require(form.avoidance)
        #expect(avoidance.contentInset == Insets(bottom: 192))
        #expect(avoidance.indicatorInsets == Insets(bottom: 192))
        #expect(avoidance.offset == Point(x: 0, y: 264))
        #expect(avoidance.coveredHeight == 192)
        #expect(avoidance.visibleRect == Rect(x: 0, y: 264, width: 320, height: 288))
        // The same show again changes nothing.
        #expect(try form.keyboardWillShow(FormDevice.keyboard, animation: FormDevice.animation) == nil)
    }

    @Test func nextAndPreviousVisitTheFieldsInPositionOrderAndMoveTheOffset() async throws {
        let run = try await signup()
        let form = run.form
        #expect(try form.focus("name") == .init(from: nil, to: "name", adjustment: nil))
        #expect(try form.keyboardWillShow(FormDevice.keyboard) == FormDevice.adjustment(covered: 192, offsetY: 0))
        #expect(form.hasPrevious == false)
        // Each field's bottom with its margin at the keyboard's top (288 below the offset).
        #expect(try form.next() == .init(from: "name", to: "email", adjustment: FormDevice.adjustment(covered: 192, offsetY: 64)))
        #expect(try form.next() == .init(from: "email", to: "bio", adjustment: FormDevice.adjustment(covered: 192, offsetY: 188)))
        #expect(try form.next() == .init(from: "bio", to: "age", adjustment: FormDevice.adjustment(covered: 192, offsetY: 264)))
        #expect(try form.next() == .init(from: "age", to: "state", adjustment: FormDevice.adjustment(covered: 192, offsetY: 344)))
        #expect(!form.hasNext)
        #expect(try form.next() == nil)
        #expect(form.focused == "state")
        // Back up: the age and the bio are in sight at 344, the e-mail's top is not.
        #expect(try form.previous() == .init(from: "state", to: "age", adjustment: nil))
        #expect(try form.previous() == .init(from: "age", to: "bio", adjustment: nil))
        #expect(try form.previous() == .init(from: "bio", to: "email", adjustment: FormDevice.adjustment(covered: 192, offsetY: 292)))
        #expect(try form.previous() == .init(from: "email", to: "name", adjustment: FormDevice.adjustment(covered: 192, offsetY: 12)))
        #expect(try form.previous() == nil)
        #expect(form.avoidance?.offset == Point(x: 0, y: 12))
    }

    @Test func doneAndTheHideRestoreExactlyTheBaseline() async throws {
        let run = try await signup()
        let form = run.form
        _ = try form.focus("state")
        _ = try form.keyboardWillShow(FormDevice.keyboard)
        #expect(form.avoidance?.offset == Point(x: 0, y: 344))
        #expect(try form.done() == .init(from: "state", to: nil, adjustment: nil))
        #expect(form.focused == nil)
        #expect(try form.done() == nil)
        // The content under the baseline rests at 0 ... 269 (700 + 49 - 480).
        #expect(try form.keyboardWillHide(animation: FormDevice.animation)
            == FormDevice.adjustment(covered: nil, offsetY: 269, animation: FormDevice.animation))
        let avoidance = try #require(form.avoidance)
        #expect(avoidance.contentInset == FormDevice.baseline)
        #expect(avoidance.indicatorInsets == FormDevice.baseline)
        #expect(avoidance.keyboardFrame == nil)
        #expect(try form.keyboardWillHide() == nil)
        // With nothing edited, next starts at the first field and previous at the last.
        #expect(form.hasNext && form.hasPrevious)
        #expect(try form.previous()?.to == "state")
    }

    @Test func aMultilineFieldThatGrowsWhileShownStaysInSightAfterTheHostLaysOutAgain() async throws {
        let run = try await signup()
        let form = run.form
        #expect(try form.focus("bio")?.adjustment == FormDevice.adjustment(covered: nil, offsetY: 45))
        #expect(try form.keyboardWillShow(FormDevice.keyboard) == FormDevice.adjustment(covered: 192, offsetY: 188))
        try form.setText("hi\nI grow roses\nand tomatoes\nin a small garden", of: "bio")
        #expect(form.field("bio")?.text == "hi\nI grow roses\nand tomatoes\nin a small garden")
        // The host's layout pass: the bio is 44 points taller, the age and the state below
        // it 44 points lower, and the content 44 points longer.
        var frames = FormDevice.frames
        frames["bio"] = Rect(x: 16, y: 380, width: 288, height: 132)
        frames["age"] = Rect(x: 16, y: 544, width: 288, height: 44)
        frames["state"] = Rect(x: 16, y: 624, width: 288, height: 44)
        let adjustment = try form.layout(FormDevice.layout(frames: frames, contentSize: Size(width: 320, height: 744)))
        // The bio's new bottom with its margin (520) at the keyboard's top.
        #expect(adjustment == FormDevice.adjustment(covered: 192, offsetY: 232))
        let avoidance = try #require(form.avoidance)
        #expect(avoidance.visibleRect == Rect(x: 0, y: 232, width: 320, height: 288))
        #expect(avoidance.visibleRect.contains(frames["bio"]!))
        #expect(avoidance.contentSize == Size(width: 320, height: 744))
        #expect(form.focused == "bio")
        #expect(form.visitingOrder == ["name", "email", "bio", "age", "state"])
        // The next field is found at its new place.
        #expect(try form.next() == .init(from: "bio", to: "age", adjustment: FormDevice.adjustment(covered: 192, offsetY: 308)))
    }

    @Test func rotatingWhileShownKeepsTheEditedFieldInSight() async throws {
        let run = try await signup()
        let form = run.form
        _ = try form.focus("age")
        #expect(try form.keyboardWillShow(FormDevice.keyboard)?.offset == Point(x: 0, y: 264))
        // Landscape: a 568 × 320 window, the scroll view 568 × 288 below a 32-point bar,
        // the fields as wide as it allows.
        let landscape = Rect(x: 0, y: 32, width: 568, height: 288)
        let frames = FormDevice.frames.mapValues { Rect(x: 16, y: $0.minY, width: 536, height: $0.height) }
        let rotated = FormLayout(scrollFrame: landscape, contentSize: Size(width: 568, height: 700), fieldFrames: frames,
                                 contentInset: FormDevice.baseline, indicatorInsets: FormDevice.baseline)
        // The portrait keyboard's frame (352 ... 568) is below the new scroll view: the
        // baseline holds until the keyboard's own frame change comes. 239 points in sight.
        #expect(try form.layout(rotated) == FormDevice.adjustment(covered: nil, offsetY: 313))
        // The landscape keyboard, 162 high: 126 points in sight.
        #expect(try form.keyboardWillChangeFrame(Rect(x: 0, y: 158, width: 568, height: 162), animation: FormDevice.animation)
            == FormDevice.adjustment(covered: 162, offsetY: 426, animation: FormDevice.animation))
        let avoidance = try #require(form.avoidance)
        #expect(avoidance.visibleRect == Rect(x: 0, y: 426, width: 568, height: 126))
        #expect(avoidance.visibleRect.contains(frames["age"]!))
        #expect(try form.keyboardWillHide() == FormDevice.adjustment(covered: nil, offsetY: 426))
    }

    @Test func aLayoutWithANewMarginKeepsTheKeyboardAndTheFocus() async throws {
        let run = try await signup()
        let form = run.form
        _ = try form.focus("age")
        _ = try form.keyboardWillShow(FormDevice.keyboard)
        var layout = FormDevice.layout()
        layout.margin = 16
        // The age with 16 points below it (560) at the keyboard's top.
        #expect(try form.layout(layout) == FormDevice.adjustment(covered: 192, offsetY: 272))
        #expect(form.focused == "age")
        #expect(form.avoidance?.margin == 16)
        #expect(form.avoidance?.isKeyboardShown == true)
        #expect(try form.keyboardWillHide() == FormDevice.adjustment(covered: nil, offsetY: 269))
    }

    @Test func movingFromATextFieldToAPickerFieldFollowsTheTallerInputView() async throws {
        let run = try await signup()
        let form = run.form
        _ = try form.focus("name")
        #expect(try form.keyboardWillShow(FormDevice.keyboard) == FormDevice.adjustment(covered: 192, offsetY: 0))
        #expect(try form.focus("state") == .init(from: "name", to: "state",
                                                 adjustment: FormDevice.adjustment(covered: 192, offsetY: 344)))
        // The picker's input view is 260 high (308 ... 568): it covers 236 points, and
        // 244 are in sight.
        let pickerView = Rect(x: 0, y: 308, width: 320, height: 260)
        #expect(try form.keyboardWillChangeFrame(pickerView, animation: FormDevice.animation)
            == FormDevice.adjustment(covered: 236, offsetY: 388, animation: FormDevice.animation))
        #expect(form.field("state")?.text == "Alabama")
        // Back to the name: the keys again.
        #expect(try form.focus("name") == .init(from: "state", to: "name",
                                                adjustment: FormDevice.adjustment(covered: 236, offsetY: 12)))
        #expect(try form.keyboardWillChangeFrame(FormDevice.keyboard) == FormDevice.adjustment(covered: 192, offsetY: 12))
    }

    @Test func aUserScrollIsWhereTheNextMoveStartsFrom() async throws {
        let run = try await signup()
        let form = run.form
        _ = try form.focus("name")
        _ = try form.keyboardWillShow(FormDevice.keyboard)
        try form.scroll(to: Point(x: 0, y: 250))
        #expect(form.avoidance?.offset == Point(x: 0, y: 250))
        // In sight: 250 ... 538. The age with its margin (492 ... 552) ends 14 points
        // below: the offset moves by 14.
        #expect(try form.focus("age")?.adjustment == FormDevice.adjustment(covered: 192, offsetY: 264))
    }

    // MARK: - Picker fields

    @Test func aPickerFieldTakesThePickersItemWhenFocusedEmptyAndFollowsItsSpinsWhileFocused() async throws {
        let run = try await signup()
        let form = run.form
        let picker = try #require(form.picker(of: "state"))
        _ = try form.focus("state")
        #expect(form.field("state")?.text == "Alabama")
        try picker.scroll("state", by: 1)
        #expect(form.field("state")?.text == "Alaska")
        try picker.scroll("state", by: 1)
        #expect(form.field("state")?.text == "Arizona")
        // Not focused: the field keeps what it took.
        _ = try form.focus("name")
        try picker.scroll("state", by: -2)
        #expect(form.field("state")?.text == "Arizona")
        _ = try form.done()
        try picker.select("state", index: 1)
        #expect(form.field("state")?.text == "Arizona")
        // Focused again holding text: it keeps it until the picker turns.
        _ = try form.focus("state")
        #expect(form.field("state")?.text == "Arizona")
        try picker.select("state", index: 0)
        #expect(form.field("state")?.text == "Alabama")
    }

    @Test func aPickerFieldOverSeveralComponentsJoinsTheirItemsWithSpaces() async throws {
        let run = try await scripts.run("""
            picker "when" { components = { { id = "month", items = { "Jan", "Feb" } }, { id = "day", count = 31 } } }
            form "trip" { fields = { { id = "date", kind = "picker", picker = "when" }, { id = "to" } } }
            """)
        let form = run.form
        try form.layout(FormDevice.stacked(["date", "to"]))
        let events = form.record()
        _ = try form.focus("date")
        #expect(form.field("date")?.text == "Jan 1")
        try run.picker.scroll("day", by: 2)
        try run.picker.scroll("month", by: 1)
        #expect(form.field("date")?.text == "Feb 3")
        #expect(events.all == [
            .textChanged(field: "date", text: "Jan 1"),
            .focusChanged(from: nil, to: "date"),              // last: the form has settled
            .textChanged(field: "date", text: "Jan 3"),
            .textChanged(field: "date", text: "Feb 3"),
        ])
    }

    // MARK: - Validation

    @Test func aFieldIsCheckedWhenTheFocusLeavesItAfterAnEditAndClearsAsItIsCorrected() async throws {
        let run = try await signup()
        let form = run.form
        _ = try form.focus("email")
        try form.setText("ana", of: "email")
        #expect(form.field("email")?.error == nil)          // not while typing
        _ = try form.next()
        #expect(form.field("email")?.error == "not an e-mail address")
        // Showing an error, the field is checked as it changes.
        try form.setText("ana@example", of: "email")
        #expect(form.field("email")?.error == "not an e-mail address")
        try form.setText("ana@example.com", of: "email")
        #expect(form.field("email")?.error == "use your own address")
        try form.setText("ana@example.org", of: "email")
        #expect(form.field("email")?.error == nil)
        // Typing into a valid field checks nothing until the focus leaves it.
        try form.setText("ana@example.com", of: "email")
        #expect(form.field("email")?.error == nil)
        _ = try form.done()
        #expect(form.field("email")?.error == nil)           // the edit was made without the focus
        #expect(try form.validate("email") == "use your own address")
    }

    @Test func aFieldLeftWithoutAnEditIsNotChecked() async throws {
        let run = try await signup()
        let form = run.form
        _ = try form.focus("name")
        _ = try form.next()
        _ = try form.done()
        #expect(form.fields.map(\.error) == [nil, nil, nil, nil, nil])
    }

    @Test func requiredIsCheckedFirstAndWhitespaceIsEmpty() async throws {
        let run = try await signup()
        let form = run.form
        #expect(try form.validate("name") == "required")
        try form.setText("   ", of: "name")
        #expect(try form.validate("name") == "required")
        try form.setText(" Ana ", of: "name")
        #expect(try form.validate("name") == nil)
        #expect(form.field("name")?.text == " Ana ")
        // Not required: empty is valid, and the script's check still runs (on nil).
        #expect(try form.validate("age") == nil)
    }

    @Test(arguments: [
        ("ana@example.org", nil), ("a@b.co", nil), (" ana@example.org ", nil),
        ("ana", "not an e-mail address"), ("ana@example", "not an e-mail address"),
        ("@example.org", "not an e-mail address"), ("ana@@example.org", "not an e-mail address"),
        ("a na@example.org", "not an e-mail address"), ("ana@example.", "not an e-mail address"),
        ("ana@.org", "not an e-mail address"), ("ana@example.com", "use your own address"),
    ] as [(String, String?)])
    func anEmailFieldIsCheckedAsAnAddressBeforeTheScriptsCheck(text: String, error: String?) async throws {
        let run = try await signup()
        try run.form.setText(text, of: "email")
        #expect(try run.form.validate("email") == error)
    }

    @Test(arguments: [
        ("30", nil), ("18", nil), ("-2", "must be 18 or over"), ("17.5", "must be 18 or over"), (" 40 ", nil),
        ("3o", "not a number"), ("nan", "not a number"), ("inf", "not a number"), ("1e400", "not a number"),
        ("", nil),
    ] as [(String, String?)])
    func aNumberFieldIsCheckedAsANumberBeforeTheScriptsCheck(text: String, error: String?) async throws {
        let run = try await signup()
        try run.form.setText(text, of: "age")
        #expect(try run.form.validate("age") == error)
    }

    // MARK: - Values

    @Test func numberValuesReachValidateAndOnSubmitAsLuaNumbersAndNilWhenEmpty() async throws {
        let run = try await scripts.run("""
            form "n" {
              fields = { { id = "n", kind = "number", validate = function(n) note("check", math.type(n), n) return true end } },
              on_submit = function(values) note("submit", math.type(values.n), values.n) end,
            }
            """)
        let form = run.form
        for text in ["42", "-7", " 3 ", "2.5", "-0.25", "", "42.0", "1e3"] {
            try form.setText(text, of: "n")
            #expect(try form.validate("n") == nil)
        }
        try form.setText("12", of: "n")
        #expect(await form.submit() == .submitted)
        try form.setText("0.5", of: "n")
        #expect(await form.submit() == .submitted)
        try form.setText("", of: "n")
        #expect(await form.submit() == .submitted)
        #expect(run.host.notes == [
            "check integer 42", "check integer -7", "check integer 3", "check float 2.5", "check float -0.25",
            "check nil nil", "check float 42.0", "check float 1000.0",     // as Lua reads numerals
            "check integer 12", "submit integer 12",
            "check float 0.5", "submit float 0.5",
            "check nil nil", "submit nil nil",
        ])
    }

    @Test(arguments: ["nan", "inf", "0x10", "1,5", "12abc", "--1"])
    func aNumberFieldRefusesWhatIsNotADecimalNumeral(text: String) async throws {
        let run = try await scripts.run(#"form "n" { fields = { { id = "n", kind = "number" } } }"#)
        try run.form.setText(text, of: "n")
        #expect(try run.form.validate("n") == "not a number")
    }

    @Test func aPickerFieldFocusedAgainTurnsItsWheelBackToItsItem() async throws {
        let run = try await signup()
        let form = run.form
        try form.layout(FormDevice.layout())
        _ = try form.focus("state")                         // takes "Alabama"
        try run.picker.scroll("state", by: 2)               // "Arizona"
        _ = try form.done()
        try run.picker.scroll("state", by: -1)              // turned while the field is not edited
        #expect(form.field("state")?.text == "Arizona")
        _ = try form.focus("state")
        #expect(try run.picker.component("state").selection == 2)   // the wheel shows the field's item
        #expect(form.field("state")?.text == "Arizona")
    }

    @Test func theFirstLayoutRestsAtTheTopOfTheInsetUnlessTheHostSaysWhere() async throws {
        let run = try await scripts.run(Self.signup)       // not laid out yet
        var layout = FormDevice.layout()
        layout.contentInset = Insets(top: 64, bottom: 49)
        let first = try run.form.layout(layout)
        #expect(first?.offset == Point(x: 0, y: -64))       // under a 64-point bar, not behind it
        let other = try await scripts.run(Self.signup)
        layout.offset = Point(x: 0, y: 100)
        #expect(try other.form.layout(layout)?.offset == Point(x: 0, y: 100))
    }

    @Test func onSubmitRunsOnlyWhenEveryFieldIsValidAndGetsEveryValue() async throws {
        let run = try await signup()
        let form = run.form
        let events = form.record()
        try form.setText("16", of: "age")
        #expect(await form.submit() == .invalid([
            FormFieldError(field: "name", message: "required"),
            FormFieldError(field: "email", message: "required"),
            FormFieldError(field: "age", message: "must be 18 or over"),
        ]))
        #expect(run.host.notes.isEmpty)
        #expect(form.status == "All fields but About are needed")
        try form.setText("Ana", of: "name")
        try form.setText("ana@example.org", of: "email")
        try form.setText("30", of: "age")
        _ = try form.focus("state")                         // takes "Alabama"
        try run.picker.scroll("state", by: 1)
        #expect(await form.submit() == .submitted)
        #expect(run.host.notes == ["submitted Ana ana@example.org 30 integer Alaska hi"])
        #expect(form.status == "welcome, Ana")
        #expect(form.fields.map(\.error) == [nil, nil, nil, nil, nil])
        #expect(form.texts == ["name": "Ana", "email": "ana@example.org", "age": "30", "state": "Alaska", "bio": "hi"])
        #expect(events.all.suffix(2) == [.statusChanged("welcome, Ana"), .submitted])
    }

    @Test func aFormWithoutOnSubmitSubmitsWhenValid() async throws {
        let run = try await scripts.run("""
            form "f" { fields = { { id = "a", required = true } } }
            """)
        #expect(await run.form.submit() == .invalid([FormFieldError(field: "a", message: "required")]))
        try run.form.setText("x", of: "a")
        #expect(await run.form.submit() == .submitted)
        #expect(run.form.field("a")?.error == nil)
    }

    // MARK: - The script's form object

    @Test func scriptsReadValuesErrorsTheFocusAndTheStatusAndSetValuesAndTheStatus() async throws {
        let run = try await scripts.run("""
            local f = form "probe" {
              status = "start",
              fields = {
                { id = "a", validate = function(v, f)
                    note("a", v, f.focused, f:error("b"), f:value("n"), f:value("b"), f.status, f.name)
                    return true
                  end },
                { id = "b", required = true },
                { id = "n", kind = "number" },
                { id = "m", kind = "multiline" },
              },
              on_submit = function(values, f)
                f:set("a", "set\\nby script")
                f:set("m", "two\\nlines")
                f:set("n", "8")
                f.status = "done " .. f:value("n") + 1
              end,
            }
            """)
        let form = run.form
        try form.layout(FormDevice.stacked(["a", "b", "n", "m"]))
        _ = try form.focus("a")
        try form.setText("x", of: "a")
        try form.setText("7", of: "n")
        _ = try form.focus("b")                              // a is checked with b focused
        #expect(try form.validate("b") == "required")
        #expect(try form.validate("a") == nil)
        try form.setText("yes", of: "b")                      // b showed an error: checked now
        let events = form.record()
        #expect(await form.submit() == .submitted)
        #expect(run.host.notes == [
            "a x b nil 7  start probe",
            "a x b required 7  start probe",
            "a x b nil 7 yes start probe",
        ])
        #expect(form.texts == ["a": "set by script", "b": "yes", "n": "8", "m": "two\nlines"])
        #expect(form.status == "done 9")
        // What a script sets is not checked (a check would call the script again).
        #expect(events.all == [
            .textChanged(field: "a", text: "set by script"),
            .textChanged(field: "m", text: "two\nlines"),
            .textChanged(field: "n", text: "8"),
            .statusChanged("done 9"),
            .submitted,
        ])
    }

    @Test func aScriptClearingTheStatusLeavesItEmpty() async throws {
        let run = try await scripts.run("""
            form "f" { status = "x", fields = { { id = "a" } }, on_submit = function(v, f) f.status = nil end }
            """)
        let events = run.form.record()
        #expect(await run.form.submit() == .submitted)
        #expect(run.form.status == "")
        #expect(events.all == [.statusChanged(""), .submitted])
    }

    // MARK: - Events

    @Test func aHostHearsTheFocusTextErrorStatusAndSubmissionInOrder() async throws {
        let run = try await signup()
        let form = run.form
        let events = form.record()
        _ = try form.focus("name")
        try form.setText("Ana", of: "name")
        try form.setText("Ana", of: "name")                  // the same text: no event
        _ = try form.next()
        try form.setText("ana@example.com", of: "email")
        _ = try form.done()
        try form.setText("ana@example.org", of: "email")
        #expect(await form.submit() == .submitted)
        #expect(events.all == [
            .focusChanged(from: nil, to: "name"),
            .textChanged(field: "name", text: "Ana"),
            .focusChanged(from: "name", to: "email"),
            .textChanged(field: "email", text: "ana@example.com"),
            .errorChanged(field: "email", error: "use your own address"),   // the field left is checked first
            .focusChanged(from: "email", to: nil),
            .textChanged(field: "email", text: "ana@example.org"),
            .errorChanged(field: "email", error: nil),
            .statusChanged("welcome, Ana"),
            .submitted,
        ])
        #expect(run.host.notes == ["submitted Ana ana@example.org nil nil  hi"])
    }

    @Test func anObserverRemovedHearsNothingMore() async throws {
        let run = try await signup()
        let form = run.form
        var heard: [FormEvent] = []
        let token = form.observe { heard.append($0) }
        _ = try form.focus("name")
        form.removeObserver(token)
        _ = try form.next()
        #expect(heard == [.focusChanged(from: nil, to: "name")])
    }
}
