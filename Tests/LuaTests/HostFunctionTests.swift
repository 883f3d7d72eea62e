import Testing
@testable import Lua

@Suite struct HostFunctionTests {
    @Test func typedArgumentsAndResults() throws {
        let state = try LuaState()
        try state.library().set("greet", state.function { (name: String, times: Int?) -> String in
            String(repeating: "hi \(name) ", count: times ?? 1)
        })
        #expect(try state.eval("greet('bob', 2)", as: String.self) == "hi bob hi bob ")
        #expect(try state.eval("greet('amy')", as: String.self) == "hi amy ")
    }

    @Test func wrongArgumentsGiveLuasUsualMessage() throws {
        let state = try LuaState()
        let http = try state.newTable()
        try http.set("get", state.function { (url: String, options: [String: String]?) -> Int in url.count })
        try state.library().set("http", http)
        let cases = [
            ("http.get('u', 5)", "bad argument #2 to 'get' (table expected, got number)"),
            ("http.get(nil)", "bad argument #1 to 'get' (string expected, got nil)"),
            ("http.get()", "bad argument #1 to 'get' (string expected, got no value)"),
            ("http.get(print)", "bad argument #1 to 'get' (string expected, got function)"),
            ("http.get('u', {a = {}})", "bad argument #2 to 'get' (string expected at [\"a\"], got table)"),
        ]
        for (code, message) in cases {
            do {
                try state.run(code, name: "call")
                Issue.record("\(code) did not fail")
            } catch let LuaError.runtime(failure) {
                #expect(failure.message == "call:1: " + message)
            }
        }
    }

    @Test func rawFunctionsTakeAndReturnAnyNumberOfValues() throws {
        let state = try LuaState()
        try state.library().set("count", state.function { call in
            call.return(call.count, try call.argument(1, as: String.self))
        })
        let values = try state.load("return count('a', 2, 3)", name: "n").callForValues([])
        guard values.count == 2, case .integer(3) = values[0], case .string(let s) = values[1] else {
            Issue.record("\(values)"); return
        }
        #expect(s == "a")
    }

    struct Refused: Error, Equatable { var code: Int }
    final class Marker: Error, @unchecked Sendable {}

    @Test func aSwiftErrorComesBackAsTheSameValue() throws {
        let state = try LuaState()
        let marker = Marker()
        let thrown: any Error = marker   // (`===` on a class error inside #expect crashes Swift 6.3.1's SILGen)
        try state.library().set("refuse", state.function { (code: Int) throws -> Int in throw Refused(code: code) })
        try state.library().set("mark", state.function { () throws -> Int in throw thrown })
        do {
            try state.load("local x = 1\nrefuse(7)", name: "script").call()
            Issue.record("no error")
        } catch LuaError.host(let underlying, let failure) {
            #expect(underlying as? Refused == Refused(code: 7))
            #expect(failure.location == "script:2")
        }
        do {
            try state.run("mark()", name: "m")
        } catch LuaError.host(let underlying, _) {
            let same = (underlying as AnyObject) === marker   // outside #expect: see `thrown`
            #expect(same)
        }
        // A script can catch it; tostring gives the error's description.
        let text = try state.eval("select(2, pcall(refuse, 3))", as: LuaValue.self)
        guard case .userdata = text else { Issue.record("\(text)"); return }
        #expect(try state.eval("tostring(select(2, pcall(refuse, 3)))", as: String.self) == "Refused(code: 3)")
    }

    /// Invariant 1: an error deep inside Lua→Swift→Lua→Swift nesting unwinds through Lua only.
    @Test func deepNestingFailureUnwindsCleanlyAndReleasesEverything() throws {
        let counter = LiveCount()
        do {
            let state = try LuaState()
            let library = try state.library()
            try library.set("inner", state.function { (depth: Int) throws -> Int in
                let guardObject = Tracked(counter)            // a Swift frame with a live object
                defer { _ = guardObject }
                throw HostFunctionTests.Refused(code: depth)
            })
            try library.set("outer", state.function { (callback: LuaFunction) throws -> Int in
                let guardObject = Tracked(counter)
                defer { _ = guardObject }
                // Swift → Lua: the callback calls inner, which throws.
                return try callback.call(Tracked(counter).counter.created, returning: Int.self)
            })
            let result = try state.load("""
                local function middle(n) return inner(n) end
                local ok, e = pcall(outer, function(n) return outer(middle) end)
                return ok, tostring(e)
                """, name: "nest").callForValues([])
            guard result.count == 2, case .boolean(false) = result[0], case .string(let message) = result[1] else {
                Issue.record("\(result)"); return
            }
            #expect(message.description.hasPrefix("Refused(code:"))
            #expect(try state.eval("1 + 1", as: Int.self) == 2)  // the state is usable
            state.close()
        }
        #expect(counter.created >= 4)
        #expect(counter.live == 0)
    }

