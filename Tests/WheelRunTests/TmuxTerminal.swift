import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `wheel-run` on a real terminal: a tmux pane of a fixed size, on a tmux server of its
/// own (so that tests in parallel never share one), that a test types into and reads.
///
/// ```swift
/// let terminal = try TmuxTerminal(["examples/resistor.lua"])
/// defer { terminal.stop() }
/// try await terminal.waitFor(row: 1, " 4.7 kΩ ±5%")
/// try terminal.keys("j")
/// try await terminal.waitFor(row: 1, " 5.7 kΩ ±5%")
/// try terminal.keys("q")
/// let exit = try await terminal.exit()          // status, stderr, stty before and after
/// ```
///
/// The pane runs a shell script in the test's own folder: it saves `stty -g`, runs
/// wheel-run (its process id, its standard error and its status go to files), saves
/// `stty -g` again, and prints `wheel-run exited with N` on the restored screen. Every
/// wait polls `capture-pane` and is bounded; a timeout fails with the last screen.
final class TmuxTerminal {
    /// What wheel-run left when it ended.
    struct Exit {
        var status: Int32
        var errors: String
        var sttyBefore: String
        var sttyAfter: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// tmux, found on the PATH; the tests need it and say how to get it.
    static let tmux: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") + ["/usr/bin", "/usr/local/bin"] {
            let candidate = "\(folder)/tmux"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// The repository root: examples/ is below it.
    static let root = WheelRunTests.examples.deletingLastPathComponent()

    let socket = "wheel-tui-\(getpid())-\(UUID().uuidString.prefix(8))"
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wheel-tui-\(UUID().uuidString)")
    private let tmux: String
    private var stopped = false
    /// The server's socket file, which kill-server leaves behind.
    private var socketPath: String?

