import GitKit
import Glibc
public import TodoCore

/// A conflict-log entry with the task that carries it.
public struct LoggedConflict: Sendable {
    public let entry: ConflictEntry
    public let task: Task
    /// When the later of the two writes was made (milliseconds since the epoch; 0 if unknown).
    public var time: Int64 { max(entry.kept.stamp?.wall ?? 0, entry.lost.stamp?.wall ?? 0) }
}

extension Snapshot {
    /// Every conflict-log entry in the household, newest first. Only the task files the list
    /// cache says have entries are read in full.
    public func conflicts() throws(StoreError) -> [LoggedConflict] {
        let (tasks, _) = try loadAll()
        var out: [LoggedConflict] = []
        for summary in tasks where !summary.conflicts.isEmpty {
            // An unreadable task file has no readable log; list, status and doctor report the file.
            guard let task = try? task(summary.id) else { continue }
            for json in task.conflicts {
                if let entry = try? ConflictEntry(json: json) { out.append(LoggedConflict(entry: entry, task: task)) }  // an entry that cannot be parsed is not shown; the file keeps it
            }
        }
        return out.sorted { a, b in
            a.time != b.time ? a.time > b.time : a.entry.id.utf8.lexicographicallyPrecedes(b.entry.id.utf8)
        }
    }

    /// The entry whose id starts with `prefix`.
    public func conflict(_ prefix: String) throws(StoreError) -> LoggedConflict {
        let p = prefix.lowercased()
        let matches = try conflicts().filter { $0.entry.id.hasPrefix(p) }
        if matches.count == 1, !p.isEmpty { return matches[0] }
        if matches.isEmpty || p.isEmpty { throw .conflictNotFound(prefix) }
        throw .ambiguousID(prefix, candidates: matches.map { String($0.entry.id.prefix(max(8, p.count + 1))) })
    }
}

extension Household {
    var seenPath: String { repo.gitDirectory + "todo/conflicts-seen" }

    /// The newest conflict time the member has already been shown (0 if never).
    public func conflictsSeen() -> Int64 {
        readFile(seenPath).flatMap { Int64($0.split(separator: "\n").first ?? "") } ?? 0
    }

    /// Records that conflicts up to `time` have been shown.
    public func markConflictsSeen(upTo time: Int64) {
        guard time > conflictsSeen() else { return }
        mkdir(repo.gitDirectory + "todo", 0o755)
        // Only which entries count as new for status: not written, they are told again.
        try? writeFile(seenPath, "\(time)\n", sync: false)
    }
}
