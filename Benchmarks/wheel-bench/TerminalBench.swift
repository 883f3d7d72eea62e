// Terminal: what a keypress costs wheel-run's interactive UI, seen from outside, as a
// terminal emulator sees it.
//
// - "terminal keypress": `wheel-run examples/resistor.lua` (a picker of four components)
//   runs on a pseudo-terminal of 80x24 (TERM=xterm-256color, LANG=C.UTF-8). After its
//   first screen, keys are written to the pty's master one at a time: j, k, up, down (as
//   the escape sequences a terminal sends) and tab, so that every key changes the screen
//   and each of the four wheels turns in turn. For each key, the master is read until the
//   burst of output ends (20 ms without a byte); the latency is the arrival of the
//   burst's last byte minus the moment the key was written (the quiet period is not
//   counted), and the burst's size is what the key repainted. The idle UI sends nothing
//   (checked), so every byte of a burst is the key's.
// - The reference is `cat` on a pty of its own in raw mode, sent the same keys through the
//   same code, taking turns with wheel-run key by key: the floor of a round trip through
//   a pty.
// - `--check`: the median latency must stay within one 60 Hz frame (16.7 ms), the median
//   key must send at most a third of what the full first screen took, and every key must
//   repaint something.
//
// Everything waits with a timeout: a child that stops answering fails the case, and is
// killed with its process group.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum TerminalBench {
    static let caseName = "terminal keypress: wheel-run examples/resistor.lua on a pseudo-terminal (ref: cat)"

    /// The terminal case, unless `only` names something else.
    static func selected(by only: String?) -> Bool {
        only.map { caseName.contains($0) } ?? true
    }

    static let size = (columns: UInt16(80), rows: UInt16(24))
    /// One frame at 60 Hz.
    static let frameBudget: Duration = .microseconds(16_667)
    /// How long without a byte ends a burst of output. Curses writes a repaint in several
    /// pieces (a write(2) every few cells), and on a busy machine the writer can be paused
    /// between two of them for milliseconds: a pause shorter than this is inside the
    /// repaint, and counted in its latency; a longer one would be a missed frame anyway.
    static let quiet: Duration = .milliseconds(20)
    /// How long both sides rest after a burst before the next key; bytes that arrive then
    /// are counted as late (a pause inside a repaint longer than `quiet`).
    static let rest: Duration = .milliseconds(5)
    /// A pause inside a repaint longer than this is reported: a terminal may show the
    /// screen half drawn.
    static let tornPause: Duration = .milliseconds(3)
    /// The longest a key may wait for its first byte of output before it counts as a key
    /// that repainted nothing.
    static let answerTimeout: Duration = .seconds(2)
    /// The keys, in turn: every one changes the screen (the tolerance wheel, which does not
    /// wrap, goes gold, silver, gold, red, gold: never pushed past an end), and tab moves
    /// to the next wheel, so that all four turn. The arrows are xterm's (cursor keys in
    /// application mode, which curses turns on).
    static let keys: [Key] = [
        Key(bytes: Array("j".utf8), label: "j", kind: .letter),
        Key(bytes: Array("k".utf8), label: "k", kind: .letter),
        Key(bytes: Array("\u{1B}OA".utf8), label: "↑", kind: .arrow),
        Key(bytes: Array("\u{1B}OB".utf8), label: "↓", kind: .arrow),
        Key(bytes: [9], label: "tab", kind: .tab),
    ]

    struct Key {
        enum Kind: CaseIterable { case letter, arrow, tab }
        var bytes: [UInt8]
        var label: String
        var kind: Kind
    }

    /// Runs the case and prints its section; returns its name when it missed its target.
    static func run(settings: Settings, afterOutput: Bool) throws -> [String] {
        if afterOutput { writeLine("") }
        writeLine("Terminal (wheel-run's interactive UI through a pseudo-terminal of \(size.columns)x\(size.rows), TERM=xterm-256color)")
        writeLine("")
        guard let wheelRun = locateWheelRun() else {
            writeLine("\(caseName)\nskipped: no wheel-run beside wheel-bench (`swift build -c release` builds both)")
            return [caseName]
        }
        guard let script = locateScript() else {
            writeLine("\(caseName)\nskipped: examples/resistor.lua not found here or above wheel-bench's folder")
            return [caseName]
        }
        #if os(Linux)
        let quick = settings.roundTime < .milliseconds(100)
        let session = Session(wheelRun: wheelRun, script: script, keypresses: quick ? 60 : 200)
        let result = try session.run()
        return report(result) ? [] : [caseName]
        #else
        writeLine("\(caseName)\nskipped: the pseudo-terminal code is written for Linux (glibc)")
        return []
        #endif
    }

    // MARK: - A session

    /// What a session measured.
    struct Result {
        var keypresses = 0
        /// Bytes of wheel-run's first screen: the terminal set up, the screen cleared and
        /// every cell that is not blank drawn.
        var firstScreen = 0
        /// Of those, the set-up: everything up to and including the clear (`ESC [2J`).
        var setUp: Int?
        /// Bytes wheel-run sent over half a second of idling after its first screen.
        var idle = 0
        /// Per key, in order: wheel-run's latency, burst size and longest pause inside the
        /// burst.
        var wheel: [(kind: Key.Kind, latency: Duration, bytes: Int, pause: Duration)] = []
        var wheelSilent = 0
        var reference: [Duration] = []
        var referenceSilent = 0
        /// What wheel-run's bursts were made of, over all keys.
        var composition = Composition()
        /// Bytes that came after a burst had ended (in the rest between keys).
        var wheelLate = 0
        var referenceLate = 0
        /// How wheel-run ended after `q`.
        var exit = ""
    }

    #if os(Linux)
    /// wheel-run and cat, each on its own pseudo-terminal, sent the same keys in turn.
    struct Session {
        let wheelRun: String
        let script: String
        let keypresses: Int

        func run() throws -> Result {
            let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
            let environment = ["TERM=xterm-256color", "LANG=C.UTF-8", "PATH=\(path)"]
            var result = Result()
            result.keypresses = keypresses

            let wheel = try PseudoTerminalChild(name: "wheel-run", executable: wheelRun, arguments: [script],
                                                environment: environment, raw: false)
            defer { wheel.stop() }
            // cat on a raw pty: no line discipline echo, no line buffering, each byte back as
            // soon as cat reads it.
            let reference = try PseudoTerminalChild(name: "cat", executable: "/bin/cat", arguments: [],
                                                    environment: environment, raw: true)
            defer { reference.stop() }

            // The first screen: everything until a quarter of a second passes without a byte.
            let first = try wheel.readBurst(quiet: .milliseconds(250), firstByteWithin: .seconds(20))
            guard first.last != nil else { throw BenchFailure("wheel-run drew nothing in 20 s\(wheel.exitNote())") }
            let screen = String(decoding: first.data, as: UTF8.self)
            guard screen.contains("\u{1B}["), screen.contains("band1"), screen.contains("tolerance") else {
                throw BenchFailure("wheel-run's first screen is not the resistor picker's UI: \(screen.prefix(300).debugDescription)")
            }
            guard !wheel.echoes else { throw BenchFailure("wheel-run left the terminal echoing keys: it is not the interactive UI") }
            result.firstScreen = first.data.count
            let clear = Array("\u{1B}[2J".utf8)
            result.setUp = first.data.indices.first { first.data[$0...].starts(with: clear) }.map { $0 + clear.count }
            // Idle: the loop wakes every tenth of a second; an unchanged screen sends nothing.
            result.idle = try wheel.readBurst(quiet: .milliseconds(500), firstByteWithin: .milliseconds(500)).data.count

            let clock = ContinuousClock()
            let started = clock.now
            var silentInARow = 0
            for index in 0..<keypresses {
                // A child that answers late or not at all fails the case, rather than keeping
                // the benchmark waiting for every key.
                guard silentInARow < 3 else { throw BenchFailure("no output for 3 keys in a row after \(index) keys") }
                guard started.duration(to: clock.now) < .seconds(120) else {
                    throw BenchFailure("\(index) keys took more than 120 s")
                }
                let key = TerminalBench.keys[index % TerminalBench.keys.count]
                // The sides take turns going first, so neither always follows the other.
                for wheelTurn in index % 2 == 0 ? [true, false] : [false, true] {
                    let child = wheelTurn ? wheel : reference
                    let (sent, burst) = try child.press(key.bytes)
                    if let last = burst.last {
                        let latency = sent.duration(to: last)
                        silentInARow = 0
                        if wheelTurn {
                            result.wheel.append((key.kind, latency, burst.data.count, burst.longestPause))
                            result.composition.add(burst.data)
                        } else {
                            guard burst.data == key.bytes else {
                                throw BenchFailure("cat answered \(burst.data) to \(key.bytes)")
                            }
                            result.reference.append(latency)
                        }
                    } else {
                        try child.checkRunning()
                        silentInARow += 1
                        if wheelTurn { result.wheelSilent += 1 } else { result.referenceSilent += 1 }
                    }
                }
                // The rest between keys; anything arriving now came late.
                result.wheelLate += try wheel.readBurst(quiet: TerminalBench.rest, firstByteWithin: TerminalBench.rest).data.count
                result.referenceLate += try reference.readBurst(quiet: .zero, firstByteWithin: .zero).data.count
            }

            result.exit = try wheel.quit(with: UInt8(ascii: "q"), within: .seconds(5))
            return result
        }
    }
    #endif

    // MARK: - Output

    /// Prints the section; returns whether the targets were met.
    static func report(_ result: Result) -> Bool {
        let wheelLatencies = result.wheel.map(\.latency)
        let wheelBytes = result.wheel.map { Double($0.bytes) }
        let wheelMedian = milliseconds(median(wheelLatencies))
        let referenceMedian = milliseconds(median(result.reference))
        let bytesMedian = wheelBytes.isEmpty ? 0 : FeedBench.median(wheelBytes)
        let budget = milliseconds(frameBudget)
        let fastEnough = !wheelLatencies.isEmpty && wheelMedian <= budget
        let smallEnough = !wheelBytes.isEmpty && bytesMedian <= Double(result.firstScreen) / 3
        let answered = result.wheelSilent == 0
        let met = fastEnough && smallEnough && answered

        func latencyRow(_ label: String, _ values: [Duration], silent: Int) -> String {
            let over = values.filter { $0 > frameBudget }.count
            return "| \(label) | \(values.count) | \(ms(median(values))) | \(ms(percentile(values, 0.90))) "
                + "| \(ms(percentile(values, 0.99))) | \(ms(values.max() ?? .zero)) | \(over) of \(values.count + silent) |"
        }
        func bytesRow(_ label: String, _ values: [Double]) -> String {
            guard !values.isEmpty else { return "| \(label) | — | — | — | — |" }
            let middle = FeedBench.median(values)
            return "| \(label) | \(FeedBench.grouped(Int(middle.rounded()))) | \(FeedBench.grouped(Int(values.min() ?? 0))) "
                + "| \(FeedBench.grouped(Int(values.max() ?? 0))) | \(fixed(middle / Double(max(1, result.firstScreen)), 2)) |"
        }
        func latencies(_ kind: Key.Kind) -> [Duration] { result.wheel.filter { $0.kind == kind }.map(\.latency) }
        let spins = result.wheel.filter { $0.kind != .tab }.map { Double($0.bytes) }
        let tabs = result.wheel.filter { $0.kind == .tab }.map { Double($0.bytes) }
        let pauses = result.wheel.map(\.pause)
        let keyNames = keys.map(\.label).joined(separator: " ")
        var lines = [
            caseName,
            "\(result.keypresses) keys per side (\(keyNames), in turn over the 4 wheels), wheel-run and cat taking turns key by key; "
                + "latency = last byte of the burst − key written (the \(Int(milliseconds(quiet))) ms quiet that ends a burst not counted)",
            "",
            "| key → last byte | keys | median | p90 | p99 | max | over \(fixed(budget, 1)) ms (60 Hz frame) |",
            "|---|---:|---:|---:|---:|---:|---:|",
            latencyRow("wheel-run: key → repaint", wheelLatencies, silent: result.wheelSilent),
            latencyRow("ref: cat on a raw pty: key → echo", result.reference, silent: result.referenceSilent),
            latencyRow("wheel-run, j/k only", latencies(.letter), silent: 0),
            latencyRow("wheel-run, ↑/↓ only (ESC O A, ESC O B)", latencies(.arrow), silent: 0),
            latencyRow("wheel-run, tab only", latencies(.tab), silent: 0),
            "",
            "wheel-run ÷ cat (medians): \(fixed(wheelMedian / max(referenceMedian, 1e-9), 1))x; "
                + "wheel-run's median is \(fixed(wheelMedian / budget * 100, 0))% of a 60 Hz frame",
            "",
            "| bytes sent | median | min | max | median ÷ full screen |",
            "|---|---:|---:|---:|---:|",
            "| full first screen (set-up\(result.setUp.map { " of \($0) bytes" } ?? ""), clear, every cell not blank) "
                + "| \(FeedBench.grouped(result.firstScreen)) | | | 1.00 |",
            bytesRow("per key, all", wheelBytes),
            bytesRow("per key, j/k/↑/↓ (a wheel turns, the status changes)", spins),
            bytesRow("per key, tab (the focus moves)", tabs),
            "",
            "target: median ≤ \(fixed(budget, 1)) ms: \(fastEnough ? "met" : "**missed**"); "
                + "median bytes per key ≤ a third of the full screen: \(smallEnough ? "met" : "**missed**"); "
                + "every key repainted: \(answered ? "met" : "**missed** (\(result.wheelSilent) keys got no output)")",
            "pauses inside a repaint (the longest between two reads, per key): median \(ms(median(pauses))), "
                + "max \(ms(pauses.max() ?? .zero)); keys whose repaint paused more than \(Int(milliseconds(tornPause))) ms: "
                + "\(pauses.filter { $0 > tornPause }.count) of \(pauses.count)",
            "what the keys' bytes were: \(result.composition.summary)",
            "idle after the first screen: \(result.idle) bytes in 0.5 s; late bytes (after a burst ended): "
                + "wheel-run \(result.wheelLate), cat \(result.referenceLate); after q: \(result.exit)",
        ]
        if result.referenceSilent > 0 { lines.append("note: cat did not echo \(result.referenceSilent) keys") }
        writeLine(lines.joined(separator: "\n"))
        return met
    }

    static func milliseconds(_ duration: Duration) -> Double { duration.nanoseconds / 1e6 }
    static func ms(_ duration: Duration) -> String { "\(fixed(milliseconds(duration), 2)) ms" }

    static func median(_ values: [Duration]) -> Duration {
        guard !values.isEmpty else { return .zero }
        return .nanoseconds(Int64(FeedBench.median(values.map(\.nanoseconds)).rounded()))
    }

    /// The nearest-rank percentile: the smallest value at least `fraction` of the values
    /// are at or below.
    static func percentile(_ values: [Duration], _ fraction: Double) -> Duration {
        guard !values.isEmpty else { return .zero }
        let sorted = values.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count, max(1, rank)) - 1]
    }

    /// Terminal output split into attribute changes (SGR sequences, and the character set
    /// designation curses sends with each reset), cursor moves (CSI H, d, G, f, A-D; CR,
    /// LF, BS) and the rest (text, other sequences).
    struct Composition {
        var attributes = 0
        var moves = 0
        var other = 0

        mutating func add(_ data: [UInt8]) {
            var index = 0
            while index < data.count {
                let byte = data[index]
                if byte == 0x1B, index + 2 < data.count, data[index + 1] == UInt8(ascii: "(") {
                    attributes += 3
                    index += 3
                } else if byte == 0x1B, index + 1 < data.count, data[index + 1] == UInt8(ascii: "[") {
                    var end = index + 2
                    while end < data.count, !(0x40...0x7E).contains(data[end]) { end += 1 }
                    let length = min(end, data.count - 1) - index + 1
                    switch end < data.count ? data[end] : 0 {
                    case UInt8(ascii: "m"): attributes += length
                    case UInt8(ascii: "H"), UInt8(ascii: "d"), UInt8(ascii: "G"), UInt8(ascii: "f"),
                         UInt8(ascii: "A")...UInt8(ascii: "D"): moves += length
                    default: other += length
                    }
                    index += length
                } else {
                    if byte == 13 || byte == 10 || byte == 8 { moves += 1 } else { other += 1 }
                    index += 1
                }
            }
        }

        var summary: String {
            let total = Double(max(1, attributes + moves + other))
            func share(_ count: Int) -> String { "\(fixed(Double(count) / total * 100, 0))%" }
            return "attributes \(share(attributes)) (SGR, with curses' character set reset), cursor moves \(share(moves)), "
                + "text and the rest \(share(other))"
        }
    }

    // MARK: - Finding wheel-run and the script

    /// The folder of this executable, symbolic links resolved.
    static func executableFolder() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        var path: String?
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if length > 0 {
            path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        } else if let resolved = realpath(CommandLine.arguments[0], nil) {
            path = String(cString: resolved)
            free(resolved)
        }
        guard let path, let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }

    static func locateWheelRun() -> String? {
        guard let folder = executableFolder() else { return nil }
        let path = folder + "/wheel-run"
        return access(path, X_OK) == 0 ? path : nil
    }

    /// examples/resistor.lua in the current folder, or in the nearest folder above the
    /// executable's (the package root, for an executable in .build*/release).
    static func locateScript() -> String? {
        let relative = "examples/resistor.lua"
        if access(relative, R_OK) == 0 { return relative }
        var folder = executableFolder()
        while let current = folder, !current.isEmpty {
            if access(current + "/" + relative, R_OK) == 0 { return current + "/" + relative }
            folder = current.lastIndex(of: "/").map { String(current[..<$0]) }
        }
        return nil
    }
}

