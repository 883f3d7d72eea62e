import CLua
import Testing
@testable import Lua

@Suite struct ConversionTests {
    let state: LuaState
    init() throws { state = try LuaState() }

    @Test func scalarsRoundTrip() throws {
        let echo = try state.eval("function(...) return ... end", as: LuaFunction.self)
        #expect(try echo.call(42, returning: Int.self) == 42)
        #expect(try echo.call(Int64.min, returning: Int64.self) == .min)
        #expect(try echo.call(2.5, returning: Double.self) == 2.5)
        #expect(try echo.call(true, returning: Bool.self) == true)
        #expect(try echo.call("héllo ✓", returning: String.self) == "héllo ✓")
        #expect(try echo.call(Int?.none, returning: Int?.self) == nil)
    }

    @Test func numbersReadAsStringsAsInLua() throws {
        #expect(try state.eval("12", as: String.self) == "12")
        #expect(try state.eval("'12'", as: Int.self) == 12)
    }

    @Test func nulBytesTravelBothWays() throws {
        let length = try state.eval("function(s) return #s end", as: LuaFunction.self)
        #expect(try length.call("a\u{0}b\u{0}", returning: Int.self) == 4)
        let text = try state.eval("'x\\0y'", as: String.self)
        #expect(text == "x\u{0}y")
        #expect(text.utf8.count == 3)
    }

    @Test func stringsThatAreNotUTF8AreATypedErrorOrBytes() throws {
        #expect(throws: LuaError.self) { try state.eval("'\\xff\\xfe'", as: String.self) }
        #expect(try state.eval("'\\xff\\xfe'", as: LuaString.self).bytes == [0xFF, 0xFE])
    }

    @Test func integersBeyondInt64AndNaNAreTypeMismatches() throws {
        for expression in ["2^63", "1e300", "0/0", "1.5", "'99999999999999999999'", "math.huge"] {
            #expect(throws: LuaError.self, "\(expression)") { try state.eval(expression, as: Int.self) }
        }
        #expect(try state.eval("0/0", as: Double.self).isNaN)
        #expect(try state.eval("2^53", as: Int.self) == 1 << 53)       // exact floats convert
        #expect(throws: LuaError.self) { try state.eval("2^40", as: Int32.self) }
    }

    @Test func mismatchSaysWhatWasExpectedAndWhere() throws {
        do {
            _ = try state.eval("{1, 2, 'three'}", as: [Int].self)
            Issue.record("no error")
        } catch let LuaError.typeMismatch(expected, actual, context) {
            #expect(expected == "number")          // as Lua says it for an integer argument
            #expect(actual == "string")
            #expect(context == "[3]")
        }
        #expect(throws: LuaError.self) { try state.eval("function() end", as: String.self) }
        #expect(throws: LuaError.self) { try state.eval("nil", as: Bool.self) }
    }

    @Test func arraysAndDictionaries() throws {
        let sum = try state.eval("function(t) local s = 0 for _, v in ipairs(t) do s = s + v end return s end", as: LuaFunction.self)
        #expect(try sum.call([1, 2, 3, 4], returning: Int.self) == 10)
        let scores = try state.eval("{ ann = 3, bob = 5 }", as: [String: Int].self)
        #expect(scores == ["ann": 3, "bob": 5])
        let keys = try state.eval("function(t) local n = 0 for k in pairs(t) do n = n + 1 end return n end", as: LuaFunction.self)
        #expect(try keys.call(["a": 1, "b": 2], returning: Int.self) == 2)
        #expect(try state.eval("{}", as: [Int].self) == [])
        #expect(try state.eval("{ {1}, {2, 3} }", as: [[Int]].self) == [[1], [2, 3]])
    }

    @Test func numberKeysAreNotChangedByReadingThemAsStrings() throws {
        // lua_tolstring converts in place; reading a key must not disturb lua_next.
        let table = try state.eval("{ [1] = 'a', [2] = 'b', [3] = 'c' }", as: [String: String].self)
        #expect(table == ["1": "a", "2": "b", "3": "c"])
    }

