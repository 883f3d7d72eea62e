import Testing
import WheelCore

/// The pager core: the current page from the offset, the bound window and its events,
/// and a long seeded walk that checks the window invariants after every step.
@Suite struct PagerCoreTests {
    @Test func thePageIsTheNearestToTheOffsetHalfWayRoundingUp() {
        #expect(PagerCore.page(forOffset: 0, width: 320) == 0)
        #expect(PagerCore.page(forOffset: 159.9, width: 320) == 0)
        #expect(PagerCore.page(forOffset: 160, width: 320) == 1)
        #expect(PagerCore.page(forOffset: 479.9, width: 320) == 1)
        #expect(PagerCore.page(forOffset: -200, width: 320) == -1)
        #expect(PagerCore.page(forOffset: 1e300, width: 1) == Int.max / 2)
    }

    @Test func startBindsTheWindowAndStopUnbindsIt() {
        var pager = PagerCore(pageCount: 10, keep: 1, pageWidth: 100)
        #expect(pager.bound.isEmpty)
        #expect(pager.start() == [.bind(0), .bind(1)])
        #expect(pager.stop() == [.unbind(0), .unbind(1)])
        #expect(pager.bound.isEmpty)
    }

    @Test func scrollingMovesTheWindowUnbindingBeforeBinding() {
        var pager = PagerCore(pageCount: 10, keep: 1, pageWidth: 100)
        _ = pager.start()
        #expect(pager.scroll(toOffset: 149) == [.bind(2)])
        #expect(pager.current == 1)
        #expect(pager.scroll(toOffset: 249) == [.unbind(0), .bind(3)])
        #expect(pager.current == 2)
        #expect(pager.scroll(toOffset: 230).isEmpty)            // the same page: nothing to do
        #expect(pager.scroll(toOffset: 250) == [.unbind(1), .bind(4)])
    }

    @Test func aJumpFarAwayUnbindsEverythingOutsideTheNewWindow() {
        var pager = PagerCore(pageCount: 1_000, keep: 2, pageWidth: 10)
        _ = pager.start()
        let events = pager.jump(to: 500)
        #expect(events == [.unbind(0), .unbind(1), .unbind(2),
                           .bind(498), .bind(499), .bind(500), .bind(501), .bind(502)])
        #expect(pager.offset == 5_000)
        #expect(pager.bound == 498..<503)
    }

    @Test func offsetsOutsideThePagesClampAndOnesThatAreNotFiniteAreIgnored() {
        var pager = PagerCore(pageCount: 5, keep: 1, pageWidth: 100)
        _ = pager.start()
        _ = pager.scroll(toOffset: 10_000)
        #expect(pager.current == 4)
        #expect(pager.bound == 3..<5)
        _ = pager.scroll(toOffset: -500)
        #expect(pager.current == 0)
        #expect(pager.scroll(toOffset: .nan).isEmpty)
        #expect(pager.scroll(toOffset: .infinity).isEmpty)
        #expect(pager.current == 0)
    }

    @Test func anInterruptedSwipeLeavesOneCurrentPage() {
        // The finger stops 40% of the way to the next page, then lets go: the offset alone
        // decides, and the host settles on the current page's offset.
        var pager = PagerCore(pageCount: 10, keep: 1, pageWidth: 100)
        _ = pager.start()
        _ = pager.scroll(toOffset: 40)
        #expect(pager.current == 0)
        #expect(pager.settledOffset == 0)
        _ = pager.scroll(toOffset: 60)
        #expect(pager.current == 1)
        #expect(pager.settledOffset == 100)
    }

    @Test func aNewWidthKeepsTheCurrentPage() {
        var pager = PagerCore(pageCount: 10, keep: 1, pageWidth: 100)
        _ = pager.start()
        _ = pager.jump(to: 4)
        #expect(pager.setPageWidth(250).isEmpty)
        #expect(pager.current == 4)
        #expect(pager.offset == 1_000)
        #expect(pager.setPageWidth(0).isEmpty && pager.pageWidth == 250)
    }

    @Test func growingAndShrinkingThePagesMovesTheWindow() {
        var pager = PagerCore(pageCount: 3, keep: 1, pageWidth: 1)
        _ = pager.start()
        _ = pager.jump(to: 2)
        #expect(pager.bound == 1..<3)
        #expect(pager.setPageCount(10) == [.bind(3)])           // a feed brought more
        #expect(pager.setPageCount(2) == [.unbind(2), .unbind(3), .bind(0)])   // page 2 went: page 1 is current
        #expect(pager.current == 1)
        #expect(pager.setPageCount(0) == [.unbind(0), .unbind(1)])
        #expect(pager.window.isEmpty)
        #expect(pager.setPageCount(4) == [.bind(0), .bind(1)])
    }

    @Test func keepZeroBindsOnlyTheCurrentPage() {
        var pager = PagerCore(pageCount: 3, keep: 0)
        #expect(pager.start() == [.bind(0)])
        #expect(pager.swipe(by: 1) == [.unbind(0), .bind(1)])
        #expect(pager.swipe(by: Int.max) == [.unbind(1), .bind(2)])
    }

    @Test(arguments: [0, 1, 3])
    func aLongWalkNeverBindsMoreThanTheWindowAndMatchesEveryBind(keep: Int) {
        let seed = 0x9A6E_0000 + UInt64(keep)
        var random = SplitMix64(seed: seed)
        var pager = PagerCore(pageCount: 10_000, keep: keep, pageWidth: 100)
        var bound = Set<Int>()
        var binds = 0, unbinds = 0, most = 0
        var violations: [String] = []
        func apply(_ events: [PagerCore.Event], step: Int) {
            for event in events {
                switch event {
                case .bind(let page):
                    if !bound.insert(page).inserted { violations.append("step \(step): page \(page) bound twice") }
                    binds += 1
                case .unbind(let page):
                    if bound.remove(page) == nil { violations.append("step \(step): page \(page) unbound, not bound") }
                    unbinds += 1
                }
                most = max(most, bound.count)
            }
            if Set(pager.bound) != bound || (step <= 100_000 && pager.bound != pager.window) {
                violations.append("step \(step): bound \(pager.bound), events say \(bound.sorted()), window \(pager.window)")
            }
        }
        apply(pager.start(), step: 0)
        for step in 1...100_000 {
            switch random.next() % 100 {
            case 0..<2: apply(pager.jump(to: Int(random.next() % 10_000)), step: step)
            case 2..<40: apply(pager.swipe(by: 1), step: step)
            case 40..<80: apply(pager.swipe(by: -1), step: step)
            case 80..<95: apply(pager.scroll(toOffset: pager.offset + Double(Int(random.next() % 400) - 200)), step: step)
            default: apply(pager.setPageCount(10_000 - Int(random.next() % 3)), step: step)
            }
        }
        apply(pager.stop(), step: 100_001)
        #expect(violations.isEmpty, "seed \(seed): \(violations.prefix(3))")
        #expect(most <= 2 * keep + 1)
        #expect(bound.isEmpty)
        #expect(binds == unbinds)
    }
}
