/// `wheel-run`'s interactive mode: the declared objects on a real terminal, driven by
/// keys and the mouse wheel, until `q`.
///
/// ```
///  1 picker "resistor"   2 feed "articles"                 <- the switcher (several objects)
///  4.7 kΩ ±5%                                               <- the panel
///    band1     band2     multiplier    tolerance
///    ...
///  ↑↓/jk spin · tab/←→ component · wheel spins · q quit     <- the status line
/// ```
///
/// The loop waits, without spinning, for input, for a declared object to change (a page
/// arrived, an image loaded), for a signal, or for a tenth of a second to pass (which
/// turns spinners and catches a resize); then it draws the whole screen into a `Canvas`
/// and sends the terminal only the rows that changed. Everything runs on the main actor,
/// where the runtime's feeds and pagers run their tasks, so fetches go on while the UI
/// waits. The terminal is given back as it was on `q`, on Ctrl-C (a key in raw mode), on
/// SIGINT, SIGTERM and SIGHUP, and when the script fails; script errors show in the
/// status line and the UI stays.
import CNcurses
import Foundation
import Synchronization
import Wheel

@MainActor
public final class TerminalApp {
    public struct Options {
        /// Colours, unless `NO_COLOR` is set.
        public var colour: Bool
        /// Opens a URL a pager's tap gave; nil: the URL is only shown.
        public var open: ((String) -> Void)?

        public init(colour: Bool = ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true,
                    open: ((String) -> Void)? = nil) {
            self.colour = colour
            self.open = open
        }
    }

    /// The smallest terminal the UI draws in; a smaller one shows a message.
    public static let minimumSize = (width: 30, height: 8)

    let runtime: Runtime
    let options: Options
    public private(set) var panels: [any Panel] = []
    public private(set) var current = 0
    private var message: (text: String, isError: Bool)?
    private let wakeups = Wakeups()
    private var quitting = false
    /// The signal that ended the UI, if one did: the host raises it again once the
    /// terminal is restored, so that its exit status says so (143 for SIGTERM).
    public private(set) var endingSignal: Int32?
    private var started = Date()
    private var tokens: [() -> Void] = []
    private let logLines = Mutex<[String]>([])

    public init(runtime: Runtime, options: Options = Options()) {
        self.runtime = runtime
        self.options = options
    }

    /// Where the script's `print` goes while the UI runs: the status line.
    public nonisolated func log(_ text: String) {
        logLines.withLock { $0.append(text) }
        wakeups.poke()
    }

    /// A script error an object survived: shown in the status line.
    public func show(problem: String) {
        message = (problem, true)
        wakeups.poke()
    }

    /// Runs the UI until the user quits. Throws only when the terminal cannot be used.
    public func run() async throws {
        let terminal = try Terminal(colour: options.colour)
        let watcher = InputWatcher()
        watcher.start(wakeups)
        let signals = SignalWatcher(wakeups: wakeups)
        defer {
            // Curses first, so that the terminal is back before a signal may end us.
            terminal.stop()
            signals.stop()
            watcher.stop()
            for remove in tokens { remove() }
            tokens = []
        }
        let size = terminal.size
        makePanels(width: size.width, height: size.height)
        draw(on: terminal)
        // Every wake-up reads what it finds: the flags keep input, hang-ups and signals,
        // however many "something changed" wake-ups a chatty script adds meanwhile.
        for await _ in wakeups.stream {
            if let number = wakeups.takeSignal() {
                endingSignal = number
                break
            }
            if wakeups.takeHangUp() { break }
            // A resize arrives as a key, so the tick reads too.
            handle(terminal.read(), terminal: terminal)
            if wakeups.takeInput() { watcher.drained() }
            if quitting { break }
            draw(on: terminal)
        }
    }

    // MARK: - Panels