// MARK: - A child on a pseudo-terminal

#if os(Linux)

/// A process whose standard input, output and error are the slave side of a fresh
/// pseudo-terminal, and whose controlling terminal it is (it leads a session of its own).
/// The master is read without blocking. `stop` (or losing the last reference) kills the
/// child if it is still running and closes both sides.
final class PseudoTerminalChild {
    let name: String
    let master: Int32
    /// Kept open so that the master never reads EIO while the child starts or ends.
    private var slave: Int32
    private var pid: pid_t?
    private var status: Int32?

    /// What was read in one burst: the bytes, and when the last of them arrived (nil:
    /// nothing came).
    struct Burst {
        var data: [UInt8] = []
        var last: ContinuousClock.Instant?
        /// The longest time between two reads that returned bytes.
        var longestPause: Duration = .zero
    }

    init(name: String, executable: String, arguments: [String], environment: [String], raw: Bool) throws {
        self.name = name
        master = PseudoTerminal.open()
        guard master >= 0 else { throw BenchFailure("\(name): posix_openpt failed (errno \(errno))") }
        slave = -1
        do {
            guard fcntl(master, F_SETFD, FD_CLOEXEC) == 0, fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK) == 0,
                  let slavePath = PseudoTerminal.unlockedSlave(of: master)
            else { throw BenchFailure("\(name): cannot set up the pseudo-terminal (errno \(errno))") }
            slave = open(slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard slave >= 0 else { throw BenchFailure("\(name): cannot open \(slavePath) (errno \(errno))") }
            var size = winsize(ws_row: TerminalBench.size.rows, ws_col: TerminalBench.size.columns, ws_xpixel: 0, ws_ypixel: 0)
            guard ioctl(master, UInt(TIOCSWINSZ), &size) == 0 else { throw BenchFailure("\(name): cannot set the pty's size") }
            if raw {
                var settings = termios()
                guard tcgetattr(slave, &settings) == 0 else { throw BenchFailure("\(name): tcgetattr failed") }
                cfmakeraw(&settings)
                guard tcsetattr(slave, TCSANOW, &settings) == 0 else { throw BenchFailure("\(name): tcsetattr failed") }
            }
            pid = try Self.spawn(executable, arguments: arguments, environment: environment, terminal: slavePath, name: name)
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// Starts `executable` in a session of its own (POSIX_SPAWN_SETSID comes before the
    /// file actions), so that opening the slave makes it the controlling terminal; it is
    /// then standard input, output and error. Signals the benchmark ignores or blocks are
    /// given back their defaults.
    private static func spawn(_ executable: String, arguments: [String], environment: [String], terminal: String,
                              name: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, terminal, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGWINCH, SIGTSTP, SIGTTIN, SIGTTOU] {
            sigaddset(&defaults, number)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(PseudoTerminal.spawnSetSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let failure = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard failure == 0 else { throw BenchFailure("\(name): cannot start \(executable) (errno \(failure))") }
        return pid
    }

    /// Whether the terminal's line discipline echoes keys or gathers lines (the state a
    /// pty starts in); curses turns both off.
    var echoes: Bool {
        var settings = termios()
        guard tcgetattr(slave, &settings) == 0 else { return true }
        return settings.c_lflag & tcflag_t(ECHO | ICANON) != 0
    }

    /// Writes one key and reads the burst it causes; returns when the key was written.
    func press(_ key: [UInt8]) throws -> (sent: ContinuousClock.Instant, burst: Burst) {
        let sent = ContinuousClock.now
        guard key.withUnsafeBytes({ write(master, $0.baseAddress, $0.count) }) == key.count else {
            throw BenchFailure("\(name): cannot write to the pty (errno \(errno))")
        }
        return (sent, try readBurst(quiet: TerminalBench.quiet, firstByteWithin: TerminalBench.answerTimeout))
    }

    /// Reads until `quiet` passes without a byte, waiting at most `firstByteWithin` for the
    /// first one; a child that never stops writing ends the burst after ten seconds.
    func readBurst(quiet: Duration, firstByteWithin timeout: Duration) throws -> Burst {
        let clock = ContinuousClock()
        let start = clock.now
        var burst = Burst()
        while start.duration(to: clock.now) < .seconds(10) {
            let waited = burst.last.map { $0.duration(to: clock.now) } ?? start.duration(to: clock.now)
            let left = (burst.last == nil ? timeout : quiet) - waited
            // A final read without waiting even when no time is left: bytes already there count.
            if try readAvailable(into: &burst.data) > 0 {
                let now = clock.now
                if let last = burst.last { burst.longestPause = max(burst.longestPause, last.duration(to: now)) }
                burst.last = now
                continue
            }
            if left <= .zero { break }
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32((left.nanoseconds / 1e6).rounded(.up)))
            if ready < 0 && errno != EINTR { throw BenchFailure("\(name): poll failed (errno \(errno))") }
        }
        return burst
    }

    /// Appends whatever the master has now; returns how many bytes that was.
    private func readAvailable(into data: inout [UInt8]) throws -> Int {
        var total = 0
        while true {
            let count = readBuffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: readBuffer[..<count])
                total += count
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EIO) { return total }
            if count == 0 { return total }
            throw BenchFailure("\(name): cannot read the pty (errno \(errno))")
        }
    }