    @Test func hostFunctionsAreReleasedWhenCollected() throws {
        let counter = LiveCount()
        let state = try LuaState()
        do {
            let tracked = Tracked(counter)
            let function = state.function { () -> Int in tracked.counter.live }
            #expect(try function.call(returning: Int.self) == 1)
        }
        #expect(counter.live == 1)          // Lua still holds the closure until it is collected
        state.collectGarbage()
        state.collectGarbage()
        #expect(counter.live == 0)
    }
}

@Suite struct UserdataTests {
    final class Counter: LuaUserdata {
        static let luaTypeName = "Counter"
        var value = 0
        let tracked: Tracked?
        init(_ counter: LiveCount? = nil) { tracked = counter.map(Tracked.init) }
        static func describe(_ type: inout LuaUserdataType<Counter>) {
            type.method("add") { (counter: Counter, amount: Int) in counter.value += amount }
            type.method("get") { (counter: Counter) in counter.value }
            type.property("value", get: { $0.value }, set: { $0.value = $1 })
            type.property("double", get: { $0.value * 2 })
            type.method("__tostring") { (counter: Counter) in "Counter(\(counter.value))" }
        }
    }

    @Test func methodsPropertiesAndMetamethods() throws {
        let state = try LuaState()
        let counter = Counter()
        try state.library().set("c", counter)
        let results = try state.load("""
            c:add(2); c:add(3)
            c.value = c.value + 10
            return c:get(), c.double, tostring(c), getmetatable(c)
            """, name: "u").callForValues([])
        guard results.count == 4, case .integer(15) = results[0], case .integer(30) = results[1],
              case .string(let text) = results[2], case .boolean(false) = results[3] else {
            Issue.record("\(results)"); return
        }
        #expect(text == "Counter(15)")
        #expect(counter.value == 15)
        #expect(try state.eval("c", as: Counter.self) === counter)
    }

    @Test func wrongSelfOrArgumentIsAnArgumentError() throws {
        let state = try LuaState()
        try state.library().set("c", Counter())
        let cases = [
            ("c.add(42, 1)", "bad argument #1 to 'add' (Counter expected, got number)"),
            ("c.add({}, 1)", "bad argument #1 to 'add' (Counter expected, got table)"),
            ("c:add('x')", "bad argument #1 to 'add' (number expected, got string)"),
            ("local t = { add = c.add } t:add(1)", "calling 'add' on bad self (Counter expected, got table)"),
            ("c.double = 1", "cannot set field 'double' of Counter"),
        ]
        for (code, message) in cases {
            do {
                try state.run(code, name: "u")
                Issue.record("\(code) did not fail")
            } catch let LuaError.runtime(failure) {
                #expect(failure.message.hasSuffix(message), "\(code)")
            }
        }
    }

    @Test func garbageCollectionReleasesTheObject() throws {
        let live = LiveCount()
        let state = try LuaState()
        try state.library().set("make", state.function { () -> Counter in Counter(live) })
        try state.run("for i = 1, 100 do local c = make() c:add(i) end", name: "make")
        #expect(live.created == 100)
        state.collectGarbage()
        #expect(live.live == 0)
    }
}

extension HostFunctionTests {
    /// A trusted script's finalizer can resurrect a host function whose box was released in
    /// the same collection: calling it is an error, not a call into a freed closure.
    @Test func aResurrectedReleasedHostFunctionIsAnError() throws {
        let state = try LuaState(options: .init(mode: .trusted))
        let setup = try state.load("""
            return function(holder)
              local g = holder.f
              holder.f = nil
              setmetatable({}, { __gc = function() resurrected = g end })
            end
            """, name: "setup").call(returning: LuaFunction.self)
        do {
            let holder = try state.newTable()
            try holder.set("f", state.function { () -> Int in 1 })
            try setup.call(holder)
        }
        try state.run("collectgarbage() collectgarbage() collectgarbage()", name: "gc")
        do {
            try state.run("resurrected()", name: "call")
            Issue.record("no error")
        } catch LuaError.runtime(let failure) {
            #expect(failure.message.contains("this host function was released"), "\(failure)")
        }
    }
}

