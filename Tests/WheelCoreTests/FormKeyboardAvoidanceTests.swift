import Testing
import WheelCore

/// `KeyboardAvoidance` on `FormPhone`: first one test for each failure users report of the
/// classic notification code, with the exact insets and offset it ends at, then the rules
/// one by one. Random scenes are in `FormPropertyTests`.
@Suite struct FormKeyboardAvoidanceTests {
    typealias Phone = FormPhone

    // MARK: Reported failures

    @Test func showingTwiceNeitherAddsTheInsetsNorSavesTheKeyboardsInsetAsTheBaseline() throws {
        var form = try Phone.avoidance()
        #expect(try form.beginEditing(Phone.field) == Phone.adjustment(covered: nil, offsetY: 185))
        #expect(try form.keyboardWillShow(Phone.keyboard, animation: Phone.animation)
            == Phone.adjustment(covered: 216, offsetY: 352, animation: Phone.animation))
        #expect(try form.keyboardWillShow(Phone.keyboard, animation: Phone.animation) == nil)
        // A second show with another keyboard (focus moved to a field with the predictive
        // bar): its height, not the sum.
        #expect(try form.keyboardWillShow(Phone.tallKeyboard) == Phone.adjustment(covered: 253, offsetY: 389))
        #expect(try form.keyboardWillHide(animation: Phone.animation)
            == Phone.adjustment(covered: nil, offsetY: 389, animation: Phone.animation))
        #expect(form.contentInset == Phone.baseline)
        #expect(form.indicatorInsets == Phone.indicatorBaseline)
        #expect(form.offset == Point(x: 0, y: 389))
        #expect(form.baselineContentInset == Phone.baseline)
    }

    @Test func aFrameChangeWhileShownTakesTheNewHeightAndMovesOnlyAsFarAsNeeded() throws {
        var form = try Phone.avoidance()
        _ = try form.beginEditing(Phone.field)
        _ = try form.keyboardWillShow(Phone.keyboard)
        #expect(try form.keyboardWillChangeFrame(Phone.tallKeyboard, animation: Phone.animation)
            == Phone.adjustment(covered: 253, offsetY: 389, animation: Phone.animation))
        #expect(try form.keyboardWillChangeFrame(Phone.tallKeyboard) == nil)
        // Back to the short keyboard: the field is still in sight at 389, so only the
        // insets change.
        #expect(try form.keyboardWillChangeFrame(Phone.keyboard) == Phone.adjustment(covered: 216, offsetY: 389))
        #expect(form.contentInset == Phone.inset(covered: 216))
        #expect(form.indicatorInsets == Phone.indicators(covered: 216))
        #expect(form.offset == Point(x: 0, y: 389))
    }

    @Test func aHideThenAShowWithinOneAnimationEndsShownAndTheNextHideRestoresTheBaseline() throws {
        var form = try Phone.avoidance()
        _ = try form.beginEditing(Phone.field)
        _ = try form.keyboardWillShow(Phone.keyboard, animation: Phone.animation)
        #expect(try form.keyboardWillHide(animation: Phone.animation)
            == Phone.adjustment(covered: nil, offsetY: 352, animation: Phone.animation))
        // 0.1 s later, while the host still animates the insets back:
        #expect(try form.keyboardWillShow(Phone.keyboard, animation: Phone.animation)
            == Phone.adjustment(covered: 216, offsetY: 352, animation: Phone.animation))
        #expect(form.isKeyboardShown)
        #expect(form.contentInset == Phone.inset(covered: 216))
        #expect(form.offset == Point(x: 0, y: 352))
        #expect(try form.keyboardWillHide() == Phone.adjustment(covered: nil, offsetY: 352))
        #expect(form.contentInset == Phone.baseline)
        #expect(form.indicatorInsets == Phone.indicatorBaseline)
    }

    @Test func aFocusChangeWhileShownKeepsTheInsetsAndMovesToTheNewField() throws {
        var form = try Phone.avoidance()
        _ = try form.beginEditing(Phone.field)
        _ = try form.keyboardWillShow(Phone.keyboard)
        // The field above the view's top (100 ... 144): its top, less the margin, at the top.
        let above = Rect(x: 16, y: 100, width: 288, height: 44)
        #expect(try form.beginEditing(above) == Phone.adjustment(covered: 216, offsetY: 92))
        // UIKit shows the keyboard again for the new field: nothing to do.
        #expect(try form.keyboardWillShow(Phone.keyboard) == nil)
        #expect(form.contentInset == Phone.inset(covered: 216))
        #expect(form.offset == Point(x: 0, y: 92))
        #expect(form.fieldFrame == above)
    }

    @Test func aHideAndAShowOnAFocusChangeEndInTheStateOfTheLastOneInEitherOrder() throws {
        var form = try Phone.avoidance()
        _ = try form.beginEditing(Phone.field)
        _ = try form.keyboardWillShow(Phone.keyboard)
        _ = try form.beginEditing(Phone.field.offsetBy(dx: 0, dy: 100))   // 600 ... 644: offset 452

        var hideFirst = form
        _ = try hideFirst.keyboardWillHide()
        _ = try hideFirst.keyboardWillShow(Phone.tallKeyboard)
        #expect(hideFirst.contentInset == Phone.inset(covered: 253))
        #expect(hideFirst.offset == Point(x: 0, y: 489))               // 652 - 163

        var showFirst = form
        _ = try showFirst.keyboardWillShow(Phone.tallKeyboard)
        _ = try showFirst.keyboardWillHide()
        #expect(showFirst.contentInset == Phone.baseline)
        #expect(showFirst.indicatorInsets == Phone.indicatorBaseline)
        #expect(showFirst.offset == Point(x: 0, y: 489))
        #expect(!showFirst.isKeyboardShown)
    }

    @Test func contentGrowingWhileShownFollowsTheGrowingFieldInEitherOrder() throws {
        var form = try Phone.avoidance()
        let notes = Rect(x: 16, y: 900, width: 288, height: 60)
        let grown = Rect(x: 16, y: 900, width: 288, height: 120)
        #expect(try form.beginEditing(notes) == Phone.adjustment(covered: nil, offsetY: 601))
        #expect(try form.keyboardWillShow(Phone.keyboard) == Phone.adjustment(covered: 216, offsetY: 768))

        var sizeFirst = form
        #expect(try sizeFirst.setContentSize(Size(width: 320, height: 1_060)) == nil)
        #expect(try sizeFirst.setFieldFrame(grown) == Phone.adjustment(covered: 216, offsetY: 828))

        var fieldFirst = form
        // The content has not grown yet: the field's new bottom is out of reach, so the
        // offset stops at the content's end (1,000 + 216 - 416) ...
        #expect(try fieldFirst.setFieldFrame(grown) == Phone.adjustment(covered: 216, offsetY: 800))
        // ... and goes on when it grows.
        #expect(try fieldFirst.setContentSize(Size(width: 320, height: 1_060)) == Phone.adjustment(covered: 216, offsetY: 828))

        for form in [sizeFirst, fieldFirst] {
            #expect(form.contentInset == Phone.inset(covered: 216))
            #expect(form.offset == Point(x: 0, y: 828))
        }
    }

    @Test func rotatingWhileShownMeasuresTheKeyboardAgainInTheNewFrame() throws {
        var form = try Phone.avoidance()
        _ = try form.beginEditing(Phone.field)
        _ = try form.keyboardWillShow(Phone.keyboard)
        // Landscape: a 480 × 320 window, a 52-point bar, the keyboard 162 points tall.
        let landscape = Rect(x: 0, y: 52, width: 480, height: 268)
        let landscapeKeyboard = Rect(x: 0, y: 158, width: 480, height: 162)

        var frameFirst = form
        // The portrait keyboard still held reaches 56 points into the new frame (264 ... 320),
        // more than the tab bar's 49; the field is in sight.
        #expect(try frameFirst.setScrollFrame(landscape) == Phone.adjustment(covered: 56, offsetY: 352))
        #expect(try frameFirst.keyboardWillChangeFrame(landscapeKeyboard, animation: Phone.animation)
            == Phone.adjustment(covered: 162, offsetY: 446, animation: Phone.animation))
        #expect(frameFirst.contentInset == Phone.inset(covered: 162))
        #expect(frameFirst.offset == Point(x: 0, y: 446))                 // 552 - (268 - 162)

        var keyboardFirst = form
        // The landscape keyboard against the portrait frame covers 480 - 158 = 322 points.
        #expect(try keyboardFirst.keyboardWillChangeFrame(landscapeKeyboard) == Phone.adjustment(covered: 322, offsetY: 458))
        #expect(try keyboardFirst.setScrollFrame(landscape) == Phone.adjustment(covered: 162, offsetY: 458))
        #expect(keyboardFirst.contentInset == Phone.inset(covered: 162))
        #expect(keyboardFirst.offset == Point(x: 0, y: 458))              // in sight: no need to move

        // Hiding in landscape: the baseline, the offset within 0 ... 1,000 + 49 - 268.
        #expect(try frameFirst.keyboardWillHide() == Phone.adjustment(covered: nil, offsetY: 446))
    }

    @Test func aBaselineChangedWhileShownIsWhatTheHideRestores() throws {
        var form = try Phone.avoidance()
        _ = try form.keyboardWillShow(Phone.keyboard)
        let withBanner = Insets(top: 30, bottom: 49)
        let adjustment = try form.setBaseline(contentInset: withBanner, indicatorInsets: withBanner)
        #expect(adjustment?.contentInset == Insets(top: 30, bottom: 216))
        #expect(adjustment?.indicatorInsets == Insets(top: 30, bottom: 216))
        #expect(adjustment?.offset == .zero)
        _ = try form.keyboardWillHide()
        #expect(form.contentInset == withBanner)
        #expect(form.indicatorInsets == withBanner)
    }

    // MARK: Insets

    @Test func theBottomInsetIsTheCoveredHeightButNeverLessThanTheBaselines() throws {
        var form = try Phone.avoidance()
        // A bar 30 points tall above the tab bar covers less than the tab bar's 49: nothing changes.
        #expect(try form.keyboardWillShow(Rect(x: 0, y: 450, width: 320, height: 30)) == nil)
        #expect(form.isKeyboardShown)
        #expect(form.coveredHeight == 30)
        #expect(form.contentInset == Phone.baseline)
        #expect(try form.keyboardWillChangeFrame(Phone.keyboard)?.contentInset == Phone.inset(covered: 216))
    }

    @Test func aDockedKeyboardCoversTheHeightOfItsIntersectionWithTheScrollView() throws {
        // A toolbar below the scroll view: the view ends at 436, the keyboard reaches past it.
        var form = try KeyboardAvoidance(scrollFrame: Rect(x: 0, y: 64, width: 320, height: 372), contentSize: Phone.contentSize)
        #expect(try form.keyboardWillShow(Phone.keyboard)?.contentInset == Insets(bottom: 172))   // 264 ... 436
        #expect(form.indicatorInsets == Insets(bottom: 172))
    }

    @Test func aKeyboardFloatingOverTheMiddleCoversFromItsTopDown() throws {
        var form = try Phone.avoidance()
        let floating = Rect(x: 40, y: 200, width: 240, height: 150)
        #expect(try form.keyboardWillShow(floating)?.contentInset == Phone.inset(covered: 280))   // 200 ... 480
    }

    @Test(arguments: [
        Rect(x: 330, y: 300, width: 200, height: 150),    // beside the scroll view
        Rect(x: 0, y: 0, width: 320, height: 64),         // over the bar above it, touching its top
        Rect(x: 0, y: 480, width: 320, height: 216),      // below the window
        Rect(x: -400, y: -400, width: 320, height: 216),  // nowhere near
    ])
    func aKeyboardThatDoesNotOverlapTheScrollViewCoversNothing(keyboard: Rect) throws {
        var form = try Phone.avoidance()
        _ = try form.beginEditing(Phone.field)
        #expect(try form.keyboardWillShow(keyboard) == nil)
        #expect(form.isKeyboardShown)
        #expect(form.coveredHeight == 0)
        #expect(form.contentInset == Phone.baseline)
        #expect(form.indicatorInsets == Phone.indicatorBaseline)
        #expect(form.offset == Point(x: 0, y: 185))
    }

    @Test func aFrameChangeMovingTheKeyboardOffScreenGivesTheBaselineBack() throws {
        var form = try Phone.avoidance()
        _ = try form.keyboardWillShow(Phone.keyboard)
        // A hardware keyboard was connected: the software one leaves without a hide.
        #expect(try form.keyboardWillChangeFrame(Phone.offScreenKeyboard) == Phone.adjustment(covered: nil, offsetY: 0))
        #expect(form.isKeyboardShown)
        #expect(try form.keyboardWillChangeFrame(Phone.keyboard) == Phone.adjustment(covered: 216, offsetY: 0))
    }

    @Test(arguments: [Rect.zero, Rect(x: 0, y: 264, width: 320, height: 0), Rect(x: 0, y: 264, width: 0, height: 216)])
    func anEmptyKeyboardFrameIsIgnored(empty: Rect) throws {
        var form = try Phone.avoidance()
        #expect(try form.keyboardWillShow(empty) == nil)
        #expect(!form.isKeyboardShown)
        _ = try form.keyboardWillShow(Phone.keyboard)
        let shown = form
        #expect(try form.keyboardWillShow(empty) == nil)
        #expect(try form.keyboardWillChangeFrame(empty) == nil)
        #expect(form == shown)
        #expect(form.keyboardFrame == Phone.keyboard)
    }

    @Test func aFrameChangeOrAHideWhileHiddenChangesNothing() throws {
        var form = try Phone.avoidance()
        let before = form
        #expect(try form.keyboardWillChangeFrame(Phone.keyboard) == nil)
        #expect(try form.keyboardWillHide() == nil)
        #expect(form == before)
    }

    @Test func theConversionTakesTheKeyboardFromWindowCoordinatesToTheFrameSpace() throws {
        // The scroll view fills a container placed at (0, 64) in the window.
        var moved = try KeyboardAvoidance(scrollFrame: Rect(x: 0, y: 0, width: 320, height: 416), contentSize: Phone.contentSize,
                                          conversion: WindowConversion(origin: Point(x: 0, y: 64)))
        #expect(try moved.keyboardWillShow(Phone.keyboard)?.contentInset == Insets(bottom: 216))
        // The container is drawn at twice its size: 416 window points are 208 of its own.
        var scaled = try KeyboardAvoidance(scrollFrame: Rect(x: 0, y: 0, width: 160, height: 208), contentSize: Phone.contentSize,
                                           conversion: WindowConversion(origin: Point(x: 0, y: 64), scale: 2))
        #expect(try scaled.keyboardWillShow(Phone.keyboard)?.contentInset == Insets(bottom: 108))
        // A new conversion comes with a new frame (the container moved down by 100 window points).
        let adjustment = try scaled.setScrollFrame(Rect(x: 0, y: 0, width: 160, height: 208),
                                                   conversion: WindowConversion(origin: Point(x: 0, y: 164), scale: 2))
        #expect(adjustment?.contentInset == Insets(bottom: 158))       // 208 - (264 - 164) / 2
        #expect(scaled.conversion == WindowConversion(origin: Point(x: 0, y: 164), scale: 2))
    }

    // MARK: Offset

    @Test func withNoFieldEditedTheKeyboardLeavesTheOffsetWhereItIs() throws {
        var form = try Phone.avoidance(offset: Point(x: 0, y: 120))
        #expect(try form.keyboardWillShow(Phone.keyboard) == Phone.adjustment(covered: 216, offsetY: 120))
    }

    @Test func aFieldAlreadyInSightWithItsMarginDoesNotMoveTheOffset() throws {
        var form = try Phone.avoidance()
        #expect(try form.beginEditing(Rect(x: 16, y: 8, width: 288, height: 44)) == nil)
        #expect(try form.keyboardWillShow(Phone.keyboard)?.offset == .zero)
    }

    @Test func theMarginShrinksToWhatFitsSoAFieldThatFitsIsShownWhole() throws {
        var form = try Phone.avoidance()
        _ = try form.keyboardWillShow(Phone.keyboard)
        // 196 points in a 200-point window: 2 points each side.
        #expect(try form.beginEditing(Rect(x: 16, y: 500, width: 288, height: 196))?.offset == Point(x: 0, y: 498))
        #expect(form.visibleRect == Rect(x: 0, y: 498, width: 320, height: 200))
    }

    @Test func aFieldTallerThanTheViewShowsItsTopAndStaysPutWhileItFillsTheView() throws {
        var form = try Phone.avoidance()
        let tall = Rect(x: 16, y: 300, width: 288, height: 400)
        #expect(try form.beginEditing(tall)?.offset == Point(x: 0, y: 300))
        #expect(try form.keyboardWillShow(Phone.keyboard) == Phone.adjustment(covered: 216, offsetY: 300))
        // The user scrolls within it to its lower part, and it grows by a line.
        try form.scroll(to: Point(x: 0, y: 450))
        #expect(try form.setFieldFrame(Rect(x: 16, y: 300, width: 288, height: 420)) == nil)
        #expect(form.offset == Point(x: 0, y: 450))
        // Scrolled away from it, it shows its top again.
        try form.scroll(to: Point(x: 0, y: 0))
        #expect(try form.setFieldFrame(tall)?.offset == Point(x: 0, y: 300))
    }

    @Test func aFieldNearTheEndIsShownAsFarAsTheContentAllows() throws {
        var form = try Phone.avoidance()
        _ = try form.keyboardWillShow(Phone.keyboard)
        // 950 ... 994 would want 1,002 - 200 = 802; the content ends at 800.
        #expect(try form.beginEditing(Rect(x: 16, y: 950, width: 288, height: 44))?.offset == Point(x: 0, y: 800))
        #expect(form.visibleRect == Rect(x: 0, y: 800, width: 320, height: 200))
    }

    @Test func theHideClampsTheOffsetToTheContentSoNothingIsLeftDisplaced() throws {
        var form = try Phone.avoidance()
        _ = try form.keyboardWillShow(Phone.keyboard)
        try form.scroll(to: Point(x: 0, y: 800))            // the end, with the keyboard up
        #expect(try form.keyboardWillHide(animation: Phone.animation)
            == Phone.adjustment(covered: nil, offsetY: 633, animation: Phone.animation))
    }

    @Test func theOffsetAcrossShowsAFieldBeyondTheRightEdgeAndIsClampedToo() throws {
        var form = try KeyboardAvoidance(scrollFrame: Phone.scrollFrame, contentSize: Size(width: 800, height: 1_000), margin: 8)
        #expect(try form.beginEditing(Rect(x: 600, y: 10, width: 100, height: 44))?.offset == Point(x: 388, y: 0))   // 708 - 320
        #expect(try form.beginEditing(Rect(x: 0, y: 10, width: 100, height: 44))?.offset == Point(x: 0, y: 0))     // -8, clamped
        #expect(try form.setContentSize(Size(width: 320, height: 1_000)) == nil)
    }

    @Test func aUserScrollIsRecordedAsItIsAndTheNextEventStartsFromIt() throws {
        var form = try Phone.avoidance()
        try form.scroll(to: Point(x: 0, y: -60))              // pulled past the top
        #expect(form.offset == Point(x: 0, y: -60))
        #expect(try form.setContentSize(Phone.contentSize) == Phone.adjustment(covered: nil, offsetY: 0))
    }

    @Test func offsetRangeRunsFromMinusTheTopInsetToTheContentsEnd() {
        let range = KeyboardAvoidance.offsetRange(viewSize: Size(width: 320, height: 416), contentSize: Size(width: 320, height: 100),
                                                  insets: Insets(top: 20, left: 4, bottom: 216, right: 6))
        #expect(range.x == -4...6)
        #expect(range.y == -20...(-20))                        // shorter than the view: the top only
    }

    // MARK: Animation

    @Test func keyboardEventsPassTheirAnimationThroughAndOtherEventsCarryNone() throws {
        var form = try Phone.avoidance()
        let show = KeyboardAnimation(duration: 0.25, curve: .keyboard(rawValue: 7))
        let change = KeyboardAnimation(duration: 0.4, curve: .linear)
        let hide = KeyboardAnimation(duration: 0, curve: .easeOut)
        #expect(try form.keyboardWillShow(Phone.keyboard, animation: show)?.animation == show)
        let focus = try #require(try form.beginEditing(Phone.field))
        #expect(focus.animation == nil)
        #expect(try form.keyboardWillChangeFrame(Phone.tallKeyboard, animation: change)?.animation == change)
        #expect(try form.keyboardWillHide(animation: hide)?.animation == hide)
    }

    @Test func curvesKeepTheHostsRawValue() {
        #expect((0...3).map(KeyboardAnimation.Curve.init(rawValue:)) == [.easeInOut, .easeIn, .easeOut, .linear])
        #expect(KeyboardAnimation.Curve(rawValue: 7) == .keyboard(rawValue: 7))
        #expect([0, 1, 2, 3, 7, -1].map { KeyboardAnimation.Curve(rawValue: $0).rawValue } == [0, 1, 2, 3, 7, -1])
    }
}
