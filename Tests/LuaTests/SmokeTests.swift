import Testing
@testable import Lua

@Test func smoke() throws {
    let state = try LuaState()
    let f = try state.load("return function(a, b) return a + b end", name: "add").call(returning: LuaFunction.self)
    let sum: Int = try f.call(2, 3)
    #expect(sum == 5)
    let greet = state.function { (name: String, times: Int?) -> String in String(repeating: "hi \(name) ", count: times ?? 1) }
    try state.defaultEnvironment().set("greet", greet)
    let r: String = try state.load("return greet('bob', 2)", name: "g").call()
    #expect(r == "hi bob hi bob ")
    do {
        try state.run("greet(nil)", name: "bad")
        Issue.record("no error")
    } catch {
        #expect("\(error)" == "bad:1: bad argument #1 to 'greet' (string expected, got nil)")
    }
    do {
        try state.run("local x = nil; x.y = 1", name: "idx")
    } catch let LuaError.runtime(f) {
        #expect(f.line == 1)
        print(f, f.traceback)
    }
}
