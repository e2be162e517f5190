import Foundation
import Glibc
import Testing

/// Every file and directory of a household's repository and work tree: content, mode and
/// modification time, for "reads never write" (docs/FORMAT.md, "What is local to one clone").
/// Tests run as root, so file modes alone would prove nothing.
public struct RepositoryFiles: Equatable {
    /// Files a read may refresh (the caches and markers FORMAT.md lists as safe to delete).
    public static let caches: Set<String> = [
        ".git/todo/list-cache", ".git/todo/worktree-checked", ".git/todo/unreadable", ".git/todo/conflicts-seen",
    ]
    /// The folder holding them: writing one (by rename) moves the folder's own time.
    static let cacheFolder = ".git/todo"

    public struct Entry: Equatable, CustomStringConvertible {
        let content: Data?
        let mode: UInt32
        let mtime: timespec
        public static func == (a: Entry, b: Entry) -> Bool {
            a.content == b.content && a.mode == b.mode && a.mtime.tv_sec == b.mtime.tv_sec && a.mtime.tv_nsec == b.mtime.tv_nsec
        }
        public var description: String {
            "mode \(String(mode, radix: 8)) mtime \(mtime.tv_sec).\(mtime.tv_nsec) \(content?.count ?? -1) bytes"
        }
    }

    public let entries: [String: Entry]

    /// Every file and directory under `root` (the directory's own modification time too: a file
    /// created and removed again shows there).
    public init(_ root: String) throws {
        var out: [String: Entry] = [:]
        func visit(_ rel: String) throws {
            let path = rel.isEmpty ? root : root + "/" + rel
            var st = stat()
            try #require(lstat(path, &st) == 0, "\(path)")
            let isDir = (st.st_mode & S_IFMT) == S_IFDIR
            if !Self.caches.contains(rel) {
                let content = isDir ? nil : FileManager.default.contents(atPath: path)
                let mtime = rel == Self.cacheFolder ? timespec() : st.st_mtim
                out[rel] = Entry(content: content, mode: st.st_mode, mtime: mtime)
            }
            if isDir {
                for name in try FileManager.default.contentsOfDirectory(atPath: path).sorted() {
                    try visit(rel.isEmpty ? name : rel + "/" + name)
                }
            }
        }
        try visit("")
        entries = out
    }

    /// Records an issue for each file `what` changed between `before` and `after`.
    public static func expectSame(
        _ before: RepositoryFiles, _ after: RepositoryFiles, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for key in Set(before.entries.keys).union(after.entries.keys).sorted() where before.entries[key] != after.entries[key] {
            Issue.record(
                "\(what) changed \(key): \(before.entries[key].map(\.description) ?? "absent") -> \(after.entries[key].map(\.description) ?? "absent")",
                sourceLocation: sourceLocation)
        }
    }
}
