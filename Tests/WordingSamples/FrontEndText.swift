/// The rule for words any front end can show (docs/ARCHITECTURE.md, "Words"): no `todo`
/// command, no flag, no manual section, nothing quoted to type, and no path of this machine.
/// Only the command line's own text (its advice) may have them.
public enum FrontEndText {
    /// Every command name of `todo` (its subcommands and theirs); `FactWordingTests` checks
    /// that the command line has no other.
    public static let commandWords: Set<String> = [
        "add", "agenda", "away", "calendar", "changes", "chores", "clone", "conflicts", "doctor", "done", "edit",
        "households", "import", "init", "key", "leave", "list", "log", "maintenance", "member", "merge-driver", "pass", "redo",
        "remind", "remote", "remove", "reopen", "restore", "rm", "serve", "set", "show", "skip", "status", "swap", "sync",
        "timezone", "undo",
    ]

    /// What in `text` belongs to one front end only, each as a short description with the
    /// words found; empty when any front end can show it. `localPaths` are paths of this
    /// machine the text must not name (a test's temporary directory, say), besides any
    /// absolute path.
    public static func problems(in text: String, localPaths: [String] = []) -> [String] {
        var found: [String] = []
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init)
        for (i, raw) in words.enumerated() {
            let word = String(raw.drop(while: { "([{\"'“‘`,;:".contains($0) }))
            if word.lowercased() == "todo", i + 1 < words.count {
                let next = String(words[i + 1].prefix(while: { $0.isLetter || $0 == "-" }))
                if commandWords.contains(next.lowercased()) || next.hasPrefix("-") { found.append("a command: todo \(words[i + 1])") }
            }
            if word.lowercased().hasPrefix("todo(") { found.append("a manual section: \(word)") }
            if isFlag(word) { found.append("a flag: \(word)") }
            if word.hasPrefix("/") || word.hasPrefix("~/") || word.hasPrefix("file:/") {
                if word.dropFirst().first.map({ $0.isLetter || $0 == "." || $0 == "_" || $0 == "/" }) == true {
                    found.append("a path: \(word)")
                }
            }
        }
        if text.contains("`") { found.append("something quoted to type (a backtick)") }
        for path in localPaths where !path.isEmpty && text.contains(path) { found.append("a path of this machine: \(path)") }
        return found
    }

    /// `--household`, `-H`: a dash, or two, and a letter.
    static func isFlag(_ word: String) -> Bool {
        let rest = word.hasPrefix("--") ? word.dropFirst(2) : word.hasPrefix("-") ? word.dropFirst() : nil
        return rest?.first?.isLetter == true
    }

    /// What a person reads on an HTML page: the text between the tags, outside `<style>` and
    /// `<script>`, with the entities the templates write decoded.
    public static func visibleText(html: String) -> String {
        var text = ""
        var rest = Substring(html)
        while let open = rest.firstIndex(of: "<") {
            text += rest[..<open]
            rest = rest[open...]
            if let hidden = ["<style", "<script"].first(where: { rest.hasPrefix($0) }) {
                let end = "</" + hidden.dropFirst() + ">"
                rest = rest.firstRange(of: end).map { rest[$0.upperBound...] } ?? ""
                continue
            }
            guard let close = rest.firstIndex(of: ">") else { break }
            text += " "
            rest = rest[rest.index(after: close)...]
        }
        text += rest
        for (entity, character) in [("&quot;", "\""), ("&#39;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")] {
            text = text.replacing(entity, with: character)
        }
        return text
    }
}
