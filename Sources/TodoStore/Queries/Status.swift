import GitKit
public import TodoCore

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
    /// Changed task files here that cannot be read as tasks (not in `unsent`).
    public let unsentUnreadable: [String]
    /// Why a sync would send nothing at all, when something here may not be sent.
    public let blocked: Blocked?
    /// Task files changed by hand and not committed (compared as `git status` does).
    public let handEdits: [String]
    /// Committed task files that cannot be read.
    public let unreadable: [BadFile]
    /// Cloned from an empty remote, waiting for its first history (docs/FORMAT.md, "Joining").
    public let waiting: Bool
    /// Checks that could not run, and why: `handEdits` or `unreadable` is then empty for want
    /// of an answer, not because nothing was found.
    public let notChecked: [NotChecked]

    /// A check `status` could not run.
    public struct NotChecked: Sendable {
        public enum Check: String, Sendable {
            /// Task files changed by hand (the work tree against the last commit).
            case handEdits = "hand-edits"
            /// Committed task files that cannot be read.
            case taskFiles = "task-files"
        }
        public let check: Check
        public let error: StoreError
    }

    /// A file or commit that stops every push (docs/ARCHITECTURE.md, "What is sent").
    public struct Blocked: Sendable {
        /// The task file's path; empty when a commit's content is the problem.
        public let path: String
        public let problem: SendRefusal
        /// The commit that introduced it, when known.
        public let commit: CommitFacts?
    }
}

extension Household {
    /// Everything `todo status` reports, in one read.
    public func status() throws(StoreError) -> HouseholdStatus {
        do {
            let head = try repo.resolve(reference: Self.branch)
            let tracking = try repo.resolve(reference: Self.trackingRef)
            let here = try Snapshot(repo: repo, commit: head)
            let there = try Snapshot(repo: repo, commit: tracking)
            var unsent: [Task] = []
            var unreadable: [String] = []
            let behindOnly = try tracking.flatMap { t in try head.map { try repo.isAncestor($0, of: t) } } ?? false
            if head != tracking && !behindOnly {
                let changed = try there.changedFiles(oldTasks: there.tasksTree, newTasks: here.tasksTree)
                // Many changed files (a household never synced): their titles from the list
                // cache, which `list` keeps, rather than parsing every file again.
                var listed: [TaskID: Task] = [:]
                var bad: Set<String> = []
                if changed.count > 64 {
                    let view = try here.loadListView(today: clock.today, context: here.turnContext(clock))
                    for t in view.tasks { listed[t.id] = t }
                    bad = Set(view.bad.map(\.path))
                }
                for (id, _, blob) in changed {
                    guard let id, let blob else { continue }
                    if let task = listed[id] {
                        unsent.append(task)
                    } else if bad.contains(id.path) {
                        unreadable.append(id.path)
                    } else if let task = try? here.decode(blob: blob, id: id) {  // cannot be read: counted as unreadable, shown as such
                        unsent.append(task)
                    } else {
                        unreadable.append(id.path)
                    }
                }
            }
            var unmerged = 0
            if let tracking, let head, try !repo.isAncestor(tracking, of: head),
                let base = try repo.mergeBase(head, tracking)
            {
                let b = try Snapshot(repo: repo, commit: base)
                unmerged = try b.changedFiles(oldTasks: b.tasksTree, newTasks: there.tasksTree).count
            }
            // What a sync would refuse to send: only where there is somewhere to send to (the
            // check reads every changed file, all of them before the first sync).
            var blocked: HouseholdStatus.Blocked?
            let remote = try remoteURL()
            if remote != nil, let head, head != tracking, !behindOnly, let r = try Outgoing.check(repo, head: head, remote: tracking) {
                blocked = HouseholdStatus.Blocked(path: r.path, problem: r.problem, commit: r.commit.map(CommitFacts.init))
            }
            var notChecked: [HouseholdStatus.NotChecked] = []
            var edited: [String] = []
            do { edited = try handEdits() } catch { notChecked.append(.init(check: .handEdits, error: error)) }
            var broken: [BadFile] = []
            do { broken = try here.unreadable() } catch { notChecked.append(.init(check: .taskFiles, error: error)) }
            let seen = conflictsSeen()
            let newConflicts = try here.conflicts().filter { $0.time > seen }.count
            return HouseholdStatus(
                remote: remote, unsent: unsent, unsentShortIDs: try here.shortIDs(unsent.map(\.id)), unmerged: unmerged, sync: syncState(), newConflicts: newConflicts,
                unsentUnreadable: unreadable, blocked: blocked, handEdits: edited,
                unreadable: broken, waiting: isWaitingForRemote(), notChecked: notChecked)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }
}
