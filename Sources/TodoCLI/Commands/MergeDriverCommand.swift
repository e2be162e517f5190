#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import ArgumentParser
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
        let base = readWhole(ancestor).flatMap { $0.isEmpty ? nil : $0 }
        guard let mine = readWhole(ours), let other = readWhole(theirs) else {
            throw CLIError("merge-driver: cannot read the files git passed.", exit: .software)
        }
        let shown = path.isEmpty ? ours : path
        switch TaskMerge.merge(base: base, ours: mine, theirs: other, path: shown) {
        case .merged(let bytes, let entries, let warnings):
            for w in warnings { printError("todo: warning: " + Terminal.safe(w.description)) }
            if !entries.isEmpty {
                printError("todo: \(Terminal.safe(shown)): \(entries.count) conflict\(entries.count == 1 ? "" : "s") logged; see `todo conflicts`.")
            }
            do {
                try writeWhole(ours, bytes)
            } catch {
                throw CLIError("merge-driver: cannot write \(Terminal.safe(ours)): \(error).", exit: .cannotWrite)
            }
        case .failed(let failure):
            printError("todo: " + Terminal.safe(failure.description))
            throw ExitCode(1)
        }
    }

    func readWhole(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { return out }
            out.append(contentsOf: chunk[0..<n])
            // The merge refuses files over 1 MiB; do not hold more than a little over that.
            if out.count > TaskCodec.maxFileSize + 1 { return out }
        }
    }

    func writeWhole(_ path: String, _ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        if fd < 0 { throw CLIError(String(cString: strerror(errno)), exit: .cannotWrite) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw CLIError(String(cString: strerror(errno)), exit: .cannotWrite) }
            offset += n
        }
    }
}
