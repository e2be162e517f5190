import TodoWording
import ArgumentParser
import FileKit
import SystemPackage
import TodoCore
import TodoStore

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import tasks from JSON, in one commit.",
        discussion: """
            Reads a JSON array of tasks as printed by `todo list --json` or by Taskwarrior's \
            `task export` (or one object per line). Tasks keep their ids (a Taskwarrior uuid \
            becomes the id); tasks already in the household are skipped, except that a \
            Taskwarrior task imported before takes what changed in the file since its last \
            import, as a new edit: fields the file did not change keep the household's edits, \
            and an edit the file's new value replaces goes to `todo conflicts`. Recurring \
            tasks become chores; attributes without a field of their own are kept in the \
            notes and counted at the end.

            Example: task export | todo import -
            """)

    static let maxInput = 256 << 20

    @OptionGroup var household: HouseholdOptions
    @Argument(help: "The file to read, or - for standard input.") var file: String
    @OptionGroup var output: JSONFlag

    func run() throws {
        let bytes = try readInput()
        let h = try household.open()
        let result = try h.importTasks(bytes, file: file == "-" ? nil : file)
        let (added, skipped, updated) = (result.imported, result.skipped, result.updated)
        if output.json {
            let notes = result.notes.map {
                JSONValue.object([
                    ("attribute", .string($0.attribute)), ("count", .number(String($0.count))), ("outcome", .string(ImportWording.outcome($0.outcome))),
                ])
            }
            func counts(_ c: [String: Int]) -> JSONValue {
                .object(Self.ordered(c).map { ($0.field, .number(String($0.count))) })
            }
            print(JSONWriter.compact(.object([
                ("imported", .number(String(added))), ("updated", .number(String(updated))),
                ("skipped", .number(String(skipped))), ("notes", .array(notes)),
                ("fields", counts(result.updatedFields)), ("kept", counts(result.keptFields)),
                ("replaced", counts(result.replacedFields)), ("recorded", .number(String(result.recorded))),
            ])))
            return
        }
        let present = updated > 0 || !result.keptFields.isEmpty ? "unchanged" : "skipped"
        print(
            "Imported \(added) task\(added == 1 ? "" : "s")" + (updated > 0 ? ", updated \(updated)" : "")
                + (skipped > 0 ? " (\(skipped) already present, \(present))." : "."))
        // A re-import says which fields the file changed and which edits it kept or replaced.
        for (label, c) in [
            ("Updated from the file", result.updatedFields), ("Kept edits made since the last import", result.keptFields),
            ("Edits replaced by the file (in todo conflicts)", result.replacedFields),
        ] where !c.isEmpty {
            let list = Self.ordered(c).map { "\($0.field) (\($0.count) task\($0.count == 1 ? "" : "s"))" }
            print("\(label): \(list.joined(separator: ", ")).")
        }
        if result.recorded > 0 {
            let n = result.recorded
            print("Recorded the file's values of \(n) task\(n == 1 ? "" : "s") imported before, for the next import.")
        }
        // Nothing is dropped silently: what had no field of its own, per attribute.
        for n in result.notes {
            let who = n.attribute == "recurring instance"
                ? "\(n.count) instance\(n.count == 1 ? "" : "s") of recurring tasks"
                : "\(n.count) task\(n.count == 1 ? "" : "s") had `\(Terminal.safe(n.attribute))`"
            print("\(who): \(ImportWording.outcome(n.outcome))")
        }
    }

    /// Per-field counts in the order of the task file.
    static func ordered(_ counts: [String: Int]) -> [(field: String, count: Int)] {
        let order = ["title", "status", "notes", "assignee", "due", "tags", "priority", "deleted", "repeat", "occurrences"]
        func rank(_ field: String) -> (Int, String) { (order.firstIndex(of: field) ?? order.count, field) }
        return counts.sorted { rank($0.key) < rank($1.key) }.map { ($0.key, $0.value) }
    }

    func readInput() throws -> [UInt8] {
        let fd: FileDescriptor
        do {
            fd = file == "-" ? .standardInput : try FileDescriptor.open(FilePath(file), .readOnly, options: .closeOnExec)
        } catch let e as Errno {
            throw CLIError("Cannot read \(Terminal.safe(file)) (\(e)).", exit: e == .noSuchFileOrDirectory ? .notFound : .cannotWrite)
        }
        defer { if fd != .standardInput { try? fd.close() } }  // closing a file only read: nothing of it is lost
        let out: [UInt8]
        do throws(FileError) {
            out = try FileIO.readAll(fd, name: file, limit: Self.maxInput)
        } catch {
            throw CLIError("Cannot read \(Terminal.safe(file)) (\(error.errno)).", exit: .notFound)
        }
        if out.count > Self.maxInput { throw CLIError("\(Terminal.safe(file)) is larger than 256 MiB.", exit: .data) }
        return out
    }
}
