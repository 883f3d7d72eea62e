import Foundation
import Testing

/// `wheel-run` on feed scripts, as a user runs it: the built binary serving the examples'
/// fixtures over real HTTP (`--serve`), its frames compared with Tests/ExpectedFrames.
@Suite struct FeedFrameTests {
    static let root = PickerFrameTests.root
    let harness = WheelRunTests()

    @Test func theArticlesFramesMatchTheCheckedInFrames() async throws {
        let outcome = try await WheelRunTests.run([
            "--serve", "examples/fixtures", "examples/articles.lua",
            "--events", "scroll +15; scroll end; scroll end; select 25; refresh; scroll end",
        ], in: Self.root)
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.errors.isEmpty)
        #expect(outcome.output == (try PickerFrameTests.expected("articles.txt")))
        // A fetch shows `loading…` first, then the rows it brought.
        #expect(outcome.output.contains("> scroll end\nfeed \"articles\": rows 31–40 of 40\n"))
        #expect(outcome.output.contains("opening https://news.example.org/archive/25 (row 25)\n"))
    }

    @Test func theCursorFeedFollowsEachCursorToTheEndOfTheFeed() async throws {
        let outcome = try await WheelRunTests.run([
            "--serve", "examples/fixtures", "examples/cursor.lua",
            "--events", "scroll end; scroll end; scroll end; scroll end; scroll end; scroll end",
        ], in: Self.root)
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.output == (try PickerFrameTests.expected("cursor.txt")))
        #expect(outcome.output.hasSuffix("    60  Ana: message 60 from Ana\n  ── end of feed ──\n\n"))
    }

    @Test func withoutTheServerTheExampleSaysHowToRunIt() async throws {
        let outcome = try await WheelRunTests.run(["examples/articles.lua"], in: Self.root)
        #expect(outcome.status == 1)
        #expect(outcome.errors.contains("run this example with: wheel-run --serve examples/fixtures examples/articles.lua"))
    }

    @Test func aFeedLeftShowingAnErrorFailsTheRunWithFileLine() async throws {
        let path = try harness.script("""
            feed "broken" {
              retry = { attempts = 2, backoff = 0.01 },
              fetch = function(key, size)
                if key == 1 then return { "one", "two" }, 2 end
                error("the archive is closed")
              end,
            }
            """)
        let outcome = try await harness.run([path, "--events", "scroll end; retry"])
        #expect(outcome.status == 1)
        #expect(outcome.output.contains("  ── error: \(path):5: the archive is closed — retry ──"), "\(outcome.output)")
        #expect(outcome.output.contains("    1  one\n    2  two\n"))
        #expect(outcome.errors == "feed 'broken': \(path):5: the archive is closed\n")
    }

    @Test func feedEventsNameAFeedWhenThereAreSeveral() async throws {
        let path = try harness.script("""
            feed "a" { fetch = function(key) return { "a1", "a2" }, nil end }
            feed "b" { fetch = function(key) return { "b1" }, nil end }
            """)
        let bad = try await harness.run([path, "--events", "select 1"])
        #expect(bad.status == 2)
        #expect(bad.errors.contains("the script declares 2 feeds; name one: select a ..."), "\(bad.errors)")
        let good = try await harness.run([path, "--events", "select b 1; scroll a end"])
        #expect(good.status == 0, "\(good.errors)")
        #expect(good.output.contains("> select b 1\nfeed \"b\": rows 1–1 of 1\n  ▸ 1  b1\n  ── end of feed ──\n"), "\(good.output)")
    }

    @Test func theServeFolderMustExist() async throws {
        let outcome = try await WheelRunTests.run(["--serve", "no/such/folder", "examples/articles.lua"], in: Self.root)
        #expect(outcome.status == 2)
        #expect(outcome.errors.contains("--serve: no such folder: no/such/folder"))
    }
}
