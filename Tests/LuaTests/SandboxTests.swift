import Foundation
import Testing
@testable import Lua

@Suite struct SandboxTests {
    /// Each escape attempt, and a piece of the message that denies it.
    static let escapes: [(code: String, denial: String)] = [
        ("io.open('/etc/passwd')", "attempt to index a nil value (global 'io')"),
        ("os.execute('true')", "attempt to call a nil value (field 'execute')"),
        ("os.exit(1)", "attempt to call a nil value (field 'exit')"),
        ("os.getenv('HOME')", "attempt to call a nil value (field 'getenv')"),
        ("os.remove('/tmp/x')", "attempt to call a nil value (field 'remove')"),
        ("require('socket.core')", "module 'socket.core' not found"),
        ("require('evil')", "module 'evil' not found"),
        ("package.loadlib('libc.so.6', 'system')", "attempt to index a nil value (global 'package')"),
        ("assert(load('\\27Lua\\84\\0'))", "attempt to load a binary chunk (mode is 't')"),
        ("assert(load('\\27Lua\\84\\0', 'x', 'b'))", "attempt to load a binary chunk (mode is 't')"),
        ("string.dump(print)", "attempt to call a nil value (field 'dump')"),
        ("(''):dump()", "attempt to call a nil value (method 'dump')"),
        ("debug.getregistry()", "attempt to index a nil value (global 'debug')"),
        ("dofile('/etc/passwd')", "dofile: '/etc/passwd' is outside the script's folder"),
        ("loadfile('../outside.lua')", "loadfile: '../outside.lua' is outside the script's folder"),
        ("dofile('link.lua')", "dofile: 'link.lua' is outside the script's folder"),
        ("getmetatable('').__index = function() end", "the string metatable is shared by every script and cannot be changed"),
        ("getmetatable('').__index.upper = nil", "the string library is shared by every script and cannot be changed"),
        ("rawset(getmetatable(''), '__index', {})", "bad argument #1 to 'rawset' (table expected, got the string metatable)"),
        ("setmetatable('', {})", "bad argument #1 to 'setmetatable' (table expected, got string)"),
        ("collectgarbage('stop')", "collectgarbage('stop') is not allowed in the sandbox (only 'count')"),
        ("collectgarbage()", "collectgarbage('collect') is not allowed in the sandbox (only 'count')"),
        ("require('../outside')", "module '../outside' not found"),
        ("setmetatable({}, { __gc = function() end })", "bad argument #2 to 'setmetatable' (__gc metamethods are not allowed in the sandbox"),
        ("json.decode_max_depth(1000)", "attempt to call a nil value (field 'decode_max_depth')"),
        ("json.encode_keep_buffer(false)", "attempt to call a nil value (field 'encode_keep_buffer')"),
    ]

    @Test(arguments: escapes.indices)
    func escapeAttemptIsDenied(_ index: Int) throws {
        let (code, denial) = Self.escapes[index]
        // The script's folder is root/scripts; root/outside.lua is a real file beside it.
        let root = try ScriptFolder([
            "outside.lua": "return 'escaped'", "scripts/evil.so": "not a library", "scripts/main.lua": code,
        ])
        try FileManager.default.createSymbolicLink(atPath: root.file("scripts/link.lua"), withDestinationPath: root.file("outside.lua"))
        let state = try LuaState()
        do {
            try state.load(file: root.file("scripts/main.lua")).call()
            Issue.record("not denied: \(code)")
        } catch let error as LuaError {
            #expect(error.description.contains(denial), "\(code): \(error)")
        }
    }

    @Test func collectgarbageCountStillWorks() throws {
        let state = try LuaState()
        #expect(try state.eval("collectgarbage('count')", as: Double.self) > 0)
    }

    @Test func theSafeLibraryIsThere() throws {
        let state = try LuaState()
        let names = try state.eval("""
            (function()
              local found = {}
              for _, n in ipairs { 'string', 'table', 'math', 'utf8', 'coroutine', 'os', 'json', 'print',
                                   'pcall', 'xpcall', 'load', 'require', 'pairs', 'tostring' } do
                if _G[n] ~= nil then found[#found + 1] = n end
              end
              return found
            end)()
            """, as: [String].self)
        #expect(names.count == 14)
        #expect(try state.eval("os.time{year=2026, month=11, day=22, hour=12}", as: Int.self) > 0)
        #expect(try state.eval("os.date('!%Y', 0)", as: String.self) == "1970")
        #expect(try state.eval("type(os.clock())", as: String.self) == "number")
        #expect(try state.eval("('abc'):upper()", as: String.self) == "ABC")
        #expect(try state.eval("load('return 1 + 1')()", as: Int.self) == 2)
    }

