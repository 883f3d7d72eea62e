import CLua
import Testing
@testable import Lua

/// `LuaState.repeatedly`: many calls under one message handler, each still a call of its
/// own: its own result, its own error, its own deadline.
@Suite struct RepeatedCallsTests {
    static func title(_ state: LuaState) throws -> LuaFunction {
        try state.load("""
            return function(p, i)
              if i == 3 then error('row three') end
              if i == 4 then return {} end
              if i == 5 then while true do end end
              return p.prefix .. i
            end
            """, name: "titles").call(returning: LuaFunction.self)
    }

    @Test(arguments: [nil, 64 << 20] as [Int?])
    func eachCallHasItsOwnResultAndError(memoryLimit: Int?) throws {
        let state = try LuaState(options: .init(memoryLimit: memoryLimit))
        let title = try Self.title(state)
        let object: LuaValue = try state.load("return { prefix = 'row ' }", name: "p").call()
        let outcomes = try state.repeatedly(first: object) { calls in
            [1, 2, 3, 4, 6].map { row -> String in
                do { return try calls.call(title, row, returning: String.self) } catch { return "error: \(error)" }
            }
        }
        #expect(outcomes == ["row 1", "row 2", "error: titles:2: row three",
                             "error: string expected, got table", "row 6"])
        #expect(lua_gettop(state.handle) == 0)                  // the run left the stack as it was
        #expect(try state.eval("1 + 1", as: Int.self) == 2)     // and the state usable
    }

    @Test func aPlainFirstArgumentComesBeforeEachArgument() throws {
        let state = try LuaState()
        let join = try state.load("return function(a, b) return a .. '/' .. b end", name: "j")
            .call(returning: LuaFunction.self)
        let joined = try state.repeatedly(first: .integer(7)) { calls in
            try (1...3).map { try calls.call(join, $0, returning: String.self) }
        }
        #expect(joined == ["7/1", "7/2", "7/3"])
        // Without a first argument, the argument is the only one: b is nil.
        #expect {
            try state.repeatedly { calls in try calls.call(join, "x", returning: String.self) }
        } throws: { error in
            "\(error)".contains("attempt to concatenate a nil value (local 'b')")
        }
    }

    @Test func eachCallGetsItsOwnDeadline() throws {
        let state = try LuaState(options: .init(timeout: .milliseconds(200)))
        let title = try Self.title(state)
        let object: LuaValue = try state.load("return { prefix = 'row ' }", name: "p").call()
        let outcomes = try state.repeatedly(first: object) { calls in
            [5, 1, 5, 2].map { row -> String in
                do {
                    return try calls.call(title, row, returning: String.self)
                } catch LuaError.timeout {
                    return "timeout"
                } catch {
                    return "error: \(error)"
                }
            }
        }
        #expect(outcomes == ["timeout", "row 1", "timeout", "row 2"])
    }

    @Test func aClosedStateRefusesTheRun() throws {
        let state = try LuaState()
        state.close()
        #expect(throws: LuaError.self) { try state.repeatedly { _ in 1 } }
    }
}
