import Testing
import WheelCore

/// `CircularWheel`, behaviour by behaviour; the random sequences are in `PickerPropertyTests`.
@Suite struct CircularWheelTests {
    // MARK: Creating a wheel

    @Test func documentationExampleTurnsAndShowsAsDocumented() {
        var hours = CircularWheel(count: 12, wrap: .always, visibleRows: 5)
        #expect(hours.scroll(by: -1) == WheelChange(from: 0, to: 11, rows: -1))
        #expect(hours.select(1) == WheelChange(from: 11, to: 1, rows: 2))
        #expect(hours.rows().map(\.item) == [11, 0, 1, 2, 3])
        #expect(hours.rows().map(\.isSelected) == [false, false, true, false, false])
    }

    @Test func newWheelClampsItsSelectionIntoTheItems() {
        #expect(CircularWheel(count: 5, selection: 9).selection == 4)
        #expect(CircularWheel(count: 5, selection: -3).selection == 0)
        #expect(CircularWheel(count: 5, selection: 3).selection == 3)
    }

    @Test func newWheelSelectsTheFirstItemByDefault() {
        #expect(CircularWheel(count: 5).selection == 0)
    }

    @Test func negativeCountMakesAnEmptyWheel() {
        let wheel = CircularWheel(count: -4, selection: 2)
        #expect(wheel.count == 0)
        #expect(wheel.selection == nil)
    }

    @Test func visibleRowsAreAtLeastOne() {
        var wheel = CircularWheel(count: 5, visibleRows: 0)
        #expect(wheel.visibleRows == 1)
        wheel.visibleRows = 4
        #expect(wheel.visibleRows == 4)
        wheel.visibleRows = -7
        #expect(wheel.visibleRows == 1)
    }

    // MARK: Wrap modes

    @Test func alwaysWrapsEvenASingleItem() {
        #expect(CircularWheel(count: 1, wrap: .always, visibleRows: 7).wraps)
        #expect(CircularWheel(count: 7, wrap: .always, visibleRows: 7).wraps)
        #expect(CircularWheel(count: 100, wrap: .always, visibleRows: 7).wraps)
    }

    @Test func neverDoesNotWrapEvenALongList() {
        #expect(!CircularWheel(count: 100, wrap: .never, visibleRows: 5).wraps)
        #expect(!CircularWheel(count: .max, wrap: .never, visibleRows: 5).wraps)
    }

    @Test func autoWrapsOnlyWhenTheListIsLongerThanTheVisibleRows() {
        #expect(!CircularWheel(count: 6, wrap: .auto, visibleRows: 7).wraps)
        #expect(!CircularWheel(count: 7, wrap: .auto, visibleRows: 7).wraps)
        #expect(CircularWheel(count: 8, wrap: .auto, visibleRows: 7).wraps)
    }

    @Test func autoFollowsAChangeOfTheVisibleRows() {
        var wheel = CircularWheel(count: 6, wrap: .auto, visibleRows: 7)
        wheel.visibleRows = 5
        #expect(wheel.wraps)
        wheel.visibleRows = 6
        #expect(!wheel.wraps)
    }

    @Test func changingTheWrapModeChangesWhetherTheWheelWraps() {
        var wheel = CircularWheel(count: 3, wrap: .auto, visibleRows: 5)
        wheel.wrapMode = .always
        #expect(wheel.wraps)
        #expect(wheel.rows().map(\.item) == [1, 2, 0, 1, 2])
    }

    // MARK: Visible rows

