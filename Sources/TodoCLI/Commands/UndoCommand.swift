import TodoWording
import ArgumentParser
import TodoCore
import TodoStore

struct UndoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Undo your last change with a new commit.",
        discussion: """
            Writes back the values your change replaced, with fresh stamps, as a new commit: after \
            the next sync the undo wins on every replica, even when the change was already synced. \
            A task the change added is deleted; undoing an import deletes all it added. Run again, \
            undo goes further back through your changes; `todo redo` brings back what was undone. \
            Undoing an undo by its commit redoes. If someone changed one of the same fields since, \
            nothing is written and undo says who and what, unless --force.

            Examples:
              todo undo
              todo undo --list
              todo undo 9f95a704 --force
            """)

    @OptionGroup var household: HouseholdOptions
    @Argument(help: "The commit of yours to undo (4 or more hex digits; default: your latest change not undone yet).")
    var commit: String?
    @Flag(help: "List your recent changes, newest first.") var list = false
    @Flag(help: "Undo even when others changed the same fields since.") var force = false

    static let searchDepth = 1_000

    func validate() throws {
        if list && (commit != nil || force) { throw ValidationError("--list takes no commit and no --force.") }
    }

    func run() throws {
        let h = try household.open()
        var out = Output()
        if list {
            for e in try h.undoableCommits(limit: 10, depth: Self.searchDepth) { out.line(Self.describe(e)) }
            out.flush()
            return
        }
        let step: UndoStep
        if let commit {
            let prefix = commit.lowercased()
            guard prefix.utf8.count >= 4, prefix.utf8.count <= 40, prefix.utf8.allSatisfy({ $0 < 0x80 && Character(Unicode.Scalar($0)).isHexDigit }) else {
                throw CLIError("\"\(Terminal.safe(commit))\" is not a commit id (4 to 40 hex digits).", exit: .usage)
            }
            let matches = try h.undoableCommits(limit: Self.searchDepth, depth: Self.searchDepth).filter { $0.commit.hasPrefix(prefix) }
            guard let first = matches.first else {
                throw CLIError(
                    "No change of yours is commit \(prefix) (among the last \(Self.searchDepth) commits); see `todo undo --list`.",
                    exit: .notFound)
            }
            if matches.count > 1 { throw CLIError("\(prefix) names \(matches.count) commits; give more digits.", exit: .usage) }
            step = h.undoStep(first)
        } else {
            guard let last = try h.nextUndo(depth: Self.searchDepth) else {
                throw CLIError(
                    "Nothing to undo: this clone has no change in the last \(Self.searchDepth) commits that is not undone already.",
                    exit: .notFound)
            }
            step = last
        }
        try Self.takeBack(step, h, force: force, again: "todo undo \(step.entry.commit.prefix(8)) --force")
    }

    /// Takes back `step` and says what came of it; `again` is the command that forces it.
    static func takeBack(_ step: UndoStep, _ h: Household, force: Bool, again: String) throws {
        var out = Output()
        let entry = step.entry
        let subject = Terminal.safe(step.subject)
        switch try h.undo(step, force: force) {
        case .refused(let conflicts):
            var lines = ["Not \(step.isRedo ? "redone" : "undone"): \(subject) (\(entry.commit.prefix(8))). Changed since:"]
            for c in conflicts {
                let who = c.since.map { s in
                    let name = Terminal.safe(s.member.isEmpty ? "someone" : s.member)
                    return "\(name) on \(Render.localTime(min(s.millis, Render.lastMillis), h.clock))"
                } ?? "someone"
                lines.append("  \(who): \(Self.fieldName(c.field)) of \(Terminal.safe(c.task.title)) (\(c.short))")
            }
            lines.append("Use `\(again)` to write \(step.isRedo ? "its values" : "the earlier values") anyway.")
            throw CLIError(lines.joined(separator: "\n"), exit: .data)
        case .undone(let outcome):
            let changed = outcome.tasks.filter(\.changed)
            if changed.isEmpty {
                out.line("Nothing to write: the tasks of \(subject) already have \(step.isRedo ? "its values" : "the earlier values").")
            } else {
                out.line("\(step.isRedo ? "Redone" : "Undone"): \(subject) (\(entry.commit.prefix(8)))")
                for t in changed { out.line("    \(t.short) \(Terminal.safe(t.task.title)): \(t.fields.joined(separator: ", "))") }
            }
        }
        out.flush()
    }

    static func subject(_ e: HistoryEntry) -> String {
        Terminal.safe(e.message.split(separator: "\n").first.map(String.init) ?? "")
    }

    static func fieldName(_ f: String) -> String { f.hasPrefix("tag:") ? "tag " + Terminal.safe(String(f.dropFirst(4))) : f }

    static func describe(_ e: HistoryEntry) -> String {
        let seconds = min(max(e.time, 0), Render.lastMillis / 1000)
        let time = Render.localTime(seconds * 1000, offsetMinutes: e.offsetMinutes)
        return "\(Terminal.dim(String(e.commit.prefix(8))))  \(time)  \(subject(e))"
    }
}
