import Foundation
import Testing

/// `todo --version` and `todo-serve --version` (docs/INSTALL.md, "Versions"): one line, the same
/// from both programs, in one of the forms the version takes; `+dev` in a build outside
/// `make dist`, which the tests' own build is (with `TODO_BIN` the programs under test may be
/// a packaged build, which says which commit it was made from instead).
@Suite(.kit, .timeLimit(.minutes(1)))
struct VersionTests {
    /// `0.1.0+dev`, `0.1.0+git20261128.f2512ba`, `0.2.0` or `0.2.0+3.g1a2b3c4`, and a newline.
    static func isVersionLine(_ text: String) -> Bool {
        text.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+(\+dev|\+git[0-9]{8}\.[0-9a-f]{7}|\+[0-9]+\.g[0-9a-f]{7})?\n/) != nil
    }

    @Test func bothProgramsPrintOneLineEndingWithTheVersion() throws {
        let sb = try Sandbox()
        let todo = try sb.todo("--version")
        #expect(todo.exitCode == 0, "\(todo)")
        #expect(Self.isVersionLine(todo.stdout), "\(todo)")
        #expect(todo.stderr.isEmpty, "\(todo)")
        if environment("TODO_BIN") == nil { #expect(todo.stdout.hasSuffix("+dev\n"), "\(todo)") }

        let serveBinary = directoryName(todoBinary) + "/todo-serve"
        let serve = try runProcess(serveBinary, ["--version"], environment: hermeticEnvironment(home: sb.home), timeout: .seconds(60))
        #expect(serve.exitCode == 0, "\(serve)")
        #expect(serve.stdout == todo.stdout, "\(serve)")
        #expect(serve.stderr.isEmpty, "\(serve)")
        // Through `todo serve`, which hands its arguments to todo-serve.
        #expect(try sb.todo("serve", "--version").stdout == todo.stdout)
    }
}