    @Test func valuesKeepTheirKinds() throws {
        let values = try state.load("return nil, true, 3, 2.5, 'x', {}, print, coroutine.create(print)", name: "v")
            .callForValues([])
        guard values.count == 8 else { Issue.record("got \(values.count) values"); return }
        if case .nil = values[0] {} else { Issue.record("\(values[0])") }
        if case .boolean(true) = values[1] {} else { Issue.record("\(values[1])") }
        if case .integer(3) = values[2] {} else { Issue.record("\(values[2])") }
        if case .number(2.5) = values[3] {} else { Issue.record("\(values[3])") }
        if case .string(let s) = values[4] { #expect(s == "x") } else { Issue.record("\(values[4])") }
        if case .table = values[5] {} else { Issue.record("\(values[5])") }
        if case .function = values[6] {} else { Issue.record("\(values[6])") }
        if case .thread = values[7] {} else { Issue.record("\(values[7])") }
    }

    @Test func dataIsADeepCopyWithCycleDetection() throws {
        let data = try state.eval("{ id = 7, tags = {'a', 'b'}, nested = { ok = true } }", as: LuaData.self)
        #expect(data["id"] == .integer(7))
        #expect(data["tags"]?[1] == .string("b"))
        #expect(data["nested"]?["ok"] == .boolean(true))
        do {
            _ = try state.load("local t = { name = 'loop' } t.self = t return t", name: "cycle").call(returning: LuaData.self)
            Issue.record("no error")
        } catch let LuaError.typeMismatch(_, actual, context) {
            #expect(actual.contains("cycle"))
            #expect(context == "[\"self\"]")
        }
        #expect(throws: LuaError.self) { try state.eval("{ 1, 2, x = 3 }", as: LuaData.self) }
        #expect(throws: LuaError.self) { try state.eval("{ f = print }", as: LuaData.self) }
        // A shared, acyclic subtable is fine.
        let shared = try state.load("local s = {1} return { a = s, b = s }", name: "shared").call(returning: LuaData.self)
        #expect(shared["a"] == shared["b"])
    }

    @Test func dataPushesBack() throws {
        let encode = try state.eval("json.encode", as: LuaFunction.self)
        let data = LuaData.object(["list": .array([.integer(1), .null]), "name": .string("w")])
        let text = try encode.call(data, returning: String.self)
        #expect(text.contains("\"list\":[1,null]"))
    }
}

@Suite struct TableTests {
    @Test func getAndSetRunMetamethodsProtected() throws {
        let state = try LuaState()
        let table = try state.load("""
            return setmetatable({}, {
              __index = function(t, k) return k .. '!' end,
              __newindex = function(t, k, v) if k == 'bad' then error('no ' .. k) end rawset(t, k, v) end })
            """, name: "meta").call(returning: LuaTable.self)
        #expect(try table.get("hi", as: String.self) == "hi!")
        try table.set("fine", 1)
        #expect(try table.rawGet("fine", as: Int.self) == 1)
        #expect(throws: LuaError.self) { try table.set("bad", 1) }
        #expect(try table.get("fine", as: Int.self) == 1)    // still usable
        #expect(throws: LuaError.self) { try table.rawSet(Double.nan, 1) }
    }

    @Test func textAtAPathReadsNestedFieldsRawWithoutErrors() throws {
        let state = try LuaState()
        let table = try state.load("""
            return { user = { name = "ana", age = 30, ratio = 0.5, admin = false, tags = {} },
                     bytes = "\\255ok", hidden = setmetatable({}, { __index = function() error("no") end }) }
            """, name: "paths").call(returning: LuaTable.self)
        let stackTop = lua_gettop(state.handle)
        #expect(table.text(atPath: ["user", "name"]) == "ana")
        #expect(table.text(atPath: ["user", "age"]) == "30")
        #expect(table.text(atPath: ["user", "ratio"]) == "0.5")
        #expect(table.text(atPath: ["user", "admin"]) == "false")
        #expect(table.text(atPath: ["user", "tags"]) == nil)        // a table has no text
        #expect(table.text(atPath: ["user", "name", "x"]) == nil)   // a string is not a table
        #expect(table.text(atPath: ["missing", "name"]) == nil)
        #expect(table.text(atPath: ["hidden", "x"]) == nil)         // raw: no __index runs
        #expect(table.text(atPath: []) == nil)
        #expect(table.text(atPath: ["bytes"]) == "\u{FFFD}ok")      // not UTF-8: repaired
        #expect(lua_gettop(state.handle) == stackTop)
    }

    @Test func referencesAreReleasedThroughTheQueue() throws {
        let state = try LuaState()
        var table: LuaTable? = try state.newTable()
        let slot = table!.reference
        table = nil
        #expect(state.releases.hasPending)
        let next = try state.newTable()           // entering drains; the slot is reused
        #expect(!state.releases.hasPending)
        #expect(next.reference == slot)
    }

    @Test func referencesLetGoOnAnotherThreadAreQueuedNotRaced() async throws {
        let state = try LuaState()
        // Test only: references cross to another thread on purpose, as a host might
        // through unsafe code, to show that letting go there never touches the state.
        final class Holder: @unchecked Sendable { var tables: [LuaTable]? }
        let holder = Holder()
        holder.tables = try (0..<1000).map { _ in try state.newTable() }
        let slots = Set(holder.tables!.map(\.reference))
        await Task.detached { holder.tables = nil }.value
        #expect(state.releases.hasPending)
        let again = try (0..<1000).map { _ in try state.newTable() }   // the first entry drains
        #expect(Set(again.map(\.reference)) == slots)
    }
}