    @Test func scriptsCannotReachEachOther() throws {
        let state = try LuaState()
        let first = try state.load("""
            setmetatable(_G, { __index = function() return 'leak' end })
            string.upper = function() return 'hijacked' end
            shared = 'mine'
            """, name: "first")
        try first.call()
        let folder = try ScriptFolder(["b.lua": """
            return tostring(undefined_global), string.upper('x'), tostring(shared), ('y'):upper()
            """])
        let second = try state.load(file: folder.file("b.lua"))
        let values = try second.callForValues([])
        #expect(values.map { if case .string(let s) = $0 { s.description } else { "?" } } == ["nil", "X", "nil", "Y"])
    }

    @Test func loadInheritsTheScriptsEnvironment() throws {
        let state = try LuaState()
        let value = try state.eval("(function() secret = 41 return load('return secret + 1')() end)()", as: Int.self)
        #expect(value == 42)
    }

    @Test func requireFindsLuaFilesUnderTheFolderOnly() throws {
        let folder = try ScriptFolder([
            "main.lua": "local m = require 'lib.helper' local again = require 'lib.helper' return m.twice(21), m == again, require('pkg').name",
            "lib/helper.lua": "return { twice = function(x) return x * 2 end }",
            "pkg/init.lua": "return { name = 'pkg' }",
        ])
        let state = try LuaState()
        let values = try state.load(file: folder.file("main.lua")).callForValues([])
        guard values.count == 3, case .integer(42) = values[0], case .boolean(true) = values[1],
              case .string(let name) = values[2] else { Issue.record("\(values)"); return }
        #expect(name == "pkg")
    }

    @Test func errorsInRequiredFilesNameThoseFiles() throws {
        let folder = try ScriptFolder(["main.lua": "require 'bad'", "bad.lua": "local x = 1\nerror('inside')"])
        do {
            try LuaState().load(file: folder.file("main.lua")).call()
        } catch let LuaError.runtime(failure) {
            #expect(failure.message.hasSuffix("bad.lua:2: inside"))
        }
    }

    @Test func aRequireLoopIsNamedAndAFailedModuleCanBeRequiredAgain() throws {
        let folder = try ScriptFolder([
            "main.lua": "require 'a'",
            "a.lua": "require 'b'",
            "b.lua": "require 'a'",
            "flaky.lua": "attempts = (attempts or 0) + 1 if attempts == 1 then error('first time') end return 'loaded'",
            "retry.lua": "local ok = pcall(require, 'flaky') return tostring(ok) .. ' ' .. require('flaky')",
        ])
        let state = try LuaState()
        do {
            try state.load(file: folder.file("main.lua")).call()
            Issue.record("no error")
        } catch let LuaError.runtime(failure) {
            #expect(failure.message.contains("require loop: module 'a' requires itself"), "\(failure)")
        }
        #expect(try state.load(file: folder.file("retry.lua")).call(returning: String.self) == "false loaded")
    }

    @Test func trustedModeAllowsIoAndOs() throws {
        let state = try LuaState(options: .init(mode: .trusted))
        #expect(try state.eval("io.open('/dev/null') ~= nil", as: Bool.self))
        #expect(try state.eval("type(os.getenv('PATH'))", as: String.self) == "string")
        #expect(try state.eval("type(debug.getregistry())", as: String.self) == "table")
        #expect(try state.eval("type(string.dump(function() end))", as: String.self) == "string")
    }
}

extension SandboxTests {
    /// Lua sends a finalizer's error as a warning in pieces; the log gets one line.
    @Test func aFinalizerErrorIsOneWarningLine() throws {
        let lines = LogLines()
        let state = try LuaState(options: .init(mode: .trusted, log: lines.sink))
        try state.run("setmetatable({}, { __gc = function() error('in gc') end }) collectgarbage()", name: "w")
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.hasPrefix("error in __gc") == true, "\(lines.all)")
        #expect(lines.all.first?.contains("in gc") == true)
    }
}