    /// Whether the child has ended; collects its status if so.
    private func reap() -> Bool {
        guard let pid else { return true }
        var raw: Int32 = 0
        let result = waitpid(pid, &raw, WNOHANG)
        if result == pid || (result < 0 && errno == ECHILD) {
            status = raw
            self.pid = nil
            return true
        }
        return false
    }

    /// Throws when the child has ended.
    func checkRunning() throws {
        if reap() { throw BenchFailure("\(name) ended unexpectedly\(exitNote())") }
    }

    func exitNote() -> String {
        _ = reap()
        return status.map { ": \(Self.describe($0))" } ?? ""
    }

    /// Sends the key that quits and waits for the child to end, reading what it writes so
    /// that it never blocks on a full pty; kills it after `within`. Returns how it ended.
    func quit(with byte: UInt8, within: Duration) throws -> String {
        var key = byte
        _ = write(master, &key, 1)
        let clock = ContinuousClock()
        let start = clock.now
        while !reap() && start.duration(to: clock.now) < within {
            _ = try readBurst(quiet: .milliseconds(10), firstByteWithin: .milliseconds(10))
        }
        if pid != nil {
            stop()
            return "did not exit within \(Int(within.nanoseconds / 1e9)) s: killed"
        }
        return status.map(Self.describe) ?? "ended"
    }

