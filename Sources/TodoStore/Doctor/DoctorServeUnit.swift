import Glibc

/// The systemd user unit `todo serve install` writes for a household (docs/SERVE.md, "A
/// service"): its name, how its words are quoted, and what `todo doctor` reads back from it.
/// The server writes it (TodoServe's `ServeInstall`); the rule for both lives here.
public enum ServeUnit {
    /// `todo-serve-HOUSEHOLD.service`.
    public static func fileName(household: String) -> String { "todo-serve-\(household).service" }

    /// `CONFIG_HOME/systemd/user/todo-serve-HOUSEHOLD.service`.
    public static func path(configHome: String, household: String) -> String {
        configHome + "/systemd/user/" + fileName(household: household)
    }

    /// The environment variable through which the unit names the `todo` the server runs.
    public static let todoVariable = "TODO_SERVE_TODO"

    /// One word of a unit's command line or assignment (systemd.service(5), "Command lines";
    /// systemd.unit(5), "Specifiers"): in double quotes with `\` and `"` escaped when it holds
    /// anything but plain characters; `%` doubled, and on a command line `$` doubled, so nothing
    /// is expanded.
    public static func quote(_ word: String, dollars: Bool = true) -> String {
        let specifiers = escapeSpecifiers(word)
        let escaped = dollars ? specifiers.replacingAll("$", with: "$$") : specifiers
        let plain = !escaped.isEmpty && escaped.unicodeScalars.allSatisfy { c in
            (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || "/-._:=,@+[]$%".unicodeScalars.contains(c)
        }
        if plain { return escaped }
        var out = "\""
        for c in escaped.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(c)
            }
        }
        return out + "\""
    }

    public static func escapeSpecifiers(_ s: String) -> String { s.replacingAll("%", with: "%%") }

    /// The words of a value `quote` wrote (a command line, or one assignment): double quotes
    /// and their escapes undone, `%%` and, on a command line, `$$` made single again. Nil when
    /// a quote is left open or a `%` or `$` stands alone (not what `quote` writes).
    public static func words(_ value: String, dollars: Bool = true) -> [String]? {
        var words: [String] = []
        var word = ""
        var started = false
        var quoted = false
        var chars = Array(value.unicodeScalars)[...]
        while let c = chars.popFirst() {
            switch c {
            case " " where !quoted, "\t" where !quoted:
                if started { words.append(word) }
                word = ""
                started = false
            case "\"":
                quoted.toggle()
                started = true
            case "\\" where quoted:
                guard let next = chars.popFirst() else { return nil }
                switch next {
                case "n": word += "\n"
                case "t": word += "\t"
                default: word.unicodeScalars.append(next)
                }
            case "%", "$" where dollars:
                guard chars.first == c else { return nil }
                chars.removeFirst()
                word.unicodeScalars.append(c)
                started = true
            default:
                word.unicodeScalars.append(c)
                started = true
            }
        }
        if quoted { return nil }
        if started { words.append(word) }
        return words
    }

    /// What a unit names: the server it starts with its arguments, and the `todo` it gives it.
    public struct Programs: Equatable, Sendable {
        public var server: String
        public var arguments: [String]
        public var todo: String?
    }

    /// The programs the unit text `text` names: nil when it has no `ExecStart=` line that
    /// `words` can read.
    public static func programs(in text: String) -> Programs? {
        var exec: [String]?
        var todo: String?
        for raw in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = String(raw)
            if line.hasPrefix("ExecStart=") {
                exec = words(String(line.dropFirst("ExecStart=".count)))
            } else if line.hasPrefix("Environment="),
                let assignment = words(String(line.dropFirst("Environment=".count)), dollars: false),
                assignment.count == 1, assignment[0].hasPrefix(todoVariable + "=")
            {
                todo = String(assignment[0].dropFirst(todoVariable.count + 1))
            }
        }
        guard let exec, let server = exec.first, !server.isEmpty else { return nil }
        return Programs(server: server, arguments: Array(exec.dropFirst()), todo: todo)
    }
}

extension Household {
    // MARK: Server unit

    /// The unit `todo serve install` wrote for this household under `configHome`, if any: each
    /// program it names must still be there (a `make install` build removed, the package
    /// installed instead, leaves it naming programs that are gone). Rewriting it is
    /// `todo serve install` with the unit's own arguments.
    func checkServeUnit(configHome: String?) -> [DoctorFinding] {
        guard let configHome else { return [] }
        let unit = ServeUnit.path(configHome: configHome, household: name)
        var st = stat()
        guard stat(unit, &st) == 0 else { return [] }
        let rewrite = ["todo", "serve", "install"]
        // An unreadable unit is reported as one to rewrite, as one that names nothing would be.
        guard let text = readFile(unit), let programs = ServeUnit.programs(in: text) else {
            return [
                DoctorFinding(
                    "serve-unit", .problem, path: unit, .serveUnitUnreadable(unit: unit),
                    advice: .rewriteServeUnit(command: rewrite + ["-H", name]))
            ]
        }
        let named = [programs.server] + (programs.todo.map { [$0] } ?? [])
        let gone = named.filter { !($0.hasPrefix("/") && access($0, X_OK) == 0) }
        guard !gone.isEmpty else {
            return [DoctorFinding("serve-unit", .ok, path: unit, .serveUnitRuns(unit: unit, server: programs.server))]
        }
        return [
            DoctorFinding(
                "serve-unit", .problem, path: unit, .serveUnitProgramGone(unit: unit, programs: gone),
                advice: .rewriteServeUnit(command: rewrite + programs.arguments))
        ]
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
