import Foundation
import Testing

/// `todo-serve` as a process: it says where it listens, refuses a second server and a taken
/// port (exit 75), and stops cleanly on SIGTERM (docs/SERVE.md, "TLS, proxy, exit codes, signals").
@Suite(.kit, .timeLimit(.minutes(3)), .serialized)
struct ServeProcessTests {
    let serveBinary = directoryName(todoBinary) + "/todo-serve"

    func environment(_ sb: Sandbox) -> [String: String] {
        sb.todoEnvironment(["XDG_STATE_HOME": sb.root + "/state", "TODO_SERVE_TODO": todoBinary])
    }

    func startServer(_ sb: Sandbox, _ args: [String] = []) throws -> (ServerProcess, Int) {
        let (server, line) = try ServerProcess.start(
            "todo-serve", serveBinary, ["--listen", "127.0.0.1:0", "--sync-every", "0"] + args, environment: environment(sb),
            ready: "todo-serve: listening on")
        #expect(line.hasPrefix("todo-serve: listening on http://127.0.0.1:") && line.hasSuffix("/"), "\(line)")
        let port = Int(line.split(separator: ":").last?.dropLast() ?? "") ?? 0
        #expect(port > 0)
        return (server, port)
    }

    func serve(_ sb: Sandbox, _ args: [String]) throws -> Run {
        try runProcess(serveBinary, args, environment: hermeticEnvironment(home: sb.home, environment(sb)), timeout: .seconds(60))
    }

    @Test func aSecondServerOrATakenPortExits75AndSIGTERMExits0() throws {
        let sb = try Sandbox()
        #expect(try sb.todo("init", "--name", "Ann").status == 0)
        #expect(try sb.todo("init", "-H", "other", "--name", "Ann").status == 0)
        let (server, port) = try startServer(sb)

        let second = try serve(sb, ["--listen", "127.0.0.1:0"])
        #expect(second.status == 75, "\(second)")
        #expect(second.stderr.contains("another todo-serve runs for this household"))

        let taken = try serve(sb, ["-H", "other", "--listen", "127.0.0.1:\(port)"])
        #expect(taken.status == 75, "\(taken)")
        #expect(taken.stderr.contains("is in use"))

        let invite = try serve(sb, ["invite", "Ann", "--base-url", "http://127.0.0.1:\(port)"])
        #expect(invite.status == 0, "\(invite)")
        #expect(invite.lines.last?.hasPrefix("http://127.0.0.1:\(port)/i/") == true)

        let status = server.terminate()
        #expect(status & 0x7f == 0, "ended by a signal: \(status & 0x7f)")
        #expect((status >> 8) & 0xff == 0, "exit \((status >> 8) & 0xff):\n\(server.output.text)")
    }

    /// A restart binds the same port at once, even with connections the server closed itself
    /// still in TIME_WAIT there (what `systemctl restart` does): before, it exited 75 "in use"
    /// for up to a minute.
    @Test func aStoppedServerRestartsOnTheSamePortAtOnce() throws {
        let sb = try Sandbox()
        #expect(try sb.todo("init", "--name", "Ann").status == 0)
        let (server, port) = try startServer(sb)
        // The server answers and closes the connection itself: its side waits in TIME_WAIT.
        let fetched = try runProcess(
            "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Connection: close", "http://127.0.0.1:\(port)/"],
            timeout: .seconds(30))
        #expect(fetched.stdout.hasPrefix("401") || fetched.stdout.hasPrefix("200") || fetched.stdout.hasPrefix("30"), "\(fetched)")
        var status = server.terminate()
        #expect((status >> 8) & 0xff == 0, "exit \((status >> 8) & 0xff):\n\(server.output.text)")

