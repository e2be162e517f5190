import TodoWording
import TodoStore

/// The one-line warnings `todo list`, `show` and `status` print on stderr about task files
/// changed by hand and not committed, and committed task files that cannot be read.
enum HealthWarnings {
    static func handEdits(_ paths: [String]) {
        guard !paths.isEmpty else { return }
        let n = paths.count
        printError(
            "todo: warning: \(n) task file\(n == 1 ? " was" : "s were") changed by hand and not committed (\(shown(paths))); commit or discard \(n == 1 ? "it" : "them") with git, see `todo doctor`.")
    }

    /// The hand edits `check` finds, warned about; when the check itself fails, one line
    /// saying so instead (the command goes on, its exit status unchanged).
    static func handEdits(checking check: () throws(StoreError) -> [String]) {
        do {
            handEdits(try check())
        } catch {
            printError("todo: warning: hand edits could not be checked (\(Terminal.safe(Worded(error, paths: .shown).sentence))); run `todo doctor`.")
        }
    }

    /// The committed task files `check` finds unreadable, warned about; when the check itself
    /// fails, one line saying so instead.
    static func unreadable(checking check: () throws(StoreError) -> [BadFile]) {
        do {
            unreadable(try check())
        } catch {
            printError("todo: warning: the task files could not be checked (\(Terminal.safe(Worded(error, paths: .shown).sentence))); run `todo doctor`.")
        }
    }

    static func unreadable(_ bad: [BadFile]) {
        guard !bad.isEmpty else { return }
        let n = bad.count
        printError(
            "todo: warning: \(n) committed task file\(n == 1 ? "" : "s") cannot be read and \(n == 1 ? "is" : "are") left out (\(shown(bad.map(\.path)))); run `todo doctor`.")
    }

    static func shown(_ paths: [String]) -> String {
        paths.prefix(3).map(Terminal.safe).joined(separator: ", ") + (paths.count > 3 ? ", ..." : "")
    }
}
