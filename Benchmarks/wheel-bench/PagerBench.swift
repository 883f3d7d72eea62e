// Pagers: what binding a page costs, and whether a long swiping session holds on to memory.
//
// - "pager bind" (two rows of the main table, information only): a pager over 10,000
//   tweet-like records (`keep = 1`, no image field, so no image is fetched) swiped forward
//   one page at a time, each swipe unbinding one page and binding one, once with a table
//   of paths as its binding and once with a binding function. The reference is a C host
//   binding the same pages of the same records (CLuaReference's clr_pager_*): it reads
//   the same three fields with lua_getfield, or calls the same Lua function with lua_pcall
//   and reads the table it returns, and copies the strings into memory the page owns.
// - "pager memory" (a section of its own): the resident set size of the process and the
//   Lua state's memory before swiping, after 1,000 and after 100,000 swipes (a mix of
//   forward swipes and a random walk with jumps), each read after a full garbage
//   collection of the state and a trim of the C heap. Every reading after 1,000 swipes
//   must stay within `flatLimit` (resident) and `flatLuaLimit` (Lua) of the one at 1,000
//   (`--check`).
import CLuaReference
import Lua
import Wheel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum PagerBench {
    /// The records both sides page through.
    static let recordCount = 10_000
    /// Pages bound on each side of the current one (the DSL's default).
    static let keep = 1

    /// A Lua chunk called with a count; it returns that many records shaped like the search
    /// API's tweets (no image URL). Both sides run this text.
    static let records = """
        local count = ...
        local words = { "swift", "lua", "pager", "wheel", "bind", "swipe", "tweet", "page", "record", "field", "cache" }
        local list = {}
        for i = 1, count do
          local parts = {}
          for w = 1, 6 + i % 15 do parts[w] = words[(i * 7 + w * 3) % #words + 1] end
          list[i] = {
            id = i,
            from_user = "user" .. (i % 997),
            text = ("tweet %d: "):format(i) .. table.concat(parts, " "),
            created_at = "Mon, 23 Nov 2026 10:00:00 +0000",
            user = { name = "User Name " .. i, screen_name = "user" .. (i % 997) },
          }
        end
        return list
        """

    /// The two bindings of the same three fields, one of them nested.
    static let pathsBinding = #"{ title = "from_user", text = "text", subtitle = "user.name" }"#
    static let bindFunction = "function(r) return { title = r.from_user, text = r.text, subtitle = r.user.name } end"

    /// The checksum of a bound page, as the reference computes it: each field's length
    /// plus its last byte.
    static func checksum(_ page: PagerPage) -> UInt64 {
        titleChecksum(page.fields["title"] ?? "") &+ titleChecksum(page.fields["text"] ?? "")
            &+ titleChecksum(page.fields["subtitle"] ?? "")
    }

    // MARK: - A pager declared by a script

    /// A runtime whose script declared the pager "bench" over the records, started.
    final class DeclaredPager {
        let runtime: Runtime
        let pager: Pager
        /// What the host's observer saw.
        private(set) var binds = 0
        private(set) var unbinds = 0
        private(set) var mostBound = 0
        private(set) var sink: UInt64 = 0
        private(set) var problems: [String] = []

        /// - Parameter bind: the text of the pager's `bind` field.
        init(bind: String, options: Runtime.Options) throws {
            let runtime = try Runtime(options: options)
            let state = runtime.state
            let list = try state.load(PagerBench.records, name: "pager records").call(PagerBench.recordCount, returning: LuaTable.self)
            let declare = try state.load("""
                return function(records)
                  pager "bench" { items = records, keep = \(PagerBench.keep), bind = \(bind) }
                end
                """, name: "pager-bench.lua").call(returning: LuaFunction.self)
            try declare.call(list)
            guard let pager = runtime.pager(named: "bench") else { throw BenchFailure("the script declared no pager") }
            guard pager.pageCount == PagerBench.recordCount else { throw BenchFailure("the pager has \(pager.pageCount) pages") }
            self.runtime = runtime
            self.pager = pager
            pager.observe { [unowned self] event in
                switch event {
                case .bound(let page):
                    binds += 1
                    mostBound = max(mostBound, binds - unbinds)
                    sink &+= PagerBench.checksum(page)
                    if let problem = page.problem { problems.append(problem) }
                case .unbound:
                    unbinds += 1
                case .problem(let problem):
                    problems.append(problem.message)
                default:
                    break
                }
            }
            pager.start()
            try checkProblems()
        }

        /// One page on; from the last page, back to the first (as the reference does).
        func forward() {
            if pager.current == pager.pageCount - 1 { pager.jump(to: 0) } else { pager.swipe(by: 1) }
        }

        func checkProblems() throws {
            if let problem = problems.first { throw BenchFailure("the pager reported a problem: \(problem)") }
        }
    }

    /// A CLuaReference pager, closed with the case that uses it.
    final class ReferencePager {
        let state: ReferenceState
        let pointer: OpaquePointer

        init(bindFunction: String?) throws {
            state = try ReferenceState()
            let opened: OpaquePointer?
            if let bindFunction {
                opened = clr_pager_open(state.pointer, PagerBench.records, Int64(PagerBench.recordCount),
                                        "return " + bindFunction, Int32(PagerBench.keep))
            } else {
                opened = clr_pager_open(state.pointer, PagerBench.records, Int64(PagerBench.recordCount),
                                        nil, Int32(PagerBench.keep))
            }
            guard let opened else { throw BenchFailure("clr_pager_open failed") }
            pointer = opened
        }

        deinit { clr_pager_close(pointer) }
    }

    // MARK: - Binding cost

    /// A row of the main table: ns per swipe forward, each of which unbinds one page and
    /// binds one (over the 10,000 swipes of a pass through the records there are exactly
    /// 10,000 binds and 10,000 unbinds: the swipe onto the last page binds none, and the
    /// jump back to the first binds two).
    static func bindingCase(function: Bool) throws -> BenchCase {
        // No CPU deadline, no memory ceiling and no HTTP: the C side has none of them.
        let declared = try DeclaredPager(bind: function ? bindFunction : pathsBinding,
                                         options: .init(memoryLimit: nil, timeout: nil, transport: nil))
        let reference = try ReferencePager(bindFunction: function ? bindFunction : nil)
        return BenchCase(
            name: function
                ? "info: pager bind, bind = function(r) ... end, 3 fields (ns per bind)"
                : "info: pager bind, bind = 3 paths, one nested (ns per bind)",
            target: nil,
            wheel: { operations in
                let before = declared.sink
                for _ in 0..<operations { declared.forward() }
                try declared.checkProblems()
                return declared.sink &- before
            },
            reference: { operations in clr_pager_swipes(reference.pointer, Int64(operations)) },
            operation: "binds"
        )
    }

    static func bindingWithPaths() throws -> BenchCase { try bindingCase(function: false) }
    static func bindingWithFunction() throws -> BenchCase { try bindingCase(function: true) }

    // MARK: - Resident memory

    /// The largest growth from the reading after 1,000 swipes to any later one that still
    /// counts as flat: of the resident set, and of the Lua state's memory.
    static let flatLimit = 2 << 20
    static let flatLuaLimit = 64 << 10

    static let memoryCaseName = "pager memory: resident set while swiping 1,000 and 100,000 pages"

    /// The memory case, unless `only` names something else.
    static func memorySelected(by only: String?) -> Bool {
        only.map { memoryCaseName.contains($0) } ?? true
    }

    /// One reading: after a full collection of the state.
    struct Reading {
        var swipes: Int
        var binds: Int
        var resident: Int?
        /// `collectgarbage("count")` in KiB, and the state's allocator's count in bytes.
        var luaKiB: Double
        var luaBytes: Int
    }

    /// The walk: blocks of 500 forward swipes (back to the first page from the last) and
    /// 500 steps of a random walk (a swipe back or on, or in 1 step of 100 a jump to any
    /// page), taking turns.
    struct Walk {
        var random = SplitMix64(seed: 0x5eed_0f_9a9e5)

        mutating func step(_ number: Int, on declared: DeclaredPager) {
            if (number / 500) % 2 == 0 {
                declared.forward()
                return
            }
            let value = random.next()
            if value % 100 == 0 {
                declared.pager.jump(to: Int((value >> 8) % UInt64(PagerBench.recordCount)))
            } else {
                declared.pager.swipe(by: (value >> 1) & 1 == 0 ? 1 : -1)
            }
        }
    }

    /// Runs the memory walks and prints their section; returns the names of the walks
    /// whose memory grew.
    static func runMemory(afterOutput: Bool) throws -> [String] {
        if afterOutput { writeLine("") }
        writeLine("Pagers: memory while swiping (\(FeedBench.grouped(recordCount)) records, keep \(keep), no images; "
            + "a full Lua collection before each reading)")
        var missed: [String] = []
        for (label, bind) in [("bind = 3 paths", pathsBinding), ("bind = function", bindFunction)] {
            writeLine("")
            let name = "\(memoryCaseName), \(label)"
            if try !memoryWalk(name: name, bind: bind) { missed.append(name) }
        }
        return missed
    }

    static let checkpoints = [1_000, 10_000, 25_000, 50_000, 75_000, 100_000]

    /// One walk of 100,000 steps; prints its readings and returns whether memory stayed flat.
    static func memoryWalk(name: String, bind: String) throws -> Bool {
        // Wheel's default limits: this is the runtime a host runs.
        let declared = try DeclaredPager(bind: bind, options: .init(transport: nil))
        let state = declared.runtime.state
        let count = try state.load("return collectgarbage('count')", name: "count")
        func reading(after swipes: Int) throws -> Reading {
            state.collectGarbage()
            // Free heap pages go back to the system, so that memory freed earlier in the
            // process (by other cases, or the other walk) cannot hide growth.
            _ = clr_trim_heap()
            let kib = try count.call(returning: Double.self)
            return Reading(swipes: swipes, binds: declared.binds, resident: residentBytes(), luaKiB: kib, luaBytes: state.memoryUsed)
        }

        var readings = [try reading(after: 0)]
        var walk = Walk()
        var steps = 0
        for checkpoint in checkpoints {
            while steps < checkpoint {
                walk.step(steps, on: declared)
                steps += 1
            }
            readings.append(try reading(after: steps))
        }
        try declared.checkProblems()
        let bound = declared.pager.boundPages.count
        guard declared.binds - declared.unbinds == bound, declared.mostBound <= 2 * keep + 1 else {
            throw BenchFailure("\(name): \(declared.binds) binds, \(declared.unbinds) unbinds, \(bound) pages bound, "
                + "at most \(declared.mostBound) at once")
        }

        let base = readings[1]   // after 1,000 swipes
        let later = readings.dropFirst(2)
        var lines = [
            name,
            "blocks of 500 forward swipes and 500 random-walk steps (back or on; 1 in 100 a jump), taking turns; "
                + "\(FeedBench.grouped(declared.binds)) binds, \(FeedBench.grouped(declared.unbinds)) unbinds, "
                + "at most \(declared.mostBound) pages bound",
            "",
            "| after | binds | resident | resident − at 1,000 | Lua (collectgarbage count) | Lua − at 1,000 |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for reading in readings {
            let label = reading.swipes == 0 ? "start (before swiping)" : "\(FeedBench.grouped(reading.swipes)) swipes"
            let isBase = reading.swipes <= base.swipes
            var residentGrowth = "—"
            if !isBase, let resident = reading.resident, let baseResident = base.resident {
                residentGrowth = signedKiB(Double(resident - baseResident) / 1024)
            }
            lines.append("| \(label) | \(FeedBench.grouped(reading.binds)) | \(reading.resident.map(mebibytes) ?? "n/a") "
                + "| \(residentGrowth) | \(kibibytes(reading.luaKiB)) "
                + "| \(isBase ? "—" : signedKiB(reading.luaKiB - base.luaKiB)) |")
        }

        let last = readings[readings.count - 1]
        let largestLua = later.map(\.luaBytes).max() ?? last.luaBytes
        let luaFlat = largestLua - base.luaBytes < flatLuaLimit
        let luaGrowth = "Lua: \(signedKiB(last.luaKiB - base.luaKiB)) (allocator count: \(signedKiB(Double(last.luaBytes - base.luaBytes) / 1024)))"
        let flat: Bool
        lines.append("")
        if let baseResident = base.resident, let lastResident = last.resident {
            let largest = later.compactMap(\.resident).max() ?? lastResident
            flat = luaFlat && largest - baseResident < flatLimit
            lines.append("resident growth from 1,000 to 100,000 swipes: \(signedKiB(Double(lastResident - baseResident) / 1024)) "
                + "(largest reading after 1,000: \(signedKiB(Double(largest - baseResident) / 1024))); \(luaGrowth); "
                + "flat = every later reading less than \(flatLimit >> 20) MiB (resident) and \(flatLuaLimit >> 10) KiB (Lua) "
                + "above the one after 1,000 swipes: \(flat ? "met" : "**missed**")")
        } else {
            flat = luaFlat
            lines.append("the resident set size is not available here (/proc/self/statm); \(luaGrowth); "
                + "flat = every later Lua reading less than \(flatLuaLimit >> 10) KiB above the one after 1,000 swipes: "
                + (flat ? "met" : "**missed**"))
        }
        writeLine(lines.joined(separator: "\n"))
        return flat
    }

    // MARK: - Figures

    /// The process's resident set size in bytes (Linux: /proc/self/statm); nil elsewhere.
    static func residentBytes() -> Int? {
        let descriptor = open("/proc/self/statm", O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard length > 0 else { return nil }
        // "size resident shared text lib data dt", in pages.
        let fields = buffer[..<length].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func mebibytes(_ bytes: Int) -> String { "\(fixed(Double(bytes) / 1_048_576, 2)) MiB" }

    /// `5,474.1 KiB`.
    static func kibibytes(_ kib: Double) -> String {
        let tenths = Int((kib.magnitude * 10).rounded())
        return (kib < 0 && tenths > 0 ? "-" : "") + "\(FeedBench.grouped(tenths / 10)).\(tenths % 10) KiB"
    }

    static func signedKiB(_ kib: Double) -> String { (kib >= 0 || (kib.magnitude * 10).rounded() == 0 ? "+" : "") + kibibytes(kib) }
}

/// A small deterministic generator (SplitMix64), so that every run walks the same way.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
