import Testing
import Wheel
import WheelTerminal

/// The interactive views of real scripts, drawn into a canvas and driven by keys, without
/// a terminal: what each panel shows (exact text and styles) and what each key does.
@MainActor
@Suite struct PanelTests {
    /// The canvas's rows, trailing spaces removed.
    static func lines(_ canvas: Canvas) -> [String] {
        canvas.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// A panel drawn alone into a canvas of `width` × `height + 1`, from row 1 (row 0 is
    /// where the app's title goes).
    static func drawn(_ panel: any Panel, width: Int, height: Int, tick: Int = 0) -> Canvas {
        var canvas = Canvas(width: width, height: height + 1)
        panel.draw(into: &canvas, top: 1, height: height, tick: tick)
        return canvas
    }

    // MARK: - The app's screen

    @Test func aTinyTerminalShowsWhatSizeIsNeeded() async throws {
        let run = try await ScriptedRuntime(try ScriptedRuntime.example("resistor.lua"))
        let app = TerminalApp(runtime: run.runtime)
        let canvas = app.render(width: 20, height: 5)
        #expect(Self.lines(canvas) == ["Terminal too small", "(20×5);", "needs 30×8.", "q quits", ""])
        #expect(canvas.rows[0][0].style == .bold)
        #expect(canvas.rows[1][0].style == [])
    }

    @Test func theTooSmallMessageIsCutToTheTerminal() async throws {
        let run = try await ScriptedRuntime(try ScriptedRuntime.example("resistor.lua"))
        let app = TerminalApp(runtime: run.runtime)
        #expect(Self.lines(app.render(width: 12, height: 3)) == ["Terminal to…", "(12×3);", "needs 30×8."])
        #expect(Self.lines(app.render(width: 1, height: 1)) == ["…"])
        #expect(Self.lines(app.render(width: 0, height: 0)) == [""])
    }

    @Test(arguments: [(29, 8), (30, 7), (200, 7), (29, 100)])
    func belowThirtyByEightIsTooSmall(width: Int, height: Int) async throws {
        let run = try await ScriptedRuntime(try ScriptedRuntime.example("resistor.lua"))
        let app = TerminalApp(runtime: run.runtime)
        let lines = Self.lines(app.render(width: width, height: height))
        #expect(lines.prefix(3) == ["Terminal too small", "(\(width)×\(height));", "needs 30×8."])
    }

    @Test func aScriptThatDeclaresNothingSaysSo() async throws {
        let run = try await ScriptedRuntime("local x = 1\n")
        let app = TerminalApp(runtime: run.runtime)
        #expect(Self.lines(app.render(width: 60, height: 8))
            == [" The script declares nothing to show. q quits.", "", "", "", "", "", "", ""])
        #expect(Self.lines(app.render(width: 30, height: 8))[0] == " The script declares nothing t")
    }

    // MARK: - Pickers

    static let resistorScreen = [
        "",
        " 4.7 kΩ ±5%",
        "   band1     band2     multiplier    tolerance",
        "   brown     yellow    silver",
        "   red       green     black         brown",
        "   orange    blue      brown         red",
        " ▸ yellow  ▸ violet  ▸ red         ▸ gold",
        "   green     grey      orange        silver",
        "   blue      white     yellow",
        "   violet    black     green",
        "",
    ]

    @Test func aPickerShowsItsStatusHeadingsAndRows() async throws {
        let run = try await ScriptedRuntime(try ScriptedRuntime.example("resistor.lua"))
        let panel = PickerPanel(picker: run.runtime.pickers[0])
        #expect(panel.title == "picker \"resistor\"")
        #expect(panel.hints == "↑↓/jk spin · tab/←→ component · wheel spins · q quit")
        #expect(!panel.capturesTyping)
        #expect(Self.lines(Self.drawn(panel, width: 60, height: 10)) == Self.resistorScreen)
    }

