import Dispatch
import Testing
@testable import Lua

/// DESIGN invariant 4: limits that cannot be swallowed and leave the state usable.
@Suite struct LimitTests {
    static let deadline = Duration.milliseconds(200)
    /// Generous: the machines are shared. The point is that the call ends by itself.
    static let margin = Duration.milliseconds(1500)

    static let runaways: [(name: String, code: String)] = [
        ("loop", "while true do end"),
        ("loop in pcall", "pcall(function() while true do end end) while true do end"),
        ("pcall retried forever", "while true do pcall(function() while true do end end) end"),
        ("loop in a coroutine", "coroutine.wrap(function() while true do end end)()"),
        ("resume swallowing", "while true do coroutine.resume(coroutine.create(function() while true do end end)) end"),
        ("loop in an xpcall handler", "xpcall(error, function() while true do end end)"),
        ("xpcall catching", "while true do xpcall(function() while true do end end, function(e) return e end) end"),
        ("table.move over a huge range", "table.move({}, 1, math.maxinteger - 1, 2)"),
        ("loop in a __close", "do local x <close> = setmetatable({}, { __close = function() while true do end end }) end"),
        ("loop in a __close run by coroutine.close", """
            local co = coroutine.create(function()
              local x <close> = setmetatable({}, { __close = function() while true do end end })
              coroutine.yield()
            end)
            coroutine.resume(co)
            print(coroutine.close(co))
            """),
        ("loop in an xpcall handler after a timeout", "xpcall(function() while true do end end, function(e) while true do end end)"),
        ("loop in an xpcall handler inside pcall", "pcall(xpcall, function() while true do end end, function(e) while true do end end) while true do end"),
        ("loop in string.gsub callback", "string.gsub(('x'):rep(100), 'x', function() while true do end end)"),
    ]

