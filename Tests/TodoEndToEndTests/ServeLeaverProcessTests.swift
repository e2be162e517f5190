import Foundation
import Testing

/// The hub as docs/SERVE.md sets it up (`--sync-every 0`, cron's `todo sync` on the hub's
/// clone) while a member leaves from their own clone: every way in ends as soon as the hub's
/// `main` holds the leave, before and after a restart past the leave's date, and a later
/// `member add` brings none of them back (docs/SERVE.md, "When a member leaves").
@Suite(.kit, .timeLimit(.minutes(5)), .serialized)
struct ServeLeaverProcessTests {
    let serveBinary = directoryName(todoBinary) + "/todo-serve"

    func environment(_ m: Member, now: Int64? = nil) -> [String: String] {
        var extra = m.env.merging(["TODO_SERVE_TODO": todoBinary]) { _, new in new }
        if let now { extra["TODO_NOW"] = String(now) }
        return m.sb.todoEnvironment(extra)
    }

    func serve(_ m: Member, _ args: [String], now: Int64? = nil) throws -> Run {
        try runProcess(serveBinary, args, environment: hermeticEnvironment(home: m.sb.home, environment(m, now: now)), timeout: .seconds(60))
    }

    func start(_ m: Member, now: Int64? = nil) throws -> (ServerProcess, String) {
        let (server, line) = try ServerProcess.start(
            "todo-serve", serveBinary, ["--listen", "127.0.0.1:0", "--sync-every", "0"], environment: environment(m, now: now),
            ready: "todo-serve: listening on")
        return (server, String(line.dropFirst("todo-serve: listening on ".count).dropLast()))
    }

    /// A request by curl: the status and the body.
    func http(_ args: [String]) throws -> (status: Int, body: String) {
        let curl = try requireProgram("curl")
        let r = try runProcess(curl, ["-s", "-w", "\n%{http_code}"] + args, timeout: .seconds(60))
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    func propfind(_ base: String, _ user: String, _ password: String) throws -> Int {
        try http(["-X", "PROPFIND", "-H", "Depth: 0", "-u", "\(user):\(password)", base + "/dav/"]).status
    }

    func token(ofLink run: Run) throws -> String {
        try #require(run.lines.last?.split(separator: "/").last.map(String.init), "\(run)")
    }

    @Test func aLeaveThatReachesTheHubsCloneByCronEndsEveryWayInAtOnce() throws {
        let host = try GitHost(.path)
        _ = try host.createRepository()
        let alice = try Member("Alice", host: host)
        try alice.create(remote: host.url())
        _ = try alice.add("Bob's errand", "--assign", "Bob")
        try alice.sync()
        let bob = try Member("Bob", host: host)
        try bob.join(host.url())

        // The hub on Alice's clone; Bob signs in with an invite and gets an app password.
        var (hub, base) = try start(alice)
        let jar = alice.sb.root + "/io/bob-cookies"
        let invite = try serve(alice, ["invite", "Bob"])
        try #require(invite.exitCode == 0, "\(invite)")
        let signIn = try http(["-c", jar, "-d", "token=\(try token(ofLink: invite))", base + "/i"])
        #expect(signIn.status == 303, "\(signIn)")
        let unused = try token(ofLink: try serve(alice, ["invite", "Bob"]))
        let made = try serve(alice, ["app-password", "Bob", "--json"])
        let app = try json(made.stdout)
        let (user, password) = (try #require(app["user"]?.stringValue), try #require(app["password"]?.stringValue))
        #expect(try http(["-b", jar, base + "/"]).status == 200)
        #expect(try propfind(base, user, password) == 207)
        #expect(try serve(alice, ["devices", "Bob"]).lines.count == 3)

        // Bob leaves on his clone (dated tomorrow) and syncs; cron syncs the hub's clone.
        var r = try bob.todo("member", "leave", "Bob")
        #expect(r.exitCode == 0, "\(r)")
        try bob.sync()
        try alice.sync()

        // The hub has not synced, nor been told: the next request reads the leave.
        var page = try http(["-b", jar, base + "/"])
        #expect(page.status == 401 && page.body.contains("Ask for a new sign-in link"), "\(page)")
        #expect(try propfind(base, user, password) == 401)
        #expect(try http([base + "/i/\(unused)"]).status == 401)
        #expect(try serve(alice, ["devices", "Bob"]).lines.isEmpty)
        r = try serve(alice, ["invite", "Bob"])
        #expect(r.status == 66 && r.stderr.contains("Bob has left") && r.stderr.contains("todo member add Bob"), "\(r)")
        r = try serve(alice, ["app-password", "Bob"])
        #expect(r.status == 66 && r.stderr.contains("todo member add Bob"), "\(r)")

        // Restarted after the leave's date: still closed.
        hub.stop()
        let later = fixedNow + 3 * 86_400_000
        (hub, base) = try start(alice, now: later)
        defer { hub.stop() }
        page = try http(["-b", jar, base + "/"])
        #expect(page.status == 401 && page.body.contains("Ask for a new sign-in link"), "\(page)")
        #expect(try propfind(base, user, password) == 401)
        #expect(try http([base + "/i/\(unused)"]).status == 401)

        // Added again: nothing of the old way in returns; a new invite works.
        r = try alice.sb.todo(["member", "add", "Bob"], env: alice.env.merging(["TODO_NOW": String(later)]) { _, new in new })
        #expect(r.exitCode == 0, "\(r)")
        #expect(try http(["-b", jar, base + "/"]).status == 401)
        #expect(try propfind(base, user, password) == 401)
        #expect(try http([base + "/i/\(unused)"]).status == 401)
        #expect(try serve(alice, ["devices", "Bob"], now: later).lines.isEmpty)
        let again = try serve(alice, ["invite", "Bob"], now: later)
        #expect(again.exitCode == 0, "\(again)")
        let fresh = alice.sb.root + "/io/bob-cookies-2"
        #expect(try http(["-c", fresh, "-d", "token=\(try token(ofLink: again))", base + "/i"]).status == 303)
        #expect(try http(["-b", fresh, base + "/"]).status == 200)
        // No commit on the hub's clone was made as Bob after his leave.
        let authors = try alice.git("log", "--format=%an %s", "main").stdout
        #expect(!authors.split(separator: "\n").contains { $0.hasPrefix("Bob ") && !$0.contains("member: Bob left") }, "\(authors)")
    }
}
