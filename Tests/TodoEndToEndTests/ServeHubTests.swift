import Foundation
import Testing

/// `todo serve` run for months by a household: the unit `install` writes, links that follow the
/// running server, names an invite refuses, and the zone warning (docs/SERVE.md).
@Suite(.kit, .timeLimit(.minutes(3)), .serialized)
struct ServeHubTests {
    let serveBinary = directoryName(todoBinary) + "/todo-serve"

    func environment(_ sb: Sandbox) -> [String: String] {
        sb.todoEnvironment([
            "XDG_STATE_HOME": sb.root + "/state", "XDG_CONFIG_HOME": sb.root + "/config", "TODO_SERVE_TODO": todoBinary, "USER": "ann",
        ])
    }

    func serve(_ sb: Sandbox, _ args: [String]) throws -> Run {
        try runProcess(serveBinary, args, environment: hermeticEnvironment(home: sb.home, environment(sb)), timeout: .seconds(60))
    }

    func start(_ sb: Sandbox, _ args: [String]) throws -> (ServerProcess, Int) {
        let (server, line) = try ServerProcess.start(
            "todo-serve", serveBinary, ["--listen", "127.0.0.1:0", "--sync-every", "0"] + args, environment: environment(sb),
            ready: "todo-serve: listening on")
        let port = try #require(Int(line.split(separator: ":").last?.dropLast() ?? ""))
        return (server, port)
    }

    @Test func installWritesAUserUnitThatSystemdAccepts() throws {
        let analyze = try requireProgram("systemd-analyze")
        let sb = try Sandbox()
        #expect(try sb.todo("init", "--name", "Ann").status == 0)
        // Through `todo serve`, as the owner types it.
        let r = try sb.todo(
            ["serve", "install", "--listen", "127.0.0.1:8099"],
            env: ["XDG_CONFIG_HOME": sb.root + "/config", "XDG_STATE_HOME": sb.root + "/state", "USER": "ann"])
        #expect(r.status == 0, "\(r)")
        let unit = sb.root + "/config/systemd/user/todo-serve-home.service"
        #expect(r.stdout.contains("Wrote \(unit)."), "\(r.stdout)")
        #expect(r.stdout.contains("systemctl --user enable --now todo-serve-home.service"))
        #expect(r.stdout.contains("loginctl enable-linger ann"))
        #expect(r.stdout.contains("curl http://127.0.0.1:8099/health"))
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        func real(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
        #expect(text.contains("ExecStart=\(real(serveBinary)) -H home --listen 127.0.0.1:8099\n"), "\(text)")
        #expect(text.contains("Environment=TODO_SERVE_TODO=\(real(todoBinary))\n"), "\(text)")
        #expect(text.contains("Restart=on-failure"))
        let verify = try runProcess(analyze, ["verify", unit], environment: hermeticEnvironment(home: sb.home), timeout: .seconds(60))
        #expect(verify.status == 0, "\(verify)\n\(text)")
        #expect(!verify.stderr.contains("todo-serve-home"), "\(verify.stderr)")

        // `todo doctor` reads the unit back: fine while its programs are there; when they are
        // gone (todo reinstalled elsewhere), a problem with the command that rewrites it.
        let config = ["XDG_CONFIG_HOME": sb.root + "/config", "XDG_STATE_HOME": sb.root + "/state", "USER": "ann"]
        let fine = try sb.todo(["doctor", "--offline"], env: config)
        #expect(fine.status == 0 && fine.stdout.contains("ok: serve-unit: \(unit) runs \(real(serveBinary))."), "\(fine)")
        let moved = text.replacingOccurrences(of: real(serveBinary), with: sb.root + "/gone/todo-serve")
            .replacingOccurrences(of: real(todoBinary), with: sb.root + "/gone/todo")
        try moved.write(toFile: unit, atomically: true, encoding: .utf8)
        let stale = try sb.todo(["doctor", "--offline"], env: config)
        #expect(stale.status == 65, "\(stale)")
        #expect(
            stale.lines.contains {
                $0.hasPrefix("problem: serve-unit: \(unit) names \(sb.root)/gone/todo-serve and \(sb.root)/gone/todo, which are gone")
                    && $0.contains("Rewrite it with `todo serve install -H home --listen 127.0.0.1:8099`")
            }, "\(stale)")
        #expect(try sb.todo(["serve", "install", "-H", "home", "--listen", "127.0.0.1:8099"], env: config).status == 0)
        #expect(try String(contentsOfFile: unit, encoding: .utf8) == text)
        #expect(try sb.todo(["doctor", "--offline"], env: config).status == 0)

        // The server's own refusals, before anything is written.
        #expect(try serve(sb, ["install", "-H", "nothere"]).status == 66)
        #expect(try serve(sb, ["install", "--listen", "nowhere"]).status == 64)
    }

    @Test func anInvitedNameWithMarkupOrALineBreakIsRefusedWith64() throws {
        let sb = try Sandbox()
        #expect(try sb.todo("init", "--name", "Ann").status == 0)
        for name in ["Ann<b>", "Ann>", "Ann\nBen", "Ann\rBen", "  "] {
            let invite = try serve(sb, ["invite", name])
            #expect(invite.status == 64, "\(name.debugDescription): \(invite)")
            #expect(invite.stderr.contains("without <, > or control characters"), "\(invite.stderr)")
            #expect(try serve(sb, ["app-password", name]).status == 64)
        }
        #expect(!FileManager.default.fileExists(atPath: sb.root + "/state/todo/serve/home/tokens.json"))
    }

    /// `invite` and `app-password` without flags print the address the server last started on:
    /// its port, and its --base-url (scheme and prefix) when it had one.
    @Test func linksFollowTheAddressTheServerRecorded() throws {
        let sb = try Sandbox()
        #expect(try sb.todo("init", "--name", "Ann").status == 0)
        let (first, port) = try start(sb, [])
        let invite = try serve(sb, ["invite", "Ann"])
        #expect(invite.status == 0, "\(invite)")
        #expect(invite.lines.last?.hasPrefix("http://127.0.0.1:\(port)/i/") == true, "\(invite)")
        first.stop()

        let (second, _) = try start(sb, ["--base-url", "https://nas.example/todo"])
        let link = try serve(sb, ["invite", "Ann"])
        #expect(link.lines.last?.hasPrefix("https://nas.example/todo/i/") == true, "\(link)")
        let app = try serve(sb, ["app-password", "Ann"])
        #expect(app.lines.first == "Address: https://nas.example/todo/dav/", "\(app)")
        // A flag given still wins.
        let given = try serve(sb, ["invite", "Ann", "--listen", "127.0.0.1:9000"])
        #expect(given.lines.last?.hasPrefix("http://127.0.0.1:9000/i/") == true, "\(given)")
        second.stop()
    }

    @Test func aHouseholdWithoutATimeZoneIsWarnedOfAtStart() throws {
        let sb = try Sandbox()
        // The sandbox runs on UTC: `todo init` records no zone.
        #expect(try sb.todo("init", "--name", "Ann").status == 0)
        let (server, _) = try start(sb, [])
        #expect(server.output.waitForLine(containing: "records no time zone") != nil)
        #expect(server.output.text.contains("todo timezone ZONE"))
        server.stop()
        #expect(try sb.todo("timezone", "Europe/Paris").status == 0)
        let (again, _) = try start(sb, [])
        #expect(!again.output.text.contains("time zone"), "\(again.output.text)")
        again.stop()
    }
}
