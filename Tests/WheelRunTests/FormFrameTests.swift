import Foundation
import Testing

/// `wheel-run` on form scripts: the virtual screen whose bottom rows the keyboard (or a
/// picker field's wheel) takes, the form scrolled so that the edited field sits above it,
/// compared with Tests/ExpectedFrames, and the form events' mistakes.
@Suite struct FormFrameTests {
    static let root = PickerFrameTests.root
    let harness = WheelRunTests()

    @Test func theSignupFramesMatchTheCheckedInFrames() async throws {
        let outcome = try await WheelRunTests.run([
            "examples/signup.lua", "--events-file", "Tests/ExpectedFrames/signup.events",
        ], in: Self.root)
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.errors.isEmpty)
        #expect(outcome.output == (try PickerFrameTests.expected("signup.txt")))
        // The form is more than a screen, and the wheel of states takes the keyboard's place.
        #expect(outcome.output.hasPrefix("form \"signup\": 11 fields · rows 1–20 of 25\n"))
        #expect(outcome.output.contains("├─────────────────────── picker \"states\" ────────────────────────┤\n"))
        #expect(outcome.output.contains("not submitted: age (age is a whole number)\nform \"signup\": editing age (6 of 11)"))
        #expect(outcome.output.contains("signed up ana@example.org\n> submit\nsubmitted\n"))
        #expect(!outcome.output.contains("picker \"states\"\n"))      // the picker shows only in the form
    }

    /// A 4-field form on the 20-row screen: each field takes 2 rows, the content 10.
    static let small = """
        form "f" {
          fields = {
            { id = "a", label = "A" }, { id = "b", label = "B" }, { id = "c", label = "C" },
            { id = "d", label = "D", kind = "multiline", lines = 1 },
            { id = "e", label = "E" }, { id = "f", label = "F" }, { id = "g", label = "G" },
            { id = "h", label = "H" }, { id = "i", label = "I" }, { id = "j", label = "J" },
          },
        }
        """

    /// The heading of each frame after an event: what is edited and which rows show.
    func headings(_ events: String, script: String = FormFrameTests.small) async throws -> [String] {
        let outcome = try await harness.run([try harness.script(script), "--events", events])
        #expect(outcome.status == 0, "\(outcome.errors)")
        let lines = outcome.output.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.indices.filter { lines[$0].hasPrefix("> ") }.map { lines[$0 + 1].split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) }
    }

    @Test func theKeyboardTakesTheBottomRowsAndTheEditedFieldSitsAboveIt() async throws {
        // 10 fields of 2 rows and the submit button: 22 rows of content on a 20-row screen.
        let headings = try await headings("focus h; keyboard show 12; keyboard show 12; keyboard hide; keyboard show 4; done")
        #expect(headings == [
            "editing h (8 of 10) · rows 5–16 of 22 · keyboard 8 rows",    // h is rows 15–16: its bottom at the keyboard
            "editing h (8 of 10) · rows 9–16 of 22 · keyboard 12 rows",
            "editing h (8 of 10) · rows 9–16 of 22 · keyboard 12 rows",   // shown twice: nothing moves
            "editing h (8 of 10) · rows 3–22 of 22",                      // hidden: clamped to the content, not left displaced
            "editing h (8 of 10) · rows 3–18 of 22 · keyboard 4 rows",
            "10 fields · rows 3–22 of 22",
        ])
    }

    @Test func nextAndPrevMoveTheFormAsLittleAsTheyMust() async throws {
        let headings = try await headings("focus a; next; next; next; next; next; next; prev; prev; prev; prev; next")
        #expect(headings == [
            "editing a (1 of 10) · rows 1–12 of 22 · keyboard 8 rows",
            "editing b (2 of 10) · rows 1–12 of 22 · keyboard 8 rows",
            "editing c (3 of 10) · rows 1–12 of 22 · keyboard 8 rows",
            "editing d (4 of 10) · rows 1–12 of 22 · keyboard 8 rows",
            "editing e (5 of 10) · rows 1–12 of 22 · keyboard 8 rows",
            "editing f (6 of 10) · rows 1–12 of 22 · keyboard 8 rows",
            "editing g (7 of 10) · rows 3–14 of 22 · keyboard 8 rows",    // g is rows 13–14
            "editing f (6 of 10) · rows 3–14 of 22 · keyboard 8 rows",
            "editing e (5 of 10) · rows 3–14 of 22 · keyboard 8 rows",
            "editing d (4 of 10) · rows 3–14 of 22 · keyboard 8 rows",
            "editing c (3 of 10) · rows 3–14 of 22 · keyboard 8 rows",    // c is rows 5–6: still in sight
            "editing d (4 of 10) · rows 3–14 of 22 · keyboard 8 rows",
        ])
    }

    @Test func aMultilineFieldThatGrowsKeepsItsEndAboveTheKeyboard() async throws {
        let headings = try await headings(#"focus d; keyboard show 12; type "one\ntwo"; type "\nthree"; clear"#)
        #expect(headings == [
            "editing d (4 of 10) · rows 1–12 of 22 · keyboard 8 rows",
            "editing d (4 of 10) · rows 1–8 of 22 · keyboard 12 rows",
            "editing d (4 of 10) · rows 2–9 of 23 · keyboard 12 rows",    // two lines: the content grows by one
            "editing d (4 of 10) · rows 3–10 of 24 · keyboard 12 rows",
            "editing d (4 of 10) · rows 3–10 of 22 · keyboard 12 rows",   // cleared: back to one line
        ])
    }

    @Test func aMultilineFieldStopsGrowingAtSixLinesAndShowsItsEndWhileEdited() async throws {
        let path = try harness.script(#"form "f" { fields = { { id = "a" }, { id = "d", kind = "multiline" }, { id = "e" } } }"#)
        let outcome = try await harness.run([path, "--events", #"focus d; keyboard show 12; type "1\n2\n3\n4\n5\n6\n7\n8 is a long line with many words in it"; done"#])
        #expect(outcome.status == 0, "\(outcome.errors)")
        // Eight lines of text in six rows: the end in sight above the 12-row keyboard,
        // then the start once editing ends.
        #expect(outcome.output.contains("""
            form "f": editing d (2 of 3) · rows 2–9 of 13 · keyboard 12 rows
            ┌────────────────────────────────────────────────────────────────┐
            │   [                        ]                                   │
            │ ▸ d                                                            │
            │   […4                      ]                                   │
            │   [5                       ]                                   │
            │   [6                       ]                                   │
            │   [7                       ]                                   │
            │   [8 is a long line with   ]                                   │
            │   [many words in it        ]                                   │
            ├─────────────────────────── keyboard ───────────────────────────┤
            """), "\(outcome.output)")
        #expect(outcome.output.contains("""
            │   [5                       ]                                   │
            │   [6…                      ]                                   │
            │   e                                                            │
            """), "\(outcome.output)")
    }

    @Test func longNamesAndControlCharactersNeverBreakTheBox() async throws {
        let path = try harness.script(#"""
            picker "a picker with a name far longer than the screen is wide, and then some more" {
              rows = 3, components = { { id = "c", items = { "x", "y" } } } }
            form "f" {
              status = "two\nlines",
              fields = {
                { id = "p", label = "Pick\tone", kind = "picker",
                  picker = "a picker with a name far longer than the screen is wide, and then some more" },
                { id = "t", label = "A label so long that it would push the required mark off the row entirely", required = true },
              },
            }
            """#)
        let outcome = try await harness.run([path, "--events", #"focus p; next; type "a\tb""#])
        #expect(outcome.status == 0, "\(outcome.errors)")
        // Every box line is 66 cells wide: the border, 64 cells, the border.
        for line in outcome.output.split(separator: "\n") where line.hasPrefix("│") || line.hasPrefix("├") {
            #expect(TextWidthForTests.of(String(line)) == 66, "\(line)")
        }
        #expect(outcome.output.contains("├─ picker \"a picker with a name far longer than the screen is … ─┤"), "\(outcome.output)")
        #expect(outcome.output.contains("  two lines\n"), "\(outcome.output)")
        #expect(outcome.output.contains("│ ▸ Pick one "), "\(outcome.output)")
        #expect(outcome.output.contains("│ ▸ A label so long that it would push the required mark off t… *│"), "\(outcome.output)")
        #expect(outcome.output.contains("[a b                     ]"), "\(outcome.output)")
    }

    @Test func keyboardShowWithNoFieldEditedOnlySetsTheHeight() async throws {
        let headings = try await headings("keyboard show 12; focus a; keyboard show 19; done")
        #expect(headings == [
            "10 fields · rows 1–20 of 22",                                // nothing edited: no keyboard
            "editing a (1 of 10) · rows 1–8 of 22 · keyboard 12 rows",
            "editing a (1 of 10) · rows 1–2 of 22 · keyboard 18 rows",    // at most 20 - 2: the field stays in sight
            "10 fields · rows 1–20 of 22",
        ])
    }

    @Test func anEventsFileWithWindowsLineEndingsParses() async throws {
        let path = try harness.script(Self.small)
        try "focus b\r\ntype \"x\"\r\n".write(to: harness.scratch.url.appendingPathComponent("events.txt"), atomically: true, encoding: .utf8)
        let outcome = try await harness.run([path, "--events-file", "events.txt"])
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.output.contains("> type \"x\"\nform \"f\": editing b (2 of 10)"), "\(outcome.output)")
    }

    @Test func validationErrorsShowBesideTheirFieldsAndSubmitWaitsForThem() async throws {
        let path = try harness.script("""
            form "f" {
              fields = {
                { id = "n", label = "Number", kind = "number", required = true,
                  validate = function(n) return n > 2, "more than 2, please" end },
                { id = "m", label = "Mail", kind = "email" },
              },
              on_submit = function(values) print(("got %s, %s"):format(math.type(values.n), values.m)) end,
            }
            """)
        let outcome = try await harness.run([path, "--events", #"submit; type "x"; type "1"; type "0"; next; type "a@b"; done; submit; clear; focus m; clear; submit"#])
        #expect(outcome.status == 0, "\(outcome.errors)")
        let output = outcome.output
        #expect(output.contains("> submit\nnot submitted: n (required)\nform \"f\": editing n (1 of 2)"), "\(output)")
        #expect(output.contains("[x                       ]  ✗ not a number"), "\(output)")     // shown until it is right
        #expect(output.contains("[x1                      ]  ✗ not a number"), "\(output)")
        #expect(output.contains("> type \"0\"\nform \"f\": editing n (1 of 2) · rows 1–6 of 6 · keyboard 8 rows\n┌────"), "\(output)")
        #expect(output.contains("[x10                     ]  ✗ not a number"), "\(output)")
        #expect(output.contains("[a@b                     ]  ✗ not an e-mail address"), "\(output)")
        #expect(output.contains("not submitted: n (not a number), m (not an e-mail address)"), "\(output)")
        #expect(output.contains("got nil") == false)
    }

    @Test func aValidateThatRaisesIsShownAndTheRunFails() async throws {
        let path = try harness.script("""
            form "f" {
              fields = {
                { id = "a", label = "A", validate = function(v) error("no " .. v) end },
                { id = "b", label = "B", validate = function(v) return "yes" end },
              },
            }
            """)
        let outcome = try await harness.run([path, "--events", #"focus a; type "way"; next; type "x"; done; submit"#])
        #expect(outcome.status == 1)                            // the script's mistakes were reported
        #expect(outcome.errors.contains("\(path):3: no way"), "\(outcome.errors)")
        #expect(outcome.errors.contains("\(path):4: validate for field 'b' returned the string \"yes\"; it must return true, or false and a message"),
                "\(outcome.errors)")
        #expect(outcome.output.contains("[way                     ]  ✗ \(path):3: no way".prefix(60)), "\(outcome.output)")
        #expect(outcome.output.contains("not submitted: a (\(path):3: no way), b (\(path):4: validate for field 'b' returned"), "\(outcome.output)")
    }

    @Test(arguments: [
        (#"type "x""#, "--events: event 1: no field is edited; focus one first: focus a"),
        ("focus z", "--events: event 1: no field 'z' (fields: a, b, c, d, e, f, g, h, i, j)"),
        ("focus", "--events: event 1: focus needs a field: focus email"),
        ("keyboard show 0", "--events: event 1: the keyboard takes 1 to 20 rows, not 0"),
        ("keyboard up", "--events: event 1: keyboard show <rows> or keyboard hide"),
        ("next 2", "--events: event 1: next takes nothing after it"),
        (#"focus a; type "open"#, "--events: event 2: the text of 'type \"open' has no closing quote"),
        (#"focus a; type x"#, "--events: event 2: type takes one double-quoted text: type \"ana@example.org\""),
        (#"focus a; type "a\q""#, "--events: event 2: unknown escape \\q in 'type \"a\\q\"' (use \\n, \\t, \\\" or \\\\)"),
    ])
    func badFormEventsAreUsageErrors(events: String, message: String) async throws {
        let outcome = try await harness.run([try harness.script(Self.small), "--events", events])
        #expect(outcome.status == 2)
        #expect(outcome.errors.contains(message), "\(outcome.errors)")
    }

    @Test func quotedTextKeepsItsSemicolonsAndHashes() async throws {
        let outcome = try await harness.run([try harness.script(Self.small), "--events", #"focus a; type "x;y # z \"q\" \\"  # a comment"#])
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.output.contains(#"│   [x;y # z "q" \           ]"#), "\(outcome.output)")
    }

    @Test func typingIntoAPickerFieldIsRefusedAndSeveralFormsAreNamed() async throws {
        let path = try harness.script("""
            picker "colours" { rows = 3, components = { { id = "colour", items = { "red", "green", "blue" } } } }
            form "one" { fields = { { id = "x", kind = "picker", picker = "colours" } } }
            form "two" { fields = { { id = "x" }, { id = "y" } } }
            """)
        let typed = try await harness.run([path, "--events", #"focus one.x; type "red""#])
        #expect(typed.status == 2)
        #expect(typed.errors.contains("--events: event 2: field 'x' is a picker field; spin its picker instead: spin colour +1"), "\(typed.errors)")
        let ambiguous = try await harness.run([path, "--events", "focus x"])
        #expect(ambiguous.errors.contains("--events: event 1: forms 'one' and 'two' both have a field 'x'; write one.x"), "\(ambiguous.errors)")
        let unfocused = try await harness.run([path, "--events", "next"])
        #expect(unfocused.errors.contains("--events: event 1: the script declares 2 forms; focus a field first: focus one.x"), "\(unfocused.errors)")
        let good = try await harness.run([path, "--events", "focus one.x; spin colour +1; focus two.y; next"])
        #expect(good.status == 0, "\(good.errors)")
        #expect(good.output.contains("> spin colour +1\nform \"one\": editing x (1 of 1)"), "\(good.output)")
        #expect(good.output.contains("[green ▾                 ]"), "\(good.output)")
        #expect(good.output.contains("> next\nform \"two\": editing y (2 of 2)"), "\(good.output)")
    }
}

/// Cells a line takes on a terminal (box drawing: one each; CJK: two), for the tests.
enum TextWidthForTests {
    static func of(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { width, scalar in
            switch scalar.value {
            case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
                 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFF00...0xFF60: width + 2
            default: width + (scalar.properties.generalCategory == .nonspacingMark ? 0 : 1)
            }
        }
    }
}
