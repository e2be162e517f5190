import Foundation
import Testing
import TodoCore

@testable import TodoStore

/// `todo doctor` and the user unit `todo serve install` wrote: a unit naming programs that are
/// gone (todo installed by `make install` in /usr/local/bin, then removed and installed from
/// the package) is a problem, with the one command that rewrites it.
@Suite(.timeLimit(.minutes(5)), .kit)
struct ServeUnitDoctorTests {
    func household(_ dir: TempDir) throws -> Household {
        try Household.create(
            home: dir.path + "/todo", name: "home", identity: Identity(name: "Alice", email: "alice@example.org"),
            clock: .fixed(1_763_629_200_000), driverCommand: "true")
    }

    /// A unit as `todo serve install` writes it (ServeInstall), naming `server` and `todo`.
    func writeUnit(_ configHome: String, server: String, todo: String, arguments: [String]) throws {
        let exec = ([server] + arguments).map { ServeUnit.quote($0) }.joined(separator: " ")
        let text = """
            [Unit]
            Description=todo-serve: the household home on the web

            [Service]
            Type=exec
            ExecStart=\(exec)
            Environment=\(ServeUnit.quote("TODO_SERVE_TODO=" + todo, dollars: false))
            Environment=TZ=Europe/Paris
            Restart=on-failure

            [Install]
            WantedBy=default.target

            """
        try FileManager.default.createDirectory(atPath: configHome + "/systemd/user", withIntermediateDirectories: true)
        try text.write(toFile: ServeUnit.path(configHome: configHome, household: "home"), atomically: true, encoding: .utf8)
    }

    /// An executable file at `path`, standing for an installed program.
    func program(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: directoryName(path), withIntermediateDirectories: true)
        try "#!/bin/sh\n".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }

    @Test func aUnitNamingAProgramThatIsGoneIsReportedWithTheCommandThatRewritesIt() throws {
        let dir = TempDir()
        let h = try household(dir)
        let config = dir.path + "/config"
        let unit = config + "/systemd/user/todo-serve-home.service"
        // No unit: nothing to report.
        #expect(h.checkServeUnit(configHome: config).isEmpty)
        #expect(h.checkServeUnit(configHome: nil).isEmpty)

        let local = dir.path + "/usr/local/bin"
        try program(local + "/todo-serve")
        try program(local + "/todo")
        let arguments = ["-H", "home", "--listen", "127.0.0.1:8099", "--title", "Our \"house\" 100% $HOME"]
        try writeUnit(config, server: local + "/todo-serve", todo: local + "/todo", arguments: arguments)
        let fine = h.checkServeUnit(configHome: config)
        #expect(fine.count == 1 && fine.first?.status == .ok && fine.first?.path == unit, "\(fine)")
        guard case .serveUnitRuns(_, let server)? = fine.first?.fact else {
            Issue.record("\(fine)")
            return
        }
        #expect(server == local + "/todo-serve")

        // make uninstall: both programs gone.
        try FileManager.default.removeItem(atPath: local + "/todo-serve")
        try FileManager.default.removeItem(atPath: local + "/todo")
        let gone = h.checkServeUnit(configHome: config)
        #expect(gone.count == 1 && gone.first?.status == .problem && gone.first?.fixable == false, "\(gone)")
        guard case .serveUnitProgramGone(let named, let programs)? = gone.first?.fact,
            case .rewriteServeUnit(let command)? = gone.first?.advice
        else {
            Issue.record("\(gone)")
            return
        }
        #expect(named == unit)
        #expect(programs == [local + "/todo-serve", local + "/todo"])
        // The unit's own arguments, read back through systemd's quoting.
        #expect(command == ["todo", "serve", "install"] + arguments)

        // Only the todo it gives the server gone: still a problem.
        try program(local + "/todo-serve")
        let todoGone = h.checkServeUnit(configHome: config)
        guard case .serveUnitProgramGone(_, let onlyTodo)? = todoGone.first?.fact else {
            Issue.record("\(todoGone)")
            return
        }
        #expect(onlyTodo == [local + "/todo"])

        // Through doctor itself, beside the other checks.
        var options = DoctorOptions(
            executable: "/bin/true", version: "1", driverCommand: "true", searchPath: nil, sync: SyncOptions())
        options.offline = true
        options.configHome = config
        let findings = try h.doctor(options)
        #expect(findings.filter { $0.check == "serve-unit" }.map(\.status) == [.problem], "\(findings)")
    }

    @Test func aUnitWithoutACommandLineItCanReadIsReported() throws {
        let dir = TempDir()
        let h = try household(dir)
        let config = dir.path + "/config"
        try FileManager.default.createDirectory(atPath: config + "/systemd/user", withIntermediateDirectories: true)
        try "[Service]\nExecStart=\"/usr/bin/todo-serve -H home\n".write(
            toFile: ServeUnit.path(configHome: config, household: "home"), atomically: true, encoding: .utf8)
        let found = h.checkServeUnit(configHome: config)
        guard case .serveUnitUnreadable? = found.first?.fact, case .rewriteServeUnit(let command)? = found.first?.advice else {
            Issue.record("\(found)")
            return
        }
        #expect(command == ["todo", "serve", "install", "-H", "home"])
    }

    @Test func wordsReadBackWhatQuoteWrote() {
        let samples = ["plain", "with space", "quote\"d", "back\\slash", "100%", "$HOME", "%h/x", "tab\there", "", "né"]
        for word in samples {
            #expect(ServeUnit.words(ServeUnit.quote(word)) == [word], "\(word.debugDescription)")
            #expect(ServeUnit.words(ServeUnit.quote(word, dollars: false), dollars: false) == [word], "\(word.debugDescription)")
        }
        #expect(ServeUnit.words(samples.map { ServeUnit.quote($0) }.joined(separator: " ")) == samples)
        // Not what quote writes: refused, not guessed.
        #expect(ServeUnit.words("\"open") == nil)
        #expect(ServeUnit.words("50%") == nil)
        #expect(ServeUnit.words("$HOME") == nil)
        #expect(ServeUnit.programs(in: "[Service]\nType=exec\n") == nil)
    }
}