    @Test(arguments: runaways.indices)
    func runawayScriptTimesOut(_ index: Int) throws {
        let (name, code) = Self.runaways[index]
        let state = try LuaState(options: .init(timeout: Self.deadline))
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try state.run(code, name: "runaway")
            Issue.record("\(name): no error")
        } catch LuaError.timeout(let limit, let failure) {
            #expect(limit == Self.deadline)
            #expect(failure.location?.hasPrefix("runaway:") == true, "\(name): \(failure)")
        } catch {
            Issue.record("\(name): \(error)")
        }
        let elapsed = clock.now - start
        #expect(elapsed >= Self.deadline - .milliseconds(10), "\(name) \(elapsed)")
        #expect(elapsed < Self.deadline + Self.margin, "\(name) \(elapsed)")
        #expect(try state.eval("40 + 2", as: Int.self) == 42, "\(name): the state is usable")
    }

    static let hogs: [(name: String, code: String)] = [
        ("string.rep", "local s = string.rep('x', 1e10)"),
        ("string.rep of 1 GB", "local s = string.rep('x', 1e9)"),
        ("string.rep with a separator", "local s = string.rep('x', 1e8, 'yy')"),
        ("string.rep in pcall", "local ok = pcall(string.rep, 'x', 1e9) error('swallowed: ' .. tostring(ok))"),
        ("table grown forever", "local t = {} local i = 0 while true do i = i + 1 t[i] = i end"),
        ("strings grown forever in pcall", "local ok, e = pcall(function() local t = {} while true do t[#t + 1] = ('x'):rep(1000) .. #t end end) error('swallowed: ' .. tostring(e))"),
        ("in a coroutine", "coroutine.wrap(function() local t = {} while true do t[#t + 1] = {} end end)()"),
        ("resume swallowing", "local ok = coroutine.resume(coroutine.create(function() return ('x'):rep(1e9) end)) error('swallowed')"),
        ("xpcall handler", "xpcall(function() error('x') end, function() return ('x'):rep(1e9) end) error('swallowed')"),
    ]

    @Test(arguments: hogs.indices)
    func memoryHogHitsTheCeiling(_ index: Int) throws {
        let (name, code) = Self.hogs[index]
        let limit = 32 << 20
        let state = try LuaState(options: .init(memoryLimit: limit, timeout: .seconds(20)))
        do {
            try state.run(code, name: "hog")
            Issue.record("\(name): no error")
        } catch LuaError.memory(let reported, _) {
            #expect(reported == limit)
        } catch {
            Issue.record("\(name): \(error)")
        }
        #expect(state.memoryUsed <= limit)
        #expect(try state.eval("('ok'):rep(2)", as: String.self) == "okok", "\(name): the state is usable")
    }

    @Test func theReplacedLibraryFunctionsKeepTheirContract() throws {
        let state = try LuaState(options: .init(memoryLimit: 32 << 20, timeout: .seconds(5)))
        #expect(try state.eval("string.rep('', math.maxinteger)", as: String.self) == "")
        #expect(try state.eval("string.rep('ab', 3, ', ')", as: String.self) == "ab, ab, ab")
        #expect(try state.eval("('x'):rep(0)", as: String.self) == "")
        #expect(try state.eval("table.concat(table.move({1, 2, 3, 4, 5}, 2, 4, 1), ',')", as: String.self) == "2,3,4,4,5")
        #expect(try state.eval("table.concat(table.move({1, 2, 3, 4, 5}, 1, 3, 3), ',')", as: String.self) == "1,2,1,2,3")
        #expect(try state.eval("table.concat(table.move({1, 2, 3}, 1, 3, 2, {}), ',', 2, 4)", as: String.self) == "1,2,3")
        #expect(throws: LuaError.self) { try state.eval("table.move(1, 1, 2, 3)", as: LuaValue.self) }
        #expect(throws: LuaError.self) { try state.eval("table.move({}, -1, math.maxinteger, 2)", as: LuaValue.self) }
    }

    /// __close handlers that close coroutines whose __close handlers close coroutines...:
    /// Lua 5.4.4 alone overflows the C stack here (a crash); Wheel stops at a fixed depth.
    @Test func deeplyNestedCoroutineCloseIsAnErrorNotACrash() throws {
        let state = try LuaState(options: .init(timeout: .seconds(10)))
        let make = try state.eval("""
            function(n)
              local function make(n)
                if n == 0 then return nil end
                local inner = make(n - 1)
                local co = coroutine.create(function()
                  local x <close> = setmetatable({}, { __close = function()
                    if inner then assert(coroutine.close(inner)) end
                  end })
                  coroutine.yield()
                end)
                coroutine.resume(co)
                return co
              end
              return select(2, coroutine.close(make(n)))
            end
            """, as: LuaFunction.self)
        #expect(try make.call(10, returning: String?.self) == nil)             // shallow: closes fine
        let message = try make.call(100_000, returning: String.self)
        #expect(message.contains("coroutine.close nested too deeply"), "\(message)")
        #expect(try state.eval("1 + 1", as: Int.self) == 2)
    }

    @Test func unboundedRecursionIsAStackOverflowAndTheStateRecovers() throws {
        let state = try LuaState(options: .init(memoryLimit: 256 << 20, timeout: .seconds(20)))
        do {
            try state.run("local function f(n) return 1 + f(n + 1) end f(1)", name: "deep")
            Issue.record("no error")
        } catch LuaError.runtime(let failure) {
            #expect(failure.message.contains("stack overflow"))
        }
        do {
            try state.run("local function f() return string.gsub('x', 'x', f) end f()", name: "cdeep")
            Issue.record("no error")
        } catch LuaError.runtime(let failure) {
            #expect(failure.message.contains("stack overflow"))
        }
        #expect(try state.eval("1", as: Int.self) == 1)
    }

    /// A Lua function that spins for `ms` milliseconds of wall-clock time (the deadline's
    /// clock; os.clock counts the whole process's CPU time, which a busy machine skews).
    static func spinner(_ state: LuaState) throws -> LuaFunction {
        try state.library().set("now_ms", state.function { () -> Double in
            Double(DispatchTime.now().uptimeNanoseconds) / 1e6
        })
        return try state.eval("function(ms) local t = now_ms() while now_ms() - t < ms do end return ms end", as: LuaFunction.self)
    }

    @Test func aDeadlineIsPerCallNotPerState() throws {
        let state = try LuaState(options: .init(timeout: .milliseconds(400)))
        let spin = try Self.spinner(state)
        for _ in 0..<4 { #expect(try spin.call(100, returning: Int.self) == 100) }   // 400 ms in all
        #expect(throws: LuaError.self) { try spin.call(5000, returning: Int.self) }
        #expect(try spin.call(10, returning: Int.self) == 10)
    }

    @Test func nestedCallsShareTheOuterDeadline() throws {
        let state = try LuaState(options: .init(timeout: .milliseconds(200)))
        let spin = try Self.spinner(state)
        try state.defaultEnvironment().set("host", state.function { () throws -> Int in
            try spin.call(150)
            try spin.call(150)       // 300 ms inside one outer call: the outer deadline fires
            return 1
        })
        let outer = try state.load("return host()", name: "outer")
        #expect {
            try outer.call()
        } throws: { error in
            if case LuaError.timeout = error { return true } else { return false }
        }
    }
}
