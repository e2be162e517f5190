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
            becomes the id); tasks already in the household are skipped.

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
        let (added, skipped) = (result.imported, result.skipped)
        if output.json {
            print(JSONWriter.compact(.object([("imported", .number(String(added))), ("skipped", .number(String(skipped)))])))
        } else {
            print("Imported \(added) task\(added == 1 ? "" : "s")" + (skipped > 0 ? " (\(skipped) already present, skipped)." : "."))
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
