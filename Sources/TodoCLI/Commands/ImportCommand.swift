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
        let now = h.clock.nowMillis()
        let imported: [ImportedTask]
        do {
            imported = try TaskImport.parse(bytes, offsetMinutes: Int(h.clock.offsetMinutes(now)))
        } catch {
            throw CLIError("Cannot import \(Terminal.safe(file)): \(Terminal.safe(error.description)). Nothing was imported.", exit: .data)
        }
        let stamper = try h.stamper()
        var rng = SystemRandomNumberGenerator()
        let (added, skipped) = try h.update { snap in
            var existing = Set(try snap.loadAllIDs())
            var tasks: [Task] = []
            var skipped = 0
            let stamp = stamper.stamp(after: nil)
            for item in imported {
                var id = item.id ?? TaskID.random(using: &rng)
                if existing.contains(id) {
                    if item.id != nil {
                        skipped += 1
                        continue
                    }
                    while existing.contains(id) { id = TaskID.random(using: &rng) }
                }
                existing.insert(id)
                var task = Task(
                    id: id, title: item.title, createdAt: item.createdAt ?? isoMillis(now),
                    createdBy: item.createdBy ?? stamper.member, status: item.status, notes: item.notes,
                    assignee: item.assignee, due: item.due, priority: item.priority, deleted: item.deleted)
                for field in Task.stampedFields { task.stamps[field] = stamp }
                for tag in item.tags { task.setTag(tag, present: true, stamp: stamp) }
                tasks.append(task)
            }
            let source = file == "-" ? "standard input" : CommitText.title(basename(file))
            return Household.Update(
                tasks: tasks, message: "import: \(tasks.count) tasks from \(source)", value: (tasks.count, skipped))
        }
        if output.json {
            print(JSONWriter.compact(.object([("imported", .number(String(added))), ("skipped", .number(String(skipped)))])))
        } else {
            print("Imported \(added) task\(added == 1 ? "" : "s")" + (skipped > 0 ? " (\(skipped) already present, skipped)." : "."))
        }
    }

    func basename(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
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
