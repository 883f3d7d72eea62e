import Testing
import Lua
@testable import Wheel
import WheelCore

/// What a form does with mistakes. A script's `validate` or `on_submit` that raises, runs
/// out of time or returns the wrong thing marks the field (or the submission) with a
/// `file:line: message`, reports it, and loses nothing typed. A host's bad geometry or
/// unknown field is refused with an exact message and changes nothing. A bad declaration
/// stops the script at the `form` line, and the runtime runs the next one.
@Suite struct FormBadInputTests {
    let scripts = PickerScripts()

    /// Field `a` with `validate` defined on line 3 as `body`, and a plain field `b`.
    static func validating(_ body: String) -> String {
        """
        form "f" {
          fields = {
            { id = "a", validate = function(v, f) \(body) end },
            { id = "b" },
          },
        }
        """
    }

    /// Runs `validating(body)`, lays the form out, types `text` into `a` and checks it.
    func check(_ body: String, text: String = "typed",
               options: Runtime.Options = .init()) async throws -> (error: String?, run: ScriptRun) {
        let run = try await scripts.run(Self.validating(body), options: options)
        try run.form.layout(FormDevice.stacked(["a", "b"]))
        try run.form.setText(text, of: "a")
        let error = try run.form.validate("a")
        #expect(run.form.field("a")?.text == text)
        #expect(run.form.field("a")?.error == error)
        return (error, run)
    }

    // MARK: - validate

    @Test func aValidateThatRaisesMarksTheFieldWithItsMessageAndIsReported() async throws {
        let run = try await scripts.run("""
            form "f" {
              fields = {
                { id = "a", validate = function(v)
                    if v == "boom" then error("cannot check " .. v) end
                    return true
                  end },
              },
            }
            """)
        let form = run.form
        let events = form.record()
        try form.layout(FormDevice.stacked(["a"]))
        _ = try form.focus("a")
        try form.setText("boom", of: "a")
        _ = try form.done()
        let message = "\(run.chunk):4: cannot check boom"
        #expect(form.field("a")?.error == message)
        #expect(form.field("a")?.text == "boom")
        #expect(run.problems.all == [message])
        #expect(events.all.contains(.errorChanged(field: "a", error: message)))
        #expect(events.all.contains { if case .problem(let problem) = $0 { problem.message == message } else { false } })
        #expect(await form.submit() == .invalid([FormFieldError(field: "a", message: message)]))
        // Corrected, the field clears as it changes.
        try form.setText("fine", of: "a")
        #expect(form.field("a")?.error == nil)
        #expect(await form.submit() == .submitted)
        // The submit met the same problem again: shown, not reported a second time.
        #expect(run.problems.all == [message])
    }

    /// What `validate` returns, and how the message describes it.
    @Test(arguments: [
        ("return nil", "nil"), ("return", "nil"), ("return 'yes'", "the string \"yes\""), ("return 1", "the number 1"),
        ("return 0.5", "the number 0.5"), ("return {}", "a table"), ("return print", "a function"),
    ])
    func aValidateReturningSomethingOtherThanABooleanMarksTheField(body: String, shown: String) async throws {
        let (error, run) = try await check(body)
        let message = "\(run.chunk):3: validate for field 'a' returned \(shown); it must return true, or false and a message"
        #expect(error == message)
        #expect(run.problems.all == [message])
    }

    @Test(arguments: [
        ("return false, 42", "the number 42"), ("return false, {}", "a table"), ("return false, true", "a boolean"),
    ])
    func aValidateReturningFalseWithAMessageThatIsNotAStringMarksTheField(body: String, shown: String) async throws {
        let (error, run) = try await check(body)
        let message = "\(run.chunk):3: validate for field 'a' returned false and \(shown); the message must be a string"
        #expect(error == message)
        #expect(run.problems.all == [message])
    }

    @Test func aValidateReturningFalseAloneOrWithAnEmptyMessageSaysInvalid() async throws {
        let (alone, run) = try await check("return false")
        #expect(alone == "invalid")
        let (empty, other) = try await check("return false, ''")
        #expect(empty == "invalid")
        #expect(run.problems.all.isEmpty && other.problems.all.isEmpty)
    }