    /// Ends the child and its process group (the session it leads) if it still runs:
    /// SIGTERM, then SIGKILL after a second. Closes both sides of the pty. Safe to call more
    /// than once.
    func stop() {
        if let pid, !reap() {
            kill(-pid, SIGTERM)
            let clock = ContinuousClock()
            let start = clock.now
            while !reap() && start.duration(to: clock.now) < .seconds(1) {
                var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, 10) > 0 { _ = try? readAvailable(into: &discarded) }
                discarded.removeAll(keepingCapacity: true)
            }
            if !reap() {
                kill(-pid, SIGKILL)
                var raw: Int32 = 0
                _ = waitpid(pid, &raw, 0)
                self.pid = nil
            }
        }
        if slave >= 0 { close(slave); slave = -1 }
        if !masterClosed { close(master); masterClosed = true }
    }

    private var discarded: [UInt8] = []
    /// Made once: a read that returns bytes is timed as it returns.
    private var readBuffer = [UInt8](repeating: 0, count: 4096)
    private var masterClosed = false

    /// `exit status 0`, or `killed by signal 9`, from a wait status.
    static func describe(_ status: Int32) -> String {
        status & 0x7f == 0 ? "exit status \((status >> 8) & 0xff)" : "killed by signal \(status & 0x7f)"
    }
}