    @Test func theSelectionIsHighlightedTheFocusedHeadingUnderlinedTheRestDimmed() async throws {
        let run = try await ScriptedRuntime(try ScriptedRuntime.example("resistor.lua"))
        let panel = PickerPanel(picker: run.runtime.pickers[0])
        let canvas = Self.drawn(panel, width: 60, height: 10)
        #expect(canvas.rows[1][1].style == .bold)                                  // the status
        #expect(canvas.rows[2][3].style == [.underline, .bold, .accent])           // band1, focused
        #expect(canvas.rows[2][13].style == .bold)                                 // band2
        // The selection row: the focused column bold, from its marker to past its widest item.
        let selection = canvas.rows[6]
        #expect(selection[1].style == [.reverse, .bold, .highlight])
        #expect(selection[9].style == [.reverse, .bold, .highlight])
        #expect(selection[10].style == [])
        #expect(selection[11].style == [.reverse, .highlight])
        #expect(canvas.rows[5][3].style == .dim)                                  // orange
    }

    @Test func keysSpinTheFocusedComponentAndMoveBetweenComponents() async throws {
        let run = try await ScriptedRuntime(try ScriptedRuntime.example("resistor.lua"))
        let panel = PickerPanel(picker: run.runtime.pickers[0])
        #expect(panel.handle(.character("j"), height: 10) == .handled)            // band1 yellow → green
        #expect(panel.handle(.down, height: 10) == .handled)                      // → blue
        #expect(panel.handle(.character("k"), height: 10) == .handled)            // → green
        #expect(run.runtime.pickers[0].status == "5.7 kΩ ±5%")
        #expect(panel.handle(.tab, height: 10) == .handled)
        #expect(panel.focused == 1)
        #expect(panel.handle(.up, height: 10) == .handled)                        // band2 violet → blue
        #expect(run.runtime.pickers[0].status == "5.6 kΩ ±5%")
        #expect(panel.handle(.right, height: 10) == .handled)
        #expect(panel.handle(.character("l"), height: 10) == .handled)
        #expect(panel.focused == 3)
        #expect(panel.handle(.tab, height: 10) == .handled)                       // wraps to band1
        #expect(panel.focused == 0)
        #expect(panel.handle(.backTab, height: 10) == .handled)                   // and back to tolerance
        #expect(panel.focused == 3)
        #expect(panel.handle(.left, height: 10) == .handled)
        #expect(panel.handle(.character("h"), height: 10) == .handled)
        #expect(panel.focused == 1)
        let lines = Self.lines(Self.drawn(panel, width: 60, height: 10))
        #expect(lines[1] == " 5.6 kΩ ±5%")
        #expect(lines[6] == " ▸ green   ▸ blue    ▸ red         ▸ gold")
        #expect(Self.drawn(panel, width: 60, height: 10).rows[2][13].style == [.underline, .bold, .accent])
    }

    @Test func pageKeysSpinByTheVisibleRows() async throws {
        let run = try await ScriptedRuntime(try ScriptedRuntime.example("resistor.lua"))
        let panel = PickerPanel(picker: run.runtime.pickers[0])
        #expect(panel.handle(.pageDown, height: 10) == .handled)                  // yellow (4) + 7 → brown (1)
        #expect(try run.runtime.pickers[0].component("band1").selection == 1)
        #expect(panel.handle(.pageUp, height: 10) == .handled)
        #expect(try run.runtime.pickers[0].component("band1").selection == 4)
    }

    @Test func otherKeysAreLeftToTheApp() async throws {
        let run = try await ScriptedRuntime(try ScriptedRuntime.example("resistor.lua"))
        let panel = PickerPanel(picker: run.runtime.pickers[0])
        for key: Key in [.character("q"), .character("2"), .enter, .escape, .home, .control("c"), .resize] {
            #expect(panel.handle(key, height: 10) == .ignored, "\(key)")
        }
        #expect(Self.lines(Self.drawn(panel, width: 60, height: 10)) == Self.resistorScreen)
    }

    @Test func theMouseWheelSpinsTheColumnUnderThePointer() async throws {
        let run = try await ScriptedRuntime(try ScriptedRuntime.example("resistor.lua"))
        let panel = PickerPanel(picker: run.runtime.pickers[0])
        _ = Self.drawn(panel, width: 60, height: 10)               // the columns are where it drew them
        #expect(panel.handle(.mouse(row: 5, column: 24, wheel: 1), height: 10) == .handled)   // multiplier
        #expect(panel.focused == 2)
        #expect(run.runtime.pickers[0].status == "47 kΩ ±5%")
        #expect(panel.handle(.mouse(row: 5, column: 11, wheel: -1), height: 10) == .handled)  // band2
        #expect(panel.focused == 1)
        #expect(run.runtime.pickers[0].status == "46 kΩ ±5%")
        // A click focuses without spinning; a wheel outside every column does nothing.
        #expect(panel.handle(.mouse(row: 5, column: 40, wheel: 0), height: 10) == .handled)   // tolerance
        #expect(panel.focused == 3)
        #expect(panel.handle(.mouse(row: 5, column: 55, wheel: 1), height: 10) == .ignored)
        #expect(panel.handle(.mouse(row: 5, column: 0, wheel: 1), height: 10) == .ignored)
        #expect(run.runtime.pickers[0].status == "46 kΩ ±5%")
    }

