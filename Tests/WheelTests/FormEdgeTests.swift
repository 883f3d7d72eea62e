import Foundation
import Synchronization
import Testing
import Lua
@testable import Wheel
import WheelCore
import WheelServer

/// Forms at their edges: dependent picker wheels, a field whose error depends on another,
/// values with spaces round them, stricter e-mail checks, an `on_submit` that posts over
/// real HTTP (and a second submit while it waits), and an offset a host gives that lies
/// beyond the content.
@Suite struct FormEdgeTests {
    let scripts = PickerScripts()

    @Test func aPickerFieldFollowsADependentWheelThatReloads() async throws {
        // The day wheel's titles depend on the month: on_change reloads it, which turns
        // nothing but changes what the field must say.
        let run = try await scripts.run("""
            local months = { "Jan", "Feb" }
            picker "when" {
              components = {
                { id = "month", items = months },
                { id = "day", count = 2, title = function(p, i) return p:item("month") .. "-" .. i end },
              },
              on_change = function(p, component) if component == "month" then p:reload("day") end end,
            }
            form "trip" { fields = { { id = "date", kind = "picker", picker = "when" } } }
            """)
        let form = run.form
        try form.layout(FormDevice.stacked(["date"]))
        _ = try form.focus("date")
        #expect(form.field("date")?.text == "Jan Jan-1")
        try run.picker.scroll("month", by: 1)
        #expect(form.field("date")?.text == "Feb Feb-1")
        #expect(await form.submit() == .submitted)
    }

    @Test func aManyWheeledPickerFieldFocusedAgainTakesWhatTheWheelsShow() async throws {
        let run = try await scripts.run("""
            picker "place" { components = { { id = "country", items = { "France", "Germany" } },
                                             { id = "city", items = { "Paris", "Berlin" } } } }
            form "f" { fields = { { id = "where", kind = "picker", picker = "place" } },
                       on_submit = function(values) note(values["where"]) end }
            """)
        let form = run.form
        try form.layout(FormDevice.stacked(["where"]))
        _ = try form.focus("where")
        _ = try form.done()
        try run.picker.scroll("country", by: 1)
        try run.picker.scroll("city", by: 1)                // turned while the field is not edited
        #expect(form.field("where")?.text == "France Paris")
        _ = try form.focus("where")                         // what the user sees on the wheels
        #expect(form.field("where")?.text == "Germany Berlin")
        #expect(await form.submit() == .submitted)
        #expect(run.host.notes == ["Germany Berlin"])
    }

    @Test func anErrorThatDependsOnAnotherFieldGoesWhenThatFieldIsCorrected() async throws {
        let run = try await scripts.run("""
            form "f" { fields = {
              { id = "email", kind = "email" },
              { id = "confirm", kind = "email",
                validate = function(v, f) return v == f:value("email"), "does not match" end },
            } }
            """)
        let form = run.form
        try form.setText("ana@example.org", of: "confirm")
        try form.setText("ana@exmaple.org", of: "email")
        #expect(try form.validate("confirm") == "does not match")
        try form.setText("ana@example.org", of: "email")   // the other field is fixed
        #expect(form.field("confirm")?.error == nil)
    }

    @Test func oneLineValuesReachTheScriptWithoutTheSpacesRoundThem() async throws {
        let run = try await scripts.run("""
            form "f" {
              fields = { { id = "name" }, { id = "email", kind = "email" }, { id = "zip",
                           validate = function(v) return v:find("^%d%d%d%d%d$") ~= nil, "five digits" end },
                         { id = "bio", kind = "multiline" } },
              on_submit = function(values) note(("[%s][%s][%s][%s]"):format(values.name, values.email, values.zip, values.bio)) end,
            }
            """)
        let form = run.form
        try form.setText("  Ana ", of: "name")
        try form.setText(" ana@example.org ", of: "email")
        try form.setText("26003 ", of: "zip")
        try form.setText(" two\nlines ", of: "bio")
        #expect(await form.submit() == .submitted)
        #expect(run.host.notes == ["[Ana][ana@example.org][26003][ two\nlines ]"])
        #expect(form.field("name")?.text == "  Ana ")       // the text stays as typed
    }

    @Test(arguments: [
        ("ana@example.org", true), ("a.b+c@mail.example.co.uk", true), ("zoë@exämple.de", true),
        ("a@b..c", false), ("a@.b.c", false), ("<a@b.c>", false), ("a@b.c,", false), ("a b@c.de", false),
        (".a@b.cd", false), ("a..b@c.de", false), ("a@-b.cd", false), ("a@b", false), ("@b.cd", false), ("a@@b.cd", false),
    ])
    func theEmailCheckTakesAddressesPeopleType(text: String, valid: Bool) {
        #expect(Form.looksLikeEmail(text) == valid)
    }

    @Test func aHostOffsetBeyondTheContentIsClampedAtTheFirstLayout() async throws {
        let run = try await scripts.run(#"form "f" { fields = { { id = "a" } } }"#)
        var layout = FormDevice.stacked(["a"])
        layout.offset = Point(x: 0, y: 5_000)                // content 700, view 480, inset 49: at most 269
        #expect(try run.form.layout(layout)?.offset == Point(x: 0, y: 269))
        #expect(try run.form.layout(layout) == nil)         // the same layout again moves nothing
    }
}

/// `on_submit` as a coroutine on the runtime's actor: two submits on one form can only
/// overlap within one isolation domain, so this suite runs on the main actor.
@MainActor
@Suite struct FormSubmitOverHTTPTests {
    @Test func onSubmitMayPostTheValuesAndASecondSubmitWhileItWaitsIsBusy() async throws {
        let posted = Mutex<[String]>([])
        let server = try await FixtureServer.start { request in
            posted.withLock { $0.append(String(decoding: request.body, as: UTF8.self)) }
            return .delayed(.milliseconds(300), .json(#"{"welcome":"Ana"}"#))
        }
        defer { Task { try? await server.stop() } }
        let scratch = Scratch()
        try FileManager.default.createDirectory(at: scratch.url, withIntermediateDirectories: true)
        let path = scratch.url.appendingPathComponent("main.lua").path
        try """
            form "f" {
              fields = { { id = "name", required = true } },
              on_submit = function(values, f)
                local res = http.request { method = "POST", url = "\(server.baseURL)/signup",
                                           body = json.encode(values) }
                f.status = "server says " .. json.decode(res.body).welcome
              end,
            }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        // Made and run on the main actor, where on_submit's coroutine then runs.
        let runtime = try Runtime()
        try await runtime.run(file: path)
        let form = runtime.forms[0]
        try form.setText("Ana", of: "name")
        let first = Task { await form.submit() }
        try await Task.sleep(for: .milliseconds(50))
        #expect(form.isSubmitting)
        #expect(await form.submit() == .busy)
        #expect(await first.value == .submitted)
        #expect(!form.isSubmitting)
        #expect(form.status == "server says Ana")
        #expect(posted.withLock { $0 } == [#"{"name":"Ana"}"#])
    }
}
