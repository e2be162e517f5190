import ArgumentParser
import TodoCore
import TodoStore

/// What the shell completions offer (argument-parser's `---completion` calls): task ids, with
/// their titles where the shell shows descriptions (zsh, fish), household names, the household's
/// assignees, priorities. Nothing here may fail loudly: a completion that cannot be computed is
/// simply empty.
enum Completions {
    static let priorities: CompletionKind = .list(["low", "normal", "high"])

    static let households: CompletionKind = .custom { _, _, _ in Household.list(home: Env.home) }

    /// Open tasks' short ids (`--all` on the line: every task's).
    static let taskIDs: CompletionKind = .custom { words, _, _ in
        guard let h = try? Household.open(home: Env.home, name: household(in: words), clock: Env.clock),  // a shell's completion: no household, no suggestions
            let (tasks, _) = try? h.snapshot().loadAll()  // as above
        else { return [] }
        let lengths = ShortIDs.lengths(tasks.map(\.id))
        let all = words.contains("--all") || words.contains("restore")
        var out: [String] = []
        for (i, t) in tasks.enumerated() where all || (t.status == .open && !t.deleted) {
            out.append(described(String(t.id.hex.prefix(lengths[i])), DisplayText.escaped(t.title)))
        }
        return out
    }

    /// The names tasks are assigned to, and the member's own.
    static let assignees: CompletionKind = .custom { words, _, _ in
        guard let h = try? Household.open(home: Env.home, name: household(in: words), clock: Env.clock),  // a shell's completion: no household, no suggestions
            let (tasks, _) = try? h.snapshot().loadAll()  // as above
        else { return [] }
        var names = Set(tasks.compactMap(\.assignee))
        if let me = try? h.identity() { names.insert(me.name) }  // no identity: the others' names are still offered
        return names.sorted()
    }

    /// The household the command line names (`-H`, `--household`), else the default.
    static func household(in words: [String]) -> String {
        var name: String?
        for (i, w) in words.enumerated() {
            if (w == "-H" || w == "--household"), i + 1 < words.count { name = words[i + 1] }
            if w.hasPrefix("--household=") { name = String(w.dropFirst("--household=".count)) }
        }
        return name ?? Env.get("TODO_HOUSEHOLD") ?? "home"
    }

    /// `value` with a description where the shell shows one.
    static func described(_ value: String, _ description: String) -> String {
        switch CompletionShell.requesting {
        case .zsh?: return value + ":" + description.replacingColons()
        case .fish?: return value + "\t" + description
        default: return value
        }
    }
}

extension String {
    fileprivate func replacingColons() -> String {
        var s = ""
        for ch in self { s += ch == ":" ? "\\:" : String(ch) }
        return s
    }
}
