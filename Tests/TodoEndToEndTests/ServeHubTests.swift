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
}
