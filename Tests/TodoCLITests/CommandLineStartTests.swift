import ArgumentParser
import Testing

@testable import TodoCLI

/// `Todo.parseCommandLine` skips argument-parser's look for a completion-script request on a
/// line that names none (docs/SPEED.md): a line that asks still gets its script, and help,
/// usage and errors, rendered after the parse, read as before.
@Suite(.timeLimit(.minutes(2))) struct CommandLineStartTests {
    /// The text and exit code argument-parser gives for `arguments`' failure (scripts are
    /// failures of the parse, help a command that fails when run).
    func rendered(_ arguments: [String], run: Bool = false) -> (text: String, code: Int32) {
        do {
            var command = try Todo.parseCommandLine(arguments)
            if run { try command.run() }
            return ("", -1)
        } catch {
            return (Todo.fullMessage(for: error), Todo.exitCode(for: error).rawValue)
        }
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func aLineThatAsksForAScriptGetsIt(shell: String) {
        let spaced = rendered(["--generate-completion-script", shell])
        #expect(spaced.code == 0 && spaced.text.contains("---completion show"), "\(spaced.text.prefix(200))")
        let joined = rendered(["--generate-completion-script=\(shell)"])
        #expect(joined.text == spaced.text)
    }

    @Test func helpAndUsageAfterAParseNameTheToolAsBefore() {
        let help = rendered(["--help"], run: true)
        #expect(help.code == 0 && help.text.contains("USAGE: todo <subcommand>"), "\(help.text)")
        let addHelp = rendered(["add", "--help"], run: true)
        #expect(addHelp.text.contains("USAGE: todo add "), "\(addHelp.text)")
        let unknown = rendered(["add", "x", "--bogus"])
        #expect(unknown.code == ExitCode.validationFailure.rawValue)
        #expect(unknown.text.contains("Usage: todo add "), "\(unknown.text)")
        #expect(Todo.configuration._superCommandName == nil)
    }

    @Test func everyLineParsesToTheSameCommand() throws {
        let add = try Todo.parseCommandLine(["add", "Buy milk", "--due", "+3d", "--tag", "bench"])
        let asRoot = try Todo.parseAsRoot(["add", "Buy milk", "--due", "+3d", "--tag", "bench"])
        #expect(String(describing: add) == String(describing: asRoot))
        #expect(Todo.configuration._superCommandName == nil)
    }
}