        let (again, line) = try ServerProcess.start(
            "todo-serve", serveBinary, ["--listen", "127.0.0.1:\(port)", "--sync-every", "0"], environment: environment(sb),
            ready: "todo-serve: listening on")
        #expect(line.contains("127.0.0.1:\(port)/"), "\(line)")
        status = again.terminate()
        #expect((status >> 8) & 0xff == 0, "exit \((status >> 8) & 0xff):\n\(again.output.text)")
    }

    @Test func refusalsHaveTheirExitCodes() throws {
        let sb = try Sandbox()
        #expect(try sb.todo("init", "--name", "Ann").status == 0)
        let noHousehold = try serve(sb, ["-H", "nothere", "--listen", "127.0.0.1:0"])
        #expect(noHousehold.status == 66, "\(noHousehold)")
        let badListen = try serve(sb, ["--listen", "nowhere"])
        #expect(badListen.status == 64, "\(badListen)")
        let wildcard = try serve(sb, ["--listen", "0.0.0.0:0"])
        #expect(wildcard.status == 64 && wildcard.stderr.contains("--base-url is needed"), "\(wildcard)")
        let halfTLS = try serve(sb, ["--tls-cert", "/dev/null"])
        #expect(halfTLS.status == 64, "\(halfTLS)")
        // Through `todo serve`, which runs the todo-serve beside it.
        let viaTodo = try sb.todo("serve", "invite", "ann", "--base-url", "https://nas.example/todo")
        #expect(viaTodo.status == 0, "\(viaTodo)")
        #expect(viaTodo.lines.last?.hasPrefix("https://nas.example/todo/i/") == true)
        #expect(viaTodo.stdout.contains("Sign-in link for Ann"))
        let stranger = try serve(sb, ["invite", "Zed"])
        #expect(stranger.status == 66, "\(stranger)")
        #expect(stranger.stderr.contains("no member \"Zed\""))
        // State files others can read: refused.
        #expect(try serve(sb, ["devices"]).status == 0)
        chmod(sb.root + "/state/todo/serve/home", 0o755)
        let open = try serve(sb, ["devices"])
        #expect(open.status == 78, "\(open)")
    }

    @Test func itServesHTTPSWithAGoodCertificateAndRefusesABadOne() throws {
        let sb = try Sandbox()
        #expect(try sb.todo("init", "--name", "Ann").status == 0)
        let dir = sb.root + "/tls"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        func openssl(_ args: [String]) throws {
            let r = try runProcess("/usr/bin/openssl", args, environment: hermeticEnvironment(home: sb.home), timeout: .seconds(60))
            #expect(r.status == 0, "\(r)")
        }
        for name in ["a", "b"] {
            try openssl([
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(dir)/\(name).key", "-out", "\(dir)/\(name).pem",
                "-days", "2", "-subj", "/CN=localhost",
            ])
            chmod("\(dir)/\(name).key", 0o600)
        }
        let (server, line) = try ServerProcess.start(
            "todo-serve", serveBinary,
            ["--listen", "127.0.0.1:0", "--sync-every", "0", "--tls-cert", "\(dir)/a.pem", "--tls-key", "\(dir)/a.key"],
            environment: environment(sb), ready: "todo-serve: listening on")
        #expect(line.hasPrefix("todo-serve: listening on https://127.0.0.1:"), "\(line)")
        server.stop()

        let mismatched = try serve(sb, ["--tls-cert", "\(dir)/a.pem", "--tls-key", "\(dir)/b.key"])
        #expect(mismatched.status == 78, "\(mismatched)")
        #expect(mismatched.stderr.contains("does not match the certificate"))
        let notPEM = try serve(sb, ["--tls-cert", "\(dir)/a.key", "--tls-key", "\(dir)/a.key"])
        #expect(notPEM.status == 78, "\(notPEM)")
        chmod("\(dir)/a.key", 0o644)
        let readable = try serve(sb, ["--tls-cert", "\(dir)/a.pem", "--tls-key", "\(dir)/a.key"])
        #expect(readable.status == 78, "\(readable)")
        #expect(readable.stderr.contains("must be yours and private"))
    }

    @Test func SIGTERMDuringPostsLeavesEachChangeWholeAndExits0() throws {
        let curl = try requireProgram("curl")
        let sb = try Sandbox(now: nil)
        #expect(try sb.todo("init", "--name", "Ann").status == 0)
        for i in 0..<8 { #expect(try sb.todo("add", "chore \(i)", "--assign", "Ann", "--due", "today").status == 0) }
        let (server, port) = try startServer(sb)
        let base = "http://127.0.0.1:\(port)"
        let link = try #require(try serve(sb, ["invite", "Ann", "--base-url", base]).lines.last)
        func http(_ args: [String]) throws -> Run {
            try runProcess(curl, ["-s", "-i", "--max-time", "20"] + args, environment: hermeticEnvironment(home: sb.home))
        }
        let signIn = try http(["-X", "POST", "-d", "token=" + String(link.split(separator: "/").last ?? ""), base + "/i"])
        let cookie = try #require(
            signIn.stdout.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: todo_session=") }?
                .dropFirst("set-cookie: ".count).split(separator: ";").first)
        let mine = try http(["-b", String(cookie), base + "/"]).stdout
        let csrf = try #require(mine.components(separatedBy: "name=\"csrf\" value=\"").dropFirst().first?.prefix { $0 != "\"" })
        let ids = Set(mine.components(separatedBy: "action=\"/t/").dropFirst().map { String($0.prefix(32)) })
        #expect(ids.count == 8)
        let io = sb.root + "/io/posts"
        var posts: [Spawned] = []
        for (n, id) in ids.enumerated() {
            posts.append(
                try spawn(
                    curl, ["-s", "-o", "/dev/null", "--max-time", "20", "-b", String(cookie), "-d", "csrf=\(csrf)", "\(base)/t/\(id)/done"],
                    environment: hermeticEnvironment(home: sb.home), stdinPath: "/dev/null", stdoutPath: io + "\(n).out",
                    stderrPath: io + "\(n).err"))
        }
        let status = server.terminate()
        #expect(status & 0x7f == 0 && (status >> 8) & 0xff == 0, "\(status):\n\(server.output.text)")
        for p in posts { _ = p.wait() }
        // Each change is committed whole or not at all.
        #expect(try sb.git("fsck", "--strict").status == 0)
        let list = try sb.todo("list", "--all", "--json")
        #expect(list.status == 0)
        let log = try sb.git("log", "--format=%an %s")
        #expect(log.status == 0 && !log.stdout.contains("todo-pending"))
    }

    /// SIGTERM while the background sync waits on a remote that never answers: the sync is
    /// stopped at once (its sockets shut, not left to its 60 s deadline), the sync log says it was
    /// stopped, nothing is lost, and the server exits 0.
    @Test func SIGTERMStopsASyncThatWaitsOnASilentRemote() throws {
        let sb = try Sandbox()
        #expect(try sb.todo("init", "--name", "Ann").status == 0)
        #expect(try sb.todo("add", "Not sent yet").status == 0)
        let python = try requireProgram("python3")
        let (remote, line) = try ServerProcess.start(
            "faulty_server.py", python,
            [packageRoot + "/scripts/servers/faulty_server.py", "--protocol", "git", "--fault", "stall", "--lifetime", "170"],
            environment: serverEnvironment(home: sb.home), ready: "listening on 127.0.0.1 port ")
        defer { remote.stop() }
        let port = try #require(line.split(separator: " ").last.flatMap { UInt16($0) })
        #expect(try sb.todo("remote", "set", "git://127.0.0.1:\(port)/household.git").status == 0)

        let (server, _) = try ServerProcess.start(
            "todo-serve", serveBinary, ["--listen", "127.0.0.1:0", "--sync-every", "1s"], environment: environment(sb),
            ready: "todo-serve: listening on")
        defer { server.stop() }
        // The background sync got past the remote's advertisement and now waits for an answer.
        #expect(remote.output.waitForLine(containing: "fault: stall") != nil)
        let status = server.terminate()
        #expect(status & 0x7f == 0, "ended by a signal: \(status & 0x7f)")
        #expect((status >> 8) & 0xff == 0, "exit \((status >> 8) & 0xff):\n\(server.output.text)")

        let log = (try? String(contentsOfFile: sb.root + "/state/todo/sync.log", encoding: .utf8)) ?? ""
        #expect(log.contains("outcome=error class=transient"), "\(log)")
        #expect(log.contains("The sync was stopped before it finished"), "\(log)")
        #expect(!log.contains("did not answer within"), "\(log)")
        let list = try sb.todo("list")
        #expect(list.stdout.contains("Not sent yet"), "\(list)")
    }

}
