import Foundation
import Testing

/// `wheel-run`'s interactive UI as a user sees it: the built binary in a tmux pane of a
/// fixed size, driven by keys (and mouse reports), its screen read back and compared row
/// by row. Each test has a tmux server and a folder of its own (see `TmuxTerminal`), and
/// waits only by polling the screen, within bounds.
@Suite(.timeLimit(.minutes(1))) struct TerminalUITests {
    /// A screen of `height` rows: `top` from row 0, the status line last, blank between.
    static func screen(_ top: [String], status: String, height: Int = 24) -> [String] {
        top + Array(repeating: "", count: max(0, height - 1 - top.count)) + [status]
    }

    static let pickerHints = " ↑↓/jk spin · tab/←→ component · wheel spins · q quit"
    static let feedHints = " ↑↓ PgUp/PgDn Home/End scroll · enter selects · r retry · R refresh · q quit"
    static let pagerHints = " ←→/hl swipe · Home/End · enter taps · q quit"
    static let formHints = " tab/enter edit · shift-tab back · s submit · q quit"
    static let editingHints = " type · tab/enter next · shift-tab previous · esc done · ctrl-s submit"

    static let resistor = [
        " picker \"resistor\"",
        " 4.7 kΩ ±5%",
        "   band1     band2     multiplier    tolerance",
        "   brown     yellow    silver",
        "   red       green     black         brown",
        "   orange    blue      brown         red",
        " ▸ yellow  ▸ violet  ▸ red         ▸ gold",
        "   green     grey      orange        silver",
        "   blue      white     yellow",
        "   violet    black     green",
    ]

    // MARK: - Pickers

    @Test func aPickerSpinsWithKeysAndTheStatusLineFollows() async throws {
        let terminal = try TmuxTerminal(["examples/resistor.lua"])
        defer { terminal.stop() }
        try await terminal.waitFor(screen: Self.screen(Self.resistor, status: Self.pickerHints))

        try terminal.keys("j")                                      // band1 yellow → green
        try await terminal.waitFor(rows: [1: " 5.7 kΩ ±5%", 6: " ▸ green   ▸ violet  ▸ red         ▸ gold"])
        try terminal.keys("Down")                                   // → blue
        try await terminal.waitFor(row: 1, " 6.7 kΩ ±5%")
        try terminal.keys("k", "Up")                                // back to yellow
        try await terminal.waitFor(row: 1, " 4.7 kΩ ±5%")
        try terminal.keys("Tab", "j")                               // band2 violet → grey
        try await terminal.waitFor(row: 1, " 4.8 kΩ ±5%")
        try terminal.keys("Right", "l", "Down")                     // tolerance gold → silver
        try await terminal.waitFor(row: 1, " 4.8 kΩ ±10%")
        try terminal.keys("BTab", "j")                              // multiplier red → orange
        try await terminal.waitFor(row: 1, " 48 kΩ ±10%")
        try terminal.keys("Left", "k")                              // band2 grey → violet
        try await terminal.waitFor(screen: Self.screen([
            " picker \"resistor\"",
            " 47 kΩ ±10%",
            "   band1     band2     multiplier    tolerance",
            "   brown     yellow    black         brown",
            "   red       green     brown         red",
            "   orange    blue      red           gold",
            " ▸ yellow  ▸ violet  ▸ orange      ▸ silver",
            "   green     grey      yellow",
            "   blue      white     green",
            "   violet    black     blue",
        ], status: Self.pickerHints))
        // The focused component's heading is underlined; the others are only bold.
        let headings = try terminal.screen(escapes: true)[2]
        #expect(TmuxTerminal.sgr(of: "band2", in: headings)?.contains(4) == true, "\(headings)")
        #expect(TmuxTerminal.sgr(of: "band1", in: headings) == [1], "\(headings)")
        #expect(TmuxTerminal.sgr(of: "multiplier", in: headings) == [1], "\(headings)")
        let exit = try await terminal.quitCleanly()
        #expect(exit.errors == "")
    }

    @Test func theMouseWheelSpinsTheColumnUnderThePointer() async throws {
        let terminal = try TmuxTerminal(["examples/resistor.lua"])
        defer { terminal.stop() }
        try await terminal.waitFor(screen: Self.screen(Self.resistor, status: Self.pickerHints))
        try terminal.wheel(down: true, row: 6, column: 14)          // band2 violet → grey
        try await terminal.waitFor(row: 1, " 4.8 kΩ ±5%")
        try terminal.wheel(down: false, row: 4, column: 25)         // multiplier red → brown
        try terminal.wheel(down: false, row: 4, column: 25)         // → black
        try await terminal.waitFor(rows: [1: " 48 Ω ±5%", 6: " ▸ yellow  ▸ grey    ▸ black       ▸ gold"])
        let headings = try terminal.screen(escapes: true)[2]
        #expect(TmuxTerminal.sgr(of: "multiplier", in: headings)?.contains(4) == true, "\(headings)")
        try await terminal.quitCleanly()
    }

    // MARK: - Feeds

    /// The fixtures' articles as the feed shows them: "date  title", in order.
    static func articles() throws -> [String] {
        struct Page: Decodable {
            struct Item: Decodable { var date: String; var title: String }
            var items: [Item]
        }
        return try (1...10).flatMap { page in
            let url = TmuxTerminal.root.appendingPathComponent("examples/fixtures/articles/\(page).json")
            return try JSONDecoder().decode(Page.self, from: Data(contentsOf: url)).items.map { "\($0.date)  \($0.title)" }
        }
    }

    /// Feed rows `range` (1-based) as the panel draws them, numbers right-aligned to the
    /// widest shown; `selected` marked.
    static func feedRows(_ rows: [String], _ range: ClosedRange<Int>, selected: Int? = nil) -> [String] {
        let width = String(range.upperBound).count
        return range.map { number in
            let label = String(repeating: " ", count: width - String(number).count) + String(number)
            return (number == selected ? " ▸ " : "   ") + label + "  " + rows[number - 1]
        }
    }

    @Test func aFeedLoadsMoreAtItsEndUntilTheEndOfTheFeed() async throws {
        let articles = try Self.articles()
        let terminal = try TmuxTerminal(["--serve", "examples/fixtures", "examples/articles.lua"])
        defer { terminal.stop() }
        // 21 rows show; the second page came as a prefetch.
        try await terminal.waitFor(screen: [" feed \"articles\""] + Self.feedRows(articles, 1...21)
                                   + [" ── more below ──", Self.feedHints])
        // Each End goes to the last row there is, which fetches the next page.
        for last in stride(from: 40, through: 200, by: 20) {
            try terminal.keys("End")
            try await terminal.waitFor(row: 21, Self.feedRows(articles, last...last)[0])
            try await terminal.waitFor("the page after row \(last) to arrive") { lines in
                lines[22] == " ── more below ──" || lines[22] == " ── end of feed ──"
            }
        }
        try await terminal.waitFor(screen: [" feed \"articles\""] + Self.feedRows(articles, 180...200)
                                   + [" ── end of feed ──", Self.feedHints])
        try terminal.keys("Enter")
        try await terminal.waitFor(screen: [" feed \"articles\""] + Self.feedRows(articles, 180...200, selected: 200)
                                   + [" ── end of feed ──", " opening https://news.example.org/archive/200 (row 200)"])
        try terminal.keys("PPage", "k")                             // 21 rows up, then one
        try await terminal.waitFor(row: 1, Self.feedRows(articles, 178...198)[0])
        try terminal.keys("Home")
        try await terminal.waitFor(row: 1, Self.feedRows(articles, 1...21)[0])
        try await terminal.quitCleanly()
        // What the script printed while the UI ran is printed after it.
        #expect(try terminal.screen().prefix(3) == [
            "opening https://news.example.org/archive/200 (row 200)", "wheel-run exited with 0", "",
        ])
    }

    @Test func aFailedPageShowsItsErrorInTheFooterAndRRetries() async throws {
        let terminal = try TmuxTerminal(["flaky.lua"], height: 8, in: nil, files: ["flaky.lua": """
            local calls = 0
            feed "flaky" {
              page_size = 3, retry = { attempts = 1 },
              fetch = function(page, size)
                calls = calls + 1
                if calls == 1 then error("no network") end
                return { "alpha", "beta", "gamma" }, nil
              end,
            }
            """])
        defer { terminal.stop() }
        try await terminal.waitFor(screen: Self.screen([" feed \"flaky\"", "", "", "", "", "", " ── error: flaky.lua:6: no network — r retries ──"],
                                                       status: Self.feedHints, height: 8))
        try terminal.keys("r")
        try await terminal.waitFor(screen: Self.screen([" feed \"flaky\"", "   1  alpha", "   2  beta", "   3  gamma", "", "", " ── end of feed ──"],
                                                       status: Self.feedHints, height: 8))
        try terminal.keys("q")
        let exit = try await terminal.exit()
        #expect(exit.status == 0, "\(exit.errors)")       // the retry cured it
    }

    @Test func aPageInFlightTurnsASpinnerAndQuittingDoesNotWaitForIt() async throws {
        let silent = try SilentPort()
        let terminal = try TmuxTerminal(["slow.lua"], height: 8, in: nil, files: ["slow.lua": """
            feed "slow" {
              fetch = function(page, size)
                local res = http.get("http://127.0.0.1:\(silent.port)/items")
                return json.decode(res.body), nil
              end,
            }
            """])
        defer { terminal.stop() }
        let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
        let footers = Set(frames.map { " ── \($0) loading… ──" })
        let first = try await terminal.waitFor("a spinner in the footer") { lines in
            footers.contains(lines[6]) && lines[7] == Self.feedHints
        }
        #expect(first == Self.screen([" feed \"slow\"", "", "", "", "", "", first[6]], status: Self.feedHints, height: 8))
        try await terminal.waitFor("the spinner to turn") { lines in footers.contains(lines[6]) && lines[6] != first[6] }
        try terminal.keys("q")
        let exit = try await terminal.exit(timeout: .seconds(5))
        #expect(exit.status == 0, "\(exit.errors)")
    }

    // MARK: - Pagers

    @Test func aPagerSwipesAndATapShowsTheURL() async throws {
        let terminal = try TmuxTerminal(["--serve", "examples/fixtures", "examples/tweets.lua"])
        defer { terminal.stop() }
        try await terminal.waitFor(screen: Self.screen([
            " pager \"timeline\"",
            " 1 / 20",
            " ┌──────────────────────────────────────────────────────────────────────┐",
            " │ emil.k                                                               │",
            " │                                                                      │",
            " │ Reading about the oldest wooden wheel, found in a marsh near         │",
            " │ Ljubljana. #1                                                        │",
            " │                                                                      │",
            " │ image: 48×48 PNG, 115 bytes                                          │",
            " └──────────────────────────────────────────────────────────────────────┘",
        ], status: Self.pagerHints))
        try terminal.keys("Right")
        try await terminal.waitFor(screen: Self.screen([
            " pager \"timeline\"",
            " 2 / 20",
            " ┌──────────────────────────────────────────────────────────────────────┐",
            " │ hana                                                                 │",
            " │                                                                      │",
            " │ A potter's wheel is a wheel that never goes anywhere. #2             │",
            " │                                                                      │",
            " │ image: 48×48 PNG, 115 bytes                                          │",
            " └──────────────────────────────────────────────────────────────────────┘",
        ], status: Self.pagerHints))
        try terminal.keys("Enter")
        try await terminal.waitFor(row: 23, " open https://twitter.com/hana/status/1002")
        try terminal.keys("h")
        try await terminal.waitFor(row: 1, " 1 / 20")
        try terminal.keys("Enter")
        try await terminal.waitFor(row: 23, " open https://twitter.com/emil.k/status/1001")
        try await terminal.quitCleanly()
    }

    // MARK: - Forms

    @Test func aFormTakesTypingMovesBetweenFieldsAndShowsAPickerField() async throws {
        let terminal = try TmuxTerminal(["examples/signup.lua"])
        defer { terminal.stop() }
        try await terminal.waitFor(row: 1, "11 fields · rows 1–18 of 25")
        try terminal.keys("Tab")
        try await terminal.waitFor(rows: [
            1: "editing first (1 of 11) · rows 1–10 of 25 · keyboard 8 rows",
            4: "│ ▸ First name *                                                               │",
            14: "├────────────────────────────────── keyboard ──────────────────────────────────┤",
            23: Self.editingHints,
        ])
        // q and digits are typed into the field: they neither quit nor switch.
        try terminal.type("Ana q1")
        try await terminal.waitFor(row: 5, "│   [Ana q1                         ]                                          │")
        try terminal.keys("BSpace", "BSpace", "BSpace")
        try await terminal.waitFor(row: 5, "│   [Ana                            ]                                          │")
        try terminal.keys("Tab")
        try await terminal.waitFor(screen: [
            " form \"signup\"",
            "editing last (2 of 11) · rows 1–10 of 25 · keyboard 8 rows",
            "  Fields marked * are required",
            "┌──────────────────────────────────────────────────────────────────────────────┐",
            "│   First name *                                                               │",
            "│   [Ana                            ]                                          │",
            "│ ▸ Last name *                                                                │",
            "│   [                               ]                                          │",
            "│   E-mail *                                                                   │",
            "│   [                               ]                                          │",
            "│   E-mail again *                                                             │",
            "│   [                               ]                                          │",
            "│   Phone                                                                      │",
            "│   [‹+1 555 0100›                  ]                                          │",
            "├────────────────────────────────── keyboard ──────────────────────────────────┤",
            "│   q  w  e  r  t  y  u  i  o  p                                               │",
            "│    a  s  d  f  g  h  j  k  l                                                 │",
            "│      z  x  c  v  b  n  m  ⌫                                                  │",
            "│   123   space   next                                                         │",
            "│                                                                              │",
            "│                                                                              │",
            "│                                                                              │",
            "└──────────────────────────────────────────────────────────────────────────────┘",
            Self.editingHints,
        ])
        // Seven fields on: the State field, whose picker takes the keyboard's place.
        try terminal.keys("Tab", "Tab", "Tab", "Tab", "Tab", "Tab", "Tab")
        let state = [
            "│ ▸ State *                                                                    │",
            "│   [Alabama ▾                      ]                                          │",
            "│   ZIP code *                                                                 │",
            "│   [                               ]                                          │",
            "├────────────────────────────── picker \"states\" ───────────────────────────────┤",
            "│    Wisconsin                                                                 │",
            "│    Wyoming                                                                   │",
            "│  ▸ Alabama                                                                   │",
            "│    Alaska                                                                    │",
            "│    Arizona                                                                   │",
            "└──────────────────────────────────────────────────────────────────────────────┘",
        ]
        var rows = [1: "editing state (9 of 11) · rows 9–20 of 25 · picker 6 rows"]
        for (offset, line) in state.enumerated() { rows[12 + offset] = line }
        try await terminal.waitFor(rows: rows)
        try terminal.keys("Down")
        try await terminal.waitFor(rows: [
            13: "│   [Alaska ▾                       ]                                          │",
            19: "│  ▸ Alaska                                                                    │",
        ])
        try terminal.keys("C-s")
        // The outcome, and the first field in error edited again.
        try await terminal.waitFor("the submit's outcome") { lines in
            lines[23] == " not submitted: last (required), email (required), confirm (required), street (…"
                && lines[1].hasPrefix("editing last (2 of 11)")
        }
        try terminal.keys("Escape")
        try await terminal.waitFor(row: 23, Self.formHints)
        try await terminal.quitCleanly()
    }

    // MARK: - Resizing

    @Test func aResizeRelaysOutAndATinyTerminalGetsAMessage() async throws {
        let terminal = try TmuxTerminal(["examples/resistor.lua"])
        defer { terminal.stop() }
        let full = Self.screen(Self.resistor, status: Self.pickerHints)
        try await terminal.waitFor(screen: full)
        try terminal.resize(width: 20, height: 5)
        try await terminal.waitFor(screen: ["Terminal too small", "(20×5);", "needs 30×8.", "q quits", ""])
        try terminal.resize(width: 80, height: 24)
        try await terminal.waitFor(screen: full)
        // Smaller but usable: fewer rows around the selection, a wheel that does not fit
        // left out, with `…` at the edge.
        try terminal.resize(width: 44, height: 9)
        try await terminal.waitFor(screen: [
            " picker \"resistor\"",
            " 4.7 kΩ ±5%",
            "   band1     band2     multiplier          …",
            "   red       green     black",
            "   orange    blue      brown",
            " ▸ yellow  ▸ violet  ▸ red",
            "   green     grey      orange",
            "   blue      white     yellow",
            " ↑↓/jk spin · tab/←→ component · wheel spin…",
        ])
        // Narrower than the last column's start (cell 35): it is left out, nothing traps.
        try terminal.resize(width: 32, height: 10)
        try await terminal.waitFor(screen: [
            " picker \"resistor\"",
            " 4.7 kΩ ±5%",
            "   band1     band2             …",
            "   brown     yellow",
            "   red       green",
            "   orange    blue",
            " ▸ yellow  ▸ violet",
            "   green     grey",
            "   blue      white",
            " ↑↓/jk spin · tab/←→ component …",
        ])
        // Keys still work after the resizes.
        try terminal.keys("j")
        try await terminal.waitFor(row: 1, " 5.7 kΩ ±5%")
        try terminal.resize(width: 80, height: 24)
        try await terminal.waitFor(row: 6, " ▸ green   ▸ violet  ▸ red         ▸ gold")
        let exit = try await terminal.quitCleanly()
        #expect(exit.sttyAfter == exit.sttyBefore)
    }

    @Test func aFormIsLaidOutAgainForANewSize() async throws {
        let terminal = try TmuxTerminal(["examples/signup.lua"])
        defer { terminal.stop() }
        try await terminal.waitFor(row: 1, "11 fields · rows 1–18 of 25")
        try terminal.keys("Tab")
        try await terminal.waitFor(row: 1, "editing first (1 of 11) · rows 1–10 of 25 · keyboard 8 rows")
        try terminal.resize(width: 50, height: 16)
        try await terminal.waitFor(screen: [
            " form \"signup\"",
            "editing first (1 of 11) · rows 1–2 of 25 · keyboar",
            "  Fields marked * are required",
            "┌────────────────────────────────────────────────┐",
            "│ ▸ First name *                                 │",
            "│   [                ]                           │",
            "├─────────────────── keyboard ───────────────────┤",
            "│   q  w  e  r  t  y  u  i  o  p                 │",
            "│    a  s  d  f  g  h  j  k  l                   │",
            "│      z  x  c  v  b  n  m  ⌫                    │",
            "│   123   space   next                           │",
            "│                                                │",
            "│                                                │",
            "│                                                │",
            "└────────────────────────────────────────────────┘",
            " type · tab/enter next · shift-tab previous · esc…",
        ])
        try terminal.type("Ana")
        try await terminal.waitFor(row: 5, "│   [Ana             ]                           │")
        try terminal.resize(width: 80, height: 24)
        try await terminal.waitFor(rows: [
            1: "editing first (1 of 11) · rows 1–10 of 25 · keyboard 8 rows",
            5: "│   [Ana                            ]                                          │",
        ])
        try terminal.keys("Escape", "q")
        #expect(try await terminal.exit().status == 0)
    }

    @Test func theEditedFieldStaysInSightOnAShortTerminal() async throws {
        let terminal = try TmuxTerminal(["examples/signup.lua"], width: 50, height: 14)
        defer { terminal.stop() }
        try await terminal.waitFor(row: 1, "11 fields · rows 1–8 of 25")
        try terminal.keys("Tab")
        // The status line is drawn last: once it shows the editing keys, the rest is drawn.
        let lines = try await terminal.waitFor("the keyboard") { lines in
            lines[1].hasPrefix("editing first") && lines[13] == " type · tab/enter next · shift-tab previous · esc…"
        }
        // The keyboard (8 rows) takes all 8 rows of the form's screen: nothing of the
        // form, the edited field included, is left in sight.
        #expect(lines.contains("│ ▸ First name *                                 │"), "\(TmuxTerminal.framed(lines))")
        try terminal.keys("Escape", "q")
        #expect(try await terminal.exit().status == 0)
    }

    // MARK: - Script errors

    static let fragile = """
        picker "fragile" {
          components = { { id = "n", items = { "one", "two", "three", "four" }, selected = 1 } },
          on_change = function(p)
            if p:item("n") == "three" then error("three is not allowed") end
            p.status = "picked " .. p:item("n")
          end,
        }
        """

    @Test func aScriptErrorShowsInTheStatusLineAndTheUIGoesOn() async throws {
        let terminal = try TmuxTerminal(["fragile.lua"], height: 12, in: nil, files: ["fragile.lua": Self.fragile])
        defer { terminal.stop() }
        try await terminal.waitFor(screen: [
            " picker \"fragile\"", "", "   n", "", "", "", " ▸ one", "   two", "   three", "   four", "", Self.pickerHints,
        ])
        try terminal.keys("j")
        try await terminal.waitFor(row: 1, " picked two")
        try terminal.keys("j")
        try await terminal.waitFor(rows: [6: " ▸ three", 11: " fragile.lua:4: three is not allowed"])
        let status = try terminal.screen(escapes: true)[11]
        #expect(TmuxTerminal.sgr(of: "fragile.lua", in: status) == [1, 31], "\(status)")   // bold red
        // Still running: the next key spins, and the message makes way for the hints.
        try terminal.keys("j")
        try await terminal.waitFor(screen: [
            " picker \"fragile\"", " picked four", "   n", "   one", "   two", "   three", " ▸ four", "", "", "", "", Self.pickerHints,
        ])
        try terminal.keys("q")
        let exit = try await terminal.exit()
        #expect(exit.status == 1)
        #expect(exit.errors == "fragile.lua:4: three is not allowed\n")
        #expect(exit.sttyAfter == exit.sttyBefore)
        #expect(try terminal.screen().first == "wheel-run exited with 1")
    }

    // MARK: - Giving the terminal back

    enum Quit: String, CaseIterable {
        case q, controlC, sigterm
    }

    @Test(arguments: Quit.allCases)
    func quittingGivesTheTerminalBackAsItWas(_ quit: Quit) async throws {
        let terminal = try TmuxTerminal(["examples/resistor.lua"])
        defer { terminal.stop() }
        try await terminal.waitFor(screen: Self.screen(Self.resistor, status: Self.pickerHints))
        // While the UI runs: the alternate screen, no cursor, mouse reports on.
        #expect(try terminal.pane("#{alternate_on} #{cursor_flag} #{mouse_any_flag}") == "1 0 1")
        switch quit {
        case .q: try terminal.keys("q")
        case .controlC: try terminal.keys("C-c")
        case .sigterm: try terminal.terminate()
        }
        let exit = try await terminal.exit()
        #expect(exit.sttyBefore.contains(":"), "\(exit.sttyBefore)")
        #expect(exit.sttyAfter == exit.sttyBefore)
        // The shell running it reports a death by SIGTERM; nothing else is said.
        #expect(exit.errors == (quit == .sigterm ? "Terminated\n" : ""))
        // q and Ctrl-C (a key) quit; SIGTERM ends the process as the signal does, once the
        // terminal is restored.
        #expect(exit.status == (quit == .sigterm ? 143 : 0))
        #expect(try terminal.pane("#{alternate_on} #{cursor_flag} #{mouse_any_flag} #{keypad_cursor_flag}") == "0 1 0 0")
        // The screen from before: nothing of the UI is left on it.
        #expect(try terminal.screen() == ["wheel-run exited with \(exit.status)"] + Array(repeating: "", count: 23))
    }

    @Test func controlCQuitsEvenWhileAFieldIsEdited() async throws {
        let terminal = try TmuxTerminal(["examples/signup.lua"])
        defer { terminal.stop() }
        try await terminal.waitFor(row: 23, Self.formHints)
        try terminal.keys("Tab")
        try await terminal.waitFor(row: 23, Self.editingHints)
        try terminal.type("q")
        try await terminal.waitFor(row: 5, "│   [q                              ]                                          │")
        try terminal.keys("C-c")
        let exit = try await terminal.exit()
        #expect(exit.status == 0, "\(exit.errors)")
        #expect(exit.sttyAfter == exit.sttyBefore)
        #expect(try terminal.pane("#{alternate_on} #{cursor_flag} #{mouse_any_flag}") == "0 1 0")
    }

    // MARK: - Several objects, bad titles

    static let two = #"""
        picker "a" { components = { { id = "x", items = { "ok", "bad\xff\xfe" } } } }
        picker "b" { components = { { id = "y", items = { "a very long title that is wider than the column", "short" } } } }
        """#

    @Test func digitsSwitchBetweenObjects() async throws {
        let terminal = try TmuxTerminal(["two.lua"], height: 12, in: nil, files: ["two.lua": Self.two])
        defer { terminal.stop() }
        // A title that is not UTF-8 shows replacement characters.
        try await terminal.waitFor(screen: [
            " 1 picker \"a\"   2 picker \"b\"", "", "   x", "", "", "", " ▸ ok", "   bad\u{FFFD}\u{FFFD}", "", "", "", Self.pickerHints,
        ])
        var switcher = try terminal.screen(escapes: true)[0]
        #expect(TmuxTerminal.sgr(of: "1 picker", in: switcher)?.contains(7) == true, "\(switcher)")   // reverse: current
        #expect(TmuxTerminal.sgr(of: "2 picker", in: switcher) == [2], "\(switcher)")                 // dim
        try terminal.keys("2")
        // A title wider than its column (24 cells) is cut with an ellipsis.
        try await terminal.waitFor(screen: [
            " 1 picker \"a\"   2 picker \"b\"", "", "   y", "", "", "", " ▸ a very long title that …", "   short", "", "", "", Self.pickerHints,
        ])
        switcher = try terminal.screen(escapes: true)[0]
        #expect(TmuxTerminal.sgr(of: "2 picker", in: switcher)?.contains(7) == true, "\(switcher)")
        // 3 names nothing: the j after it spins b.
        try terminal.keys("3", "j")
        try await terminal.waitFor(row: 6, " ▸ short")
        try terminal.keys("1", "j")
        try await terminal.waitFor(row: 6, " ▸ bad\u{FFFD}\u{FFFD}")
        try await terminal.quitCleanly()
    }

    // MARK: - Colours

    @Test func colourUnlessNoColorIsSet() async throws {
        let coloured = try TmuxTerminal(["examples/resistor.lua"])
        defer { coloured.stop() }
        let plain = try TmuxTerminal(["examples/resistor.lua"], environment: ["NO_COLOR": "1"])
        defer { plain.stop() }
        let full = Self.screen(Self.resistor, status: Self.pickerHints)
        try await coloured.waitFor(screen: full)
        try await plain.waitFor(screen: full)
        // tmux gives the pane a terminal type that curses knows.
        #expect(["tmux-256color", "screen", "screen-256color", "tmux"].contains(try coloured.term))
        let colours = TmuxTerminal.colourParameters(try coloured.screen(escapes: true))
        #expect(colours == [33, 36], "\(colours)")           // highlight yellow, accent cyan
        let escapes = try plain.screen(escapes: true)
        #expect(TmuxTerminal.colourParameters(escapes).isEmpty, "\(escapes.joined(separator: "\n"))")
        // Attributes stay: the title bold, the selection reversed, the rest dimmed.
        #expect(TmuxTerminal.sgr(of: "picker", in: escapes[0]) == [1])
        #expect(TmuxTerminal.sgr(of: "yellow", in: escapes[6]) == [1, 7])
        #expect(TmuxTerminal.sgr(of: "violet", in: escapes[6]) == [7])
        #expect(TmuxTerminal.sgr(of: "brown", in: escapes[3]) == [2])
        try coloured.keys("q")
        try plain.keys("q")
        #expect(try await coloured.exit().status == 0)
        #expect(try await plain.exit().status == 0)
    }
}
