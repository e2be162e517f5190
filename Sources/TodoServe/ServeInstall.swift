import FileKit
import Glibc
import TodoCore
import TodoStore

/// `todo-serve install [server options]`: a systemd user unit that runs this server with these
/// options, restarts it when it fails and starts it at boot (docs/SERVE.md, "Running for months").
enum ServeInstall {
    typealias Exit = ServeMain.Exit

    /// What the unit passes on from the environment the command ran in: where the households
    /// and the server's state are, where the device key of an encrypted remote is, and the zone
    /// the machine's days follow.
    static let carried = ["TODO_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "TZ"]

    /// Writes `$XDG_CONFIG_HOME/systemd/user/todo-serve-HOUSEHOLD.service` (else under
    /// `~/.config`) and says how to start it and keep it running without a login.
    static func run(_ arguments: [String], environment: ServeEnvironment, output: (String) -> Void = { print($0) }) throws -> Exit {
        // The same options, checked the same way, as the server takes (exit 64, 66).
        let config = try ServeMain.parseServe(arguments, environment: environment)
        try ServeMain.checkHousehold(config.household, environment: environment)
        let server = environment.serveProgram
        let unitName = ServeUnit.fileName(household: config.household)
        let path = ServeUnit.path(configHome: environment.configHome, household: config.household)
        let folder = directoryName(path)
        let text = unit(
            household: config.household, program: server, arguments: withHousehold(arguments, config.household),
            environment: [(ServeUnit.todoVariable, environment.todoProgram)] + carried.compactMap { name in environment.get(name).map { (name, $0) } })
        try makeFolders(folder)
        do throws(FileError) {
            try WholeFile.replace(path, with: Array(text.utf8), mode: 0o644)
        } catch {
            throw ServeMain.Failure(exit: .cantCreate, message: "cannot write \(error.path) (\(error.reason)).")
        }
        let link = config.base(port: config.listenPort)
        output("Wrote \(path).")
        output("Start it now and at every boot:")
        output("  systemctl --user daemon-reload")
        output("  systemctl --user enable --now \(unitName)")
        output("Keep it running while nobody is logged in:")
        output("  loginctl enable-linger \(environment.userName)")
        output("Check it:")
        output("  systemctl --user status \(unitName)")
        output("  curl \(link)/health")
        return .ok
    }

    /// The arguments with `-H HOUSEHOLD` first when they name none: the unit must not depend on
    /// `TODO_HOUSEHOLD`, which the service manager does not have.
    static func withHousehold(_ arguments: [String], _ household: String) -> [String] {
        arguments.contains("-H") || arguments.contains("--household") ? arguments : ["-H", household] + arguments
    }

    /// The unit file's text. `Restart=on-failure`, but not after an exit that only a change of
    /// configuration mends (64 arguments, 66 no household, 73 state folder, 78 certificate,
    /// address or state not private); 75 (port or household taken) is retried.
    static func unit(household: String, program: String, arguments: [String], environment: [(String, String)]) -> String {
        var lines = [
            "[Unit]",
            "Description=todo-serve: the household \(escapeSpecifiers(household)) on the web",
            "",
            "[Service]",
            "Type=exec",
            "ExecStart=" + ([program] + arguments).map { quote($0) }.joined(separator: " "),
        ]
        // No `$` expansion in Environment=: only specifiers are escaped there.
        for (name, value) in environment { lines.append("Environment=" + quote("\(name)=\(value)", dollars: false)) }
        lines += [
            "Restart=on-failure",
            "RestartSec=5",
            "RestartPreventExitStatus=64 66 73 78",
            "KillSignal=SIGTERM",
            "TimeoutStopSec=90",
            "",
            "[Install]",
            "WantedBy=default.target",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// One word of the unit (`ServeUnit.quote`, which `todo doctor` reads back).
    static func quote(_ word: String, dollars: Bool = true) -> String { ServeUnit.quote(word, dollars: dollars) }

    static func escapeSpecifiers(_ s: String) -> String { ServeUnit.escapeSpecifiers(s) }

    private static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    private static func makeFolders(_ path: String) throws {
        var built = ""
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            built += "/" + part
            if mkdir(built, 0o755) != 0 && errno != EEXIST {
                throw ServeMain.Failure(exit: .cantCreate, message: "cannot make \(built) (\(String(cString: strerror(errno)))).")
            }
        }
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
