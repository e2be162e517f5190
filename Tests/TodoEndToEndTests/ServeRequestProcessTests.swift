import Foundation
import Testing

/// What a request says of where it goes and where it comes from, as a real server reads it:
/// an absolute-form target is checked as Host is, and behind `--trust-proxy` a request that
/// names no client is from an unknown client, not this machine (docs/SERVE.md,
/// docs/THREAT-MODEL.md).
@Suite(.kit, .timeLimit(.minutes(3)), .serialized)
struct ServeRequestProcessTests {
    let serveBinary = directoryName(todoBinary) + "/todo-serve"

    func environment(_ m: Member) -> [String: String] {
        m.sb.todoEnvironment(m.env.merging(["TODO_SERVE_TODO": todoBinary]) { _, new in new })
    }

    func serve(_ m: Member, _ args: [String]) throws -> Run {
        try runProcess(serveBinary, args, environment: hermeticEnvironment(home: m.sb.home, environment(m)), timeout: .seconds(60))
    }

    func http(_ args: [String]) throws -> (status: Int, body: String) {
        let curl = try requireProgram("curl")
        let r = try runProcess(curl, ["-s", "-w", "\n%{http_code}"] + args, timeout: .seconds(60))
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    func household() throws -> Member {
        let alice = try Member("Alice", host: nil)
        let r = try alice.todo("init", "--name", "Alice", "--email", alice.email)
        try #require(r.exitCode == 0, "\(r)")
        return alice
    }

    func start(_ m: Member, _ args: [String] = []) throws -> (ServerProcess, String) {
        let (server, line) = try ServerProcess.start(
            "todo-serve", serveBinary, ["--listen", "127.0.0.1:0", "--sync-every", "0"] + args, environment: environment(m),
            ready: "todo-serve: listening on")
        return (server, String(line.dropFirst("todo-serve: listening on ".count).dropLast()))
    }

    @Test func anAbsoluteFormTargetIsCheckedAsHostIs() throws {
        let alice = try household()
        let (server, base) = try start(alice)
        defer { server.stop() }
        let port = try #require(base.split(separator: ":").last.map(String.init))
        #expect(try http([base + "/health"]).status == 200)
        #expect(try http(["--request-target", "http://127.0.0.1:\(port)/health", base + "/health"]).status == 200)
        // A name the server does not answer to, in the target: as in Host.
        let foreign = try http(["--request-target", "http://evil.example/health", base + "/health"])
        #expect(foreign.status == 421, "\(foreign)")
        #expect(try http(["--request-target", "https://evil.example:\(port)/health", base + "/health"]).status == 421)
        // Two names the server answers to, but not the same one.
        #expect(try http(["--request-target", "http://localhost:\(port)/health", base + "/health"]).status == 400)
        #expect(try http(["--request-target", "http://127.0.0.1:1/health", base + "/health"]).status == 400)
        // The header the check passes itself is the server's own: one a client sends is dropped.
        #expect(try http(["-H", "X-Todo-Target-Authority: evil.example", base + "/health"]).status == 200)
    }

    /// Behind `--trust-proxy`, a request without X-Forwarded-For is from a client whose address
    /// is unknown: an app password over plain HTTP is refused unless X-Forwarded-Proto says
    /// https, and all such requests share one failure budget, apart from the clients the proxy
    /// names.
    @Test func behindAProxyARequestThatNamesNoClientIsNotThisMachine() throws {
        let alice = try household()
        let (server, base) = try start(alice, ["--trust-proxy", "127.0.0.1", "--base-url", "https://nas.example"])
        defer { server.stop() }
        let app = try json(try serve(alice, ["app-password", "Alice", "--json"]).stdout)
        let (user, password) = (try #require(app["user"]?.stringValue), try #require(app["password"]?.stringValue))
        func dav(_ headers: [String], password: String) throws -> Int {
            try http(["-X", "PROPFIND", "-H", "Depth: 0", "-u", "\(user):\(password)"] + headers.flatMap { ["-H", $0] } + [base + "/dav/"]).status
        }
        // No client named: not this machine, so not over plain HTTP.
        #expect(try dav([], password: password) == 403)
        #expect(try dav(["X-Forwarded-Proto: https"], password: password) == 207)
        #expect(try dav(["X-Forwarded-For: 192.168.1.20", "X-Forwarded-Proto: https"], password: password) == 207)
        // Ten wrong passwords from unnamed clients lock out every unnamed client, not the named ones.
        for _ in 0..<10 { _ = try dav(["X-Forwarded-Proto: https"], password: "wrong") }
        #expect(try dav(["X-Forwarded-Proto: https"], password: password) == 429)
        #expect(try dav(["X-Forwarded-For: 192.168.1.20", "X-Forwarded-Proto: https"], password: password) == 207)
    }
}
