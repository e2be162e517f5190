import TodoWording
import ArgumentParser
import Glibc

/// `todo serve ...`: runs `todo-serve`, the web front end (docs/SERVE.md), with the same
/// arguments. It is a separate executable so that nothing of the server slows `todo`'s start;
/// the command line front hands `serve` over before any parsing (`CommandLineFront`).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the household on a web page (runs todo-serve; see docs/SERVE.md).",
        discussion: """
            Everything after `serve` goes to todo-serve, found beside todo or else on PATH, \
            with TODO_SERVE_TODO set to this todo's path. `todo serve --help` shows its options.
            """,
        shouldDisplay: false)

    /// The executable that serves the pages.
    static let program = "todo-serve"

    @Argument(
        parsing: .captureForPassthrough,
        help: "What todo-serve gets: its options, or invite, app-password, devices, revoke or install and theirs.")
    var arguments: [String] = []

    func run() throws {
        try Self.exec(arguments)
    }

    /// Replaces this process with `todo-serve ARGS`; returns only by throwing.
    static func exec(_ arguments: [String]) throws(CLIError) -> Never {
        let me = Env.executablePath
        guard let path = find(beside: me) else {
            throw CLIError("\(program) is not installed; install \(program) beside todo (make install installs both)", exit: .configuration)
        }
        setenv("TODO_SERVE_TODO", me, 1)
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) }
        argv.append(nil)
        execv(path, &argv)
        let reason = String(cString: strerror(errno))
        throw CLIError("Cannot run \(Terminal.safe(path)) (\(reason)).\nCheck that it is an executable for this machine.", exit: .configuration)
    }

    /// `todo-serve` in the folder of `executable`, else in the first folder of `PATH` that has it.
    static func find(beside executable: String) -> String? {
        var folders: [String] = []
        if let slash = executable.lastIndex(of: "/") { folders.append(String(executable[..<slash])) }
        folders += (Env.get("PATH") ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        for folder in folders {
            let candidate = (folder.isEmpty ? "" : folder) + "/" + program
            var st = stat()
            if stat(candidate, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
