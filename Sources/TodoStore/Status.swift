import GitKit
import TodoCore

/// What `todo status` reports.
public struct HouseholdStatus: Sendable {
    public let remote: String?
    /// Tasks changed here that the remote does not have yet.
    public let unsent: [Task]
    /// The unsent tasks' short ids.
    public let unsentShortIDs: [TaskID: String]
    /// Task files fetched but not merged (only after a failed merge).
    public let unmerged: Int
    public let sync: SyncState
    /// Conflict entries newer than the last `todo conflicts`.
    public let newConflicts: Int
}

extension Household {
    public func status() throws(StoreError) -> HouseholdStatus {
        do {
            let head = try repo.resolve(reference: Self.branch)
            let tracking = try repo.resolve(reference: Self.trackingRef)
            let here = try Snapshot(repo: repo, commit: head)
            let there = try Snapshot(repo: repo, commit: tracking)
            var unsent: [Task] = []
            let behindOnly = try tracking.flatMap { t in try head.map { try repo.isAncestor($0, of: t) } } ?? false
            if head != tracking && !behindOnly {
                for (id, _, blob) in try there.changedFiles(oldTasks: there.tasksTree, newTasks: here.tasksTree) {
                    guard let id, let blob, let task = try? here.decode(blob: blob, id: id) else { continue }
                    unsent.append(task)
                }
            }
            var unmerged = 0
            if let tracking, let head, try !repo.isAncestor(tracking, of: head),
                let base = try repo.mergeBase(head, tracking)
            {
                let b = try Snapshot(repo: repo, commit: base)
                unmerged = try b.changedFiles(oldTasks: b.tasksTree, newTasks: there.tasksTree).count
            }
            let seen = conflictsSeen()
            let newConflicts = try here.conflicts().filter { $0.time > seen }.count
            return HouseholdStatus(
                remote: try remoteURL(), unsent: unsent, unsentShortIDs: try here.shortIDs(unsent.map(\.id)), unmerged: unmerged, sync: syncState(), newConflicts: newConflicts)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }
}
