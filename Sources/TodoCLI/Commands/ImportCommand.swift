#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import ArgumentParser
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
        let fd = file == "-" ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let reason = String(cString: strerror(errno))
            throw CLIError("Cannot read \(Terminal.safe(file)) (\(reason)).", exit: errno == ENOENT ? .notFound : .cannotWrite)
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw CLIError("Cannot read \(Terminal.safe(file)) (\(String(cString: strerror(errno)))).", exit: .notFound) }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
            if out.count > Self.maxInput { throw CLIError("\(Terminal.safe(file)) is larger than 256 MiB.", exit: .data) }
        }
        return out
    }
}
