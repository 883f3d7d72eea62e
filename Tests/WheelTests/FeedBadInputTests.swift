import Foundation
import Testing
import Lua
@testable import Wheel

/// Feeds given bad input: a `fetch` that returns the wrong thing, raises, loops past its
/// deadline or allocates without bound; rows that read fields of items that are not
/// tables; a next key that would loop; mistakes in the declaration. Each failed page shows
/// in the footer as an error with `file:line`, and the rows already loaded stay, once.
/// (An HTTP body that is not JSON is in FeedTests, against a real server.)
@MainActor
@Suite struct FeedBadInputTests {
    /// A feed whose first page (key 1) holds items 1-3 and whose second page runs `bad`
    /// (line 5 of main.lua; `fetch` is defined on line 3, `id` on 7, `row` on 8).
    static func script(bad: String, id: String = "function(item) return item.id end",
                       row: String = "function(item) return item.title end") -> String {
        """
        feed "f" {
          page_size = 3, prefetch = 0, retry = { attempts = 1 },
          fetch = function(key, size)
            if key == 1 then return { { id = 1, title = "a" }, { id = 2, title = "b" }, { id = 3, title = "c" } }, 2 end
            \(bad)
          end,
          id = \(id),
          row = \(row),
        }
        """
    }

    /// Runs the script, loads page 1, asks for page 2, and returns the footer's message.
    func secondPageError(_ source: String, options: Runtime.Options = .init(timeout: .milliseconds(200)),
                         reported: Bool = true) async throws -> String {
        let run = try await FeedScript.run(source, options: options)
        let feed = run.feed
        feed.setViewport(0..<3)
        await feed.settle()
        #expect(feed.rowCount == 3)
        feed.setViewport(1..<4)                                 // the last row shows: page 2
        await feed.settle()
        #expect(feed.rowCount == 3)                             // nothing lost, nothing added
        #expect((0..<3).map { feed.row($0).text } == ["a", "b", "c"])
        guard case .error(let message) = feed.footer else {
            Issue.record("the footer is \(feed.footer), not an error")
            return ""
        }
        if reported { #expect(run.problems.map(\.message) == [message]) }
        // The feed keeps working: a retry asks again (and fails the same way).
        feed.retry()
        await feed.settle()
        #expect(feed.rowCount == 3)
        return message
    }

    @Test func fetchReturningNil() async throws {
        let message = try await secondPageError(Self.script(bad: "return nil"))
        #expect(message.hasSuffix("main.lua:3: fetch returned nil, expected a list of items and the next key"))
    }

    @Test func fetchReturningANonTable() async throws {
        let message = try await secondPageError(Self.script(bad: "return \"items\", 3"))
        #expect(message.hasSuffix("main.lua:3: fetch returned the string \"items\", expected a list of items and the next key"))
    }

    @Test func aNextKeyThatIsATable() async throws {
        let message = try await secondPageError(Self.script(bad: "return { { id = 4, title = \"d\" } }, {}"))
        #expect(message.hasSuffix("main.lua:3: fetch returned a table as the next key, expected a number, a string or nil (the end)"))
    }

    @Test func itemsThatAreNotTablesWhenRowReadsTheirFields() async throws {
        // A number: indexing it is Lua's error, at the row function's line.
        let number = try await secondPageError(Self.script(bad: "return { 4, 5 }, 3"))
        #expect(number.hasSuffix("main.lua:8: attempt to index a number value (local 'item')"))
        // A string indexes the string library: `title` is nil, which is not a row's text.
        let text = try await secondPageError(Self.script(bad: "return { \"d\" }, 3", id: "function(item) return nil end"))
        #expect(text.hasSuffix("main.lua:8: row returned nil for item 1, expected a string"))
    }

    @Test func theCurrentKeyAgainAsTheNextKey() async throws {
        let message = try await secondPageError(Self.script(bad: "return { { id = 4, title = \"d\" } }, key"))
        #expect(message.hasSuffix("main.lua:3: the next key is the key just fetched (2): the feed would fetch the same page forever"))
    }

    @Test func anEarlierKeyAsTheNextKey() async throws {
        let message = try await secondPageError(Self.script(bad: "return { { id = 4, title = \"d\" } }, 1"))
        #expect(message.hasSuffix("main.lua:3: the next key 1 was already fetched for page 1: the feed would loop"))
    }

    @Test func fetchRaisingAnError() async throws {
        // A raised error is worth retrying by itself (here one attempt in all), so it shows
        // in the footer without being reported as a script problem.
        let message = try await secondPageError(Self.script(bad: "error(\"no more pages today\")"), reported: false)
        #expect(message.hasSuffix("main.lua:5: no more pages today"))
    }

    @Test func fetchRunningPastTheCPUDeadline() async throws {
        let message = try await secondPageError(Self.script(bad: "while true do end"))
        #expect(message.contains("main.lua:5:"))
        #expect(message.contains("timed out") || message.contains("deadline") || message.contains("time"))
    }

    @Test func fetchAllocatingWithoutBound() async throws {
        let message = try await secondPageError(
            Self.script(bad: "local t = {} while true do t[#t + 1] = (\"x\"):rep(4096) .. #t end"),
            options: .init(memoryLimit: 32 << 20, timeout: .seconds(5)))
        #expect(message.contains("main.lua:5:"))
        #expect(message.contains("memory"))
    }

    @Test func idReturningATable() async throws {
        let message = try await secondPageError(Self.script(bad: "return { { id = {}, title = \"d\" } }, 3"))
        #expect(message.hasSuffix("main.lua:7: id returned a table for item 1, expected a number, a string or nil"))
    }

    @Test func rowReturningATable() async throws {
        let message = try await secondPageError(Self.script(bad: "return { { id = 4, title = {} } }, 3"))
        #expect(message.hasSuffix("main.lua:8: row returned a table for item 1, expected a string"))
    }

    @Test func onSelectRaisingIsReportedAndTheFeedGoesOn() async throws {
        let run = try await FeedScript.run("""
            feed "f" {
              fetch = function(key, size) return { "a", "b" }, nil end,
              on_select = function(item, index) error("cannot open " .. item) end,
            }
            """)
        run.feed.setViewport(0..<5)
        await run.feed.settle()
        try run.feed.select(1)
        #expect(run.problems.count == 1)
        #expect(run.problems.first?.message.hasSuffix("main.lua:3: cannot open b") == true)
        #expect(run.feed.row(1).isSelected)
        #expect(run.feed.footer == .end)
    }

    // MARK: - The declaration

    @Test(arguments: [
        ("feed \"f\" { fetch = function() end, pages = 3 }",
         "main.lua:1: feed 'f' has an unknown field 'pages' (fields: fetch, first, id, max_items, on_select, page_size, prefetch, retry, row)"),
        ("feed \"f\" { page_size = 10 }",
         "main.lua:1: feed 'f': fetch must be a function(key, size) returning the page's items and the next key, not nil"),
        ("feed \"f\" { fetch = function() end, page_size = 0 }",
         "main.lua:1: feed 'f': page_size must be a whole number from 1 to 10000, not the number 0"),
        ("feed \"f\" { fetch = function() end, page_size = 20, max_items = 10 }",
         "main.lua:1: feed 'f': max_items must be a whole number from 20 to 2147483647, not the number 10"),
        ("feed \"f\" { fetch = function() end, prefetch = -1 }",
         "main.lua:1: feed 'f': prefetch must be a whole number from 0 to 1000000, not the number -1"),
        ("feed \"f\" { fetch = function() end, first = {} }",
         "main.lua:1: feed 'f': first must be the first page's key, a number or a string, not a table"),
        ("feed \"f\" { fetch = function() end, retry = { attempts = 0 } }",
         "main.lua:1: feed 'f': retry.attempts must be a whole number from 1 to 100, not the number 0"),
        ("feed \"f\" { fetch = function() end, retry = { tries = 2 } }",
         "main.lua:1: feed 'f': retry has an unknown field 'tries' (fields: attempts, backoff)"),
        ("feed \"f\" { fetch = function() end, row = \"title\" }",
         "main.lua:1: feed 'f': row must be a function(item) returning the row's text, not the string \"title\""),
        ("feed \"f\" { fetch = function() end }\nfeed \"f\" { fetch = function() end }",
         "main.lua:2: a feed named 'f' is already declared"),
        ("feed \"f\"",
         ""),
        ("feed \"f\" \"x\"",
         "main.lua:1: feed 'f' needs a table: feed \"f\" { fetch = function(key, size) ... end }"),
    ])
    func declarationMistakes(source: String, expected: String) async throws {
        let file = try FeedScript.file(source)
        let runtime = try Runtime()
        do {
            try await runtime.run(file: file.path)
            #expect(expected.isEmpty, "the script ran without an error")
        } catch {
            #expect("\(error)".hasSuffix(expected), "\(error)")
            #expect(!expected.isEmpty)
        }
    }
}

/// A feed script written to a fresh folder and run by a runtime on the main actor.
@MainActor
struct FeedScript {
    let runtime: Runtime
    let feed: Feed
    let box: ProblemBox
    var problems: [ScriptProblem] { box.all }

    static func file(_ source: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wheel-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("main.lua")
        try source.write(to: path, atomically: true, encoding: .utf8)
        return path
    }

    static func run(_ source: String, options: Runtime.Options = .init(timeout: .milliseconds(200))) async throws -> FeedScript {
        let path = try file(source)
        let runtime = try Runtime(options: options)
        let box = ProblemBox()
        runtime.onProblem = { box.all.append($0) }
        try await runtime.run(file: path.path)
        guard let feed = runtime.feeds.first else { throw HarnessError("the script declared no feed") }
        return FeedScript(runtime: runtime, feed: feed, box: box)
    }
}
