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
