import GitKit
public import TodoCore

/// What the CalDAV front end reads beyond the page's queries (docs/CALDAV.md): each task file's
/// blob (an item's ETag names it), an older version of a task by its blob (the base a phone
/// started from), and which task files changed between two commits (sync-collection).
extension Snapshot {
    /// The commit read, as 40 hex digits ("" before the first commit).
    public var commitHex: String { commit?.hex ?? "" }

    /// Every task file's blob id (40 hex digits), by task id.
    public func taskBlobs() throws(StoreError) -> [TaskID: String] {
        do {
            var out: [TaskID: String] = [:]
            for (id, blob) in try taskFiles().files { out[id] = blob.hex }
            return out
        } catch {
            throw StoreError.from(error, path: "tasks")
        }
    }

    /// The task stored in blob `hex`, if the repository has that blob and it is a readable
    /// version of task `id`; nil otherwise (an unknown base, never a failure of the request).
    public func task(blob hex: String, id: TaskID) -> Task? {
        guard hex.utf8.count == 40, hex.utf8.allSatisfy(isHexDigit), let oid = ObjectID(hex: hex) else { return nil }
        // A blob that cannot be read is a base this server does not know: the caller answers 412.
        guard let bytes = try? repo.readBlob(oid, limit: TaskCodec.maxFileSize) else { return nil }
        // Not a task file, or another task's: likewise an unknown base.
        return try? TaskCodec.decode(bytes, expectedID: id)
    }

    /// The household as of another commit (40 hex digits); nil when the repository does not
    /// have it or it is not a commit.
    public func atCommit(_ hex: String) -> Snapshot? {
        guard hex.utf8.count == 40, hex.utf8.allSatisfy(isHexDigit), let oid = ObjectID(hex: hex) else { return nil }
        // An id that is not a readable commit here: the caller treats the token as unknown.
        return try? Snapshot(repo: repo, commit: oid)
    }

    /// When the commit read was made (its committer's time), in seconds since the epoch; nil
    /// before the first commit or when the commit cannot be read.
    public var committedAt: Int64? {
        guard let commit else { return nil }
        // A commit that cannot be read has no time: the caller treats it as unknown.
        return try? repo.commit(commit).committer.time
    }

    /// Whether the commit read is `old`'s or comes after it (reaches it through its parents).
    public func reaches(_ old: Snapshot) -> Bool {
        guard let commit, let then = old.commit else { return false }
        // A history that cannot be walked does not show that it reaches: the caller refuses.
        return (try? repo.isAncestor(then, of: commit)) ?? false
    }

    /// The task files that differ between `old` (another snapshot of this repository) and this
    /// one, with the blob of each then and now (nil: absent); nil when something other than a
    /// task file changed in `tasks/` (the caller compares everything then).
    public func changedTasks(since old: Snapshot) throws(StoreError) -> [(id: TaskID, old: String?, new: String?)]? {
        do {
            var out: [(id: TaskID, old: String?, new: String?)] = []
            for (id, before, now) in try changedFiles(oldTasks: old.tasksTree, newTasks: tasksTree) {
                guard let id else { return nil }
                out.append((id, before?.hex, now?.hex))
            }
            return out
        } catch {
            throw StoreError.from(error, path: "tasks")
        }
    }
}

private func isHexDigit(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) }
