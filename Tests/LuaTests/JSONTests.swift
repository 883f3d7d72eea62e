import Foundation
import Testing
@testable import Lua

@Suite struct JSONTests {
    let state: LuaState
    init() throws { state = try LuaState(options: .init(jsonMaxDepth: 32)) }

    @Test func decodesAndEncodes() throws {
        let value = try state.eval("json.decode('{\"a\": [1, 2.5, \"x\", true]}').a", as: LuaData.self)
        #expect(value == .array([.integer(1), .number(2.5), .string("x"), .boolean(true)]))
        #expect(try state.eval("json.encode({ 1, 2, 3 })", as: String.self) == "[1,2,3]")
        #expect(try state.eval("require('json') == json", as: Bool.self))
    }

    @Test func wholeNumbersDecodeAsIntegers() throws {
        #expect(try state.eval("math.type(json.decode('{\"page\": 2}').page)", as: String.self) == "integer")
        #expect(try state.eval("'page ' .. json.decode('[[2]]')[1][1]", as: String.self) == "page 2")
        #expect(try state.eval("math.type(json.decode('7'))", as: String.self) == "integer")
        #expect(try state.eval("math.type(json.decode('[2.5]')[1])", as: String.self) == "float")
        #expect(try state.eval("math.type(json.decode('[1e300]')[1])", as: String.self) == "float")
        #expect(try state.eval("json.decode('[-9007199254740992]')[1]", as: Int.self) == -9007199254740992)
    }

    @Test func nullIsTheDocumentedSentinel() throws {
        #expect(try state.eval("json.decode('{\"a\": null}').a == json.null", as: Bool.self))
        #expect(try state.eval("json.encode({ json.null })", as: String.self) == "[null]")
        #expect(try state.eval("json.decode('[null]')", as: LuaData.self) == .array([.null]))
    }

    @Test(arguments: ["NaN", "[Infinity]", "[-Infinity]", "[0x10]", "{\"a\": 1", "", "[1,]", "{'a': 1}"])
    func strictDecodingRejects(_ text: String) throws {
        let decode = try state.eval("json.decode", as: LuaFunction.self)
        #expect(throws: LuaError.self) { try decode.call(text, returning: LuaValue.self) }
    }

    @Test func strictEncodingRejectsNaNAndInfinity() throws {
        for expression in ["json.encode(0/0)", "json.encode({ math.huge })", "json.encode(print)"] {
            #expect(throws: LuaError.self) { try state.eval(expression, as: String.self) }
        }
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        let decode = try state.eval("json.decode", as: LuaFunction.self)
        #expect(throws: LuaError.self) { try decode.call(deep, returning: LuaValue.self) }
        #expect(throws: LuaError.self) {
            try state.load("local t = {} t[1] = t return json.encode(t)", name: "cycle").call(returning: String.self)
        }
    }
}

@Suite struct ScriptFileTests {
    @Test func missingEmptyNonUTF8AndSyntaxErrorsAreTyped() throws {
        let folder = try ScriptFolder(["empty.lua": "", "blank.lua": "  \n\t\n", "syntax.lua": "local x = 1\nlocal = 2\n",
                                       "ok.lua": "#!/usr/bin/env wheel-run\nreturn 'ran'"])
        try Data([0x72, 0x65, 0x74, 0x75, 0x72, 0x6E, 0x20, 0xFF, 0xFE]).write(to: URL(fileURLWithPath: folder.file("latin.lua")))
        let state = try LuaState()
        func reason(_ name: String) -> String? {
            do {
                _ = try state.load(file: folder.file(name))
                return nil
            } catch LuaError.file(_, let reason) {
                return reason
            } catch {
                return "\(error)"
            }
        }
        #expect(reason("missing.lua") == "no such file")
        #expect(reason("empty.lua") == "the script is empty")
        #expect(reason("") == "is a folder, not a script file")     // the folder itself
        do {
            _ = try state.load(file: "/dev/zero")
            Issue.record("/dev/zero loaded")
        } catch LuaError.file(_, let reason) {
            #expect(reason.hasPrefix("larger than 64 MiB"))
        }
        #expect(reason("blank.lua") == "the script is empty")
        #expect(reason("latin.lua")?.contains("not valid UTF-8") == true)
        do {
            _ = try state.load(file: folder.file("syntax.lua"))
            Issue.record("no error")
        } catch LuaError.syntax(let failure) {
            #expect(failure.line == 2)
            #expect(failure.chunk?.hasSuffix("syntax.lua") == true)
            #expect(failure.description.hasSuffix("syntax.lua:2: <name> expected near '='"))
        }
        #expect(try state.load(file: folder.file("ok.lua")).call(returning: String.self) == "ran")
    }

    @Test func runtimeErrorsNameFileAndLineWithATraceback() throws {
        let folder = try ScriptFolder(["crash.lua": "local function explode()\n  local t = nil\n  return t.x\nend\nexplode()\n"])
        do {
            try LuaState().load(file: folder.file("crash.lua")).call()
        } catch LuaError.runtime(let failure) {
            #expect(failure.line == 3)
            #expect(failure.description.hasSuffix("crash.lua:3: attempt to index a nil value (local 't')"))
            #expect(failure.traceback.contains("crash.lua:5: in main chunk"))
            #expect(failure.traceback.contains("crash.lua:3: in local 'explode'"))
        }
    }
}