    @Test func aValidateThatLoopsForeverTimesOutAndTheFormKeepsWorking() async throws {
        let (error, run) = try await check("""
            if v == "loop" then while true do end end return v ~= "", "empty"
            """, text: "loop", options: .init(timeout: .milliseconds(100)))
        let message = "\(run.chunk):3: script timed out: the call exceeded its CPU deadline of 100 ms"
        #expect(error == message)
        #expect(run.problems.all == [message])
        let form = run.form
        #expect(await form.submit() == .invalid([FormFieldError(field: "a", message: message)]))
        #expect(form.field("a")?.text == "loop")
        // The same state runs the script again: the field clears as it is corrected.
        try form.setText("done", of: "a")
        #expect(form.field("a")?.error == nil)
        try form.setText("", of: "a")
        #expect(try form.validate("a") == "empty")
        #expect(await form.submit() == .invalid([FormFieldError(field: "a", message: "empty")]))
        try form.setText("x", of: "a")
        #expect(await form.submit() == .submitted)
    }

    @Test func aValidateThatCallsTheFormWrongMarksTheField() async throws {
        let (error, run) = try await check("return f:value('zz') ~= nil")
        let message = "\(run.chunk):3: bad argument #1 to 'value' (form 'f' has no field 'zz' (fields: a, b))"
        #expect(error == message)
        #expect(run.problems.all == [message])
    }

    // MARK: - Pickers

    @Test func aPickerFieldNamingAnUnknownPickerIsAnErrorAtTheFormLine() async throws {
        let (message, run) = try await scripts.failure("""
            picker "states" { components = { { id = "s", items = { "Alabama" } } } }
            picker "colors" { components = { { id = "c", items = { "red" } } } }
            form "f" {
              fields = { { id = "name" }, { id = "state", kind = "picker", picker = "state" } },
            }
            """)
        #expect(message == "\(run.chunk):3: form 'f': field 'state': there is no picker 'state' (pickers declared so far: states, colors)")
        #expect(run.runtime.forms.isEmpty)
        #expect(try await run.runsAnotherForm())
    }

    @Test func aPickerDeclaredAfterTheFormIsAnErrorAtTheFormLine() async throws {
        let (message, run) = try await scripts.failure("""
            form "f" {
              fields = { { id = "state", kind = "picker", picker = "states" } },
            }
            picker "states" { components = { { id = "s", items = { "Alabama" } } } }
            """)
        #expect(message == "\(run.chunk):1: form 'f': field 'state': there is no picker 'states' (declare it before the form)")
        #expect(run.runtime.forms.isEmpty)
        #expect(run.runtime.pickers.isEmpty)
        #expect(try await run.runsAnotherForm())
    }

    @Test func settingAPickerFieldsTextIsRefusedAndChangesNothing() async throws {
        let run = try await scripts.run("""
            picker "states" { components = { { id = "s", items = { "Alabama", "Alaska" } } } }
            form "f" {
              fields = { { id = "state", kind = "picker", picker = "states" } },
              on_submit = function(values, f) f:set("state", "Texas") end,
            }
            """)
        let form = run.form
        try form.layout(FormDevice.stacked(["state"]))
        _ = try form.focus("state")
        let error = #expect(throws: FormUseError.self) { try form.setText("Texas", of: "state") }
        #expect(error == .pickerField(form: "f", field: "state", picker: "states"))
        #expect(error?.description == "form 'f': field 'state' takes its value from picker 'states'; turn the picker instead")
        #expect(form.field("state")?.text == "Alabama")
        // From the script: the submission fails, and the field keeps its text.
        guard case .failed(let problem) = await form.submit() else {
            Issue.record("the submission did not fail")
            return
        }
        #expect(problem.message == "\(run.chunk):4: bad argument #1 to 'set' (field 'state' takes its value from picker 'states')")
        #expect(form.field("state")?.text == "Alabama")
    }

    @Test func aPickerWithNothingToSelectLeavesAFocusedPickerFieldEmptyWithoutAnEvent() async throws {
        let run = try await scripts.run("""
            picker "none" { components = { { id = "n", items = {} } } }
            form "f" { fields = { { id = "p", kind = "picker", picker = "none", required = true } } }
            """)
        let form = run.form
        try form.layout(FormDevice.stacked(["p"]))
        let events = form.record()
        _ = try form.focus("p")
        #expect(form.field("p")?.text == "")
        _ = try form.done()
        #expect(events.all == [.focusChanged(from: nil, to: "p"), .focusChanged(from: "p", to: nil)])
        #expect(await form.submit() == .invalid([FormFieldError(field: "p", message: "required")]))
    }

    // MARK: - Submitting

