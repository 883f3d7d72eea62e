/// `wheel-run script.lua`: runs a Wheel script and shows what it declared.
///
/// Each declared picker is printed as a text frame; `--events` (or `--events-file`)
/// drives them and prints the frame after each event. Exit status: 0 success, 1 script
/// error (printed as `file:line: message`, with the traceback when the script stopped),
/// 2 usage error (a bad option, or an event that names nothing the script declared).
import ArgumentParser
import Foundation
import Synchronization
import Lua
import Wheel
import WheelTerminal
import WheelServer

@main
struct WheelRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wheel-run",
        abstract: "Run a Wheel script.",
        discussion: """
            Scripts run in a sandbox: string, table, math, utf8, coroutine, a safe os \
            (clock, time, date, difftime), json, print, and require of Lua files under the \
            script's folder. --trusted gives the whole standard library.
            A script that declares pickers gets a text frame of each; --events drives them, \
            one event per line or separated by ';': spin <component> <rows>, \
            select <component> <index>, reload [<component>]. A script that declares feeds \
            gets a frame of each; its events are scroll [<feed>] <rows>|top|end, \
            select [<feed>] <row>, refresh [<feed>] and retry [<feed>]. Pagers: \
            swipe [<pager>] left|right, jump [<pager>] <page>, tap [<pager>]. Forms, on a virtual \
            screen whose bottom rows the keyboard takes: focus <field>, type "<text>", clear, \
            next, prev, done, submit, keyboard show <rows>, keyboard hide. --serve <folder> \
            serves a folder over HTTP for the script (its address in SERVER).
            Exit status: 0 success, 1 script error, 2 usage error.
            """)

    @Argument(help: "The Lua script to run.")
    var script: String

    @Flag(help: "Give the script the whole standard library (io, os, debug, package).")
    var trusted = false

    @Option(help: ArgumentHelp("The script's memory ceiling, such as 64M or 1G; 0 for none.", valueName: "size"))
    var memory: ByteSize = ByteSize(bytes: 256 << 20)

    @Option(help: ArgumentHelp("The CPU deadline of each call into the script, the main chunk included, such as 1s, 250ms or 0 for none.", valueName: "duration"))
    var timeout: Deadline = Deadline(duration: .seconds(1))

    @Flag(help: "Print text frames even when standard output is a terminal.")
    var headless = false

    @Option(help: ArgumentHelp("Input events, separated by newlines or ';', such as \"spin band1 +3; select tolerance 2\".", valueName: "events"))
    var events: String?

    @Option(help: ArgumentHelp("A file of input events, one per line.", valueName: "path"))
    var eventsFile: String?

    @Option(help: ArgumentHelp("Serve this folder over HTTP on 127.0.0.1 while the script runs; the script's global SERVER holds the address.", valueName: "folder"))
    var serve: String?

    @Flag(help: "Open the URL a pager's tap gives with the system's opener (xdg-open), besides printing it.")
    var open = false

    @MainActor
    mutating func run() async throws {
        guard FileManager.default.fileExists(atPath: script) else {
            throw ValidationError("no such file: \(script)")
        }
        let input = try readEvents()
        // Interactive when a person is at a terminal: both ends are one, and neither
        // --headless nor scripted events ask for text frames.
        let interactive = !headless && events == nil && eventsFile == nil
            && isatty(STDOUT_FILENO) == 1 && isatty(STDIN_FILENO) == 1
        let router = LogRouter()
        let runtime: Runtime
        do {
            runtime = try Runtime(options: .init(
                trusted: trusted, memoryLimit: memory.bytes == 0 ? nil : memory.bytes,
                timeout: timeout.duration, log: router.sink))
        } catch {
            Output.error(Runtime.report(error))
            throw ExitCode(1)
        }
        // Problems the declared objects survive: reported as they happen; they make the
        // exit status 1 once everything has run.
        var problems: [String] = []
        var app: TerminalApp?
        var endingSignal: Int32?
        runtime.onProblem = { problem in
            problems.append(problem.message)
            // While the UI runs, the status line shows it; it is printed when the UI ends.
            if let app { app.show(problem: problem.message) } else { Output.error(problem.message) }
        }
        let server = try await startServer()
        do {
            if let server { try runtime.define("SERVER", server.baseURL) }
            try await runtime.run(file: script)
            let declared = !runtime.pickers.isEmpty || !runtime.feeds.isEmpty || !runtime.pagers.isEmpty || !runtime.forms.isEmpty
            if interactive && declared {
                let open = self.open
                let terminalApp = TerminalApp(runtime: runtime, options: .init(open: open ? { Self.openURL($0, quietly: true) } : nil))
                app = terminalApp
                router.divert(to: terminalApp)
                let before = problems.count
                var unusable: TerminalError?
                do {
                    try await terminalApp.run()
                    endingSignal = terminalApp.endingSignal
                } catch let error as TerminalError {
                    unusable = error
                }
                app = nil
                // What the script printed and the problems it met while the UI ran (those
                // before it were printed as they happened).
                for (level, text) in router.restore() { Output.log(level, text) }
                for problem in problems[before...] { Output.error(problem) }
                for form in runtime.forms where form.isSubmitting {
                    let message = "form '\(form.name)': the UI ended while on_submit was still running; the submit was abandoned"
                    problems.append(message)
                    Output.error(message)
                }
                if let unusable {
                    // A terminal curses cannot drive (TERM unknown or dumb): text frames.
                    Output.error("wheel-run: \(unusable); printing text frames instead")
                    try await present(runtime, events: [])
                }
            } else {
                try await present(runtime, events: input)
            }
        } catch {
            try? await server?.stop()
            if error is ValidationError { throw error }
            Output.error(Runtime.report(error))
            throw ExitCode(1)
        }
        try? await server?.stop()
        if let endingSignal {
            // Ended by a signal, with the terminal restored: end as the signal would.
            // (Dispatch's signal sources leave the signal blocked: unblock it first.)
            signal(endingSignal, SIG_DFL)
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, endingSignal)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            raise(endingSignal)
        }
        // A feed left showing an error (one its retries did not cure) fails the run too.
        for feed in runtime.feeds {
            guard case .error(let message) = feed.footer else { continue }
            if !problems.contains(message) { Output.error("feed '\(feed.name)': \(message)") }
            problems.append(message)
        }
        if !problems.isEmpty { throw ExitCode(1) }
    }

    /// The fixture server of `--serve`, started on a free loopback port.
    private func startServer() async throws -> FixtureServer? {
        guard let folder = serve else { return nil }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw ValidationError("--serve: no such folder: \(folder)")
        }
        do {
            return try await FixtureServer.start(root: folder)
        } catch {
            Output.error("--serve: cannot start the fixture server: \(error)")
            throw ExitCode(1)
        }
    }

    /// The events of --events and --events-file, parsed before the script runs.
    private func readEvents() throws -> [InputEvent] {
        var events: [InputEvent] = []
        do {
            if let text = self.events {
                events += try InputEvent.parse(text) { number, _ in "--events: event \(number)" }
            }
            if let path = eventsFile {
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw ValidationError("cannot read the events file \(path)")
                }
                events += try InputEvent.parse(String(decoding: data, as: UTF8.self)) { _, line in "\(path):\(line)" }
            }
        } catch let error as EventError {
            throw ValidationError(error.description)
        }
        return events
    }

    /// Prints a frame of every declared picker and feed, then applies the events, printing
    /// the frame of the object each one changed. A feed's frame is printed once its fetches
    /// have settled; when an event starts a fetch, the frame with the `loading…` footer
    /// comes first. Until the interactive terminal UI arrives, a terminal gets the same
    /// frames as a pipe (`--headless`).
    @MainActor
    private func present(_ runtime: Runtime, events: [InputEvent]) async throws {
        guard !runtime.pickers.isEmpty || !runtime.feeds.isEmpty || !runtime.pagers.isEmpty || !runtime.forms.isEmpty else {
            if !events.isEmpty { throw ValidationError("the script declares nothing for the events to act on") }
            return
        }
        let forms = try FormScreens(runtime.forms)
        // A picker that is a form field's input is shown through the form.
        for picker in runtime.pickers where forms.screen(showing: picker) == nil {
            Output.frame(PickerText.render(picker.frame(), picker: picker))
        }
        // A feed that is a pager's source is shown through the pager.
        let sources = Set(runtime.pagers.compactMap(\.sourceFeedName))
        for feed in runtime.feeds where !sources.contains(feed.name) {
            feed.setViewport(0..<FeedText.viewportRows)
            await show(feed, after: nil)
        }
        for pager in runtime.pagers {
            pager.start()
            await pager.settle()
            Output.frame(PagerText.render(pager))
        }
        for screen in forms.screens { Output.frame(screen.render()) }
        for event in events {
            let target: InputEvent.Target
            do {
                target = try event.apply(to: runtime, forms: forms)
            } catch {
                throw ValidationError(error.description)
            }
            switch target {
            case .picker(let picker):
                if let screen = forms.screen(showing: picker) {
                    Output.frame("> \(event.text)\n" + screen.render())
                } else {
                    Output.frame("> \(event.text)\n" + PickerText.render(picker.frame(), picker: picker))
                }
            case .formSubmit(let screen):
                let note: String
                do {
                    note = try await screen.submit()
                } catch {
                    throw ValidationError("\(event.origin): \(error)")
                }
                Output.frame("> \(event.text)\n\(note)\n" + screen.render())
            case .form(let screen):
                Output.frame("> \(event.text)\n" + screen.render())
            case .feed(let feed):
                await show(feed, after: event.text)
            case .pager(let pager, let tap):
                var heading = "> \(event.text)\n"
                switch tap {
                case .open(let url)?:
                    heading += "open \(url)\n"
                    if open { Self.openURL(url, quietly: false) }
                case .refused(let reason)?:
                    heading += "tap refused: \(reason)\n"
                case nil:
                    break
                }
                if case .jump(_, let page) = event.action, pager.current < page - 1 {
                    await pager.reach(page - 1)
                }
                await pager.settle()
                Output.frame(heading + PagerText.render(pager))
            }
        }
    }

    /// Opens `url` (already checked to be http or https) with the system's opener;
    /// `quietly`, its output goes nowhere (the terminal UI owns the screen).
    private static func openURL(_ url: String, quietly: Bool) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", url]
        if quietly {
            process.standardInput = FileHandle.nullDevice       // the UI owns the keys
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        do {
            try process.run()
        } catch {
            Output.error("--open: cannot run xdg-open: \(error)")
        }
    }

    /// Prints a feed's frame: first while it loads, if it does, then once it has settled.
    @MainActor
    private func show(_ feed: Feed, after event: String?) async {
        let heading = event.map { "> \($0)\n" } ?? ""
        if !feed.isSettled {
            Output.frame(heading + FeedText.render(feed))
            await feed.settle()
        }
        Output.frame(heading + FeedText.render(feed))
    }

    /// Usage errors exit with 2 (ArgumentParser's own default is 64).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                Output.error(fullMessage(for: error))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// Where the script's `print` goes: standard output, or while the terminal UI runs, the