    @Test func aShortPanelShowsTheRowsAroundTheSelection() async throws {
        let run = try await ScriptedRuntime(try ScriptedRuntime.example("resistor.lua"))
        let panel = PickerPanel(picker: run.runtime.pickers[0])
        #expect(Self.lines(Self.drawn(panel, width: 60, height: 5)) == [
            "",
            " 4.7 kΩ ±5%",
            "   band1     band2     multiplier    tolerance",
            "   orange    blue      brown         red",
            " ▸ yellow  ▸ violet  ▸ red         ▸ gold",
            "   green     grey      orange        silver",
        ])
        #expect(Self.lines(Self.drawn(panel, width: 60, height: 4)) == [
            "",
            " 4.7 kΩ ±5%",
            "   band1     band2     multiplier    tolerance",
            "   orange    blue      brown         red",
            " ▸ yellow  ▸ violet  ▸ red         ▸ gold",
        ])
        #expect(Self.lines(Self.drawn(panel, width: 60, height: 2)) == ["", " 4.7 kΩ ±5%", ""])
        #expect(Self.lines(Self.drawn(panel, width: 60, height: 0)) == [""])
    }

    @Test func columnsPastTheRightEdgeAreLeftOutWithoutATrap() async throws {
        // The tolerance column starts at cell 35: on a 30-cell terminal its selection row
        // was styled from beyond the edge. Wheels that do not fit are left out, `…` says
        // so, and moving the focus to one scrolls the wheels sideways.
        let run = try await ScriptedRuntime(try ScriptedRuntime.example("resistor.lua"))
        let panel = PickerPanel(picker: run.runtime.pickers[0])
        #expect(Self.lines(Self.drawn(panel, width: 30, height: 10)) == [
            "",
            " 4.7 kΩ ±5%",
            "   band1     band2           …",
            "   brown     yellow",
            "   red       green",
            "   orange    blue",
            " ▸ yellow  ▸ violet",
            "   green     grey",
            "   blue      white",
            "   violet    black",
            "",
        ])
        _ = panel.handle(.tab, height: 10)
        _ = panel.handle(.tab, height: 10)
        let scrolled = Self.lines(Self.drawn(panel, width: 30, height: 10))
        #expect(scrolled[2] == "…  band2     multiplier      …", "\(scrolled)")
        #expect(scrolled[6] == " ▸ violet  ▸ red", "\(scrolled)")
    }

    @Test func titlesThatAreNotUTF8ShowReplacementCharacters() async throws {
        let run = try await ScriptedRuntime(#"picker "bytes" { components = { { id = "x", items = { "ok", "bad\xff\xfe" } } } }"#)
        let panel = PickerPanel(picker: run.runtime.pickers[0])
        let lines = Self.lines(Self.drawn(panel, width: 40, height: 10))
        #expect(lines[2] == "   x")
        #expect(lines[6] == " ▸ ok")
        #expect(lines[7] == "   bad\u{FFFD}\u{FFFD}")
    }

    @Test func titlesWiderThanTheColumnAreCutWithAnEllipsis() async throws {
        let run = try await ScriptedRuntime("""
            picker "long" { components = {
              { id = "x", items = { "a very long title that is wider than any column", "short" } },
              { id = "y", items = { "日本語の文字がとても長いタイトルです", "b" } },
            } }
            """)
        let panel = PickerPanel(picker: run.runtime.pickers[0])
        let lines = Self.lines(Self.drawn(panel, width: 80, height: 10))
        // 24 cells at most: 23 and the ellipsis; a wide character that does not fit is left
        // out (22 cells and the ellipsis).
        #expect(lines[6] == " ▸ a very long title that …  ▸ 日本語の文字がとても長…")
        #expect(lines[7] == "   short                       b")
    }

    @Test func controlCharactersInTitlesAreReplaced() async throws {
        let run = try await ScriptedRuntime(#"picker "ctl" { components = { { id = "x", items = { "tab\there", "esc\27[31mred", "a wider item" } } } }"#)
        let panel = PickerPanel(picker: run.runtime.pickers[0])
        let lines = Self.lines(Self.drawn(panel, width: 40, height: 10))
        #expect(lines[6] == " ▸ tab\u{FFFD}here")
        #expect(lines[7] == "   esc\u{FFFD}[31mred")
    }

    @Test func aTitleWithAControlCharacterIsNotCutInItsOwnColumn() async throws {
        let run = try await ScriptedRuntime(#"picker "ctl" { components = { { id = "x", items = { "esc\27[31mred" } } } }"#)
        let panel = PickerPanel(picker: run.runtime.pickers[0])
        let lines = Self.lines(Self.drawn(panel, width: 40, height: 10))
        // TextWidth counts a C0 control character as no cell, the canvas draws it as one
        // (U+FFFD): the column is a cell too narrow and the title loses its last letter.
        #expect(lines[6] == " ▸ esc\u{FFFD}[31mred")
    }

    @Test func aTitleThatFailsIsShownAsAnError() async throws {
        let run = try await ScriptedRuntime("""
            picker "failing" { components = {
              { id = "n", count = 3, title = function(p, i) if i == 2 then error("no title") end return "row " .. i end },
            } }
            """)
        let panel = PickerPanel(picker: run.runtime.pickers[0])
        let canvas = Self.drawn(panel, width: 40, height: 10)
        let lines = Self.lines(canvas)
        #expect(lines[6] == " ▸ row 1")
        #expect(lines[7] == "   <error>")
        #expect(canvas.rows[7][3].style == .error)
    }

    // MARK: - Feeds

    /// A feed of `pages` pages of five numbered items, fetched without HTTP.
    static func numbers(pages: Int = 3) -> String {
        """
        feed "numbers" {
          page_size = 5, prefetch = 2, first = 1,
          fetch = function(page, size)
            local items = {}
            for i = 1, size do items[i] = { id = (page - 1) * size + i } end
            return items, page < \(pages) and page + 1 or nil
          end,
          id = function(item) return item.id end,
          row = function(item) return "item " .. item.id end,
          on_select = function(item, index) print("selected " .. item.id .. " at " .. index) end,
        }
        """
    }

    @Test func aFeedShowsNumberedRowsTheCursorAndAFooter() async throws {
        let run = try await ScriptedRuntime(Self.numbers())
        let feed = run.runtime.feeds[0]
        let panel = FeedPanel(feed: feed)
        #expect(panel.title == "feed \"numbers\"")
        #expect(panel.hints == "↑↓ PgUp/PgDn Home/End scroll · enter selects · r retry · R refresh · q quit")
        _ = Self.drawn(panel, width: 40, height: 8)               // shows rows 0..<7: fetches
        await feed.settle()
        let canvas = Self.drawn(panel, width: 40, height: 8)
        #expect(Self.lines(canvas) == [
            "",
            "   1  item 1",
            "   2  item 2",
            "   3  item 3",
            "   4  item 4",
            "   5  item 5",
            "   6  item 6",
            "   7  item 7",
            " ── more below ──",
        ])
        #expect(canvas.rows[1].allSatisfy { $0.style == [.reverse, .highlight] })   // the cursor's row
        #expect(canvas.rows[2][3].style == [])
        #expect(canvas.rows[8][2].style == .dim)
        #expect(!panel.isBusy)
    }

    @Test func endMovesToTheLastRowAndLoadsMoreUntilTheEndOfTheFeed() async throws {
        let run = try await ScriptedRuntime(Self.numbers())
        let feed = run.runtime.feeds[0]
        let panel = FeedPanel(feed: feed)
        _ = Self.drawn(panel, width: 40, height: 8)
        await feed.settle()
        #expect(feed.rowCount == 10)
        #expect(panel.handle(.end, height: 8) == .handled)
        #expect(panel.cursor == 9)
        await feed.settle()
        #expect(feed.rowCount == 15)
        #expect(Self.lines(Self.drawn(panel, width: 40, height: 8)) == [
            "",
            "    4  item 4",
            "    5  item 5",
            "    6  item 6",
            "    7  item 7",
            "    8  item 8",
            "    9  item 9",
            "   10  item 10",
            " ── end of feed ──",
        ])
        #expect(panel.handle(.character("G"), height: 8) == .handled)
        #expect(panel.cursor == 14)
        let lines = Self.lines(Self.drawn(panel, width: 40, height: 8))
        #expect(lines[1] == "    9  item 9")
        #expect(lines[7] == "   15  item 15")
        #expect(lines[8] == " ── end of feed ──")
    }

    @Test func arrowsAndPagesMoveTheCursorWithinTheRows() async throws {
        let run = try await ScriptedRuntime(Self.numbers(pages: 2))
        let feed = run.runtime.feeds[0]
        let panel = FeedPanel(feed: feed)
        _ = Self.drawn(panel, width: 40, height: 8)
        await feed.settle()
        #expect(panel.handle(.up, height: 8) == .handled)
        #expect(panel.cursor == 0)
        #expect(panel.handle(.down, height: 8) == .handled)
        #expect(panel.handle(.character("j"), height: 8) == .handled)
        #expect(panel.cursor == 2)
        #expect(panel.handle(.character("k"), height: 8) == .handled)
        #expect(panel.cursor == 1)
        #expect(panel.handle(.pageDown, height: 8) == .handled)                // 7 rows a page
        #expect(panel.cursor == 8)
        #expect(panel.handle(.pageDown, height: 8) == .handled)
        #expect(panel.cursor == 9)
        #expect(panel.handle(.pageUp, height: 8) == .handled)
        #expect(panel.cursor == 2)
        #expect(panel.handle(.mouse(row: 3, column: 5, wheel: 1), height: 8) == .handled)
        #expect(panel.cursor == 5)
        #expect(panel.handle(.character("g"), height: 8) == .handled)
        #expect(panel.cursor == 0)
        #expect(panel.handle(.end, height: 8) == .handled)
        #expect(panel.handle(.home, height: 8) == .handled)
        #expect(panel.cursor == 0)
        #expect(panel.handle(.character("q"), height: 8) == .ignored)
        #expect(panel.handle(.tab, height: 8) == .ignored)
    }

    @Test func enterSelectsTheRowUnderTheCursor() async throws {
        let run = try await ScriptedRuntime(Self.numbers(pages: 1))
        let feed = run.runtime.feeds[0]
        let panel = FeedPanel(feed: feed)
        _ = Self.drawn(panel, width: 40, height: 8)
        await feed.settle()
        #expect(panel.handle(.down, height: 8) == .handled)
        #expect(panel.handle(.down, height: 8) == .handled)
        #expect(panel.handle(.enter, height: 8) == .handled)
        #expect(run.prints == ["selected 3 at 3"])
        #expect(Self.lines(Self.drawn(panel, width: 40, height: 8)) == [
            "",
            "   1  item 1",
            "   2  item 2",
            " ▸ 3  item 3",
            "   4  item 4",
            "   5  item 5",
            "",
            "",
            " ── end of feed ──",
        ])
    }

    @Test func aFailedFetchShowsItsErrorAndRRetries() async throws {
        let run = try await ScriptedRuntime("""
            local calls = 0
            feed "flaky" {
              page_size = 2, retry = { attempts = 1 },
              fetch = function(page, size)
                calls = calls + 1
                if calls == 1 then error("no network") end
                return { "first", "second" }, nil
              end,
            }
            """)
        let feed = run.runtime.feeds[0]
        let panel = FeedPanel(feed: feed)
        _ = Self.drawn(panel, width: 200, height: 5)
        await feed.settle()
        let canvas = Self.drawn(panel, width: 200, height: 5)
        #expect(Self.lines(canvas) == ["", "", "", "", "", " ── error: \(run.path):6: no network — r retries ──"])
        #expect(canvas.rows[5][4].style == .error)
        #expect(panel.handle(.character("r"), height: 5) == .handled)
        await feed.settle()
        #expect(Self.lines(Self.drawn(panel, width: 200, height: 5)) == [
            "", "   1  first", "   2  second", "", "", " ── end of feed ──",
        ])
    }

    @Test func aLoadingPageShowsASpinnerThatTurnsWithTheTick() async throws {
        let transport = GatedTransport(reply: HTTPResponse(status: 200, body: Array(#"["late"]"#.utf8)))
        let run = try await ScriptedRuntime("""
            feed "slow" {
              page_size = 1,
              fetch = function(page, size)
                local res = http.get("http://127.0.0.1:9/items")
                return json.decode(res.body), nil
              end,
            }
            """, transport: transport)
        let feed = run.runtime.feeds[0]
        let panel = FeedPanel(feed: feed)
        _ = Self.drawn(panel, width: 40, height: 4)
        #expect(panel.isBusy)
        #expect(Self.lines(Self.drawn(panel, width: 40, height: 4, tick: 0)) == ["", "", "", "", " ── ⠋ loading… ──"])
        #expect(Self.lines(Self.drawn(panel, width: 40, height: 4, tick: 3))[4] == " ── ⠸ loading… ──")
        #expect(Self.lines(Self.drawn(panel, width: 40, height: 4, tick: 12))[4] == " ── ⠹ loading… ──")
        #expect(Self.drawn(panel, width: 40, height: 4).rows[4][4].style == .accent)
        transport.open()
        await feed.settle()
        #expect(!panel.isBusy)
        #expect(Self.lines(Self.drawn(panel, width: 40, height: 4)) == ["", "   1  late", "", "", " ── end of feed ──"])
    }

    @Test func refreshFetchesTheFirstPageAgainAndMovesTheCursorToTheTop() async throws {
        let run = try await ScriptedRuntime("""
            local generation = 0
            feed "live" {
              page_size = 3,
              fetch = function(page, size)
                generation = generation + 1
                return { "a" .. generation, "b" .. generation, "c" .. generation }, nil
              end,
            }
            """)
        let feed = run.runtime.feeds[0]
        let panel = FeedPanel(feed: feed)
        _ = Self.drawn(panel, width: 40, height: 5)
        await feed.settle()
        #expect(panel.handle(.end, height: 5) == .handled)
        #expect(panel.cursor == 2)
        #expect(panel.handle(.character("R"), height: 5) == .handled)
        await feed.settle()
        #expect(panel.cursor == 0)
        #expect(Self.lines(Self.drawn(panel, width: 40, height: 5)) == [
            "", "   1  a2", "   2  b2", "   3  c2", "", " ── end of feed ──",
        ])
    }

    // MARK: - Pagers

    static let cards = """
        pager "cards" {
          items = {
            { title = "First", text = "one two three four five six seven eight nine ten eleven twelve", id = 1 },
            { title = "Second", text = "short", id = 2 },
            { title = "Third", text = "no link" },
          },
          on_tap = function(record) return url("https://example.org/cards/{id}", record) end,
        }
        """

    @Test func aPagerShowsTheCurrentPageInACard() async throws {
        let run = try await ScriptedRuntime(Self.cards)
        let pager = run.runtime.pagers[0]
        pager.start()
        let panel = PagerPanel(pager: pager)
        #expect(panel.title == "pager \"cards\"")
        #expect(panel.hints == "←→/hl swipe · Home/End · enter taps · q quit")
        #expect(Self.lines(Self.drawn(panel, width: 40, height: 10)) == [
            "",
            " 1 / 3",
            " ┌──────────────────────────────────┐",
            " │ First                            │",
            " │                                  │",
            " │ one two three four five six      │",
            " │ seven eight nine ten eleven      │",
            " │ twelve                           │",
            " │                                  │",
            " │ image: none                      │",
            " └──────────────────────────────────┘",
        ])
    }

    @Test func swipesMoveBetweenPagesAndStopAtTheEnds() async throws {
        let run = try await ScriptedRuntime(Self.cards)
        let pager = run.runtime.pagers[0]
        pager.start()
        let panel = PagerPanel(pager: pager)
        #expect(panel.handle(.left, height: 10) == .handled)
        #expect(pager.current == 0)
        #expect(panel.handle(.right, height: 10) == .handled)
        #expect(Self.lines(Self.drawn(panel, width: 40, height: 10))[1 ... 3] == [
            " 2 / 3", " ┌──────────────────────────────────┐", " │ Second                           │",
        ])
        #expect(panel.handle(.character("l"), height: 10) == .handled)
        #expect(panel.handle(.character("l"), height: 10) == .handled)
        #expect(pager.current == 2)
        #expect(panel.handle(.character("h"), height: 10) == .handled)
        #expect(pager.current == 1)
        #expect(panel.handle(.home, height: 10) == .handled)
        #expect(pager.current == 0)
        #expect(panel.handle(.end, height: 10) == .handled)
        #expect(pager.current == 2)
        #expect(panel.handle(.mouse(row: 4, column: 4, wheel: -1), height: 10) == .handled)
        #expect(pager.current == 1)
        #expect(panel.handle(.character("q"), height: 10) == .ignored)
    }

    @Test func enterTapsThePageForItsURLOrTheRefusal() async throws {
        let run = try await ScriptedRuntime(Self.cards)
        let pager = run.runtime.pagers[0]
        pager.start()
        let panel = PagerPanel(pager: pager)
        #expect(panel.handle(.right, height: 10) == .handled)
        #expect(panel.handle(.enter, height: 10) == .open("https://example.org/cards/2"))
        #expect(panel.handle(.end, height: 10) == .handled)
        guard case .message(let text, isError: true) = panel.handle(.enter, height: 10) else {
            Issue.record("the tap was not refused")
            return
        }
        #expect(text.hasPrefix("tap refused: "), "\(text)")
    }

    @Test func aShortPanelShowsOnlyTheIndicatorAndAsMuchOfTheCardAsFits() async throws {
        let run = try await ScriptedRuntime(Self.cards)
        let pager = run.runtime.pagers[0]
        pager.start()
        let panel = PagerPanel(pager: pager)
        #expect(Self.lines(Self.drawn(panel, width: 40, height: 3)) == ["", " 1 / 3", "", ""])
        #expect(Self.lines(Self.drawn(panel, width: 40, height: 5)) == [
            "",
            " 1 / 3",
            " ┌──────────────────────────────────┐",
            " │ First                            │",
            " │                                  │",
            " └──────────────────────────────────┘",
        ])
    }

    // MARK: - Forms

    static let profile = """
        picker "sizes" { rows = 3, components = { { id = "size", items = { "S", "M", "L", "XL" } } } }
        form "profile" {
          fields = {
            { id = "name", label = "Name", required = true },
            { id = "bio", label = "Bio", kind = "multiline", lines = 2 },
            { id = "size", label = "Size", kind = "picker", picker = "sizes" },
          },
        }
        """

    @Test func aFormIsDrawnOnItsVirtualScreen() async throws {
        let run = try await ScriptedRuntime(Self.profile)
        let panel = try FormPanel(form: run.runtime.forms[0], width: 40, height: 12)
        #expect(panel.title == "form \"profile\"")
        #expect(panel.hints == "tab/enter edit · shift-tab back · s submit · q quit")
        #expect(!panel.capturesTyping)
        let canvas = Self.drawn(panel, width: 40, height: 12)
        #expect(Self.lines(canvas) == [
            "",
            "3 fields · rows 1–9 of 9",                          // the app's top row names the form
            "┌──────────────────────────────────────┐",
            "│   Name *                             │",
            "│   [           ]                      │",
            "│   Bio                                │",
            "│   [           ]                      │",
            "│   [           ]                      │",
            "│   Size                               │",
            "│   [           ]                      │",
            "│                                      │",
            "│   [ Submit ]                         │",
            "└──────────────────────────────────────┘",
        ])
        #expect(canvas.rows[1][0].style == [.bold, .accent])
    }

    @Test func typingGoesIntoTheEditedField() async throws {
        let run = try await ScriptedRuntime(Self.profile)
        let form = run.runtime.forms[0]
        let panel = try FormPanel(form: form, width: 40, height: 16)
        #expect(panel.handle(.tab, height: 16) == .handled)
        #expect(form.focused == "name")
        #expect(panel.capturesTyping)
        #expect(panel.hints == "type · tab/enter next · shift-tab previous · esc done · ctrl-s submit")
        for character in "Anq1" { #expect(panel.handle(.character(character), height: 16) == .handled) }
        #expect(panel.handle(.backspace, height: 16) == .handled)
        #expect(form.field("name")?.text == "Anq")
        let lines = Self.lines(Self.drawn(panel, width: 40, height: 16))
        #expect(lines[3] == "│ ▸ Name *                             │")
        #expect(lines[4] == "│   [Anq        ]                      │")
        #expect(lines.contains { $0.contains("keyboard") })
        #expect(panel.handle(.enter, height: 16) == .handled)                   // next: the bio
        #expect(form.focused == "bio")
        for key: Key in [.character("a"), .enter, .character("b")] { _ = panel.handle(key, height: 16) }
        #expect(form.field("bio")?.text == "a\nb")                                // enter is a newline here
        #expect(panel.handle(.backTab, height: 16) == .handled)
        #expect(form.focused == "name")
        #expect(panel.handle(.escape, height: 16) == .handled)
        #expect(form.focused == nil)
        #expect(!panel.capturesTyping)
        #expect(!Self.lines(Self.drawn(panel, width: 40, height: 16)).contains { $0.contains("keyboard") })
    }

    @Test func aPickerFieldShowsItsWheelAndTheArrowsSpinIt() async throws {
        let run = try await ScriptedRuntime(Self.profile)
        let form = run.runtime.forms[0]
        let panel = try FormPanel(form: form, width: 40, height: 16)
        _ = panel.handle(.tab, height: 16)
        _ = panel.handle(.tab, height: 16)
        #expect(panel.handle(.tab, height: 16) == .handled)
        #expect(form.focused == "size")
        #expect(panel.handle(.down, height: 16) == .handled)
        #expect(panel.handle(.down, height: 16) == .handled)
        #expect(panel.handle(.up, height: 16) == .handled)
        #expect(form.field("size")?.text == "M")
        // Letters and backspace do not type into a picker field.
        #expect(panel.handle(.character("x"), height: 16) == .ignored)
        #expect(panel.handle(.backspace, height: 16) == .ignored)
        #expect(Self.lines(Self.drawn(panel, width: 40, height: 16)) == [
            "",
            "editing size (3 of 3) · rows 1–9 of 9 ·",            // cut at the edge
            "┌──────────────────────────────────────┐",
            "│   Name *                             │",
            "│   [           ]                      │",
            "│   Bio                                │",
            "│   [           ]                      │",
            "│   [           ]                      │",
            "│ ▸ Size                               │",
            "│   [M ▾        ]                      │",
            "│                                      │",
            "│   [ Submit ]                         │",
            "├─────────── picker \"sizes\" ───────────┤",
            "│    S                                 │",
            "│  ▸ M                                 │",
            "│    L                                 │",
            "└──────────────────────────────────────┘",
        ])
    }

    /// The message a submit started by a key left, once its task has ended (at most 5 s).
    static func submitted(_ panel: FormPanel) async throws -> (text: String, isError: Bool)? {
        for _ in 0..<500 {
            if let message = panel.takeMessage() { return message }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    @Test func submittingAnIncompleteFormSaysWhatIsMissing() async throws {
        let run = try await ScriptedRuntime(Self.profile)
        let form = run.runtime.forms[0]
        let panel = try FormPanel(form: form, width: 40, height: 16)
        #expect(panel.handle(.character("s"), height: 16) == .message("submitting…", isError: false))
        let refused = try await Self.submitted(panel)
        #expect(refused?.text == "not submitted: name (required)")
        #expect(refused?.isError == true)
        #expect(form.focused == "name")                                         // edited again
        #expect(panel.takeMessage() == nil)
        _ = panel.handle(.character("A"), height: 16)
        #expect(panel.handle(.control("s"), height: 16) == .message("submitting…", isError: false))
        let accepted = try await Self.submitted(panel)
        #expect(accepted?.text == "submitted")
        #expect(accepted?.isError == false)
    }

    @Test func anErrorBesideAFieldIsRed() async throws {
        let run = try await ScriptedRuntime("""
            form "checked" {
              fields = { { id = "zip", label = "ZIP", validate = function(v) return #v == 5, "five digits" end }, { id = "b" } },
            }
            """)
        let form = run.runtime.forms[0]
        let panel = try FormPanel(form: form, width: 60, height: 22)
        _ = panel.handle(.tab, height: 22)
        _ = panel.handle(.character("1"), height: 22)
        _ = panel.handle(.tab, height: 22)
        let canvas = Self.drawn(panel, width: 60, height: 22)
        let lines = Self.lines(canvas)
        guard let row = lines.firstIndex(where: { $0.contains("✗ five digits") }) else {
            Issue.record("no error in\n\(lines.joined(separator: "\n"))")
            return
        }
        let column = canvas.rows[row].firstIndex { $0.character == "✗" }!
        #expect(canvas.rows[row][column].style == .error)
        #expect(canvas.rows[row][1].style != .error)
        #expect(canvas.rows[row].last?.character == "│")
        #expect(canvas.rows[row].last?.style != .error)
    }
}
