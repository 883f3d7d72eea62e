import AsyncHTTPClient
import Foundation
import Testing
@testable import WheelServer

/// A page as JSON says it: the ids and titles, and `next` (nil for null).
struct Page: Decodable, Equatable {
    struct Item: Decodable, Equatable {
        var id: Int
        var title: String
    }
    var items: [Item]
    var next: Next?

    enum Next: Decodable, Equatable {
        case page(Int)
        case cursor(String)
        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            if let number = try? value.decode(Int.self) { self = .page(number) } else { self = .cursor(try value.decode(String.self)) }
        }
    }

    var ids: [Int] { items.map(\.id) }
}

func page(_ url: String) async throws -> Page {
    let response = try await fetch(url)
    #expect(response.status == 200, "\(url): \(response.text)")
    return try JSONDecoder().decode(Page.self, from: Data(response.body))
}

@Suite struct PagedItemsTests {
    @Test func pagesNumberFromOneAndTheLastHasNoNext() async throws {
        let items = PagedItems(total: 45)
        let server = try await FixtureServer.start(handler: items.handler)
        let first = try await page(server.baseURL + "/items?page=1&size=20")
        #expect(first.ids == Array(1...20))
        #expect(first.items[16] == .init(id: 17, title: "Item 17"))
        #expect(first.next == .page(2))
        #expect(try await page(server.baseURL + "/items?page=2&size=20").ids == Array(21...40))
        let last = try await page(server.baseURL + "/items?page=3&size=20")
        #expect(last.ids == Array(41...45))
        #expect(last.next == nil)
        let beyond = try await page(server.baseURL + "/items?page=9&size=20")
        #expect(beyond.ids.isEmpty && beyond.next == nil)
        #expect(try await page(server.baseURL + "/items").ids == Array(1...20))   // page 1, pageSize
        try await server.stop()
    }

    @Test func theExactBodyOfAPage() async throws {
        let server = try await FixtureServer.start(handler: PagedItems(total: 3).handler)
        let response = try await fetch(server.baseURL + "/items?page=1&size=2")
        #expect(response.text == #"{"items":[{"id":1,"title":"Item 1"},{"id":2,"title":"Item 2"}],"next":2}"#)
        #expect(response.header("content-type") == "application/json")
        #expect(try await fetch(server.baseURL + "/items?page=2&size=2").text == #"{"items":[{"id":3,"title":"Item 3"}],"next":null}"#)
        try await server.stop()
    }

    @Test func pagesCanRepeatTheLastItemsOfThePageBefore() async throws {
        let server = try await FixtureServer.start(handler: PagedItems(total: 10, repeatsPrevious: 1).handler)
        #expect(try await page(server.baseURL + "/items?page=1&size=4").ids == [1, 2, 3, 4])
        #expect(try await page(server.baseURL + "/items?page=2&size=4").ids == [4, 5, 6, 7])
        let last = try await page(server.baseURL + "/items?page=3&size=4")
        #expect(last.ids == [7, 8, 9, 10])
        #expect(last.next == nil)
        try await server.stop()
    }

    @Test func badParametersAreA400() async throws {
        let server = try await FixtureServer.start(handler: PagedItems(total: 10).handler)
        for query in ["page=0", "page=x", "page=-1", "size=0", "size=abc", "size=100000"] {
            #expect(try await fetch(server.baseURL + "/items?" + query).status == 400, "\(query)")
        }
        #expect(try await fetch(server.baseURL + "/cursor?after=-3").status == 400)
        try await server.stop()
    }

    @Test func otherPathsAreStaticFiles() async throws {
        let fixtures = try Fixtures(["about.txt": Array("about".utf8)])
        let server = try await FixtureServer.start(root: fixtures.root.path, handler: PagedItems(total: 1).handler)
        #expect(try await fetch(server.baseURL + "/about.txt").text == "about")
        #expect(try await fetch(server.baseURL + "/missing").status == 404)
        try await server.stop()
    }

    @Test func aCursorNamesTheLastItemSent() async throws {
        let server = try await FixtureServer.start(handler: PagedItems(total: 5).handler)
        let first = try await page(server.baseURL + "/cursor?size=2")
        #expect(first.ids == [1, 2])
        #expect(first.next == .cursor("2"))
        #expect(try await page(server.baseURL + "/cursor?after=2&size=2").next == .cursor("4"))
        let last = try await page(server.baseURL + "/cursor?after=4&size=2")
        #expect(last.ids == [5])
        #expect(last.next == nil)
        #expect(try await page(server.baseURL + "/cursor?after=5").ids.isEmpty)
        try await server.stop()
    }

    @Test func aServerErrorOnceFailsOnlyTheFirstAttempt() async throws {
        let items = PagedItems(total: 30, pageSize: 10, faults: [2: .serverErrorOnce, 3: .serverError])
        let server = try await FixtureServer.start(handler: items.handler)
        #expect(try await fetch(server.baseURL + "/items?page=2").status == 500)
        #expect(try await page(server.baseURL + "/items?page=2").ids == Array(11...20))
        #expect(try await fetch(server.baseURL + "/items?page=3").status == 500)
        #expect(try await fetch(server.baseURL + "/items?page=3").status == 500)
        #expect(items.attempts(page: 2) == 2)
        #expect(items.attempts(page: 3) == 2)
        #expect(items.attempts(page: 1) == 0)
        try await server.stop()
    }

    @Test func aMalformedPageIsCutOffJSON() async throws {
        let server = try await FixtureServer.start(handler: PagedItems(total: 30, faults: [1: .malformedJSON]).handler)
        let response = try await fetch(server.baseURL + "/items?page=1")
        #expect(response.status == 200)
        #expect(response.text == #"{"items":["#)
        try await server.stop()
    }

    @Test func slowHangingAndResetPages() async throws {
        let items = PagedItems(total: 30, pageSize: 10, faults: [
            1: .slowBody(chunkSize: 64, interval: .milliseconds(20)), 2: .hang, 3: .reset,
        ])
        let server = try await FixtureServer.start(handler: items.handler)
        let slow = try await fetch(server.baseURL + "/items?page=1")
        #expect(slow.pieces >= 2)
        #expect(try JSONDecoder().decode(Page.self, from: Data(slow.body)).ids == Array(1...10))
        await #expect(throws: HTTPClientError.deadlineExceeded) {
            try await fetch(server.baseURL + "/items?page=2", timeout: .milliseconds(300))
        }
        await #expect(throws: (any Error).self) { try await fetch(server.baseURL + "/items?page=3") }
        try await server.stop()
    }

    @Test func latencyDelaysEveryAnswer() async throws {
        let server = try await FixtureServer.start(handler: PagedItems(total: 5, latency: .milliseconds(60)).handler)
        _ = try await page(server.baseURL + "/items?page=1")
        _ = try await page(server.baseURL + "/cursor")
        for logged in server.requests {
            #expect(try #require(logged.ended) - logged.started >= .milliseconds(60))
        }
        try await server.stop()
    }
}
