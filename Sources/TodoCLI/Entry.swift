import TodoWording
import Glibc
import ArgumentParser
import TodoStore

/// The executable's only entry point: parse, run, and turn every failure into a message and an
/// exit code, in this one place.
public enum TodoCLI {
    public static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // What argument-parser answers to `todo --version` alone, without building the command
        // tree first (that took two thirds of its instructions, docs/SPEED.md).
        if arguments == ["--version"] {
            print(Todo.version)
            exit(0)
        }
        let verbose = arguments.contains("--verbose")
        Household.declareOneCommandProcess()
        #if TODO_TEST_HOOKS
        // Ids the same on every run of a test (docs/TESTING.md; debug builds only); unset, random.
        if let seed = Env.get("TODO_ID_SEED") { IDSource.seed(UInt64(seed)) }
        #endif
        do {
            // The web front end is another executable: nothing of it is parsed or linked here.
            if let serve = CommandLineFront.serveArguments(arguments) { try ServeCommand.exec(serve) }
            let arguments = try CommandLineFront.prepare(arguments)
            var command = try Todo.parseCommandLine(arguments)
            do {
                try command.run()
                AutoMaintenance.check(after: command)
            } catch let error as CLIError {
                throw error
            } catch let error as StoreError {
                throw error
            } catch {
                // ArgumentParser's own (help, validation, an exit code) have their codes; an
                // error nothing names would exit 1, a code the README does not list: it is
                // reported as what it is, an internal error (exit 70, with its cause).
                if error is ExitCode || Todo.exitCode(for: error) != .failure { throw error }
                report(CLIError(internal: "\(error)"), verbose: verbose)
            }
        } catch let error as CLIError {
            report(error, verbose: verbose)
        } catch let error as StoreError {
            report(CLIError(error), verbose: verbose)
        } catch {
            // Argument-parser errors, --help and --version: its own rendering; usage errors exit 64.
            let code = Todo.exitCode(for: error)
            let text = Todo.fullMessage(for: error)
            if code == .success {
                if !text.isEmpty { print(text) }
                exit(0)
            }
            if !text.isEmpty { printError(text) }
            exit(code == .validationFailure ? Exit.usage.rawValue : code.rawValue)
        }
        exit(0)
    }

    static func report(_ error: CLIError, verbose: Bool) -> Never {
        if !error.message.isEmpty { printError("todo: " + error.message) }
        if verbose, let detail = error.detail { printError("  detail: " + detail) }
        exit(error.exit.rawValue)
    }
}