/// The fixed-arity overloads of `call` and `function` (zero to three arguments) behave as
/// the variadic ones do.
@Suite struct FixedArityTests {
    @Test func callsWithZeroAndThreeArguments() throws {
        let state = try LuaState()
        let answer = try state.load("return function() return 42 end", name: "zero").call(returning: LuaFunction.self)
        #expect(try answer.call() as Int == 42)
        #expect(try answer.call(returning: String.self) == "42")
        try answer.call()

        let join = try state.load("return function(a, b, c) return a .. b .. c end", name: "three")
            .call(returning: LuaFunction.self)
        #expect(try join.call("a", 1, "c") as String == "a1c")
        #expect(try join.call(1, 2, 3, returning: String?.self) == "123")
        try join.call("x", "y", "z")

        let record = try state.load("return function(a, b, c) last = { a, b, c } end", name: "record")
            .call(returning: LuaFunction.self)
        try record.call(1, "two", 3.5)
        #expect(try state.eval("last[1] .. ' ' .. last[2] .. ' ' .. last[3]", as: String.self) == "1 two 3.5")

        do {
            let _: Int = try join.call("a", "b", "c")
            Issue.record("no type mismatch")
        } catch LuaError.typeMismatch(let expected, _, _) {
            #expect(expected == "integer" || expected == "number")
        }
        do {
            try join.call("a", "b", [Int]())
            Issue.record("no error")
        } catch LuaError.runtime(let failure) {
            #expect(failure.message.contains("attempt to concatenate"), "\(failure)")
        }
    }

    @Test func functionsWithZeroAndThreeArguments() throws {
        let state = try LuaState()
        let library = try state.library()
        var calls = 0
        try library.set("seven", state.function { () -> Int in 7 })
        try library.set("tick", state.function { () in calls += 1 })
        var stored: (String, Int, Double?) = ("", 0, nil)
        try library.set("store", state.function { (a: String, b: Int, c: Double?) in stored = (a, b, c) })
        #expect(try state.eval("seven() + seven()", as: Int.self) == 14)
        try state.run("tick() tick()", name: "tick")
        #expect(calls == 2)
        try state.run("store('s', 2, 0.5)", name: "store")
        #expect(stored.0 == "s" && stored.1 == 2 && stored.2 == 0.5)
        try state.run("store('t', 3)", name: "store")
        #expect(stored.0 == "t" && stored.1 == 3 && stored.2 == nil)
        do {
            try state.run("store('u', 4, 'no')", name: "call")
            Issue.record("no argument error")
        } catch LuaError.runtime(let failure) {
            #expect(failure.message == "call:1: bad argument #3 to 'store' (number expected, got string)", "\(failure)")
        }
    }
}

/// The fixed-arity `method` overloads (no argument to two, with and without a result)
/// read their arguments, borrow the object and report mismatches as the variadic ones do.
@Suite struct FixedArityMethodTests {
    final class Account: LuaUserdata {
        var balance = 0
        var log: [String] = []
        static let luaTypeName = "Account"
        static func describe(_ type: inout LuaUserdataType<Account>) {
            type.method("balance") { (account: Account) in account.balance }
            type.method("reset") { (account: Account) in account.balance = 0 }
            type.method("deposit") { (account: Account, amount: Int) -> Int in
                account.balance += amount
                return account.balance
            }
            type.method("note") { (account: Account, text: String) in account.log.append(text) }
            type.method("transfer") { (account: Account, amount: Int, to: Account) -> Bool in
                guard account.balance >= amount else { return false }
                account.balance -= amount
                to.balance += amount
                return true
            }
            type.method("set") { (account: Account, balance: Int, why: String?) in
                account.balance = balance
                account.log.append(why ?? "set")
            }
        }
    }

    @Test func everyArityWorks() throws {
        let state = try LuaState()
        let a = Account(), b = Account()
        try state.library().set("a", a)
        try state.library().set("b", b)
        let total = try state.load("""
            a:deposit(10); a:note('first')
            local moved = a:transfer(4, b)
            local refused = a:transfer(100, b)
            b:set(b:balance() + 1)
            a:set(a:balance(), 'kept')
            return a:balance() * 100 + b:balance(), moved, refused
            """, name: "u").callForValues([])
        guard total.count == 3, case .integer(605) = total[0], case .boolean(true) = total[1],
              case .boolean(false) = total[2] else {
            Issue.record("\(total)"); return
        }
        #expect(a.log == ["first", "kept"] && b.log == ["set"])
        try state.run("a:reset()", name: "u")
        #expect(a.balance == 0)
    }

    @Test func mismatchesAreArgumentErrors() throws {
        let state = try LuaState()
        try state.library().set("a", Account())
        let cases = [
            ("a:deposit('x')", "bad argument #1 to 'deposit' (number expected, got string)"),
            ("a:transfer(1, {})", "bad argument #2 to 'transfer' (Account expected, got table)"),
            ("a:set(1, {})", "bad argument #2 to 'set' (string expected, got table)"),
            ("a.balance(1)", "bad argument #1 to 'balance' (Account expected, got number)"),
            ("a.reset('a')", "bad argument #1 to 'reset' (Account expected, got string)"),
        ]
        for (code, message) in cases {
            do {
                try state.run(code, name: "u")
                Issue.record("\(code) did not fail")
            } catch let LuaError.runtime(failure) {
                #expect(failure.message.hasSuffix(message), "\(code): \(failure.message)")
            }
        }
    }
}
