import Foundation
import Testing

/// `wheel-run` on pager scripts: the built binary serving the examples' fixtures (tweets
/// and avatars) over real HTTP, its frames compared with Tests/ExpectedFrames.
@Suite struct PagerFrameTests {
    static let root = PickerFrameTests.root
    let harness = WheelRunTests()

    @Test func theTweetsFramesMatchTheCheckedInFrames() async throws {
        let outcome = try await WheelRunTests.run([
            "--serve", "examples/fixtures", "examples/tweets.lua",
            "--events", "swipe left; jump 40; tap; swipe right; jump 100; swipe left",
        ], in: Self.root)
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.errors.isEmpty)
        #expect(outcome.output == (try PickerFrameTests.expected("tweets.txt")))
        // The tap prints the URL, the user name percent-encoded; jumping past the pages
        // loaded asks the feed for more, up to its end.
        #expect(outcome.output.contains("> tap\nopen https://twitter.com/ana%20mar%C3%ADa/status/1040\n"))
        #expect(outcome.output.contains("> jump 100\npager \"timeline\": 60 / 60\n"))
        #expect(outcome.output.contains("image: 48×48 PNG"))
    }

    @Test func aRefusedTapAndAFailedImageLeaveThePagerWorking() async throws {
        let path = try harness.script("""
            pager "p" {
              keep = 0,
              items = { { title = "one", text = "first", image = "ftp://example.org/a.png" }, 7, { title = "three" } },
              on_tap = function(record) return "javascript:alert(1)" end,
            }
            """)
        let outcome = try await harness.run([path, "--events", "tap; swipe left; swipe left"])
        #expect(outcome.status == 1)                            // the script's mistakes were reported
        #expect(outcome.output.contains("image: failed (not an http or https URL)"), "\(outcome.output)")
        #expect(outcome.output.contains("tap refused: \(path):4: on_tap returned a URL that is not opened: only http and https URLs are opened, not javascript: URLs"),
                "\(outcome.output)")
        #expect(outcome.output.contains("record 2 is the number 7, expected a"))   // wrapped
        #expect(outcome.output.hasSuffix("""
            > swipe left
            pager "p": 3 / 3
              ┌────────────────────────────────────────────────────┐
              │ three                                              │
              │                                                    │
              │                                                    │
              │                                                    │
              │ image: none                                        │
              └────────────────────────────────────────────────────┘
              bound: 3


            """), "\(outcome.output)")
    }

    @Test func pagerEventsAreCheckedLikeTheOthers() async throws {
        let path = try harness.script("pager \"p\" { items = { { title = \"a\" } } }")
        let outcome = try await harness.run([path, "--events", "jump 5"])
        #expect(outcome.status == 2)
        #expect(outcome.errors.contains("--events: event 1: page 5 is out of range for pager 'p' (1 to 1)"), "\(outcome.errors)")
        let swipe = try await harness.run([path, "--events", "swipe up"])
        #expect(swipe.status == 2)
        #expect(swipe.errors.contains("swipe takes left or right"), "\(swipe.errors)")
    }
}
