import ArgumentParser
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
            Taskwarrior task imported before is updated to match the file, as a new edit. \
            Recurring tasks become chores; attributes without a field of their own are kept \
            in the notes and counted at the end.

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
                    ("attribute", .string($0.attribute)), ("count", .number(String($0.count))), ("outcome", .string($0.outcome)),
                ])
            }
            print(JSONWriter.compact(.object([
                ("imported", .number(String(added))), ("updated", .number(String(updated))),
                ("skipped", .number(String(skipped))), ("notes", .array(notes)),
            ])))
            return
        }
        print(
            "Imported \(added) task\(added == 1 ? "" : "s")" + (updated > 0 ? ", updated \(updated)" : "")
                + (skipped > 0 ? " (\(skipped) already present, \(updated > 0 ? "unchanged" : "skipped"))." : "."))
        // Nothing is dropped silently: what had no field of its own, per attribute.
        for n in result.notes {
            let who = n.attribute == "recurring instance"
                ? "\(n.count) instance\(n.count == 1 ? "" : "s") of recurring tasks"
                : "\(n.count) task\(n.count == 1 ? "" : "s") had `\(Terminal.safe(n.attribute))`"
            print("\(who): \(n.outcome)")
        }
    }

    func readInput() throws -> [UInt8] {
        let fd: FileDescriptor
        do {
            fd = file == "-" ? .standardInput : try FileDescriptor.open(FilePath(file), .readOnly, options: .closeOnExec)
        } catch let e as Errno {
            throw CLIError("Cannot read \(Terminal.safe(file)) (\(e)).", exit: e == .noSuchFileOrDirectory ? .notFound : .cannotWrite)
        }
        defer { if fd != .standardInput { try? fd.close() } }
        let out: [UInt8]
        do {
            out = try FileIO.readAll(fd, limit: Self.maxInput)
        } catch {
            throw CLIError("Cannot read \(Terminal.safe(file)) (\(error)).", exit: .notFound)
        }
        if out.count > Self.maxInput { throw CLIError("\(Terminal.safe(file)) is larger than 256 MiB.", exit: .data) }
        return out
    }
}
