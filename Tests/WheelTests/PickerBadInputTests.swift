import Testing
import Lua
@testable import Wheel

/// What a picker does with a script's mistakes. A bad declaration stops the script with
/// `file:line: message` at the `picker` line, and the runtime runs the next script. A bad
/// `count`, `title` or `on_change` at run time is reported as `file:line: message` and the
/// picker keeps working: the row or wheel shows `<error>`, the rest as before.
@Suite struct PickerBadInputTests {
    let scripts = PickerScripts()
    let marker = PickerFrame.errorMarker
    static let countRange = "expected a whole number from 0 to 2147483648"

    // MARK: - Items

    @Test func anEmptyItemsListIsAnEmptyWheel() async throws {
        let run = try await scripts.run("""
            local p = picker "p" { components = { { id = "e", items = {} }, { id = "n", count = 3 } } }
            note(p:index("e"), p:count("e"), p:item("e"))
            """)
        let events = run.picker.record()
        try run.picker.scroll("e", by: 3)
        let rows = run.picker.frame().columns[0].rows
        #expect(rows.map(\.title) == Array(repeating: "", count: 7))
        #expect(rows.map(\.item) == Array(repeating: nil, count: 7))
        #expect(rows.map(\.isSelected) == Array(repeating: false, count: 7))
        #expect(events.all.isEmpty)
        #expect(try run.picker.component("e").selection == nil)
        #expect(run.host.notes == ["nil 0 nil"])
        #expect(run.picker.frame().titles("n") == ["", "", "", "1", "2", "3", ""])
    }