/// The C library's pseudo-terminal functions. Glibc declares posix_openpt, grantpt,
/// unlockpt and ptsname_r only for X/Open or GNU sources, which Swift's Glibc module is
/// not built with, so they are looked up by name in the C library that is already loaded.
enum PseudoTerminal {
    /// glibc's POSIX_SPAWN_SETSID (spawn.h, a GNU extension the module does not import either).
    static let spawnSetSID: Int32 = 0x80

    /// posix_openpt (of flags), grantpt and unlockpt (of a master).
    private typealias OfInt = @convention(c) (Int32) -> Int32
    private typealias Name = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32

    private static func function<T>(_ name: String, as type: T.Type) -> T? {
        guard let library = dlopen(nil, RTLD_NOW), let symbol = dlsym(library, name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }

    /// A new master, or -1.
    static func open() -> Int32 {
        function("posix_openpt", as: OfInt.self)?(O_RDWR | O_NOCTTY) ?? -1
    }

    /// Grants and unlocks the slave of `master`; returns its path.
    static func unlockedSlave(of master: Int32) -> String? {
        guard let grant = function("grantpt", as: OfInt.self), let unlock = function("unlockpt", as: OfInt.self),
              let name = function("ptsname_r", as: Name.self), grant(master) == 0, unlock(master) == 0
        else { return nil }
        var buffer = [CChar](repeating: 0, count: 256)
        guard name(master, &buffer, buffer.count) == 0 else { return nil }
        let length = buffer.firstIndex(of: 0) ?? buffer.count
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
#endif
