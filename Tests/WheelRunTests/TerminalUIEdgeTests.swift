import Foundation
import Testing

/// The interactive UI at its edges, found by review: a script that prints without pause,
/// the terminal going away or a signal ending the UI, rows and titles wider than the
/// screen (emoji included), the mouse over wheels scrolled sideways, and a terminal that
/// cannot move its cursor.
@Suite struct TerminalUIEdgeTests {
    @Test func aPrintFloodNeitherFreezesTheKeysNorHidesTheUI() async throws {
        // Every print wakes the loop; a burst of them once pushed the wake-up for a key
        // out of a bounded queue, and after that no key (not even q) was read.
        let terminal = try TmuxTerminal(["flood.lua"], in: nil, files: ["flood.lua": """
            feed "f" {
              fetch = function(key, size)
                for i = 1, 20000 do print("line " .. i) end
                return { "one", "two" }, nil
              end,
              row = function(item) return item end,
            }
            """])
        defer { terminal.stop() }
        try await terminal.waitFor(row: 2, "   2  two")
        try terminal.keys("j")
        try await terminal.quitCleanly()
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGHUP, Int32(129)), (SIGTERM, Int32(143))] as [(Int32, Int32)])
    func aSignalEndsTheUIWithTheTerminalBackAndTheSignalsStatus(signal: Int32, status: Int32) async throws {
        let terminal = try TmuxTerminal(["examples/resistor.lua"])
        defer { terminal.stop() }
        try await terminal.waitFor(row: 1, " 4.7 kΩ ±5%")
        try terminal.send(signal)
        let exit = try await terminal.exit()
        #expect(exit.status == status)
        #expect(exit.sttyAfter == exit.sttyBefore)
        #expect(try terminal.pane("#{alternate_on} #{cursor_flag} #{mouse_any_flag}") == "0 1 0")
    }

    @Test func feedRowsWiderThanTheScreenEndInAnEllipsis() async throws {
        let terminal = try TmuxTerminal(["long.lua"], width: 40, height: 10, in: nil, files: ["long.lua": """
            feed "f" {
              fetch = function() return { string.rep("wheel ", 20) }, nil end,
              row = function(item) return item end,
            }
            """])
        defer { terminal.stop() }
        try await terminal.waitFor(row: 1, "   1  wheel wheel wheel wheel wheel whe…")
        try await terminal.quitCleanly()
    }

    @Test func theMouseWheelSpinsTheWheelUnderItWhenTheWheelsAreScrolledSideways() async throws {
        let terminal = try TmuxTerminal(["examples/resistor.lua"], width: 34, height: 24)
        defer { terminal.stop() }
        try await terminal.waitFor(row: 1, " 4.7 kΩ ±5%")
        try terminal.keys("Tab", "Tab", "Tab")               // the tolerance wheel: the view scrolls
        let lines = try await terminal.waitFor(row: 2, "…  multiplier    tolerance")
        let column = lines[2].distance(from: lines[2].startIndex, to: lines[2].range(of: "tolerance")!.lowerBound)
        try terminal.wheel(down: true, row: 6, column: column)
        try await terminal.waitFor(row: 1, " 4.7 kΩ ±10%")        // tolerance turned, band2 did not
        try await terminal.quitCleanly()
    }

    @Test func emojiTakeTwoCellsAndNothingSpillsOntoTheNextRow() async throws {
        let terminal = try TmuxTerminal(["emoji.lua"], width: 40, height: 10, in: nil, files: ["emoji.lua": """
            picker "e" { rows = 3, components = { { id = "c", items = { "🚀✅⌚ go", "plain" } } } }
            """])
        defer { terminal.stop() }
        let lines = try await terminal.waitFor(row: 4, " ▸ 🚀✅⌚ go")
        #expect(lines[5] == "   plain", "\(TmuxTerminal.framed(lines))")
        #expect(lines[6] == "", "\(TmuxTerminal.framed(lines))")
        try await terminal.quitCleanly()
    }

    @Test func aTerminalThatCannotMoveItsCursorGetsTextFrames() async throws {
        let terminal = try TmuxTerminal(["examples/clock.lua"], environment: ["TERM": "dumb"])
        defer { terminal.stop() }
        let exit = try await terminal.exit()
        #expect(exit.status == 0, "\(exit.errors)")
        #expect(exit.errors == "wheel-run: cannot use the terminal (TERM=dumb); printing text frames instead\n")
        #expect(try terminal.screen().contains("▸ 10    ▸ 30      ▸ AM"))
    }
}
