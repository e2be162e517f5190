/// What `todo doctor` found, as facts: one case per situation, with its data. The store writes
/// no sentence about it; each front end words every case (for the command line,
/// `DoctorMessages.swift`), and `doctor --json` carries that wording.
extension DoctorFinding {
    public enum Fact: Sendable {
        // MARK: locks
        /// Another todo command held the household lock: locks were not checked.
        case locksNotChecked
        /// `.git/NAME` is a lock file left by a process that stopped.
        case staleLock(name: String)
        case staleLockRemoved(name: String)
        /// `.git/todo-pending` records a change that was interrupted.
        case interruptedChange
        case interruptedChangeFinished
        case noStaleLocks

        // MARK: unsent
        /// An unsent commit adds what receivers refuse.
        case unsentRefused(commit: CommitFacts, problem: FormatViolation)
        /// ... and `--fix` made `replacement` in its place, leaving out `dropped`; the commits
        /// replaced are kept as `setAside`.
        case unsentReplaced(commit: CommitFacts, problem: FormatViolation, replacement: String, dropped: [String], setAside: String)

        // MARK: task-file
        /// A file under tasks/ whose path names no task.
        case notATaskFile(path: String, reason: String)
        /// A task file no commit holds a readable version of.
        case neverReadable(path: String, reason: String)
        /// A task file that cannot be read; history has a readable version.
        case unreadable(path: String, reason: String)
        /// ... restored from `from` in the new commit `in` (nil if none was needed).
        case restored(path: String, reason: String, from: String, in: String?)
        /// Outside tasks/, something the format does not allow.
        case disallowedPath(FormatViolation)
        case taskFilesReadable

        // MARK: hand-edit
        /// The comparison failed; `reason` says why (a fact, worded by the store's error).
        case workTreeNotCompared(reason: StoreError)
        case noHandEdits
        case handEdit(path: String)

        // MARK: merge-driver
        case mergeDriverRunsThis(setting: String)
        /// What is wrong with the driver setting; `nowSetTo` after `--fix` replaced it.
        case mergeDriver(DriverProblem, nowSetTo: String?)

        // MARK: serve-unit
        /// The user unit `todo serve install` wrote for the household runs `server`, which is there.
        case serveUnitRuns(unit: String, server: String)
        /// The unit names `programs` (the server, the `todo` it gives it), which are gone.
        case serveUnitProgramGone(unit: String, programs: [String])
        /// The unit cannot be read, or has no command line this version can read.
        case serveUnitUnreadable(unit: String)

        // MARK: timezone
        /// The household's days follow `name` (nil: none recorded, this machine's zone).
        case zoneFollowed(name: String?)
        /// The household's recorded zone `name` is not in this machine's time zone database:
        /// this machine's own zone, `using`, decides "today" here meanwhile.
        case zoneUnknown(name: String, using: String)

        // MARK: clock
        case clocksInStep
        /// `member` (nil: unnamed) wrote stamps up to `days` ahead, in `tasks` tasks.
        case clockAhead(member: String?, days: Int64, tasks: Int)

        // MARK: remote
        case noRemote
        /// Not checked: `--offline`, and the household waits for the remote's first history.
        case waitingOffline
        case syncRunning(remote: String)
        case remoteWaiting(remote: String)
        case remoteEmpty(remote: String)
        case remoteIsAnotherHousehold(remote: String)
        case remoteHasRefused(remote: String, problem: FormatViolation, commit: CommitFacts)
        case remoteToJoin(remote: String)
        case remoteShared(remote: String)
        /// The remote is encrypted to these members' devices (and the recovery key).
        case remoteEncrypted(remote: String, devices: Int, members: [String], recovery: Bool)
        /// Reaching or reading the remote failed as a sync would.
        case syncFailed(SyncError)

        // MARK: storage
        /// The household's objects (`remote`: its path remote's) as they are.
        case storage(remote: Bool, state: StorageState)
        /// `--fix` packed `objects` objects; the store is now `after`.
        case storagePacked(remote: Bool, objects: Int, after: StorageState)
    }

    public enum DriverProblem: Sendable {
        /// The setting runs another todo: its version if it said one.
        case otherVersion(program: String, version: String?, expected: String)
        case missingProgram(setting: String)
        case notConfigured
    }

    /// What to do about a finding.
    public enum Advice: Sendable {
        /// `--fix` removes the stale lock.
        case removeStaleLock
        /// `--fix`, or any change, finishes the interrupted one.
        case finishInterruptedChange
        /// Sync first (it merges, then stops before sending), then `--fix`.
        case syncThenFix
        /// `--fix` puts one commit in place of the unsent ones, keeping them under `prefix`.
        case setAsideUnsent(prefix: String)
        /// These hand edits stop `--fix`: commit or discard them first.
        case handEditsBlockFix(paths: [String])
        /// Move or remove the file at `path` with git.
        case removeWithGit(path: String)
        case fixByHand
        /// `--fix` restores the version of `commit`.
        case restoreVersion(commit: String)
        /// Remove it with a new commit.
        case removeWithNewCommit
        /// The unsent finding's repair leaves it out of what is sent.
        case seeUnsent
        /// Commit or discard the hand edit at `path` in the household at `repo`.
        case commitOrDiscard(repo: String, path: String)
        /// `--fix` sets the driver to `command`.
        case setMergeDriver(command: String)
        /// Rewrite the server's unit with `command` (its words: `todo serve install ...`).
        case rewriteServeUnit(command: [String])
        /// Ask `member` (nil: unnamed) to check their clock.
        case checkClock(member: String?)
        /// The remote's history is another household's: the ways out.
        case anotherHousehold(remote: String, household: String)
        /// Ask the member who added it to remove it.
        case askAuthorToRemove
        /// What to do about the sync failure.
        case syncFailed(SyncError)
        /// Install or update this machine's time zone database (tzdata) so that it knows `name`.
        case installZoneData(name: String)
        /// `todo maintenance` packs them (it also runs by itself after the next change).
        case runMaintenance
    }
}
