import Foundation
import Testing

/// `wheel-run` on picker scripts, as a user runs it: the built binary, its printed frames
/// compared with the checked-in frames in Tests/ExpectedFrames.
@Suite struct PickerFrameTests {
    /// The repository root: examples/ and Tests/ExpectedFrames are below it.
    static let root = WheelRunTests.examples.deletingLastPathComponent()

    static func expected(_ name: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent("Tests/ExpectedFrames/\(name)"), encoding: .utf8)
    }

    let harness = WheelRunTests()

    @Test func theResistorFramesMatchTheCheckedInFrames() async throws {
        let outcome = try await WheelRunTests.run([
            "examples/resistor.lua", "--events",
            "spin band1 -3; spin band2 +3; select multiplier 4; select tolerance 4; spin tolerance +2; spin multiplier -5",
        ], in: Self.root)
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.errors.isEmpty)
        #expect(outcome.output == (try Self.expected("resistor.txt")))
    }

    @Test func theDateFramesFollowTheMonthAndLeapYears() async throws {
        let outcome = try await WheelRunTests.run([
            "examples/date.lua", "--events", "spin year +1; select month 4; select day 30; select month 2; spin year -1000",
        ], in: Self.root)
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.output == (try Self.expected("date.txt")))
        // The 29th of February 2024, then 2025: the day is clamped to the 28th.
        #expect(outcome.output.contains("picker \"date\": Thursday 29 February 2024\n"))
        #expect(outcome.output.contains("> spin year +1\npicker \"date\": Friday 28 February 2025\n"))
    }

    @Test func eventsComeFromAFileWithCommentsAndBlankLines() async throws {
        let outcome = try await WheelRunTests.run([
            "examples/clock.lua", "--headless", "--events-file", "Tests/ExpectedFrames/clock.events",
        ], in: Self.root)
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.output == (try Self.expected("clock.txt")))
        let echoed = outcome.output.split(separator: "\n").filter { $0.hasPrefix("> ") }
        #expect(echoed == ["> spin minute -31", "> spin hour +3", "> spin ampm +1", "> spin minute 1000000000000"])
    }

    @Test func aFailingTitleShowsAMarkerAndIsReportedOnceWithStatus1() async throws {
        let path = try harness.script("""
            picker "numbers" {
              components = { { id = "n", count = 10, selected = 5,
                title = function(p, i) if i % 2 == 0 then error("even rows fail") end return tostring(i) end } },
              on_change = function(p, id, index) if index == 7 then error("seven") end end,
            }
            """)
        let outcome = try await harness.run([path, "--events", "spin n +1; spin n +1; spin n +1"])
        #expect(outcome.status == 1)
        let errors = outcome.errors.split(separator: "\n").map(String.init)
        #expect(errors == [
            "\(path):3: even rows fail (in title of component 'n', row 2)",
            "\(path):4: seven",
        ], "\(outcome.errors)")
        // Odd rows keep their titles; even rows show the marker, in every frame.
        #expect(outcome.output.hasPrefix("""
            picker "numbers"
              n
              <error>
              3
              <error>
            ▸ 5
              <error>
              7
              <error>

            """), "\(outcome.output)")
        #expect(outcome.output.hasSuffix("> spin n +1\npicker \"numbers\"\n  n\n  5\n  <error>\n  7\n▸ <error>\n  9\n  <error>\n  1\n\n"),
                "\(outcome.output)")
    }

    @Test func aDeclarationErrorIsFileLineMessageWithStatus1() async throws {
        let path = try harness.script("""
            local colors = { "black", "brown" }
            picker "resistor" {
              components = { { id = "band1", items = { "red", "green", {} } } },
            }
            """)
        let outcome = try await harness.run([path])
        #expect(outcome.status == 1)
        #expect(outcome.errors.hasPrefix("\(path):2: component 'band1' item 3 is a table, expected a string\n"),
                "\(outcome.errors)")
        #expect(outcome.output.isEmpty)
    }

    @Test(arguments: [
        ("spin band9 +1", "--events: event 1: no component 'band9' (components: band1, band2, multiplier, tolerance)"),
        ("spin band1 +1; hop 3", "--events: event 2: unknown event 'hop 3'; events are spin, select, reload, scroll, refresh, retry, swipe, jump, tap, focus, type, clear, next, prev, done, submit and keyboard"),
        ("select tolerance 5", "--events: event 1: index 5 is out of range for component 'tolerance' (1 to 4)"),
        ("spin band1 fast", "--events: event 1: 'fast' is not a whole number (rows to turn, such as +3 or -2) in 'spin band1 fast'"),
    ])
    func badEventsAreUsageErrors(events: String, message: String) async throws {
        let outcome = try await WheelRunTests.run(["examples/resistor.lua", "--events", events], in: Self.root)
        #expect(outcome.status == 2)
        #expect(outcome.errors.contains(message), "\(outcome.errors)")
    }

    @Test func eventsNeedADeclaredObject() async throws {
        let outcome = try await harness.run([try harness.script("print('no picker')"), "--events", "spin a +1"])
        #expect(outcome.status == 2)
        #expect(outcome.errors.contains("the script declares nothing for the events to act on"), "\(outcome.errors)")
    }

    @Test func aPickerEventNeedsAPicker() async throws {
        let path = try harness.script("feed \"f\" { fetch = function() return { \"a\" }, nil end }")
        let outcome = try await harness.run([path, "--events", "spin a +1"])
        #expect(outcome.status == 2)
        #expect(outcome.errors.contains("--events: event 1: 'spin a +1' acts on a picker, and the script declares none"), "\(outcome.errors)")
    }

    @Test func aComponentNamedByTwoPickersIsQualified() async throws {
        let path = try harness.script("""
            picker "a" { components = { { id = "x", items = { "a1", "a2" } } } }
            picker "b" { components = { { id = "x", items = { "b1", "b2" } } } }
            """)
        let ambiguous = try await harness.run([path, "--events", "select x 2"])
        #expect(ambiguous.status == 2)
        #expect(ambiguous.errors.contains("pickers 'a' and 'b' both have a component 'x'; write a.x"), "\(ambiguous.errors)")
        let qualified = try await harness.run([path, "--events", "select b.x 2"])
        #expect(qualified.status == 0, "\(qualified.errors)")
        #expect(qualified.output.hasSuffix("> select b.x 2\npicker \"b\"\n  x\n  b1\n▸ b2\n\n"), "\(qualified.output)")
    }
}