    @Test func theHostSelectingInAnEmptyWheelIsAnError() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "e", items = {} } } }
            """)
        let error = PickerError.indexOutOfRange(component: "e", index: 0, count: 0)
        #expect(throws: error) { try run.picker.select("e", index: 0) }
        #expect(error.description == "component 'e' is empty; there is no item 0")
    }

    @Test func numbersAmongTheItemsAreFormattedAsLuaFormatsThem() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", items = { 1, 2.5, 3, 4.0, -0.5, 2^53 } } } }
            """)
        #expect(try run.picker.items("n") == ["1", "2.5", "3", "4.0", "-0.5", "9.007199254741e+15"])
    }

    @Test func anItemThatIsATableIsAnErrorAtThePickerLine() async throws {
        let (message, run) = try await scripts.failure("""
            local colors = { "black", "brown" }
            picker "resistor" {
              components = { { id = "band1", items = { "red", "green", {} } } },
            }
            """)
        #expect(message == "\(run.chunk):2: component 'band1' item 3 is a table, expected a string")
        #expect(run.runtime.pickers.isEmpty)
        #expect(try await run.runsAnotherPicker())
    }

    @Test func anItemThatIsABooleanIsAnError() async throws {
        let (message, run) = try await scripts.failure("""
            picker "p" { components = { { id = "n", items = { "a", true } } } }
            """)
        #expect(message == "\(run.chunk):1: component 'n' item 2 is a boolean, expected a string")
        #expect(try await run.runsAnotherPicker())
    }

    // MARK: - Counts

    /// A `count` function's bad result, as Lua writes it and as the message shows it.
    @Test(arguments: [
        ("nil", "nil"), ("-1", "-1"), ("0/0", "nan"), ("2.5", "2.5"), ("2^31 + 1", "2147483649.0"),
        ("'7'", "a string"),
    ])
    func aCountFunctionReturningABadValueShowsTheMarkerAndIsReportedOnce(value: String, shown: String) async throws {
        let run = try await scripts.run("""
            picker "p" {
              components = {
                { id = "bad", count = function(p) return \(value) end },
                { id = "good", items = { "a", "b", "c" } },
              },
            }
            """)
        let rows = run.picker.frame().columns[0].rows
        #expect(rows.map(\.title) == ["", "", "", marker, "", "", ""])
        #expect(rows.map(\.isError) == [false, false, false, true, false, false, false])
        #expect(try run.picker.component("bad") == PickerComponent(
            id: "bad", count: 0, selection: nil, wrapMode: .auto, wraps: false, failure: marker))
        _ = run.picker.frame()
        #expect(run.problems.all == ["\(run.chunk):3: count of component 'bad' returned \(shown), \(Self.countRange)"])
        try run.picker.scroll("good", by: 1)
        #expect(run.picker.frame().titles("good") == ["", "", "a", "b", "c", "", ""])
    }

    @Test func aCountFunctionThatRaisesShowsTheMarkerAndIsReported() async throws {
        let run = try await scripts.run("""
            picker "p" {
              components = {
                { id = "bad", count = function(p) error("no count today") end },
              },
            }
            """)
        #expect(run.picker.frame().titles("bad") == ["", "", "", marker, "", "", ""])
        #expect(run.problems.all == ["\(run.chunk):3: no count today"])
    }

    @Test func aFailedCountIsAskedAgainOnReload() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", count = function(p) return value() end } } }
            """, before: { $0.value = -1 })
        run.host.value = 2
        try run.picker.reload("n")
        #expect(try run.picker.component("n").failure == nil)
        #expect(run.picker.frame().titles("n") == ["", "", "", "1", "2", "", ""])
        #expect(run.problems.all.count == 1)
    }

    @Test(arguments: [
        ("-1", "-1"), ("0/0", "nan"), ("2.5", "2.5"), ("2^31 + 1", "2147483649.0"), ("1/0", "inf"),
    ])
    func aFixedCountThatIsNotAWholeNumberInRangeIsAnError(value: String, shown: String) async throws {
        let (message, run) = try await scripts.failure("""
            picker "p" { components = { { id = "n", count = \(value) } } }
            """)
        #expect(message == "\(run.chunk):1: component 'n': count is \(shown), \(Self.countRange)")
        #expect(try await run.runsAnotherPicker())
    }

    @Test func theLargestCountIs2To31() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", count = 2^31 } } }
            """)
        #expect(try run.picker.component("n").count == 1 << 31)
    }

    @Test func aComponentWithNeitherItemsNorACountIsAnError() async throws {
        let (message, run) = try await scripts.failure("""
            picker "p" { components = { { id = "n", title = function() return "x" end } } }
            """)
        #expect(message == "\(run.chunk):1: component 'n' needs items = { ... }, or count (a number or a function) with a title function")
        #expect(try await run.runsAnotherPicker())
    }

    @Test func itemsAndACountTogetherAreAnError() async throws {
        let (message, run) = try await scripts.failure("""
            picker "p" { components = { { id = "n", items = { "a" }, count = 1 } } }
            """)
        #expect(message == "\(run.chunk):1: component 'n' has both items and count; give one of them")
        #expect(try await run.runsAnotherPicker())
    }

    // MARK: - Titles

    /// Rows 2 to 8 are shown; the even ones fail with the same message.
    static let evenRowsFail = """
        picker "p" {
          components = {
            { id = "n", count = 10, selected = 5,
              title = function(p, i) if i % 2 == 0 then error("even rows fail") end return tostring(i) end },
            { id = "m", items = { "x", "y" } },
          },
        }
        """

    @Test func aTitleThatRaisesShowsTheMarkerOnItsRow() async throws {
        let run = try await scripts.run(Self.evenRowsFail)
        let rows = run.picker.frame().columns[0].rows
        #expect(rows.map(\.title) == [marker, "3", marker, "5", marker, "7", marker])
        #expect(rows.map(\.isError) == [true, false, true, false, true, false, true])
        #expect(rows.map(\.isSelected) == [false, false, false, true, false, false, false])
        #expect(run.picker.frame().titles("m") == ["", "", "", "x", "y", "", ""])
    }

    @Test func aTitleFailingTheSameWayOnManyRowsIsReportedOnce() async throws {
        let run = try await scripts.run(Self.evenRowsFail)
        _ = run.picker.frame()
        _ = run.picker.frame()
        try run.picker.scroll("n", by: 2)          // rows 9 and 10 are new; 10 fails too
        _ = run.picker.frame()
        #expect(run.problems.all == ["\(run.chunk):4: even rows fail (in title of component 'n', row 2)"])
    }

    @Test func aReloadTriesFailedTitlesAgainAndReportsAgain() async throws {
        let run = try await scripts.run("""
            picker "p" {
              components = { { id = "n", count = 2,
                title = function(p, i) if value() == 0 then error("not ready") end return "#" .. i end } },
            }
            """)
        #expect(run.picker.frame().titles("n") == ["", "", "", marker, marker, "", ""])
        run.host.value = 1
        #expect(run.picker.frame().titles("n") == ["", "", "", marker, marker, "", ""])
        try run.picker.reload("n")
        #expect(run.picker.frame().titles("n") == ["", "", "", "#1", "#2", "", ""])
        run.host.value = 0
        try run.picker.reload("n")
        _ = run.picker.frame()
        #expect(run.problems.all == Array(repeating: "\(run.chunk):3: not ready (in title of component 'n', row 1)", count: 2))
    }

    /// A title's bad result, as Lua writes it and as the message names its type.
    @Test(arguments: [("{}", "table"), ("nil", "nil"), ("true", "boolean")])
    func aTitleReturningANonStringShowsTheMarkerAndIsReportedAtTheTitleFunction(value: String, type: String) async throws {
        let run = try await scripts.run("""
            picker "p" {
              components = {
                { id = "x", count = 4,
                  title = function(p, i) if i == 2 then return \(value) end return "#" .. i end },
              },
            }
            """)
        let rows = run.picker.frame().columns[0].rows
        #expect(rows.map(\.title) == ["", "", "", "#1", marker, "#3", "#4"])
        #expect(rows.map(\.isError) == [false, false, false, false, true, false, false])
        _ = run.picker.frame()
        #expect(run.problems.all == ["\(run.chunk):4: title of component 'x' returned \(type) for row 2, expected a string"])
    }

    @Test func aTitleLoopingForeverIsStoppedByTheDeadlineOnce() async throws {
        let run = try await scripts.run("""
            picker "p" {
              components = {
                { id = "n", count = 10, selected = 5,
                  title = function(p, i) note(i) if i == 5 then while true do end end return tostring(i) end },
                { id = "m", count = 3, title = function(p, i) return "m" .. i end },
              },
            }
            """, options: .init(timeout: .milliseconds(100)))
        let frame = run.picker.frame()
        // Row 5 timed out; rows 6 to 8 waited, marked, without a call.
        #expect(frame.titles("n") == ["2", "3", "4", marker, marker, marker, marker])
        #expect(run.host.notes == ["2", "3", "4", "5"])
        #expect(frame.titles("m") == ["", "", "", "m1", "m2", "m3", ""])
        #expect(run.problems.all == [
            "\(run.chunk):4: script timed out: the call exceeded its CPU deadline of 100 ms (in title of component 'n', row 5)",
        ])
    }

    @Test func rowsSkippedAfterADeadlineAreComputedInTheNextFrame() async throws {
        let run = try await scripts.run("""
            picker "p" {
              components = { { id = "n", count = 10, selected = 5,
                title = function(p, i) note(i) if i == 5 then while true do end end return tostring(i) end } },
            }
            """, options: .init(timeout: .milliseconds(100)))
        _ = run.picker.frame()
        run.host.notes.removeAll()
        #expect(run.picker.frame().titles("n") == ["2", "3", "4", marker, "6", "7", "8"])
        #expect(run.host.notes == ["6", "7", "8"])
        try run.picker.scroll("n", by: 3)
        #expect(run.picker.frame().titles("n") == [marker, "6", "7", "8", "9", "10", "1"])
        #expect(run.problems.all.count == 1)
    }

    // MARK: - Declarations

    @Test func duplicateComponentIDsAreAnErrorNamingBothPositions() async throws {
        let (message, run) = try await scripts.failure("""
            picker "p" {
              components = { { id = "a", count = 1 }, { id = "b", count = 1 }, { id = "a", count = 2 } },
            }
            """)
        #expect(message == "\(run.chunk):1: picker 'p': components 1 and 3 have the same id 'a'")
        #expect(try await run.runsAnotherPicker())
    }

    @Test func anUnknownPickerFieldIsAnError() async throws {
        let (message, run) = try await scripts.failure("""
            picker "p" { components = { { id = "a", count = 1 } }, on_chnage = function() end }
            """)
        #expect(message == "\(run.chunk):1: picker 'p' has an unknown field 'on_chnage' (fields: components, on_change, rows, status)")
        #expect(try await run.runsAnotherPicker())
    }

    @Test func anUnknownComponentFieldIsAnError() async throws {
        let (message, run) = try await scripts.failure("""
            picker "p" {
              components = { { id = "a", itmes = { "x" } } },
            }
            """)
        #expect(message == "\(run.chunk):1: component 'a' has an unknown field 'itmes' (fields: count, id, items, selected, title, wrap)")
        #expect(try await run.runsAnotherPicker())
    }

    @Test func aWrapThatIsNoModeIsAnError() async throws {
        let (message, run) = try await scripts.failure("""
            picker "p" { components = { { id = "a", count = 1, wrap = "sometimes" } } }
            """)
        #expect(message == #"\#(run.chunk):1: component 'a': wrap must be "always", "never", "auto", true or false, not the string "sometimes""#)
        #expect(try await run.runsAnotherPicker())
    }

    @Test func rowsOutOfRangeIsAnError() async throws {
        let (message, run) = try await scripts.failure("""
            picker "p" { rows = 0, components = { { id = "a", count = 1 } } }
            """)
        #expect(message == "\(run.chunk):1: picker 'p': rows must be a whole number from 1 to 1000, not the number 0")
        #expect(try await run.runsAnotherPicker())
    }

    @Test func aSelectedBelowOneIsAnError() async throws {
        let (message, run) = try await scripts.failure("""
            picker "p" { components = { { id = "a", count = 3, selected = 0 } } }
            """)
        #expect(message == "\(run.chunk):1: component 'a': selected must be a whole number from 1, not the number 0")
        #expect(try await run.runsAnotherPicker())
    }

    @Test func aPickerWithoutComponentsIsAnError() async throws {
        let (message, run) = try await scripts.failure("""
            picker "p" { components = {} }
            """)
        #expect(message == "\(run.chunk):1: picker 'p': components is empty; a picker needs at least one wheel")
        #expect(try await run.runsAnotherPicker())
    }

    @Test func aPickerNameDeclaredTwiceIsAnError() async throws {
        let (message, run) = try await scripts.failure("""
            picker "p" { components = { { count = 1 } } }
            picker "p" { components = { { count = 2 } } }
            """)
        #expect(message == "\(run.chunk):2: a picker named 'p' is already declared")
        #expect(run.runtime.pickers.map(\.name) == ["p"])
    }

    @Test func aPickerGivenSomethingOtherThanATableIsAnError() async throws {
        let (message, run) = try await scripts.failure("""
            picker "p" "components"
            """)
        #expect(message == #"\#(run.chunk):1: picker 'p' needs a table: picker "p" { components = { ... } }"#)
        #expect(try await run.runsAnotherPicker())
    }

    // MARK: - on_change and the script's picker object

    @Test func anOnChangeThatRaisesIsReportedAndTheSelectionStays() async throws {
        let run = try await scripts.run("""
            picker "p" {
              components = { { id = "n", count = 10 } },
              on_change = function(p, id, index)
                if index == 2 then error("not two") end
                note(index)
              end,
            }
            """)
        try run.picker.scroll("n", by: 1)
        #expect(run.problems.all == ["\(run.chunk):4: not two"])
        #expect(try run.picker.component("n").selection == 1)
        try run.picker.scroll("n", by: 1)
        #expect(run.host.notes == ["3"])
        #expect(run.problems.all.count == 1)
    }

    @Test func theScriptAskingForTheItemOfAFailedTitleGetsAnErrorItCanCatch() async throws {
        let run = try await scripts.run("""
            local p = picker "p" {
              components = { { id = "n", count = 3, title = function(p, i) error("no title") end } },
            }
            note(pcall(function() return p:item("n") end))
            """)
        #expect(run.host.notes == ["false \(run.chunk):4: component 'n' has no title for its row 1: its title function failed"])
        #expect(run.problems.all == ["\(run.chunk):2: no title (in title of component 'n', row 1)"])
    }

    @Test func theScriptSelectingAnIndexOutOfRangeIsAnArgumentErrorItCanCatch() async throws {
        let run = try await scripts.run("""
            local p = picker "date" { components = { { id = "day", count = 31 } } }
            note(pcall(function() p:select("day", 40) end))
            """)
        #expect(run.host.notes == [
            "false \(run.chunk):2: bad argument #2 to 'select' (index 40 is out of range for component 'day' (1 to 31))",
        ])
    }

    @Test func theScriptNamingAnUnknownComponentIsAnArgumentErrorItCanCatch() async throws {
        let run = try await scripts.run("""
            local p = picker "date" { components = { { id = "day", count = 31 }, { id = "month", count = 12 } } }
            note(pcall(function() p:select("dya", 1) end))
            """)
        #expect(run.host.notes == [
            "false \(run.chunk):2: bad argument #1 to 'select' (picker 'date' has no component 'dya' (it has day, month))",
        ])
    }

    @Test func theScriptSelectingInAnEmptyWheelIsAnArgumentError() async throws {
        let run = try await scripts.run("""
            local p = picker "p" { components = { { id = "e", items = {} } } }
            note(pcall(function() p:select("e", 1) end))
            """)
        #expect(run.host.notes == ["false \(run.chunk):2: bad argument #2 to 'select' (component 'e' is empty)"])
    }
}