    /// Makes the panels of the declared objects (and starts pagers); `run` does it. Public
    /// so that `render` can be tried without a terminal.
    public func makePanels(width: Int, height: Int) {
        guard panels.isEmpty else { return }
        let formPickers = Set(runtime.forms.flatMap { form in form.fields.compactMap { form.picker(of: $0.id) }.map(ObjectIdentifier.init) })
        let sources = Set(runtime.pagers.compactMap(\.sourceFeedName))
        for picker in runtime.pickers where !formPickers.contains(ObjectIdentifier(picker)) {
            panels.append(PickerPanel(picker: picker))
            let token = picker.observe { [wakeups] _ in wakeups.poke() }
            tokens.append { [weak picker] in picker?.removeObserver(token) }
        }
        for feed in runtime.feeds where !sources.contains(feed.name) {
            panels.append(FeedPanel(feed: feed))
            let token = feed.observe { [wakeups] _ in wakeups.poke() }
            tokens.append { [weak feed] in feed?.removeObserver(token) }
        }
        for pager in runtime.pagers {
            pager.start()
            panels.append(PagerPanel(pager: pager))
            let token = pager.observe { [wakeups] _ in wakeups.poke() }
            tokens.append { [weak pager] in pager?.removeObserver(token) }
        }
        for form in runtime.forms {
            do {
                let panel = try FormPanel(form: form, width: width, height: height - 2)
                panel.changed = { [wakeups] in wakeups.poke() }
                panels.append(panel)
            } catch {
                message = ("form '\(form.name)': \(error)", true)
            }
            let token = form.observe { [wakeups] _ in wakeups.poke() }
            tokens.append { [weak form] in form?.removeObserver(token) }
        }
    }

    // MARK: - Keys

    private func handle(_ keys: [Key], terminal: Terminal) {
        // Ctrl-C first: it quits at once, not after the keys typed before it have run
        // (each may call a script that takes its whole deadline).
        if keys.contains(.control("c")) {
            quitting = true
            return
        }
        for key in keys {
            if key == .resize {
                terminal.invalidate()
                continue
            }
            let size = terminal.size
            let tooSmall = size.width < Self.minimumSize.width || size.height < Self.minimumSize.height
            let panel = panels.isEmpty || tooSmall ? nil : panels[current]
            if panel?.capturesTyping != true {
                switch key {
                case .character("q"):
                    quitting = true
                    return
                case .character(let digit) where digit.isASCII && digit.isNumber && digit != "0":
                    let index = Int(String(digit))! - 1
                    if index < panels.count {
                        current = index
                        message = nil
                    }
                    continue
                default:
                    break
                }
            }
            guard let panel else { continue }
            message = nil
            switch panel.handle(key, height: size.height - 2) {
            case .ignored, .handled:
                break
            case .message(let text, let isError):
                message = (text, isError)
            case .open(let url):
                message = ("open \(url)", false)
                options.open?(url)
            }
        }
    }

    // MARK: - Drawing

    private func draw(on terminal: Terminal) {
        let size = terminal.size
        terminal.draw(render(width: size.width, height: size.height))
    }

    /// The screen for a terminal of this size.
    public func render(width: Int, height: Int) -> Canvas {
        var canvas = Canvas(width: width, height: height)
        for line in logLines.withLock({ lines in defer { lines.removeAll() }; return lines }) {
            message = (line, false)
        }
        guard width >= Self.minimumSize.width, height >= Self.minimumSize.height else {
            let lines = ["Terminal too small", "(\(width)×\(height));", "needs \(Self.minimumSize.width)×\(Self.minimumSize.height).", "q quits"]
            for (row, line) in lines.prefix(height).enumerated() {
                canvas.put(TextWidth.cut(line, to: width), row: row, column: 0, style: row == 0 ? .bold : [])
            }
            return canvas
        }
        guard !panels.isEmpty else {
            canvas.put("The script declares nothing to show. q quits.", row: 0, column: 1)
            return canvas
        }
        // The switcher, or the one object's title.
        if panels.count == 1 {
            canvas.put(panels[0].title, row: 0, column: 1, style: [.bold, .accent])
        } else {
            var x = 0
            for (index, panel) in panels.enumerated() {
                let label = " \(index + 1) \(panel.title) "
                let style: Canvas.Style = index == current ? [.reverse, .bold, .accent] : .dim
                x = canvas.put(TextWidth.cut(label, to: max(1, width - x)), row: 0, column: x, style: style) + 1
                if x >= width { break }
            }
        }
        for panel in panels { if let late = panel.takeMessage() { message = late } }
        let tick = Int(Date().timeIntervalSince(started) * 10)
        panels[current].draw(into: &canvas, top: 1, height: height - 2, tick: tick)
        // The status line: a message (a problem, a tap's URL, a print), or the keys.
        if let message {
            canvas.put(TextWidth.cut(message.text, to: width - 1), row: height - 1, column: 1,
                       style: message.isError ? [.error, .bold] : .accent)
        } else {
            canvas.put(TextWidth.cut(panels[current].hints, to: width - 1), row: height - 1, column: 1, style: .dim)
        }
        return canvas
    }
}