/// UI's status line (and a list printed when it ends).
final class LogRouter: Sendable {
    private let state = Mutex<(app: TerminalApp?, held: [(LuaLogLevel, String)])>((nil, []))

    var sink: LuaLogSink {
        { [self] level, text in
            let app = state.withLock { state -> TerminalApp? in
                if state.app != nil { state.held.append((level, text)) }
                return state.app
            }
            if let app { app.log(text) } else { Output.log(level, text) }
        }
    }

    func divert(to app: TerminalApp) {
        state.withLock { $0.app = app }
    }

    /// Back to standard output; returns what was held meanwhile.
    func restore() -> [(LuaLogLevel, String)] {
        state.withLock { state in
            defer { state = (nil, []) }
            return state.held
        }
    }
}

/// Standard output and error, safe to use from any thread.
enum Output {
    static let log: LuaLogSink = { level, text in
        if level >= .warning {
            error("\(level == .warning ? "warning" : "error"): \(text)")
        } else {
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
        }
    }

    /// A frame and a blank line after it.
    static func frame(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// `256M`, `1G`, `65536`: a byte count with an optional binary unit.
struct ByteSize: ExpressibleByArgument {
    var bytes: Int

    init(bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var text = argument.uppercased()
        if text.hasSuffix("IB") { text.removeLast(2) } else if text.hasSuffix("B") { text.removeLast() }
        var scale = 1
        if let last = text.last, let unit = units[last] {
            scale = unit
            text.removeLast()
        }
        guard let value = Double(text), value >= 0, value * Double(scale) < Double(Int.max) else { return nil }
        bytes = Int(value * Double(scale))
    }

    var defaultValueDescription: String { "256M" }
}

/// `1s`, `250ms`, `2.5` (seconds), `0` for none.
struct Deadline: ExpressibleByArgument {
    var duration: Duration?

    init(duration: Duration?) { self.duration = duration }

    init?(argument: String) {
        var text = argument.lowercased()
        var scale = 1.0
        if text.hasSuffix("ms") { text.removeLast(2); scale = 0.001 } else if text.hasSuffix("s") { text.removeLast() }
        guard let value = Double(text), value >= 0, value.isFinite else { return nil }
        duration = value == 0 ? nil : .nanoseconds(Int64(value * scale * 1e9))
    }

    var defaultValueDescription: String { "1s" }
}