    @Test func rowsAreCentredOnTheSelection() {
        let wheel = CircularWheel(count: 10, selection: 5, wrap: .never, visibleRows: 5)
        #expect(wheel.rows() == [
            WheelRow(offset: -2, item: 3), WheelRow(offset: -1, item: 4), WheelRow(offset: 0, item: 5),
            WheelRow(offset: 1, item: 6), WheelRow(offset: 2, item: 7),
        ])
    }

    @Test func onlyTheSelectedRowIsSelected() {
        let wheel = CircularWheel(count: 10, selection: 5, wrap: .always, visibleRows: 5)
        #expect(wheel.rows().map(\.isSelected) == [false, false, true, false, false])
    }

    @Test func wrappingRowsContinueAboveTheFirstItemWithTheLast() {
        let wheel = CircularWheel(count: 10, selection: 0, wrap: .always, visibleRows: 5)
        #expect(wheel.rows().map(\.item) == [8, 9, 0, 1, 2])
    }

    @Test func wrappingRowsContinueBelowTheLastItemWithTheFirst() {
        let wheel = CircularWheel(count: 10, selection: 9, wrap: .auto, visibleRows: 5)
        #expect(wheel.rows().map(\.item) == [7, 8, 9, 0, 1])
    }

    @Test func nonWrappingRowsAreBlankAboveTheFirstItem() {
        let wheel = CircularWheel(count: 10, selection: 0, wrap: .never, visibleRows: 5)
        #expect(wheel.rows().map(\.item) == [nil, nil, 0, 1, 2])
        #expect(wheel.rows().map(\.isSelected) == [false, false, true, false, false])
    }

    @Test func nonWrappingRowsAreBlankBelowTheLastItem() {
        let wheel = CircularWheel(count: 10, selection: 9, wrap: .never, visibleRows: 5)
        #expect(wheel.rows().map(\.item) == [7, 8, 9, nil, nil])
        #expect(wheel.rows().map(\.isSelected) == [false, false, true, false, false])
    }

    @Test func shortListThatAlwaysWrapsRepeatsItsItems() {
        let wheel = CircularWheel(count: 2, selection: 0, wrap: .always, visibleRows: 7)
        #expect(wheel.rows().map(\.item) == [1, 0, 1, 0, 1, 0, 1])
        #expect(wheel.rows().map(\.isSelected) == [false, false, false, true, false, false, false])
    }

    @Test func singleItemThatAlwaysWrapsFillsEveryRow() {
        let wheel = CircularWheel(count: 1, wrap: .always, visibleRows: 3)
        #expect(wheel.rows().map(\.item) == [0, 0, 0])
        #expect(wheel.rows().map(\.isSelected) == [false, true, false])
    }

    @Test func shortListOnAutoShowsEachItemOnceBetweenBlanks() {
        let wheel = CircularWheel(count: 3, selection: 1, wrap: .auto, visibleRows: 7)
        #expect(wheel.rows().map(\.item) == [nil, nil, 0, 1, 2, nil, nil])
    }

    @Test func evenVisibleRowsShowOneMoreRowBelowTheSelection() {
        let wheel = CircularWheel(count: 10, selection: 5, wrap: .never, visibleRows: 4)
        #expect(wheel.rows() == [
            WheelRow(offset: -1, item: 4), WheelRow(offset: 0, item: 5),
            WheelRow(offset: 1, item: 6), WheelRow(offset: 2, item: 7),
        ])
    }

    @Test func twoVisibleRowsShowTheSelectionAndTheRowBelow() {
        let wheel = CircularWheel(count: 10, selection: 9, wrap: .always, visibleRows: 2)
        #expect(wheel.rows() == [WheelRow(offset: 0, item: 9), WheelRow(offset: 1, item: 0)])
    }

    @Test func oneVisibleRowShowsOnlyTheSelection() {
        let wheel = CircularWheel(count: 10, selection: 3, wrap: .always, visibleRows: 1)
        #expect(wheel.rows() == [WheelRow(offset: 0, item: 3)])
    }

    @Test func itemAtOffsetReachesPastTheVisibleRowsOfAWrappingWheel() {
        let wheel = CircularWheel(count: 10, selection: 3, wrap: .always, visibleRows: 5)
        #expect(wheel.item(atOffset: 25) == 8)
        #expect(wheel.item(atOffset: -14) == 9)
        #expect(wheel.item(atOffset: 0) == 3)
    }

    @Test func itemAtOffsetIsNilBeyondTheEndsOfANonWrappingWheel() {
        let wheel = CircularWheel(count: 10, selection: 3, wrap: .never, visibleRows: 5)
        #expect(wheel.item(atOffset: 6) == 9)
        #expect(wheel.item(atOffset: 7) == nil)
        #expect(wheel.item(atOffset: -3) == 0)
        #expect(wheel.item(atOffset: -4) == nil)
    }

    @Test func itemAtTheExtremeOffsetsOfAWrappingWheelDoesNotOverflow() {
        // Int.max = 2^63 - 1 ≡ 7 (mod 12), and Int.min = -2^63 ≡ 4 (mod 12).
        let wheel = CircularWheel(count: 12, selection: 0, wrap: .always)
        #expect(wheel.item(atOffset: .max) == 7)
        #expect(wheel.item(atOffset: .min) == 4)
    }

    @Test func itemAtTheExtremeOffsetsOfANonWrappingWheelIsNil() {
        let wheel = CircularWheel(count: 12, selection: 11, wrap: .never)
        #expect(wheel.item(atOffset: .max) == nil)
        #expect(wheel.item(atOffset: .min) == nil)
    }

    @Test func blankRowIsNeverSelected() {
        #expect(!WheelRow(offset: 0, item: nil).isSelected)
        #expect(WheelRow(offset: 0, item: 0).isSelected)
        #expect(!WheelRow(offset: 1, item: 0).isSelected)
    }

    // MARK: Scrolling

    @Test func scrollingForwardMovesDownTheList() {
        var wheel = CircularWheel(count: 10, selection: 2, wrap: .never)
        #expect(wheel.scroll(by: 3) == WheelChange(from: 2, to: 5, rows: 3))
        #expect(wheel.selection == 5)
    }

    @Test func scrollingBackwardMovesUpTheList() {
        var wheel = CircularWheel(count: 10, selection: 7, wrap: .always)
        #expect(wheel.scroll(by: -4) == WheelChange(from: 7, to: 3, rows: -4))
        #expect(wheel.selection == 3)
    }

    @Test func scrollingPastTheLastItemOfAWrappingWheelGoesOnWithTheFirst() {
        var wheel = CircularWheel(count: 12, selection: 11, wrap: .always)
        #expect(wheel.scroll(by: 2) == WheelChange(from: 11, to: 1, rows: 2))
    }

    @Test func scrollingAboveTheFirstItemOfAWrappingWheelGoesOnWithTheLast() {
        var wheel = CircularWheel(count: 12, selection: 1, wrap: .always)
        #expect(wheel.scroll(by: -3) == WheelChange(from: 1, to: 10, rows: -3))
    }

    @Test func scrollingSeveralLapsReportsTheRequestedTurn() {
        var wheel = CircularWheel(count: 12, selection: 5, wrap: .always)
        #expect(wheel.scroll(by: 3 * 12 + 4) == WheelChange(from: 5, to: 9, rows: 40))
        #expect(wheel.scroll(by: -(5 * 12 + 10)) == WheelChange(from: 9, to: 11, rows: -70))
    }

    @Test func wholeLapsOfAWrappingWheelChangeNothing() {
        var wheel = CircularWheel(count: 12, selection: 5, wrap: .always)
        #expect(wheel.scroll(by: 24) == nil)
        #expect(wheel.scroll(by: -36) == nil)
        #expect(wheel.selection == 5)
    }

    @Test func scrollingByZeroChangesNothing() {
        var wheel = CircularWheel(count: 12, selection: 5, wrap: .always)
        #expect(wheel.scroll(by: 0) == nil)
        #expect(wheel.selection == 5)
    }

    @Test func nonWrappingWheelStopsAtItsLastItem() {
        var wheel = CircularWheel(count: 10, selection: 7, wrap: .never)
        #expect(wheel.scroll(by: 5) == WheelChange(from: 7, to: 9, rows: 2))
        #expect(wheel.selection == 9)
    }

    @Test func nonWrappingWheelStopsAtItsFirstItem() {
        var wheel = CircularWheel(count: 10, selection: 2, wrap: .never)
        #expect(wheel.scroll(by: -5) == WheelChange(from: 2, to: 0, rows: -2))
        #expect(wheel.selection == 0)
    }

    @Test func nonWrappingWheelAtAnEndIgnoresScrollingFurther() {
        var atLast = CircularWheel(count: 10, selection: 9, wrap: .never)
        var atFirst = CircularWheel(count: 10, selection: 0, wrap: .never)
        #expect(atLast.scroll(by: 1) == nil)
        #expect(atFirst.scroll(by: -1) == nil)
        #expect(atLast.selection == 9)
        #expect(atFirst.selection == 0)
    }

    @Test func shortAutoWheelStopsAtItsEnds() {
        var wheel = CircularWheel(count: 5, selection: 3, wrap: .auto, visibleRows: 7)
        #expect(wheel.scroll(by: 4) == WheelChange(from: 3, to: 4, rows: 1))
    }

    @Test func scrollingAWrappingWheelByIntMaxDoesNotOverflow() {
        // Int.max = 2^63 - 1 ≡ 7 (mod 12).
        var wheel = CircularWheel(count: 12, selection: 0, wrap: .always)
        #expect(wheel.scroll(by: .max) == WheelChange(from: 0, to: 7, rows: .max))
    }

    @Test func scrollingAWrappingWheelByIntMinDoesNotOverflow() {
        // Int.min = -2^63 ≡ 4 (mod 12).
        var wheel = CircularWheel(count: 12, selection: 0, wrap: .always)
        #expect(wheel.scroll(by: .min) == WheelChange(from: 0, to: 4, rows: .min))
    }

    @Test func scrollingByIntMaxThenIntMinTurnsOneRowBackInAll() {
        var wheel = CircularWheel(count: 12, selection: 0, wrap: .always)
        wheel.scroll(by: .max)
        wheel.scroll(by: .min)
        #expect(wheel.selection == 11)
    }

    @Test func scrollingANonWrappingWheelByIntMaxStopsAtTheLastItem() {
        var wheel = CircularWheel(count: 10, selection: 3, wrap: .never)
        #expect(wheel.scroll(by: .max) == WheelChange(from: 3, to: 9, rows: 6))
    }

    @Test func scrollingANonWrappingWheelByIntMinStopsAtTheFirstItem() {
        var wheel = CircularWheel(count: 10, selection: 3, wrap: .never)
        #expect(wheel.scroll(by: .min) == WheelChange(from: 3, to: 0, rows: -3))
    }

    @Test func wheelOfIntMaxItemsWrapsBetweenItsLastAndFirstItems() {
        var wheel = CircularWheel(count: .max, selection: .max - 1, wrap: .always)
        #expect(wheel.scroll(by: 1) == WheelChange(from: .max - 1, to: 0, rows: 1))
        #expect(wheel.scroll(by: -1) == WheelChange(from: 0, to: .max - 1, rows: -1))
        #expect(wheel.scroll(by: .max) == nil)
        // Int.min ≡ -1 (mod Int.max).
        #expect(wheel.scroll(by: .min) == WheelChange(from: .max - 1, to: .max - 2, rows: .min))
    }

    @Test func scrollingTenToTheTwelveRowsInOneStepAndBackIsExact() {
        // 10^12 ≡ 4 (mod 12): divisible by 4, and ≡ 1 (mod 3).
        var wheel = CircularWheel(count: 12, selection: 3, wrap: .always)
        #expect(wheel.scroll(by: 1_000_000_000_000) == WheelChange(from: 3, to: 7, rows: 1_000_000_000_000))
        #expect(wheel.scroll(by: -1_000_000_000_000) == WheelChange(from: 7, to: 3, rows: -1_000_000_000_000))
    }

    @Test func scrollingTenToTheTwelveRowsInAMillionStepsAndBackIsExact() {
        var wheel = CircularWheel(count: 12, selection: 3, wrap: .always)
        for _ in 0..<1_000_000 { wheel.scroll(by: 1_000_000) }
        #expect(wheel.selection == 7)
        for _ in 0..<1_000_000 { wheel.scroll(by: -1_000_000) }
        #expect(wheel.selection == 3)
    }

    @Test func scrollingANonWrappingWheelTenToTheTwelveRowsStopsAtTheEnds() {
        var wheel = CircularWheel(count: 12, selection: 3, wrap: .never)
        #expect(wheel.scroll(by: 1_000_000_000_000) == WheelChange(from: 3, to: 11, rows: 8))
        #expect(wheel.scroll(by: -1_000_000_000_000) == WheelChange(from: 11, to: 0, rows: -11))
    }

    @Test func wheelStateIsAFewIntegersWhateverTheScrolling() {
        // No history is kept: a wheel turned 10^12 rows equals one made at its selection.
        var turned = CircularWheel(count: 12, selection: 3, wrap: .always, visibleRows: 5)
        turned.scroll(by: 1_000_000_000_000)
        #expect(turned == CircularWheel(count: 12, selection: 7, wrap: .always, visibleRows: 5))
        #expect(MemoryLayout<CircularWheel>.size <= 4 * MemoryLayout<Int>.size)
    }

    // MARK: Selecting

    @Test func selectTurnsForwardWhenThatIsShorter() {
        var wheel = CircularWheel(count: 12, selection: 11, wrap: .always)
        #expect(wheel.distance(to: 1) == 2)
        #expect(wheel.select(1) == WheelChange(from: 11, to: 1, rows: 2))
        #expect(wheel.selection == 1)
    }

    @Test func selectTurnsBackwardWhenThatIsShorter() {
        var wheel = CircularWheel(count: 12, selection: 1, wrap: .always)
        #expect(wheel.distance(to: 11) == -2)
        #expect(wheel.select(11) == WheelChange(from: 1, to: 11, rows: -2))
    }

    @Test func selectTurnsForwardWhenBothWaysAreEqual() {
        var up = CircularWheel(count: 12, selection: 0, wrap: .always)
        var down = CircularWheel(count: 12, selection: 6, wrap: .always)
        #expect(up.distance(to: 6) == 6)
        #expect(down.distance(to: 0) == 6)
        #expect(up.select(6) == WheelChange(from: 0, to: 6, rows: 6))
        #expect(down.select(0) == WheelChange(from: 6, to: 0, rows: 6))
    }

    @Test func selectOnTwoItemsTurnsForwardBothWays() {
        var wheel = CircularWheel(count: 2, selection: 0, wrap: .always)
        #expect(wheel.select(1) == WheelChange(from: 0, to: 1, rows: 1))
        #expect(wheel.select(0) == WheelChange(from: 1, to: 0, rows: 1))
    }

    @Test func selectOnAnOddCountHasNoTie() {
        let wheel = CircularWheel(count: 7, selection: 0, wrap: .always)
        #expect(wheel.distance(to: 3) == 3)
        #expect(wheel.distance(to: 4) == -3)
    }

    @Test func selectOnANonWrappingWheelTurnsTheDirectWay() {
        var wheel = CircularWheel(count: 12, selection: 11, wrap: .never)
        #expect(wheel.distance(to: 1) == -10)
        #expect(wheel.select(1) == WheelChange(from: 11, to: 1, rows: -10))
    }

    @Test func selectOnAWheelOfIntMaxItemsTurnsTheShortestWay() {
        var wheel = CircularWheel(count: .max, selection: 0, wrap: .always)
        #expect(wheel.select(.max - 1) == WheelChange(from: 0, to: .max - 1, rows: -1))
        #expect(wheel.select(1) == WheelChange(from: .max - 1, to: 1, rows: 2))
        // Int.max = 2m + 1 is odd, so no index is a tie: m = Int.max / 2 rows is the farthest.
        #expect(wheel.distance(to: .max / 2 + 1) == .max / 2)
        #expect(wheel.distance(to: .max / 2 + 2) == -(.max / 2))
    }

    @Test func selectClampsTheIndexIntoTheItems() {
        var wheel = CircularWheel(count: 12, selection: 5, wrap: .always)
        #expect(wheel.distance(to: 99) == 6)
        #expect(wheel.select(99) == WheelChange(from: 5, to: 11, rows: 6))
        #expect(wheel.select(-5) == WheelChange(from: 11, to: 0, rows: 1))
    }

    @Test func selectingTheSelectedItemChangesNothing() {
        var wheel = CircularWheel(count: 12, selection: 5, wrap: .always)
        #expect(wheel.distance(to: 5) == 0)
        #expect(wheel.select(5) == nil)
        #expect(wheel.selection == 5)
    }

    // MARK: Reloading

    @Test func reloadKeepsASelectionThatStillExists() {
        var wheel = CircularWheel(count: 10, selection: 4, wrap: .always)
        #expect(wheel.reload(count: 20) == nil)
        #expect(wheel.count == 20)
        #expect(wheel.selection == 4)
        #expect(wheel.reload(count: 5) == nil)
        #expect(wheel.selection == 4)
    }

    @Test func reloadClampsASelectionThatNoLongerExistsToTheLastItem() {
        var wheel = CircularWheel(count: 10, selection: 8, wrap: .always)
        #expect(wheel.reload(count: 5) == WheelChange(from: 8, to: 4, rows: -4))
        #expect(wheel.count == 5)
        #expect(wheel.selection == 4)
    }

    @Test func reloadToZeroEmptiesTheWheel() {
        var wheel = CircularWheel(count: 10, selection: 3, wrap: .always, visibleRows: 3)
        #expect(wheel.reload(count: 0) == WheelChange(from: 3, to: nil, rows: 0))
        #expect(wheel.selection == nil)
        #expect(wheel.rows().map(\.item) == [nil, nil, nil])
    }

    @Test func reloadOfAnEmptyWheelSelectsTheFirstItem() {
        var wheel = CircularWheel(count: 0, wrap: .always)
        #expect(wheel.reload(count: 4) == WheelChange(from: nil, to: 0, rows: 0))
        #expect(wheel.selection == 0)
    }

    @Test func reloadToZeroAndBackSelectsTheFirstItem() {
        var wheel = CircularWheel(count: 10, selection: 3, wrap: .always)
        wheel.reload(count: 0)
        wheel.reload(count: 10)
        #expect(wheel.selection == 0)
    }

    @Test func reloadOfAnEmptyWheelToZeroChangesNothing() {
        var wheel = CircularWheel(count: 0)
        #expect(wheel.reload(count: 0) == nil)
        #expect(wheel.reload(count: -3) == nil)
        #expect(wheel.selection == nil)
    }

    @Test func reloadWithANegativeCountEmptiesTheWheel() {
        var wheel = CircularWheel(count: 10, selection: 3)
        #expect(wheel.reload(count: -1) == WheelChange(from: 3, to: nil, rows: 0))
        #expect(wheel.count == 0)
    }

    @Test func reloadDecidesAgainWhetherAnAutoWheelWraps() {
        var wheel = CircularWheel(count: 10, selection: 1, wrap: .auto, visibleRows: 5)
        wheel.reload(count: 5)
        #expect(!wheel.wraps)
        #expect(wheel.scroll(by: -3) == WheelChange(from: 1, to: 0, rows: -1))
    }

    // MARK: Empty wheels

    @Test(arguments: WrapMode.allCases)
    func emptyWheelShowsOnlyBlankRows(wrap: WrapMode) {
        let wheel = CircularWheel(count: 0, wrap: wrap, visibleRows: 5)
        #expect(wheel.rows() == (-2...2).map { WheelRow(offset: $0, item: nil) })
        #expect(wheel.rows().allSatisfy { !$0.isSelected })
        #expect(wheel.item(atOffset: 0) == nil)
    }

    @Test(arguments: WrapMode.allCases)
    func emptyWheelIgnoresScrolling(wrap: WrapMode) {
        var wheel = CircularWheel(count: 0, wrap: wrap)
        #expect(wheel.scroll(by: 1) == nil)
        #expect(wheel.scroll(by: .max) == nil)
        #expect(wheel.scroll(by: .min) == nil)
        #expect(wheel.selection == nil)
    }

    @Test(arguments: WrapMode.allCases)
    func emptyWheelIgnoresSelection(wrap: WrapMode) {
        var wheel = CircularWheel(count: 0, wrap: wrap)
        #expect(wheel.distance(to: 0) == 0)
        #expect(wheel.select(0) == nil)
        #expect(wheel.selection == nil)
    }

    @Test func emptyWheelDoesNotWrapEvenWhenAlwaysAsked() {
        #expect(!CircularWheel(count: 0, wrap: .always).wraps)
    }
}