// MARK: - Waking the loop

/// The loop's wake-ups, from any thread: a poke that says "look", and flags that say what
/// to look at. Pokes may merge (a burst of them wakes the loop once); the flags stay set
/// until the loop takes them, so no key, hang-up or signal is lost.
final class Wakeups: Sendable {
    let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let input = Atomic<Bool>(false)
    private let hangUp = Atomic<Bool>(false)
    private let signal = Atomic<Int32>(0)

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Something changed (an object, a tick): draw again.
    func poke() {
        continuation.yield()
    }

    func inputArrived() {
        input.store(true, ordering: .releasing)
        poke()
    }

    func terminalHungUp() {
        hangUp.store(true, ordering: .releasing)
        poke()
    }

    func signalArrived(_ number: Int32) {
        signal.store(number, ordering: .releasing)
        poke()
    }

    func takeInput() -> Bool { input.exchange(false, ordering: .acquiringAndReleasing) }
    func takeHangUp() -> Bool { hangUp.exchange(false, ordering: .acquiringAndReleasing) }

    func takeSignal() -> Int32? {
        let number = signal.exchange(0, ordering: .acquiringAndReleasing)
        return number == 0 ? nil : number
    }
}

/// A thread that waits for standard input to have something to read (or a tenth of a
/// second to pass) and wakes the loop; after input it waits until the loop has read it,
/// so that it never wakes the loop twice for the same bytes.
final class InputWatcher: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let read = DispatchSemaphore(value: 0)

    /// Starts the thread; it holds the watcher until `stop`.
    func start(_ wakeups: Wakeups) {
        let thread = Thread { [self] in
            while !stopped.load(ordering: .acquiring) {
                var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, 100)
                if stopped.load(ordering: .acquiring) { break }
                if ready > 0, descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                    // The terminal went away: a hung-up tty also reads as readable, so
                    // this is checked first. Nothing more will come.
                    wakeups.terminalHungUp()
                    break
                } else if ready > 0 {
                    wakeups.inputArrived()
                    read.wait()
                } else if ready == 0 {
                    wakeups.poke()                          // a tick: spinners, resizes
                } else if errno != EINTR {
                    wakeups.terminalHungUp()
                    break
                }
            }
        }
        thread.name = "wheel-run input"
        thread.start()
    }

    func drained() {
        read.signal()
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
        read.signal()
    }
}

/// SIGINT, SIGTERM and SIGHUP end the UI through the loop, so that the terminal is given
/// back; the default actions return when it stops, and the host raises the signal again.
final class SignalWatcher {
    private static let signals = [SIGINT, SIGTERM, SIGHUP]
    private var sources: [any DispatchSourceSignal] = []

    init(wakeups: Wakeups) {
        for number in Self.signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { wakeups.signalArrived(number) }
            source.resume()
            sources.append(source)
        }
    }

    func stop() {
        for source in sources { source.cancel() }
        sources = []
        for number in Self.signals { signal(number, SIG_DFL) }
    }
}
