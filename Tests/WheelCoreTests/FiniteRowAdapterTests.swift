import Testing
import WheelCore

/// `FiniteRowAdapter`, behaviour by behaviour; host walks and random rows are in
/// `PickerPropertyTests`.
@Suite struct FiniteRowAdapterTests {
    // MARK: Rows

    @Test func documentationExampleGivesTheDocumentedRows() {
        let rows = FiniteRowAdapter(count: 10, wraps: true, strategy: .threeCopies)
        #expect(rows.rowCount == 30)
        #expect(rows.initialRow(for: 4) == 14)
        #expect(rows.item(atRow: 27) == 7)
        #expect(rows.settle(atRow: 27) == 17)
    }

    @Test func threeCopiesHoldTheItemsThreeTimes() {
        let rows = FiniteRowAdapter(count: 10, wraps: true, strategy: .threeCopies)
        #expect(rows.copies == 3)
        #expect(rows.rowCount == 30)
    }

    @Test func defaultStrategyIsTenThousandCopies() {
        let rows = FiniteRowAdapter(count: 10, wraps: true)
        #expect(rows.strategy == .multiplied(copies: 10_000))
        #expect(rows.copies == 10_000)
        #expect(rows.rowCount == 100_000)
    }

    @Test func multipliedHoldsTheCopiesAsked() {
        let rows = FiniteRowAdapter(count: 7, wraps: true, strategy: .multiplied(copies: 9))
        #expect(rows.copies == 9)
        #expect(rows.rowCount == 63)
    }

    @Test func multipliedWithLessThanOneCopyGetsOne() {
        #expect(FiniteRowAdapter(count: 10, wraps: true, strategy: .multiplied(copies: 0)).rowCount == 10)
        #expect(FiniteRowAdapter(count: 10, wraps: true, strategy: .multiplied(copies: -5)).rowCount == 10)
    }

    @Test func itemOfARowIsTheRowModuloTheCount() {
        let rows = FiniteRowAdapter(count: 10, wraps: true, strategy: .threeCopies)
        #expect([0, 9, 10, 19, 23, 29].map(rows.item(atRow:)) == [0, 9, 0, 9, 3, 9])
    }

    @Test func rowsOutsideTheWidgetShowNoItem() {
        let rows = FiniteRowAdapter(count: 10, wraps: true, strategy: .threeCopies)
        #expect(rows.item(atRow: -1) == nil)
        #expect(rows.item(atRow: 30) == nil)
        #expect(rows.item(atRow: .min) == nil)
        #expect(rows.item(atRow: .max) == nil)
    }

    @Test func initialRowShowsTheItemInTheMiddleCopy() {
        let three = FiniteRowAdapter(count: 10, wraps: true, strategy: .threeCopies)
        let many = FiniteRowAdapter(count: 10, wraps: true)
        #expect(three.initialRow(for: 0) == 10)
        #expect(three.initialRow(for: 9) == 19)
        #expect(many.initialRow(for: 4) == 50_004)
    }

    @Test func initialRowClampsTheItem() {
        let rows = FiniteRowAdapter(count: 10, wraps: true, strategy: .threeCopies)
        #expect(rows.initialRow(for: 99) == 19)
        #expect(rows.initialRow(for: -1) == 10)
    }

    // MARK: Settling with three copies

    @Test func threeCopiesStayInTheMiddleCopy() {
        let rows = FiniteRowAdapter(count: 10, wraps: true, strategy: .threeCopies)
        #expect(rows.settle(atRow: 10) == nil)
        #expect(rows.settle(atRow: 19) == nil)
    }

    @Test func threeCopiesJumpFromTheFirstCopyToTheSameItemInTheMiddle() {
        let rows = FiniteRowAdapter(count: 10, wraps: true, strategy: .threeCopies)
        #expect(rows.settle(atRow: 0) == 10)
        #expect(rows.settle(atRow: 9) == 19)
    }

    @Test func threeCopiesJumpFromTheLastCopyToTheSameItemInTheMiddle() {
        let rows = FiniteRowAdapter(count: 10, wraps: true, strategy: .threeCopies)
        #expect(rows.settle(atRow: 20) == 10)
        #expect(rows.settle(atRow: 29) == 19)
    }

    // MARK: Settling with many copies

    @Test func multipliedStaysOutsideItsOuterQuarters() {
        // 8 copies: the outer quarters are copies 0, 1 and 6, 7.
        let rows = FiniteRowAdapter(count: 10, wraps: true, strategy: .multiplied(copies: 8))
        #expect(rows.settle(atRow: 20) == nil)
        #expect(rows.settle(atRow: 59) == nil)
    }

    @Test func multipliedJumpsFromItsOuterQuartersToTheSameItemInTheMiddle() {
        let rows = FiniteRowAdapter(count: 10, wraps: true, strategy: .multiplied(copies: 8))
        #expect(rows.settle(atRow: 0) == 40)
        #expect(rows.settle(atRow: 19) == 49)
        #expect(rows.settle(atRow: 60) == 40)
        #expect(rows.settle(atRow: 79) == 49)
    }

    @Test func tenThousandCopiesJumpOnlyFromTheOuterTwoThousandFiveHundred() {
        let rows = FiniteRowAdapter(count: 10, wraps: true)
        #expect(rows.settle(atRow: 24_999) == 50_009)
        #expect(rows.settle(atRow: 25_000) == nil)
        #expect(rows.settle(atRow: 74_999) == nil)
        #expect(rows.settle(atRow: 75_000) == 50_000)
    }

