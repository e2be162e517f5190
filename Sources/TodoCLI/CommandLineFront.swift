import TodoWording
import ArgumentParser

/// What happens to the command line before argument-parser sees it: the household options may
/// come before the command (`todo -H cabin list`, as the synopsis shows), and a command name that
/// does not exist is answered with the nearest ones.
enum CommandLineFront {
    /// The commands `todo` knows, and `help`.
    static var commandNames: [String] {
        Todo.configuration.subcommands.filter { $0.configuration.shouldDisplay }.map { $0._commandName } + ["help"]
    }

    /// `arguments` rearranged for the parser: `-H NAME`, `--household NAME` and `--verbose` before
    /// the command move behind it (before a `--`). Throws a usage error for an unknown command.
    static func prepare(_ arguments: [String]) throws(CLIError) -> [String] {
        let (leading, i) = leadingOptions(arguments)
        guard i < arguments.count else { return arguments }
        let command = arguments[i]
        if command.hasPrefix("-") { return arguments }
        let names = Todo.configuration.subcommands.map { $0._commandName } + ["help"]
        guard names.contains(command) else { throw unknown(command, what: "is not a todo command") }
        var rest = Array(arguments[(i + 1)...])
        if command == "help", let topic = rest.first, !topic.hasPrefix("-"), !names.contains(topic) {
            throw unknown(topic, what: "is not a todo command, so there is no help for it")
        }
        if leading.isEmpty { return arguments }
        rest.insert(contentsOf: leading, at: rest.firstIndex(of: "--") ?? rest.endIndex)
        return [command] + rest
    }

    /// The household options and `--verbose` before the command, and where the command is.
    static func leadingOptions(_ arguments: [String]) -> (options: [String], command: Int) {
        var leading: [String] = []
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if (a == "-H" || a == "--household") && i + 1 < arguments.count {
                leading += [a, arguments[i + 1]]
                i += 2
            } else if a.hasPrefix("--household=") || (a.hasPrefix("-H") && a.count > 2) || a == "--verbose" {
                leading.append(a)
                i += 1
            } else {
                break
            }
        }
        return (leading, i)
    }

    /// For `todo [-H NAME] serve ARGS...`: the arguments `todo-serve` gets (the household
    /// options, then everything after `serve`; `--verbose` is todo's own); nil for any other
    /// command.
    static func serveArguments(_ arguments: [String]) -> [String]? {
        let (leading, i) = leadingOptions(arguments)
        guard i < arguments.count, arguments[i] == ServeCommand.configuration.commandName else { return nil }
        return leading.filter { $0 != "--verbose" } + arguments[(i + 1)...]
    }

    static func unknown(_ word: String, what: String) -> CLIError {
        let near = nearest(word, among: commandNames)
        var message = "'\(Terminal.safe(word))' \(what)."
        if !near.isEmpty {
            message += " Did you mean " + near.map { "`\($0)`" }.joined(separator: " or ") + "?"
        }
        message += "\nSee `todo --help` for the commands."
        return CLIError(message, exit: .usage)
    }

    /// Up to three names close to `word`: a prefix of them, or one or two edits away
    /// (a transposition is one edit), nearest first.
    static func nearest(_ word: String, among names: [String]) -> [String] {
        let w = Array(word.lowercased().unicodeScalars.prefix(64))
        guard !w.isEmpty else { return [] }
        var scored: [(Int, String)] = []
        for name in names {
            let n = Array(name.unicodeScalars)
            let d = distance(w, n)
            let limit = n.count <= 4 ? 1 : 2
            if d <= limit {
                scored.append((d, name))
            } else if w.count >= 2 && n.starts(with: w) {
                scored.append((limit + 1, name))
            }
        }
        return scored.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.prefix(3).map(\.1)
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbours.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
