import Testing
@testable import Lua

/// An actor that owns a state, as a host would: every call into the state runs on it.
actor ScriptHost {
    let state: LuaState
    let delays: Bool

    init(delays: Bool = true) throws {
        state = try LuaState(options: .init(timeout: .seconds(5)))
        self.delays = delays
        let delays = delays
        try state.library().set("echo", state.asyncFunction { (value: Int) async throws -> Int in
            if delays { try await Task.sleep(for: .microseconds(Int.random(in: 0...2000))) }
            return value
        })
        try state.library().set("fail", state.asyncFunction { (code: Int) async throws -> Int in
            await Task.yield()
            throw HostFunctionTests.Refused(code: code)
        })
        try state.library().set("sleep", state.asyncFunction { (milliseconds: Int) async throws in
            try await Task.sleep(for: .milliseconds(milliseconds))
        })
    }

    func function(_ source: String) throws -> LuaFunction {
        try state.load("return " + source, name: "async").call(returning: LuaFunction.self)
    }

    func callWithoutDriver(_ source: String) throws {
        try function(source).call()
    }

    func call(_ source: String, _ argument: Int) async throws -> Int {
        try await function(source).callAsync(argument)
    }
}

@Suite struct AsyncTests {
    @Test func scriptReadsAsStraightLineCode() async throws {
        let host = try ScriptHost()
        let result = try await host.call("function(x) local a = echo(x) local b = echo(a + 1) return a * 10 + b end", 4)
        #expect(result == 45)
    }

    @Test func thousandConcurrentCoroutinesEachGetTheirOwnResult() async throws {
        let host = try ScriptHost()
        let results = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for i in 1...1000 {
                group.addTask { (i, try await host.call("function(i) local r = echo(i * 7) return r + echo(i) end", i)) }
            }
            var results: [Int: Int] = [:]
            for try await (i, value) in group {
                #expect(results[i] == nil)
                results[i] = value
            }
            return results
        }
        #expect(results.count == 1000)
        for i in 1...1000 { #expect(results[i] == i * 8) }
    }

    @Test func aScriptStartingAThousandCoroutinesGetsEveryResultOnceInTheRightOne() async throws {
        let host = try ScriptHost()
        let checked = try await host.call("""
            function(n)
              local results, seen = {}, {}
              local workers = {}
              for i = 1, n do
                workers[i] = coroutine.create(function(x)
                  local first = echo(x)
                  coroutine.yield(first)            -- an ordinary yield to the script
                  return echo(x * 2)
                end)
              end
              for round = 1, 2 do
                for i = 1, n do
                  local ok, value = coroutine.resume(workers[i], i)
                  assert(ok, value)
                  local expected = round == 1 and i or i * 2
                  if value ~= expected then error(('coroutine %d got %s'):format(i, tostring(value))) end
                  results[#results + 1] = value
                end
              end
              for i = 1, n do assert(coroutine.status(workers[i]) == 'dead') end
              return #results
            end
            """, 1000)
        #expect(checked == 2000)
    }

    @Test func generatorsThatAwaitStillYieldToTheirCaller() async throws {
        let host = try ScriptHost()
        let sum = try await host.call("""
            function(n)
              local pages = coroutine.wrap(function()
                for page = 1, n do coroutine.yield(echo(page)) end
              end)
              local total = 0
              for _ = 1, n do total = total + pages() end
              return total
            end
            """, 10)
        #expect(sum == 55)
    }

    @Test func asyncErrorsCanBeCaughtByTheScript() async throws {
        let host = try ScriptHost()
        let code = try await host.call("""
            function(x)
              local ok, e = pcall(fail, x)
              assert(not ok)
              return tostring(e) == 'Refused(code: ' .. x .. ')' and echo(x) or -1
            end
            """, 9)
        #expect(code == 9)
    }

    @Test func uncaughtAsyncErrorsArriveAsTheSameSwiftError() async throws {
        let host = try ScriptHost()
        do {
            _ = try await host.call("function(x)\n  return fail(x)\nend", 3)
            Issue.record("no error")
        } catch LuaError.host(let underlying, let failure) {
            #expect(underlying as? HostFunctionTests.Refused == .init(code: 3))
            #expect(failure.location == "async:2")
        }
    }

    @Test func callingAnAsyncFunctionWithoutADriverIsAClearError() async throws {
        let host = try ScriptHost()
        do {
            try await host.callWithoutDriver("function() return echo(1) end")
            Issue.record("no error")
        } catch let LuaError.runtime(failure) {
            #expect(failure.message.contains("outside a coroutine"))
        }
    }

    @Test func waitingWhereLuaCannotYieldIsAClearError() async throws {
        let host = try ScriptHost(delays: false)
        do {
            _ = try await host.call("""
                function(n)
                  local t = { 3, 1, 2 }
                  table.sort(t, function(a, b) return echo(a) < echo(b) end)
                  return n
                end
                """, 1)
            Issue.record("no error")
        } catch let LuaError.runtime(failure) {
            #expect(failure.message.contains("inside a call that cannot yield"), "\(failure)")
        }
        #expect(try await host.call("function(n) return echo(n) end", 7) == 7)   // still usable
    }

    @Test func aParkedCoroutineCannotBeResumedByAnotherDriver() async throws {
        let host = try ScriptHost()
        async let first = host.call("""
            function()
              shared = coroutine.create(function() sleep(300) return 1 end)
              local ok, value = coroutine.resume(shared)
              return value
            end
            """, 0)
        try await Task.sleep(for: .milliseconds(100))
        let second = try await host.call("""
            function()
              local ok, e = coroutine.resume(shared)
              assert(not ok and e == 'cannot resume a coroutine that is waiting for an async host function', e)
              local closed, e2 = pcall(coroutine.close, shared)
              assert(not closed and e2:find('waiting for an async host function'), e2)
              return 2
            end
            """, 0)
        #expect(second == 2)
        #expect(try await first == 1)
    }

    @Test func manyResumesEachWithItsOwnDeadline() async throws {
        // 200 awaits in one call: the waiting between resumes does not count.
        let host = try ScriptHost(delays: false)
        let total = try await host.call("""
            function(n)
              local total = 0
              for i = 1, n do total = total + echo(i) end
              return total
            end
            """, 200)
        #expect(total == 20100)
    }

    @Test func aRunawayCoroutineTimesOutOnATaskThread() async throws {
        // The driver resumes on Swift's cooperative threads, which block signals by
        // default: the deadline must still reach the script there.
        let state = try LuaState(options: .init(timeout: .milliseconds(200)))
        try state.library().set("sleep", state.asyncFunction { (milliseconds: Int) async throws in
            try await Task.sleep(for: .milliseconds(milliseconds))
        })
        let function = try state.load("""
            return function()
              sleep(300)
              sleep(300)
              while true do end
            end
            """, name: "=spin").call(returning: LuaFunction.self)
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try await function.callAsync()
            Issue.record("no error")
        } catch LuaError.timeout(_, let failure) {
            // The 600 ms asleep did not count against the 200 ms: the deadline hit the loop.
            #expect(failure.location == "spin:4", "\(failure)")
        }
        #expect(clock.now - start >= .milliseconds(750))
        #expect(clock.now - start < .seconds(60))     // ended by itself (generous: sanitizers, busy pool)
    }
}