    @Test func multipliedWithFewerThanFourCopiesKeepsOnlyTheMiddleCopy() {
        let rows = FiniteRowAdapter(count: 10, wraps: true, strategy: .multiplied(copies: 3))
        #expect(rows.settle(atRow: 5) == 15)
        #expect(rows.settle(atRow: 15) == nil)
        #expect(rows.settle(atRow: 25) == 15)
    }

    @Test func singleCopyNeverJumps() {
        let rows = FiniteRowAdapter(count: 10, wraps: true, strategy: .multiplied(copies: 1))
        #expect(rows.settle(atRow: 0) == nil)
        #expect(rows.settle(atRow: 9) == nil)
    }

    @Test func settleOutsideTheRowsIsNil() {
        let rows = FiniteRowAdapter(count: 10, wraps: true, strategy: .threeCopies)
        #expect(rows.settle(atRow: -1) == nil)
        #expect(rows.settle(atRow: 30) == nil)
    }

    // MARK: Wheels that do not wrap, and empty ones

    @Test(arguments: [FiniteRowAdapter.Strategy.threeCopies, .tenThousandCopies])
    func nonWrappingAdapterHoldsTheItemsOnce(strategy: FiniteRowAdapter.Strategy) {
        let rows = FiniteRowAdapter(count: 10, wraps: false, strategy: strategy)
        #expect(rows.copies == 1)
        #expect(rows.rowCount == 10)
        #expect(rows.item(atRow: 10) == nil)
    }

    @Test(arguments: [FiniteRowAdapter.Strategy.threeCopies, .tenThousandCopies])
    func nonWrappingAdapterNeverJumps(strategy: FiniteRowAdapter.Strategy) {
        let rows = FiniteRowAdapter(count: 10, wraps: false, strategy: strategy)
        #expect((0..<10).allSatisfy { rows.settle(atRow: $0) == nil })
    }

    @Test func nonWrappingAdapterStartsAtTheItemItself() {
        let rows = FiniteRowAdapter(count: 10, wraps: false)
        #expect(rows.initialRow(for: 4) == 4)
        #expect(rows.item(atRow: 4) == 4)
    }

    @Test func emptyAdapterHasNoRows() {
        let rows = FiniteRowAdapter(count: 0, wraps: true)
        #expect(!rows.wraps)
        #expect(rows.rowCount == 0)
        #expect(rows.item(atRow: 0) == nil)
        #expect(rows.initialRow(for: 3) == 0)
        #expect(rows.settle(atRow: 0) == nil)
    }

    @Test func negativeCountMakesAnEmptyAdapter() {
        let rows = FiniteRowAdapter(count: -5, wraps: true)
        #expect(rows.count == 0)
        #expect(rows.rowCount == 0)
    }

    @Test func adapterForAWheelWrapsWhenTheWheelWrapsNow() {
        let short = FiniteRowAdapter(wheel: CircularWheel(count: 5, wrap: .auto, visibleRows: 7))
        let long = FiniteRowAdapter(wheel: CircularWheel(count: 12, wrap: .auto, visibleRows: 7))
        let never = FiniteRowAdapter(wheel: CircularWheel(count: 12, wrap: .never), strategy: .threeCopies)
        #expect(!short.wraps)
        #expect(short.rowCount == 5)
        #expect(long.wraps)
        #expect(long.rowCount == 120_000)
        #expect(!never.wraps)
        #expect(never.rowCount == 12)
    }

    // MARK: Huge counts

    @Test func tenThousandCopiesOfTwoToTheThirtyOneItemsFitAnInt() {
        let count = 1 << 31
        let rows = FiniteRowAdapter(count: count, wraps: true)
        #expect(rows.copies == 10_000)
        #expect(rows.rowCount == 21_474_836_480_000)
        #expect(rows.item(atRow: 21_474_836_479_999) == count - 1)
        #expect(rows.initialRow(for: count - 1) == 10_739_565_723_647)
        #expect(rows.settle(atRow: 0) == 10_737_418_240_000)
    }

    @Test func multipliedGetsFewerCopiesWhenTheRowsWouldNotFitAnInt() {
        // Int.max = 2 * (Int.max / 2) + 1: two copies fit, three would not.
        let rows = FiniteRowAdapter(count: .max / 2, wraps: true)
        #expect(rows.copies == 2)
        #expect(rows.rowCount == .max - 1)
        #expect(rows.settle(atRow: 0) == .max / 2)
        #expect(rows.settle(atRow: .max - 2) == nil)
    }

    @Test func threeCopiesShrinkWhenTheRowsWouldNotFitAnInt() {
        let rows = FiniteRowAdapter(count: .max / 3 + 1, wraps: true, strategy: .threeCopies)
        #expect(rows.copies == 2)
        #expect(rows.rowCount == 2 * (.max / 3 + 1))
    }

    @Test func intMaxItemsGetOneCopy() {
        let rows = FiniteRowAdapter(count: .max, wraps: true)
        #expect(rows.copies == 1)
        #expect(rows.rowCount == .max)
        #expect(rows.item(atRow: .max - 1) == .max - 1)
        #expect(rows.settle(atRow: .max - 1) == nil)
    }
}