    /// Starts `wheel-run arguments` in a `width` × `height` pane, in `directory` (the
    /// repository root by default; `nil`: this terminal's own folder, where `files` are
    /// written first: name and text), under LANG=C.UTF-8, with NO_COLOR unset unless
    /// `environment` sets it.
    init(_ arguments: [String], width: Int = 80, height: Int = 24, in directory: URL? = TmuxTerminal.root,
         files: [String: String] = [:], environment: [String: String] = [:]) throws {
        guard let tmux = Self.tmux else {
            throw Failure(description: "tmux is not installed, and the terminal UI tests drive wheel-run in tmux: run scripts/setup")
        }
        self.tmux = tmux
        let executable = WheelRunTests.executable.path
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw Failure(description: "no wheel-run at \(executable): build the products first (swift build, or scripts/test)")
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let file = { (name: String) in Self.quoted(self.folder.appendingPathComponent(name).path) }
        var command = ["env", "-u", "NO_COLOR", "-u", "LC_ALL", "-u", "LC_CTYPE", "LANG=C.UTF-8"]
        command += environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        command += [executable] + arguments
        let script = """
            cd \(Self.quoted((directory ?? folder).path)) || exit 99
            stty -g > \(file("stty.before"))
            printf '%s\\n' "$TERM" > \(file("term"))
            sh -c 'echo $$ > "$0"; exec "$@"' \(file("pid")) \(command.map(Self.quoted).joined(separator: " ")) 2> \(file("stderr"))
            status=$?
            stty -g > \(file("stty.after"))
            printf 'wheel-run exited with %s\\n' "$status"
            echo "$status" > \(file("status.part")) && mv \(file("status.part")) \(file("status"))
            exec sleep 60
            """
        try script.write(to: folder.appendingPathComponent("run.sh"), atomically: true, encoding: .utf8)
        try run(["new-session", "-d", "-s", "wheel", "-x", String(width), "-y", String(height),
                 "sh " + Self.quoted(folder.appendingPathComponent("run.sh").path)])
        socketPath = try run(["display-message", "-p", "#{socket_path}"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit { stop() }

    /// Ends the tmux server (and wheel-run with it, if it still runs) and removes the folder.
    func stop() {
        guard !stopped else { return }
        stopped = true
        _ = try? run(["kill-server"], check: false)
        if let socketPath, socketPath.hasSuffix("/" + socket) { unlink(socketPath) }
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: - Input

    /// Keys by tmux's names: "j", "Down", "Tab", "C-c", "End", "Escape".
    func keys(_ keys: String...) throws {
        try run(["send-keys", "-t", "wheel"] + keys)
    }

    /// Text typed as it is (no key names).
    func type(_ text: String) throws {
        try run(["send-keys", "-t", "wheel", "-l", text])
    }

    /// Raw bytes, as a terminal sends them (a mouse report).
    func bytes(_ bytes: [UInt8]) throws {
        try run(["send-keys", "-t", "wheel", "-H"] + bytes.map { String($0, radix: 16) })
    }

    /// The mouse wheel at a cell (0-based), as an xterm-style terminal without SGR reports
    /// sends it: `ESC [ M`, the button (64 up, 65 down) + 32, the column + 33, the row + 33.
    func wheel(down: Bool, row: Int, column: Int) throws {
        try bytes([0x1B, 0x5B, 0x4D, UInt8(down ? 65 + 32 : 64 + 32), UInt8(column + 33), UInt8(row + 33)])
    }

    func resize(width: Int, height: Int) throws {
        try run(["resize-window", "-t", "wheel", "-x", String(width), "-y", String(height)])
    }

    /// Sends SIGTERM to wheel-run.
    func terminate() throws {
        try send(SIGTERM)
    }

    /// Sends a signal to wheel-run.
    func send(_ number: Int32) throws {
        let text = try String(contentsOf: folder.appendingPathComponent("pid"), encoding: .utf8)
        guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1 else {
            throw Failure(description: "no process id in \(text)")
        }
        guard kill(pid, number) == 0 else { throw Failure(description: "kill \(pid): errno \(errno)") }
    }

    // MARK: - Output

    /// The pane's rows, trailing spaces removed; `escapes`: with the SGR sequences of
    /// their colours and attributes.
    func screen(escapes: Bool = false) throws -> [String] {
        let text = try run(["capture-pane", "-p", "-t", "wheel"] + (escapes ? ["-e"] : []))
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// A tmux format about the pane: `#{cursor_flag}`, `#{alternate_on}`, ...
    func pane(_ format: String) throws -> String {
        try run(["display-message", "-p", "-t", "wheel", format]).trimmingCharacters(in: .newlines)
    }

    /// The value of $TERM in the pane.
    var term: String {
        get throws {
            try String(contentsOf: folder.appendingPathComponent("term"), encoding: .utf8)
                .trimmingCharacters(in: .newlines)
        }
    }

    /// Polls the screen every 30 ms until `condition` holds, for at most `timeout`;
    /// returns that screen, or throws with the last one. The condition sees at least 100
    /// rows (blank past the pane's), so that it may index rows a resize took away.
    @discardableResult
    func waitFor(_ what: @autoclosure () -> String, timeout: Duration = .seconds(10), escapes: Bool = false,
                 _ condition: ([String]) -> Bool) async throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        var last: [String] = []
        while true {
            last = try screen(escapes: escapes)
            if condition(last + Array(repeating: "", count: max(0, 100 - last.count))) { return last }
            if ContinuousClock.now >= deadline { break }
            try await Task.sleep(for: .milliseconds(30))
        }
        throw Failure(description: "timed out after \(timeout) waiting for \(what()); the screen:\n"
                      + Self.framed(last))
    }

    /// Waits until the whole screen is `expected` (rows past its end blank).
    @discardableResult
    func waitFor(screen expected: [String], timeout: Duration = .seconds(10)) async throws -> [String] {
        try await waitFor("the screen\n" + Self.framed(expected), timeout: timeout) { lines in
            lines.count >= expected.count && Array(lines.prefix(expected.count)) == expected
                && lines.dropFirst(expected.count).allSatisfy(\.isEmpty)
        }
    }

    /// Waits until row `row` is `text`. (A screen is drawn top to bottom, and a capture
    /// may come in the middle: rows below this one may still be the old ones.)
    @discardableResult
    func waitFor(row: Int, _ text: String, timeout: Duration = .seconds(10)) async throws -> [String] {
        try await waitFor(rows: [row: text], timeout: timeout)
    }

    /// Waits until each of `rows` is its text.
    @discardableResult
    func waitFor(rows: [Int: String], timeout: Duration = .seconds(10)) async throws -> [String] {
        let described = rows.sorted { $0.key < $1.key }.map { "row \($0.key) to be \"\($0.value)\"" }
        return try await waitFor(described.joined(separator: ", "), timeout: timeout) { lines in
            rows.allSatisfy { $0.key < lines.count && lines[$0.key] == $0.value }
        }
    }

    /// Quits with `q`, waits for wheel-run to end, and expects it to end well.
    @discardableResult
    func quitCleanly(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Exit {
        try keys("q")
        let exit = try await exit()
        #expect(exit.status == 0, "\(exit.errors)", sourceLocation: sourceLocation)
        #expect(exit.sttyAfter == exit.sttyBefore, sourceLocation: sourceLocation)
        return exit
    }

    /// Waits for wheel-run to end (at most `timeout`) and reads what it left.
    func exit(timeout: Duration = .seconds(10)) async throws -> Exit {
        let statusFile = folder.appendingPathComponent("status")
        let deadline = ContinuousClock.now + timeout
        while !FileManager.default.fileExists(atPath: statusFile.path) {
            if ContinuousClock.now >= deadline {
                throw Failure(description: "wheel-run did not end within \(timeout); the screen:\n"
                              + Self.framed((try? screen()) ?? []))
            }
            try await Task.sleep(for: .milliseconds(30))
        }
        let read = { (name: String) in
            (try? String(contentsOf: self.folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
        }
        guard let status = Int32(read("status").trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure(description: "no exit status in \(read("status"))")
        }
        return Exit(status: status, errors: read("stderr"), sttyBefore: read("stty.before"), sttyAfter: read("stty.after"))
    }

    /// A screen with a frame around it, for failure messages (trailing spaces show).
    static func framed(_ lines: [String]) -> String {
        lines.map { "|" + $0 + "|" }.joined(separator: "\n")
    }

    // MARK: - Attributes

    /// The SGR parameters in effect at each character of `line` (as `screen(escapes:
    /// true)` gives it), the escape sequences removed: `[("a", [1, 36]), ...]`.
    static func styled(_ line: String) -> [(character: Character, sgr: [Int])] {
        var result: [(Character, [Int])] = []
        var current: [Int] = []
        var index = line.startIndex
        while index < line.endIndex {
            if line[index] == "\u{1B}", line.index(after: index) < line.endIndex, line[line.index(after: index)] == "[" {
                var end = line.index(index, offsetBy: 2)
                while end < line.endIndex, !(line[end].isLetter) { end = line.index(after: end) }
                guard end < line.endIndex else { break }
                if line[end] == "m" {
                    let parameters = line[line.index(index, offsetBy: 2)..<end].split(separator: ";", omittingEmptySubsequences: false)
                        .map { Int($0) ?? 0 }
                    for parameter in parameters.isEmpty ? [0] : parameters {
                        switch parameter {
                        case 0: current = []
                        case 39: current.removeAll { (30...38).contains($0) || (90...97).contains($0) }
                        case 49: current.removeAll { (40...48).contains($0) || (100...107).contains($0) }
                        default: if !current.contains(parameter) { current.append(parameter) }
                        }
                    }
                }
                index = line.index(after: end)
                continue
            }
            result.append((line[index], current))
            index = line.index(after: index)
        }
        return result
    }

    /// The SGR parameters in effect where `text` begins on `line` (escapes included), or
    /// nil when the line does not contain it.
    static func sgr(of text: String, in line: String) -> [Int]? {
        let characters = styled(line)
        let plain = String(characters.map(\.character))
        guard let range = plain.range(of: text) else { return nil }
        return characters[plain.distance(from: plain.startIndex, to: range.lowerBound)].sgr.sorted()
    }

    /// Every SGR parameter that sets a colour (not a default) in `lines`: 30-38, 40-48,
    /// 90-97 and 100-107.
    static func colourParameters(_ lines: [String]) -> Set<Int> {
        var colours: Set<Int> = []
        for line in lines {
            var rest = Substring(line)
            while let start = rest.range(of: "\u{1B}[") {
                rest = rest[start.upperBound...]
                guard let end = rest.firstIndex(where: \.isLetter) else { break }
                if rest[end] == "m" {
                    for parameter in rest[..<end].split(separator: ";").compactMap({ Int($0) }) {
                        if (30...38).contains(parameter) || (40...48).contains(parameter)
                            || (90...97).contains(parameter) || (100...107).contains(parameter) {
                            colours.insert(parameter)
                        }
                    }
                }
                rest = rest[rest.index(after: end)...]
            }
        }
        return colours
    }

    // MARK: - tmux

    @discardableResult
    private func run(_ arguments: [String], check: Bool = true) throws -> String {
        let output = folder.appendingPathComponent("tmux.out"), errors = folder.appendingPathComponent("tmux.err")
        let status = try Self.spawn(tmux, ["-L", socket, "-f", "/dev/null"] + arguments, output: output.path, errors: errors.path)
        if check, status != 0 {
            let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw Failure(description: "tmux \(arguments.joined(separator: " ")): status \(status): \(message)")
        }
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }

    /// Runs `path` with `arguments` and waits for it, its output and errors going to files.
    ///
    /// Not through `Process`: the child gets every signal unblocked and at its default
    /// action, and no descriptor but 0-2, as from a login shell. A child of the test
    /// process would inherit the signal mask of a pool thread, which blocks SIGCHLD,
    /// SIGTERM and SIGWINCH: the tmux server started by `new-session`, and every pane
    /// under it, would never see a child end or a window change size.
    static func spawn(_ path: String, _ arguments: [String], output: String, errors: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // glibc's closefrom action (2.34), which Swift's Glibc module does not declare.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGWINCH, SIGTSTP, SIGTTIN, SIGTTOU,
                       SIGUSR1, SIGUSR2, SIGALRM] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var environment = ProcessInfo.processInfo.environment
        environment["TMUX"] = nil
        environment["TMUX_PANE"] = nil
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw Failure(description: "cannot run \(path): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(description: "waitpid \(pid): errno \(errno)") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// `text` as one word for sh.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// A TCP port on 127.0.0.1 that takes connections (the kernel completes them into the
/// listen backlog) and never answers: an HTTP request to it stays in flight.
final class SilentPort {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TmuxTerminal.Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw TmuxTerminal.Failure(description: "bind/listen: errno \(errno)")
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