    @Test func submittingWithInvalidFieldsListsThemInDeclarationOrderAndKeepsTheValues() async throws {
        let run = try await scripts.run("""
            form "f" {
              fields = {
                { id = "zip", kind = "number", required = true },
                { id = "city", required = true },
                { id = "mail", kind = "email" },
                { id = "note" },
              },
              on_submit = function(values) note("submitted") end,
            }
            """)
        let form = run.form
        // Laid out in another order than declared: the note first, the zip last.
        try form.layout(FormDevice.stacked(["note", "mail", "city", "zip"]))
        #expect(form.visitingOrder == ["note", "mail", "city", "zip"])
        try form.setText("12x", of: "zip")
        try form.setText("ana@", of: "mail")
        try form.setText("hello", of: "note")
        #expect(await form.submit() == .invalid([
            FormFieldError(field: "zip", message: "not a number"),
            FormFieldError(field: "city", message: "required"),
            FormFieldError(field: "mail", message: "not an e-mail address"),
        ]))
        #expect(FormFieldError(field: "zip", message: "not a number").description == "zip: not a number")
        #expect(run.host.notes.isEmpty)
        #expect(form.texts == ["zip": "12x", "city": "", "mail": "ana@", "note": "hello"])
        #expect(form.fields.map(\.error) == ["not a number", "required", "not an e-mail address", nil])
    }

    @Test func anOnSubmitThatRaisesFailsKeepsTheValuesAndALaterSubmitWorks() async throws {
        let run = try await scripts.run("""
            form "f" {
              fields = { { id = "a" }, { id = "b" } },
              on_submit = function(values, f)
                if values.a == "bad" then error("cannot save " .. values.a) end
                note("saved", values.a, values.b)
              end,
            }
            """)
        let form = run.form
        let events = form.record()
        try form.setText("bad", of: "a")
        try form.setText("kept", of: "b")
        guard case .failed(let problem) = await form.submit() else {
            Issue.record("the submission did not fail")
            return
        }
        let message = "\(run.chunk):4: cannot save bad"
        #expect(problem.message == message)
        #expect(problem.traceback?.isEmpty == false)
        #expect(run.problems.all == [message])
        #expect(form.texts == ["a": "bad", "b": "kept"])
        #expect(!events.all.contains(.submitted))
        try form.setText("good", of: "a")
        #expect(await form.submit() == .submitted)
        #expect(run.host.notes == ["saved good kept"])
        #expect(events.all.last == .submitted)
    }

    @Test func anOnSubmitThatLoopsForeverTimesOut() async throws {
        let run = try await scripts.run("""
            form "f" { fields = { { id = "a" } }, on_submit = function(values)
              while values.a == "loop" do end
            end }
            """, options: .init(timeout: .milliseconds(100)))
        let form = run.form
        try form.setText("loop", of: "a")
        guard case .failed(let problem) = await form.submit() else {
            Issue.record("the submission did not fail")
            return
        }
        #expect(problem.message == "\(run.chunk):2: script timed out: the call exceeded its CPU deadline of 100 ms")
        #expect(run.problems.all == [problem.message])
        #expect(form.field("a")?.text == "loop")
        try form.setText("stop", of: "a")
        #expect(await form.submit() == .submitted)
    }

    // MARK: - Geometry a host gets wrong

    /// Runs `body`, which must throw a `FormError` reading `message`, and checks that the
    /// form is as it was.
    func expectRefusal(_ form: Form, _ message: String, sourceLocation: SourceLocation = #_sourceLocation,
                       _ body: (Form) throws -> Void) {
        let before = (form.avoidance, form.focused, form.fields, form.visitingOrder, form.isLaidOut)
        let error = #expect(throws: FormError.self, sourceLocation: sourceLocation) { try body(form) }
        #expect(error?.description == message, sourceLocation: sourceLocation)
        #expect(form.avoidance == before.0, sourceLocation: sourceLocation)
        #expect(form.focused == before.1, sourceLocation: sourceLocation)
        #expect(form.fields == before.2, sourceLocation: sourceLocation)
        #expect(form.visitingOrder == before.3, sourceLocation: sourceLocation)
        #expect(form.isLaidOut == before.4, sourceLocation: sourceLocation)
    }

    static let form = """
        form "f" { fields = { { id = "name" }, { id = "email", kind = "email" }, { id = "age", kind = "number" } } }
        """

    @Test func aFirstLayoutWithBadGeometryIsRefusedAndLeavesTheFormUnlaidOut() async throws {
        let run = try await scripts.run(Self.form)
        let form = run.form
        var layout = FormDevice.stacked(["name", "email", "age"])
        layout.scrollFrame.origin.y = .nan
        expectRefusal(form, "scroll view frame is not finite (its y is nan)") { try $0.layout(layout) }
        layout = FormDevice.stacked(["name", "email", "age"])
        layout.fieldFrames["email"]!.size.height = -44
        expectRefusal(form, "field frame has a negative height (-44)") { try $0.layout(layout) }
        layout = FormDevice.stacked(["name", "email", "age"])
        layout.margin = -8
        expectRefusal(form, "margin is negative (-8)") { try $0.layout(layout) }
        #expect(!form.isLaidOut)
        // Typed text is kept all the same.
        try form.setText("Ana", of: "name")
        #expect(form.field("name")?.text == "Ana")
    }

    @Test func aLaterLayoutWithBadGeometryIsRefusedAndChangesNothing() async throws {
        let run = try await scripts.run(Self.form)
        let form = run.form
        let good = FormDevice.stacked(["name", "email", "age"])
        try form.layout(good)
        _ = try form.focus("age")
        _ = try form.keyboardWillShow(FormDevice.keyboard)
        let cases: [(String, (inout FormLayout) -> Void)] = [
            ("content size has a negative height (-700)", { $0.contentSize.height = -700 }),
            ("content size is not finite (its width is nan)", { $0.contentSize.width = .nan }),
            ("field frame is not finite (its height is inf)", { $0.fieldFrames["age"]!.size.height = .infinity }),
            ("field frame is not finite (its x is -inf)", { $0.fieldFrames["name"]!.origin.x = -.infinity }),
            ("scroll view frame has a negative width (-320)", { $0.scrollFrame.size.width = -320 }),
            ("content inset has a negative bottom (-49)", { $0.contentInset.bottom = -49 }),
            ("scroll indicator inset is not finite (its top is nan)", { $0.indicatorInsets.top = .nan }),
            ("window conversion has a scale that is not positive (-1)", { $0.conversion.scale = -1 }),
            ("margin is not finite (nan)", { $0.margin = .nan }),
            ("field frame has a y out of range (10000000000000); geometry must lie within ±1e12",
             { $0.fieldFrames["email"]!.origin.y = 1e13 }),
        ]
        for (message, spoil) in cases {
            var layout = good
            spoil(&layout)
            expectRefusal(form, message) { try $0.layout(layout) }
        }
        #expect(form.avoidance?.offset == Point(x: 0, y: 0))
        #expect(form.avoidance?.contentInset == Insets(bottom: 192))
    }

    @Test func badKeyboardFramesOffsetsAndAnimationsAreRefusedAndChangeNothing() async throws {
        let run = try await scripts.run(Self.form)
        let form = run.form
        try form.layout(FormDevice.stacked(["name", "email", "age"]))
        _ = try form.focus("email")
        var keyboard = FormDevice.keyboard
        keyboard.size.height = .nan
        expectRefusal(form, "keyboard frame is not finite (its height is nan)") { _ = try $0.keyboardWillShow(keyboard) }
        keyboard = FormDevice.keyboard
        keyboard.size.height = -216
        expectRefusal(form, "keyboard frame has a negative height (-216)") { _ = try $0.keyboardWillShow(keyboard) }
        let late = KeyboardAnimation(duration: -0.25)
        expectRefusal(form, "animation duration is negative (-0.25)") {
            _ = try $0.keyboardWillShow(FormDevice.keyboard, animation: late)
        }
        _ = try form.keyboardWillShow(FormDevice.keyboard)
        keyboard = FormDevice.keyboard
        keyboard.origin.y = .infinity
        expectRefusal(form, "keyboard frame is not finite (its y is inf)") { _ = try $0.keyboardWillChangeFrame(keyboard) }
        keyboard = FormDevice.keyboard
        keyboard.size.width = -320
        expectRefusal(form, "keyboard frame has a negative width (-320)") { _ = try $0.keyboardWillChangeFrame(keyboard) }
        let never = KeyboardAnimation(duration: .nan)
        expectRefusal(form, "animation duration is not finite (nan)") { _ = try $0.keyboardWillHide(animation: never) }
        let forever = KeyboardAnimation(duration: .infinity)
        expectRefusal(form, "animation duration is not finite (inf)") {
            _ = try $0.keyboardWillChangeFrame(FormDevice.keyboard, animation: forever)
        }
        expectRefusal(form, "content offset is not finite (its y is nan)") { try $0.scroll(to: Point(x: 0, y: .nan)) }
        expectRefusal(form, "content offset is not finite (its x is -inf)") { try $0.scroll(to: Point(x: -.infinity, y: 0)) }
        #expect(form.avoidance?.isKeyboardShown == true)
        #expect(form.avoidance?.contentInset == Insets(bottom: 192))
        // A scroll up past the top is recorded as the host reports it (a rubber band).
        try form.scroll(to: Point(x: 0, y: -30))
        #expect(form.avoidance?.offset == Point(x: 0, y: -30))
    }

    // MARK: - Calls a host makes out of turn

    @Test func eventsBeforeTheFirstLayoutAreRefusedButTypingIsKept() async throws {
        let run = try await scripts.run(Self.form)
        let form = run.form
        let message = "form 'f' has no layout yet: call layout(_:) with the scroll view's frame and the fields' frames first"
        #expect(FormUseError.noLayout(form: "f").description == message)
        #expect(throws: FormUseError.noLayout(form: "f")) { try form.focus("name") }
        #expect(throws: FormUseError.noLayout(form: "f")) { try form.next() }
        #expect(throws: FormUseError.noLayout(form: "f")) { try form.previous() }
        #expect(throws: FormUseError.noLayout(form: "f")) { try form.done() }
        #expect(throws: FormUseError.noLayout(form: "f")) { try form.keyboardWillShow(FormDevice.keyboard) }
        #expect(throws: FormUseError.noLayout(form: "f")) { try form.keyboardWillChangeFrame(FormDevice.keyboard) }
        #expect(throws: FormUseError.noLayout(form: "f")) { try form.keyboardWillHide() }
        #expect(throws: FormUseError.noLayout(form: "f")) { try form.scroll(to: .zero) }
        #expect(form.focused == nil)
        #expect(!form.hasNext && !form.hasPrevious)
        try form.setText("ana@example.org", of: "email")
        #expect(try form.validate("email") == nil)
        #expect(await form.submit() == .submitted)
        #expect(form.field("email")?.text == "ana@example.org")
    }

    @Test func unknownFieldIdsAreRefusedNamingTheFields() async throws {
        let run = try await scripts.run(Self.form)
        let form = run.form
        let error = FormUseError.unknownField(form: "f", field: "nope", known: ["name", "email", "age"])
        #expect(error.description == "form 'f' has no field 'nope' (fields: name, email, age)")
        #expect(throws: error) { try form.focus("nope") }            // before a layout too
        #expect(throws: error) { try form.setText("x", of: "nope") }
        #expect(throws: error) { try form.validate("nope") }
        var layout = FormDevice.stacked(["name", "email", "age"])
        layout.fieldFrames["nope"] = Rect(x: 0, y: 0, width: 10, height: 10)
        #expect(throws: error) { try form.layout(layout) }
        #expect(!form.isLaidOut)
        try form.layout(FormDevice.stacked(["name", "email", "age"]))
        _ = try form.focus("name")
        #expect(throws: error) { try form.focus("nope") }
        #expect(form.focused == "name")
        #expect(throws: error) { try form.layout(layout) }
        #expect(form.fields.map(\.text) == ["", "", ""])
    }

    @Test func aLayoutMissingFieldsFramesIsRefusedNamingThemInDeclarationOrder() async throws {
        let run = try await scripts.run(Self.form)
        let form = run.form
        let error = FormUseError.missingFrames(form: "f", fields: ["name", "age"])
        #expect(error.description == "form 'f': the layout has no frame for 'name', 'age'")
        #expect(throws: error) { try form.layout(FormDevice.stacked(["email"])) }
        #expect(!form.isLaidOut)
        try form.layout(FormDevice.stacked(["name", "email", "age"]))
        let before = form.avoidance
        #expect(throws: error) { try form.layout(FormDevice.stacked(["email"])) }
        #expect(form.avoidance == before)
    }

    // MARK: - Declaration mistakes

    /// A declaration, and the message its mistake stops the script with (after
    /// `file:line: `; the `form` call is on line 1).
    @Test(arguments: [
        (#"form "f" { fields = { { id = "a", kidn = "text" } } }"#,
         "form 'f': field 'a' has an unknown field 'kidn' (fields: id, kind, label, lines, picker, placeholder, required, validate, value)"),
        (#"form "f" { fields = { { id = "a" } }, on_sumbit = function() end }"#,
         "form 'f' has an unknown field 'on_sumbit' (fields: fields, on_submit, status)"),
        (#"form "f" { fields = { { id = "a" }, { id = "b" }, { id = "a" } } }"#,
         "form 'f': fields 1 and 3 have the same id 'a'"),
        (#"form "f" { fields = { { id = "a", kind = "date" } } }"#,
         #"form 'f': field 'a': kind must be one of "text", "email", "number", "multiline", "picker", not the string "date""#),
        (#"form "f" { fields = { { id = "a", kind = 1 } } }"#,
         #"form 'f': field 'a': kind must be one of "text", "email", "number", "multiline", "picker", not the number 1"#),
        (#"form "f" { fields = { { id = "a", lines = 3 } } }"#,
         #"form 'f': field 'a': lines goes with kind = "multiline""#),
        (#"form "f" { fields = { { id = "a", kind = "multiline", lines = 0 } } }"#,
         "form 'f': field 'a': lines must be a whole number from 1 to 100, not the number 0"),
        (#"form "f" { fields = { { id = "a", kind = "multiline", lines = 2.5 } } }"#,
         "form 'f': field 'a': lines must be a whole number from 1 to 100, not the number 2.5"),
        (#"form "f" { fields = { { id = "s", kind = "picker" } } }"#,
         #"form 'f': field 's': a picker field names its picker: picker = "states""#),
        (#"form "f" { fields = { { id = "s", kind = "picker", picker = 3 } } }"#,
         "form 'f': field 's': picker must be the name of a picker, not the number 3"),
        (#"form "f" { fields = { { id = "a", picker = "states" } } }"#,
         #"form 'f': field 'a': picker goes with kind = "picker""#),
        (#"form "f" { fields = {} }"#,
         "form 'f': fields is empty; a form needs at least one field"),
        (#"form "f" { }"#,
         #"form 'f': fields must be a list of tables: fields = { { id = "name", kind = "text" }, ... }"#),
        (#"form "f" { fields = { "a" } }"#,
         #"form 'f': field 1 is the string "a", expected a table"#),
        (#"form "f" { fields = { { id = "a" }, { label = "B" } } }"#,
         "form 'f': field 2: id must be a non-empty string, not nil"),
        (#"form "f" { fields = { { id = "" } } }"#,
         #"form 'f': field 1: id must be a non-empty string, not the string """#),
        (#"form "f" { fields = { { id = "a", validate = "a > 1" } } }"#,
         #"form 'f': field 'a': validate must be a function(value, form) returning true, or false and a message, not the string "a > 1""#),
        (#"form "f" { fields = { { id = "a", required = "yes" } } }"#,
         #"form 'f': field 'a': required must be true or false, not the string "yes""#),
        (#"form "f" { fields = { { id = "a", label = {} } } }"#,
         "form 'f': field 'a': label must be a string, not a table"),
        (#"form "f" { fields = { { id = "a" } }, on_submit = true }"#,
         "form 'f': on_submit must be a function(values, form), not a boolean"),
        (#"form "f" { fields = { { id = "a" } }, status = 3 }"#,
         "form 'f': status must be a string, not the number 3"),
        (#"form "f" { fields = { { id = "a" } } }; form "f" { fields = { { id = "b" } } }"#,
         "a form named 'f' is already declared"),
        (#"form "f" "fields""#,
         #"form 'f' needs a table: form "f" { fields = { { id = "name" } } }"#),
    ])
    func aDeclarationMistakeStopsTheScriptAtTheFormLine(source: String, message: String) async throws {
        let (error, run) = try await scripts.failure(source)
        #expect(error == "\(run.chunk):1: \(message)")
        #expect(try await run.runsAnotherForm())
    }

    @Test func aPickerFieldWithAValueIsAnError() async throws {
        let (error, run) = try await scripts.failure("""
            picker "states" { components = { { id = "s", items = { "Alabama" } } } }
            form "f" {
              fields = { { id = "s", kind = "picker", picker = "states", value = "Texas" } },
            }
            """)
        #expect(error == "\(run.chunk):2: form 'f': field 's': a picker field's value comes from its picker; select the item in the picker instead")
        #expect(run.runtime.forms.isEmpty)
    }

    @Test func aFormWithoutANameIsAnError() async throws {
        let (error, run) = try await scripts.failure("""
            form "" { fields = { { id = "a" } } }
            """)
        #expect(error == "\(run.chunk):1: bad argument #1 to 'form' (a form's name must be a non-empty string: form \"name\" { ... })")
    }
}
