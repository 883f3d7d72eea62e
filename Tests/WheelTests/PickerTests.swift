import CLua
import Foundation
import Synchronization
import Testing
import Lua
@testable import Wheel

/// The picker DSL, from real scripts run by a `Runtime`: what a declaration gives, what the
/// host sees and does, what the script's `p` does, the examples, and the costs that must
/// stay flat (title calls, Lua calls, memory). Mistakes are in PickerBadInputTests.
@Suite struct PickerTests {
    let scripts = PickerScripts()

    // MARK: - Declarations

    @Test func itemsAreCopiedOnceWhenThePickerIsDeclared() async throws {
        let run = try await scripts.run("""
            local names = { "ann", "bob", "cy" }
            picker "people" { components = { { id = "name", items = names } } }
            names[1] = "zed"
            names[4] = "dee"
            """)
        #expect(try run.picker.items("name") == ["ann", "bob", "cy"])
        #expect(run.picker.components.map(\.count) == [3])
    }

    @Test func aCountAndATitleFunctionGiveTheRows() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", count = 4, title = function(p, i) return "row " .. i end } } }
            """)
        #expect(try run.picker.items("n") == nil)
        #expect(run.picker.frame().titles("n") == ["", "", "", "row 1", "row 2", "row 3", "row 4"])
        #expect(try run.picker.title("n", item: 3) == .text("row 4"))
    }

    @Test func aCountFunctionGivesTheCount() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", count = function(p) return 2 + 3 end } } }
            """)
        #expect(run.picker.components.map(\.count) == [5])
    }

    @Test func withoutATitleFunctionTheTitlesAreTheRowNumbers() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", count = 3 } } }
            """)
        #expect(run.picker.frame().titles("n") == ["", "", "", "1", "2", "3", ""])
    }

    @Test func aTitleThatIsANumberIsFormattedAsLuaFormatsIt() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", count = 2, title = function(p, i) return i / 2 end } } }
            """)
        #expect(run.picker.frame().titles("n") == ["", "", "", "0.5", "1.0", "", ""])
    }

    @Test func selectedIsTheFirstSelectionCountedFromOne() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", items = { "a", "b", "c" }, selected = 3 } } }
            """)
        #expect(run.picker.components.map(\.selection) == [2])
        #expect(run.picker.frame().columns[0].rows.filter(\.isSelected).map(\.title) == ["c"])
    }

    @Test func aSelectedBeyondTheLastItemSelectsTheLast() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", items = { "a", "b", "c" }, selected = 10 } } }
            """)
        #expect(run.picker.components.map(\.selection) == [2])
    }

    @Test func aComponentWithoutAnIDIsNamedByItsPosition() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { items = { "a" } }, { items = { "b" } } } }
            """)
        #expect(run.picker.components.map(\.id) == ["1", "2"])
    }

    /// Three items on five rows: a wrapping wheel repeats them, one that does not shows blanks.
    @Test(arguments: [
        ("\"always\"", "always", ["b", "c", "a", "b", "c"]),
        ("true", "always", ["b", "c", "a", "b", "c"]),
        ("\"never\"", "never", ["", "", "a", "b", "c"]),
        ("false", "never", ["", "", "a", "b", "c"]),
        ("\"auto\"", "auto", ["", "", "a", "b", "c"]),
    ])
    func wrapDecidesWhetherTheRowsGoRound(wrap: String, mode: String, titles: [String]) async throws {
        let run = try await scripts.run("""
            picker "p" { rows = 5, components = { { id = "n", items = { "a", "b", "c" }, wrap = \(wrap) } } }
            """)
        #expect(run.picker.components[0].wrapMode.rawValue == mode)
        #expect(run.picker.frame().titles("n") == titles)
    }

    @Test func wrapAutoWrapsAListLongerThanTheRows() async throws {
        let run = try await scripts.run("""
            picker "p" { rows = 5, components = { { id = "n", items = { "a", "b", "c", "d", "e", "f" } } } }
            """)
        #expect(run.picker.components[0].wraps)
        #expect(run.picker.frame().titles("n") == ["e", "f", "a", "b", "c"])
    }

    @Test func wrapAutoDoesNotWrapAListAsLongAsTheRows() async throws {
        let run = try await scripts.run("""
            picker "p" { rows = 5, components = { { id = "n", items = { "a", "b", "c", "d", "e" } } } }
            """)
        #expect(!run.picker.components[0].wraps)
    }

    @Test func rowsSetsTheVisibleRowsWithTheExtraRowOfAnEvenCountBelow() async throws {
        let run = try await scripts.run("""
            picker "p" { rows = 4, components = { { id = "n", count = 10 }, { id = "m", items = { "x" } } } }
            """)
        #expect(run.picker.visibleRows == 4)
        #expect(run.picker.frame().columns.map { $0.rows.map(\.offset) } == [[-1, 0, 1, 2], [-1, 0, 1, 2]])
    }

    // MARK: - The frame

    @Test func theFrameHasTheNameTheStatusAndAColumnPerComponent() async throws {
        let run = try await scripts.run("""
            picker "p" { status = "ready", components = { { id = "a", items = { "x" } }, { id = "b", count = 2 } } }
            """)
        let frame = run.picker.frame()
        #expect(frame.name == "p")
        #expect(frame.status == "ready")
        #expect(frame.columns.map(\.id) == ["a", "b"])
    }

    @Test func onlyTheSelectedRowIsMarkedSelected() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", count = 20, selected = 11 } } }
            """)
        let rows = run.picker.frame().columns[0].rows
        #expect(rows.map(\.item) == [7, 8, 9, 10, 11, 12, 13])
        #expect(rows.map(\.isSelected) == [false, false, false, true, false, false, false])
        #expect(rows.map(\.isError) == Array(repeating: false, count: 7))
    }

    @Test func aWheelThatDoesNotWrapShowsBlankRowsBeyondItsEnds() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", count = 5, selected = 5, wrap = false } } }
            """)
        let rows = run.picker.frame().columns[0].rows
        #expect(rows.map(\.item) == [1, 2, 3, 4, nil, nil, nil])
        #expect(rows.map(\.title) == ["2", "3", "4", "5", "", "", ""])
        #expect(rows.map(\.isSelected) == [false, false, false, true, false, false, false])
    }

    // MARK: - What the host does

    @Test func scrollingAWrappingWheelGoesRoundItsEnd() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", count = 10 } } }
            """)
        try run.picker.scroll("n", by: -3)
        #expect(run.picker.components[0].selection == 7)
        #expect(run.picker.frame().titles("n") == ["5", "6", "7", "8", "9", "10", "1"])
    }

    @Test func scrollingAWheelThatDoesNotWrapStopsAtItsEnd() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", count = 4, wrap = "never" } } }
            """)
        let events = run.picker.record()
        try run.picker.scroll("n", by: 10)
        try run.picker.scroll("n", by: 1)
        #expect(run.picker.components[0].selection == 3)
        #expect(events.all == [.changed(component: "n", from: 0, to: 3, rows: 3)])
    }

    @Test func selectingTurnsAWrappingWheelTheShortestWayRound() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", count = 10 } } }
            """)
        let events = run.picker.record()
        try run.picker.select("n", index: 8)
        #expect(run.picker.components[0].selection == 8)
        #expect(events.all == [.changed(component: "n", from: 0, to: 8, rows: -2)])
    }

    @Test func selectingTheSelectedItemIsNoChange() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", count = 10, selected = 4 } } }
            """)
        let events = run.picker.record()
        try run.picker.select("n", index: 3)
        #expect(events.all.isEmpty)
    }

    @Test func theHostSelectingAnItemOutOfRangeIsAnError() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", count = 10 } } }
            """)
        #expect(throws: PickerError.indexOutOfRange(component: "n", index: 10, count: 10)) {
            try run.picker.select("n", index: 10)
        }
        #expect(PickerError.indexOutOfRange(component: "n", index: 10, count: 10).description
            == "item 10 is out of range for component 'n' (0 to 9)")
    }

    @Test func theHostNamingAnUnknownComponentIsAnError() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "a", count = 1 }, { id = "b", count = 1 } } }
            """)
        let error = PickerError.unknownComponent(picker: "p", component: "c", known: ["a", "b"])
        #expect(throws: error) { try run.picker.scroll("c", by: 1) }
        #expect(error.description == "picker 'p' has no component 'c' (it has a, b)")
    }

    @Test func reloadingAsksTheCountAgainAndClampsTheSelection() async throws {
        let run = try await scripts.run("""
            picker "p" {
              components = { { id = "n", count = function(p) return value() end, selected = 8 } },
              on_change = function(p, id, index, item) note(id .. " " .. index .. " " .. item) end,
            }
            """, before: { $0.value = 10 })
        run.host.value = 5
        let events = run.picker.record()
        try run.picker.reload("n")
        #expect(run.picker.components[0].count == 5)
        #expect(run.picker.components[0].selection == 4)
        #expect(events.all == [.reloaded(component: "n"), .changed(component: "n", from: 7, to: 4, rows: -3)])
        #expect(run.host.notes == ["n 5 5"])
    }

    @Test func reloadingWithoutAnIDReloadsEveryComponent() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "a", count = 1 }, { id = "b", items = { "x" } } } }
            """)
        let events = run.picker.record()
        try run.picker.reload()
        #expect(events.all == [.reloaded(component: "a"), .reloaded(component: "b")])
    }

    // MARK: - Observers

    @Test func observersHearTheStatusWhenItChanges() async throws {
        let run = try await scripts.run("""
            picker "p" {
              components = { { id = "n", count = 10 } },
              on_change = function(p, id, index) p.status = index > 5 and "high" or "low" end,
            }
            """)
        let events = run.picker.record()
        try run.picker.scroll("n", by: 1)
        try run.picker.scroll("n", by: 1)
        try run.picker.scroll("n", by: 5)
        #expect(events.all == [
            .changed(component: "n", from: 0, to: 1, rows: 1), .statusChanged("low"),
            .changed(component: "n", from: 1, to: 2, rows: 1),
            .changed(component: "n", from: 2, to: 7, rows: 5), .statusChanged("high"),
        ])
        #expect(run.picker.status == "high")
    }

    @Test func observersHearTheProblemsTheRuntimeReports() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", count = 10 } }, on_change = function() error("no") end }
            """)
        let events = run.picker.record()
        try run.picker.scroll("n", by: 1)
        let problems = events.all.compactMap { event -> String? in
            if case .problem(let problem) = event { return problem.message } else { return nil }
        }
        #expect(problems == ["\(run.chunk):1: no"])
        #expect(run.problems.all == problems)
    }

    @Test func aRemovedObserverHearsNothing() async throws {
        let run = try await scripts.run("""
            picker "p" { components = { { id = "n", count = 10 } } }
            """)
        let kept = run.picker.record()
        let removed = Recorder<PickerEvent>()
        let token = run.picker.observe { removed.all.append($0) }
        run.picker.removeObserver(token)
        try run.picker.scroll("n", by: 1)
        #expect(removed.all.isEmpty)
        #expect(kept.all.count == 1)
    }

    // MARK: - on_change and the script's picker object

    @Test func onChangeGetsThePickerTheComponentTheIndexFromOneAndTheItem() async throws {
        let run = try await scripts.run("""
            picker "p" {
              components = { { id = "a", count = 3 }, { id = "b", items = { "x", "y", "z" } } },
              on_change = function(p, id, index, item) note(p.name, id, index, item) end,
            }
            """)
        try run.picker.select("b", index: 2)
        try run.picker.scroll("a", by: 1)
        #expect(run.host.notes == ["p b 3 z", "p a 2 2"])
    }

    @Test func theScriptReadsSelectionsItemsAndCounts() async throws {
        let run = try await scripts.run("""
            local p = picker "p" {
              components = { { id = "a", count = 30, selected = 12 }, { id = "b", items = { "x", "y" }, selected = 2 } },
            }
            note(p:index("a"), p:item("a"), p:count("a"), p:index("b"), p:item("b"), p:count("b"))
            """)
        #expect(run.host.notes == ["12 12 30 2 y 2"])
    }

    @Test func theScriptSelectsAndOnChangeHearsIt() async throws {
        let run = try await scripts.run("""
            local p = picker "p" {
              components = { { id = "a", items = { "x", "y", "z" } } },
              on_change = function(p, id, index, item) note(id, index, item) end,
            }
            p:select("a", 3)
            """)
        #expect(run.picker.components[0].selection == 2)
        #expect(run.host.notes == ["a 3 z"])
    }

    @Test func theScriptReloadsAComponent() async throws {
        let run = try await scripts.run("""
            local p = picker "p" { components = { { id = "a", count = function() return value() end } } }
            set_value(6)
            p:reload("a")
            note(p:count("a"))
            """, before: { $0.value = 2 })
        #expect(run.host.notes == ["6"])
        #expect(run.picker.components[0].count == 6)
    }

    @Test func theScriptReadsAndWritesTheStatus() async throws {
        let run = try await scripts.run("""
            local p = picker "p" { status = "a", components = { { id = "n", count = 1 } } }
            p.status = p.status .. "b"
            note(p.status, p.name)
            """)
        #expect(run.host.notes == ["ab p"])
        #expect(run.picker.status == "ab")
    }

    @Test func settingTheStatusToNilClearsIt() async throws {
        let run = try await scripts.run("""
            local p = picker "p" { status = "a", components = { { id = "n", count = 1 } } }
            p.status = nil
            """)
        #expect(run.picker.status == "")
    }

    @Test func aSelectionMadeInOnChangeGetsItsOwnCallAfterTheCurrentOneReturns() async throws {
        let run = try await scripts.run("""
            picker "p" {
              components = { { id = "a", count = 5 }, { id = "b", count = 5 } },
              on_change = function(p, id, index)
                note("start " .. id .. " " .. index)
                if id == "a" then p:select("b", index) end
                note("end " .. id .. " " .. index)
              end,
            }
            """)
        try run.picker.select("a", index: 3)
        #expect(run.host.notes == ["start a 4", "end a 4", "start b 4", "end b 4"])
        #expect(run.picker.components.map(\.selection) == [3, 3])
    }

    @Test func handlersThatKeepSelectingEachOtherStopAtTheCascadeLimit() async throws {
        let run = try await scripts.run("""
            picker "p" {
              components = { { id = "a", count = 2 }, { id = "b", count = 2 } },
              on_change = function(p, id)
                note(id)
                local other = id == "a" and "b" or "a"
                p:select(other, 3 - p:index(other))
              end,
            }
            """)
        try run.picker.scroll("a", by: 1)
        #expect(run.host.notes.count == Picker.cascadeLimit)
        #expect(run.problems.all == [
            "picker 'p': on_change stopped after 100 changes caused by one change; do handlers keep selecting each other?",
        ])
        // The next change starts a new count.
        try run.picker.select("a", index: 1 - run.picker.components[0].selection!)
        #expect(run.host.notes.count == 2 * Picker.cascadeLimit)
    }

    @Test func pickerReturnsThePickerObject() async throws {
        let run = try await scripts.run("""
            local p = picker "clock" { components = { { id = "n", count = 1 } } }
            note(tostring(p), p.name)
            p.status = "set through the returned object"
            """)
        #expect(run.host.notes == ["picker 'clock' clock"])
        #expect(run.picker.status == "set through the returned object")
    }

    @Test func pickerCalledPlainlyDeclaresAPickerToo() async throws {
        let run = try await scripts.run("""
            local p = picker("plain", { components = { { id = "n", items = { "a", "b" } } } })
            note(p.name, p:count("n"))
            """)
        #expect(run.runtime.pickers.map(\.name) == ["plain"])
        #expect(run.host.notes == ["plain 2"])
    }

    @Test func theRuntimeListsPickersInDeclarationOrderAndFindsThemByName() async throws {
        let run = try await scripts.run("""
            picker "b" { components = { { count = 1 } } }
            picker "a" { components = { { count = 2 } } }
            picker "c" { components = { { count = 3 } } }
            """)
        #expect(run.runtime.pickers.map(\.name) == ["b", "a", "c"])
        #expect(run.runtime.picker(named: "a")?.components.map(\.count) == [2])
        #expect(run.runtime.picker(named: "d") == nil)
    }

    // MARK: - The examples

    @Suite struct Examples {
        let scripts = PickerScripts()

        @Test func theResistorStartsAt4Point7KiloOhms() async throws {
            let picker = try await scripts.run(example: "resistor.lua").picker
            #expect(picker.status == "4.7 kΩ ±5%")
            #expect(picker.frame().columns.map { $0.rows.first(where: \.isSelected)?.title } == ["yellow", "violet", "red", "gold"])
        }

        @Test func theResistorStatusFollowsTheBands() async throws {
            let picker = try await scripts.run(example: "resistor.lua").picker
            let events = picker.record()
            try picker.select("band1", index: 1)        // brown: 1
            try picker.select("band2", index: 0)        // black: 0
            try picker.select("multiplier", index: 3)   // orange: x1000
            try picker.select("tolerance", index: 3)    // silver: ±10%
            #expect(events.statuses == ["1.7 kΩ ±5%", "1 kΩ ±5%", "10 kΩ ±5%", "10 kΩ ±10%"])
        }

        @Test func theResistorColourWheelsWrapAndTheToleranceWheelDoesNot() async throws {
            let picker = try await scripts.run(example: "resistor.lua").picker
            #expect(picker.components.map(\.wraps) == [true, true, true, false])
            try picker.scroll("tolerance", by: 5)
            #expect(picker.status == "4.7 kΩ ±10%")
        }

        @Test func theClockStartsAt10_30AM() async throws {
            let picker = try await scripts.run(example: "clock.lua").picker
            #expect(picker.status == "10:30 AM")
        }

        @Test func theClockHoursAndMinutesWrapRound() async throws {
            let picker = try await scripts.run(example: "clock.lua").picker
            try picker.scroll("minute", by: -31)
            #expect(picker.status == "10:59 AM")
            try picker.scroll("hour", by: 3)
            #expect(picker.status == "1:59 AM")
            let frame = picker.frame()
            #expect(frame.titles("hour") == ["10", "11", "12", "1", "2", "3", "4"])
            #expect(frame.titles("minute") == ["56", "57", "58", "59", "00", "01", "02"])
        }

        @Test func theClockAMPMWheelStopsAtItsEnds() async throws {
            let picker = try await scripts.run(example: "clock.lua").picker
            let events = picker.record()
            try picker.scroll("ampm", by: 5)
            #expect(events.all.first == .changed(component: "ampm", from: 0, to: 1, rows: 1))
            #expect(picker.status == "10:30 PM")
            #expect(picker.frame().titles("ampm") == ["", "", "AM", "PM", "", "", ""])
        }

        @Test func theDateStartsOnALeapDay() async throws {
            let picker = try await scripts.run(example: "date.lua").picker
            #expect(picker.status == "Thursday 29 February 2024")
            #expect(try picker.component("day").count == 29)
        }

        @Test func theDayOfALeapDayIsClampedToThe28thInTheNextYear() async throws {
            let picker = try await scripts.run(example: "date.lua").picker
            let events = picker.record()
            try picker.scroll("year", by: 1)
            #expect(events.all == [
                .changed(component: "year", from: 124, to: 125, rows: 1),
                .reloaded(component: "day"),
                .statusChanged("Friday 28 February 2025"),
                .changed(component: "day", from: 28, to: 27, rows: -1),
            ])
            #expect(try picker.component("day") == PickerComponent(
                id: "day", count: 28, selection: 27, wrapMode: .auto, wraps: true, failure: nil))
            #expect(picker.status == "Friday 28 February 2025")
        }

        @Test func aprilHas30Days() async throws {
            let picker = try await scripts.run(example: "date.lua").picker
            try picker.select("month", index: 3)
            #expect(try picker.component("day").count == 30)
            #expect(picker.status == "Monday 29 April 2024")
            try picker.select("day", index: 29)
            #expect(picker.status == "Tuesday 30 April 2024")
        }
    }
}

// MARK: - What title functions and frames cost

extension PickerTests {
    /// `title` runs only for rows a frame shows, and each title is kept until a reload.
    @Suite struct TitleCalls {
        let scripts = PickerScripts()

        /// A 1,000-row component whose title notes each row it is asked for; row 500 selected.
        func noting() async throws -> ScriptRun {
            try await scripts.run("""
                picker "p" {
                  components = { { id = "n", count = 1000, selected = 500,
                    title = function(p, i) note(i) return "#" .. i end } },
                }
                """)
        }

        @Test func aFrameCallsTitleForTheVisibleRowsOnly() async throws {
            let run = try await noting()
            #expect(run.host.notes.isEmpty)
            _ = run.picker.frame()
            #expect(run.host.notes == ["497", "498", "499", "500", "501", "502", "503"])
        }

        @Test func aSecondFrameCallsNoTitle() async throws {
            let run = try await noting()
            let first = run.picker.frame()
            run.host.notes.removeAll()
            #expect(run.picker.frame() == first)
            #expect(run.host.notes.isEmpty)
        }

        @Test func scrollingOneRowCallsTitleForTheOneNewRow() async throws {
            let run = try await noting()
            _ = run.picker.frame()
            run.host.notes.removeAll()
            try run.picker.scroll("n", by: 1)
            _ = run.picker.frame()
            #expect(run.host.notes == ["504"])
        }

        @Test func reloadingForgetsTheTitles() async throws {
            let run = try await noting()
            _ = run.picker.frame()
            run.host.notes.removeAll()
            try run.picker.reload("n")
            _ = run.picker.frame()
            #expect(run.host.notes == ["497", "498", "499", "500", "501", "502", "503"])
        }

        @Test func theScriptReloadingForgetsTheTitlesToo() async throws {
            let run = try await scripts.run("""
                picker "p" {
                  components = { { id = "n", count = 3, title = function(p, i) note(i) return "#" .. i end },
                                 { id = "reload", items = { "no", "yes" } } },
                  on_change = function(p, id) if id == "reload" then p:reload("n") end end,
                }
                """)
            _ = run.picker.frame()
            run.host.notes.removeAll()
            try run.picker.select("reload", index: 1)
            _ = run.picker.frame()
            #expect(run.host.notes == ["1", "2", "3"])
        }
    }

    /// Lua's call hook counts every function call in a state: drawing an `items` picker
    /// must make none. The hook's counter is global, so these tests run one at a time.
    @Suite(.serialized) struct LuaCalls {
        let scripts = PickerScripts()

        /// Counts calls into `state` while `body` runs.
        func calls(in state: LuaState, during body: () throws -> Void) rethrows -> Int {
            luaCalls.store(0, ordering: .relaxed)
            lua_sethook(state.handle, countCall, LUA_MASKCALL, 0)
            defer { lua_sethook(state.handle, nil, 0, 0) }
            try body()
            return luaCalls.load(ordering: .relaxed)
        }

        @Test func framesOfAnItemsPickerMakeNoLuaCall() async throws {
            let run = try await scripts.run("""
                local colors = { "black", "brown", "red", "orange", "yellow", "green", "blue", "violet", "grey", "white" }
                picker "p" {
                  components = { { id = "a", items = colors }, { id = "b", items = colors },
                                 { id = "c", items = colors }, { id = "d", items = { "gold", "silver" } } },
                }
                """)
            var last = run.picker.frame()
            let count = calls(in: run.runtime.state) {
                for _ in 0..<1000 { last = run.picker.frame() }
            }
            #expect(count == 0)
            #expect(last.titles("d") == ["", "", "", "gold", "silver", "", ""])
        }

        /// The control: the hook sees the calls of a title function, one per visible row.
        @Test func aFrameAfterAReloadCallsTheTitleFunctionOncePerRow() async throws {
            let run = try await scripts.run("""
                picker "p" { components = { { id = "n", count = 10, title = function(p, i) return "#" .. i end } } }
                """)
            _ = run.picker.frame()
            try run.picker.reload()
            let count = calls(in: run.runtime.state) { _ = run.picker.frame() }
            #expect(count == run.picker.visibleRows)
        }
    }

    /// A wheel turned 10^12 rows: the selection stays exact and nothing grows.
    @Suite struct FarScrolling {
        let scripts = PickerScripts()
        static let count = 1_000_000_007
        static let distance = 1_000_000_000_000

        func run() async throws -> ScriptRun {
            try await scripts.run("""
                picker "p" { components = { { id = "n", count = \(Self.count), title = function(p, i) return "#" .. i end } } }
                """)
        }

        @Test func aTrillionRowsInOneStepForwardAndBackKeepTheSelectionExact() async throws {
            let run = try await run()
            try run.picker.scroll("n", by: Self.distance)
            #expect(run.picker.components[0].selection == Self.distance % Self.count)
            #expect(run.picker.frame().titles("n")[3] == "#\(Self.distance % Self.count + 1)")
            try run.picker.scroll("n", by: -Self.distance)
            #expect(run.picker.components[0].selection == 0)
            #expect(run.picker.frame().titles("n")[3] == "#1")
        }

        @Test func aTrillionRowsInManyStepsKeepTheSelectionExactAndMemoryFlat() async throws {
            let run = try await run()
            let steps = 50_000
            let step = Self.distance / steps
            let capacity = run.picker.slots[0].cache.capacity
            _ = run.picker.frame()
            run.runtime.state.collectGarbage()
            let memory = run.runtime.state.memoryUsed
            var expected = 0
            var largestCache = 0
            for rows in [step, -step] {
                for _ in 0..<steps {
                    try run.picker.scroll("n", by: rows)
                    expected = ((expected + rows) % Self.count + Self.count) % Self.count
                    let frame = run.picker.frame()
                    guard run.picker.components[0].selection == expected, frame.titles("n")[3] == "#\(expected + 1)" else {
                        Issue.record("selection \(String(describing: run.picker.components[0].selection)), expected \(expected)")
                        return
                    }
                    largestCache = max(largestCache, run.picker.slots[0].cache.count)
                }
                if rows > 0 { #expect(expected == Self.distance % Self.count) }
            }
            #expect(expected == 0)
            #expect(largestCache <= capacity)
            #expect(run.picker.slots[0].cache.capacity == capacity)
            run.runtime.state.collectGarbage()
            #expect(run.runtime.state.memoryUsed <= memory + (256 << 10))
        }
    }
}

// MARK: - Helpers

/// Counts the call hook's calls (a C function cannot capture a context).
let luaCalls = Atomic<Int>(0)

/// A Lua call hook that counts the calls it is told of.
let countCall: lua_Hook = { _, _ in luaCalls.add(1, ordering: .relaxed) }

/// Picker scripts written to a scratch folder, each run in a fresh runtime (see `ScriptRun`
/// for the host functions the scripts get).
struct PickerScripts {
    let scratch = Scratch()

    /// Writes `source` to a fresh folder as main.lua; returns its path. The paths are longer
    /// than Lua shows whole, so messages name them as `ScriptRun.chunk` does.
    func file(_ source: String) throws -> String {
        let folder = scratch.url.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("main.lua")
        try source.write(to: path, atomically: true, encoding: .utf8)
        return path.path
    }

    /// The runs of this test, kept until it ends: a picker calls its runtime's Lua state,
    /// which the runtime closes when it goes.
    let runs = Recorder<ScriptRun>()

    /// examples/ in the repository, from this file's path.
    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples")

    /// Runs `source`, collecting the problems the runtime reports from the start.
    func run(_ source: String, options: Runtime.Options = .init(),
             before: (ScriptHost) -> Void = { _ in }) async throws -> ScriptRun {
        let run = try ScriptRun(path: try file(source), options: options)
        runs.all.append(run)
        before(run.host)
        try await run.runtime.run(file: run.path)
        return run
    }

    /// Runs examples/`name`.
    func run(example name: String) async throws -> ScriptRun {
        let run = try ScriptRun(path: Self.examples.appendingPathComponent(name).path, options: .init())
        runs.all.append(run)
        try await run.runtime.run(file: run.path)
        return run
    }

    /// Runs `source`, which must fail with a `LuaError`; returns its description and the run.
    func failure(_ source: String) async throws -> (message: String, run: ScriptRun) {
        let run = try ScriptRun(path: try file(source), options: .init())
        runs.all.append(run)
        do {
            try await run.runtime.run(file: run.path)
        } catch let error as LuaError {
            return ("\(error)", run)
        }
        Issue.record("the script ran without an error")
        return ("", run)
    }
}

/// A runtime that has run (or will run) a script, and what the script told the test
/// through host functions: `note(...)` records its arguments as text joined by spaces,
/// `value()` returns `host.value` and `set_value(n)` sets it.
struct ScriptRun {
    let runtime: Runtime
    let path: String
    let host = ScriptHost()
    let problems = Recorder<String>()

    init(path: String, options: Runtime.Options) throws {
        self.path = path
        runtime = try Runtime(options: options)
        let (host, problems) = (self.host, self.problems)
        runtime.onProblem = { problems.all.append($0.message) }
        let state = runtime.state
        let library = try state.library()
        try library.set("note", state.function { (call: LuaCall) -> LuaReturn in
            var parts: [String] = []
            for position in stride(from: 1, through: call.count, by: 1) {
                switch try call.argument(position, as: LuaValue.self) {
                case .string(let text): parts.append(text.description)
                case .integer(let number): parts.append(String(number))
                case .number(let number): parts.append(String(number))
                case .boolean(let flag): parts.append(String(flag))
                case .nil: parts.append("nil")
                case let value: parts.append(value.typeName)
                }
            }
            host.notes.append(parts.joined(separator: " "))
            return call.return()
        })
        try library.set("value", state.function { () -> Int in host.value })
        try library.set("set_value", state.function { (value: Int) in host.value = value })
    }

    /// Whether the runtime still runs a script that declares a picker (after a failure).
    func runsAnotherPicker() async throws -> Bool {
        let path = URL(fileURLWithPath: self.path).deletingLastPathComponent().appendingPathComponent("again.lua").path
        try #"picker "again" { components = { { id = "n", items = { "a" } } } }"#.write(toFile: path, atomically: true, encoding: .utf8)
        try await runtime.run(file: path)
        return runtime.picker(named: "again")?.frame().titles("n")[3] == "a"
    }

    /// The first picker the script declared.
    var picker: Picker { runtime.pickers[0] }

    /// The script's path as Lua shows it in messages (`luaO_chunkid`): whole when it fits
    /// in LUA_IDSIZE - 1 bytes, else "..." and as much of its end as fits.
    var chunk: String {
        let room = Int(LUA_IDSIZE) - 1
        return path.utf8.count <= room ? path : "..." + String(decoding: path.utf8.suffix(room - 3), as: UTF8.self)
    }
}

/// What a script told the test through the host functions.
final class ScriptHost {
    var notes: [String] = []
    var value = 0
}

/// Collects values from callbacks.
final class Recorder<Value> {
    var all: [Value] = []
}

extension Picker {
    /// Records the picker's events from now on.
    func record() -> Recorder<PickerEvent> {
        let recorder = Recorder<PickerEvent>()
        observe { recorder.all.append($0) }
        return recorder
    }
}

extension Recorder<PickerEvent> {
    /// The statuses the events announced, in order.
    var statuses: [String] {
        all.compactMap { if case .statusChanged(let status) = $0 { status } else { nil } }
    }
}

extension PickerFrame {
    /// The titles of component `id`'s rows, top to bottom.
    func titles(_ id: String) -> [String] {
        columns.first { $0.id == id }?.rows.map(\.title) ?? []
    }
}
