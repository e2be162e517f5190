import TodoWording
import ArgumentParser
import SystemPackage
import TodoCore

/// git's merge-driver protocol: `todo merge-driver %O %A %B %P`.
struct MergeDriverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge-driver",
        abstract: "Merge one task file for git (used by `git merge`, not by people).",
        discussion: """
            git runs this for task files when a household is merged with plain git: %O is the \
            common ancestor, %A our version (the result is written there), %B theirs, %P the \
            path. It applies the same field-level rules as `todo sync`, so `git pull` gives the \
            same bytes. Exit 0 when merged; 1 when no file can be produced (git then reports a \
            conflict and nothing is written into the task file).

            Configured by `todo init`: merge.todo.driver = 'todo' merge-driver %O %A %B %P
            """,
        shouldDisplay: false)

    @Argument(help: "The common ancestor's file (%O).") var ancestor: String
    @Argument(help: "Our file (%A); the merged result replaces it.") var ours: String
    @Argument(help: "Their file (%B).") var theirs: String
    @Argument(help: "The path in the repository (%P).") var path: String = ""

    func run() throws {
        // git gives an empty ancestor file when both sides added the path.
        // The merge refuses files over 1 MiB; do not hold more than a little over that.
        let limit = TaskCodec.maxFileSize + 1
        let base = FileIO.read(ancestor, limit: limit).flatMap { $0.isEmpty ? nil : $0 }
        guard let mine = FileIO.read(ours, limit: limit), let other = FileIO.read(theirs, limit: limit) else {
            throw CLIError("merge-driver: cannot read the files git passed.", exit: .software)
        }
        let shown = path.isEmpty ? ours : path
        switch TaskMerge.merge(base: base, ours: mine, theirs: other, path: shown) {
        case .merged(let bytes, let entries, let warnings):
            for w in warnings { printError("todo: warning: " + Terminal.safe(MergeWording.text(w))) }
            if !entries.isEmpty {
                printError("todo: \(Terminal.safe(shown)): \(entries.count) conflict\(entries.count == 1 ? "" : "s") logged; see `todo conflicts`.")
            }
            do {
                try writeWhole(ours, bytes)
            } catch {
                throw CLIError("merge-driver: cannot write \(Terminal.safe(ours)): \(error).", exit: .cannotWrite)
            }
        case .failed(let failure):
            printError("todo: " + Terminal.safe(MergeWording.text(failure)))
            throw ExitCode(1)
        }
    }

    func writeWhole(_ path: String, _ bytes: [UInt8]) throws {
        let fd = try FileDescriptor.open(FilePath(path), .writeOnly, options: [.truncate, .closeOnExec])
        try fd.closeAfter { _ = try fd.writeAll(bytes) }
    }
}
