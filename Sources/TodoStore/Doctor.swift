#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import GitKit
import TodoCore

/// One thing `todo doctor` found: a check, its outcome, and what to do.
public struct DoctorFinding: Sendable {
    public enum Status: String, Sendable {
        /// Healthy.
        case ok
        /// Needs a person (or `--fix`, when `fixable`).
        case problem
        /// Was a problem; `--fix` repaired it.
        case fixed
    }

    /// Which check: `locks`, `unsent`, `task-file`, `hand-edit`, `merge-driver`, `clock`, `storage`, `remote`.
    public let check: String
    public var status: Status
    /// The file concerned, if any.
    public let path: String?
    public var message: String
    /// What to do about it; nil when nothing is needed.
    public var advice: String?
    /// Whether `--fix` can repair it.
    public let fixable: Bool

    init(_ check: String, _ status: Status, path: String? = nil, _ message: String, advice: String? = nil, fixable: Bool = false) {
        self.check = check
        self.status = status
        self.path = path
        self.message = message
        self.advice = advice
        self.fixable = fixable
    }
}

/// How `todo doctor` runs.
public struct DoctorOptions: Sendable {
    /// Repair what is safe to repair.
    public var fix = false
    /// The running binary, its version, and the driver setting that would run it.
    public var executable: String
    public var version: String
    public var driverCommand: String
    /// `$PATH`, to find the binary a driver setting names.
    public var searchPath: String?
    /// For the remote check.
    public var sync: SyncOptions
    /// Skip the network (the remote check).
    public var offline = false

    public init(executable: String, version: String, driverCommand: String, searchPath: String?, sync: SyncOptions) {
        self.executable = executable
        self.version = version
        self.driverCommand = driverCommand
        self.searchPath = searchPath
        self.sync = sync
    }
}

extension Household {
    /// Checks the household: stale locks, unsent commits that other members would refuse,
    /// unreadable or misplaced task files, uncommitted hand edits, the merge driver, clocks in the stamps, the remote. With `options.fix`, repairs
    /// what is safe (stale locks, the driver setting, unreadable files that once were readable)
    /// and reports those as `fixed`. Library code: it prints nothing.
    public func doctor(_ options: DoctorOptions) throws(StoreError) -> [DoctorFinding] {
        do {
            var findings = try checkLocks(fix: options.fix)
            let unsent = try checkUnsent(fix: options.fix)
            findings += unsent
            let snap = try Snapshot(repo: repo)
            let (tasks, bad) = try snap.loadAllFromFiles()
            var files = try checkTaskFiles(snap, bad: bad, fix: options.fix)
            if unsent.contains(where: { $0.status == .problem }) {
                // While the commit that added it is unsent, a new commit removing it cannot help.
                for i in files.indices where files[i].status == .problem && files[i].path.flatMap(Self.taskID(path:)) == nil {
                    files[i].advice = "see unsent: `todo doctor --fix` leaves it out of what is sent"
                }
            }
            findings += files
            findings += checkHandEdits(fix: options.fix)
            findings += checkMergeDriver(options)
            findings += checkClocks(tasks)
            findings += checkStorage(fix: options.fix)
            if !options.offline {
                findings += checkRemote(options.sync)
            } else if isWaitingForRemote() {
                findings.append(DoctorFinding("remote", .ok, "this household waits for its remote's first history (not checked: --offline); tasks added here join it on the first sync after the household's creator has synced"))
            }
            return findings
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    // MARK: Locks

    /// Lock files older than this, found while we hold the household lock, were left by a
    /// process that died.
    static let staleLockAge = 60

    func checkLocks(fix: Bool) throws -> [DoctorFinding] {
        let gitDir = repo.gitDirectory
        guard let lock = try FileLock.acquire(path: gitDir + "todo.lock", timeout: 2) else {
            return [DoctorFinding("locks", .ok, "another todo command is working on the household; locks not checked")]
        }
        defer { withExtendedLifetime(lock) {} }
        var findings: [DoctorFinding] = []
        var candidates = listDirectory(gitDir).filter { $0.hasSuffix(".lock") && !$0.hasPrefix("todo") }
        for dir in ["refs/heads/", "refs/remotes/origin/"] {
            candidates += listDirectory(gitDir + dir).filter { $0.hasSuffix(".lock") }.map { dir + $0 }
        }
        let now = time(nil)
        for name in candidates.sorted() {
            var st = stat()
            guard lstat(gitDir + name, &st) == 0, Int(now - st.st_mtim.tv_sec) > Self.staleLockAge else { continue }
            if fix {
                unlink(gitDir + name)
                findings.append(DoctorFinding("locks", .fixed, path: ".git/" + name, "removed the stale lock .git/\(name)"))
            } else {
                findings.append(
                    DoctorFinding(
                        "locks", .problem, path: ".git/" + name, "stale lock .git/\(name) (left by a process that stopped)",
                        advice: "run `todo doctor --fix` to remove it", fixable: true))
            }
        }
        if let pending = readFile(pendingPath), pending.contains(where: { !$0.isWhitespace }) {
            if fix {
                try recoverInterruptedChange()
                findings.append(DoctorFinding("locks", .fixed, path: ".git/todo-pending", "finished the interrupted change recorded in .git/todo-pending"))
            } else {
                findings.append(
                    DoctorFinding(
                        "locks", .problem, path: ".git/todo-pending", "a change was interrupted (.git/todo-pending); its files may look edited",
                        advice: "run `todo doctor --fix`, or any command that changes a task", fixable: true))
            }
        }
        if findings.isEmpty { findings.append(DoctorFinding("locks", .ok, "no stale locks")) }
        return findings
    }

    // MARK: Hand edits

    func checkHandEdits(fix: Bool) -> [DoctorFinding] {
        guard let edited = try? handEdits(repairing: fix) else {
            return [DoctorFinding("hand-edit", .problem, "the work tree could not be compared with the last commit")]
        }
        if edited.isEmpty { return [DoctorFinding("hand-edit", .ok, "no uncommitted changes in tasks/")] }
        return edited.map {
            DoctorFinding(
                "hand-edit", .problem, path: $0, "\($0) was changed by hand and not committed",
                advice: "commit it (git -C \(path) commit \($0)) or discard it (git -C \(path) checkout -- \($0))")
        }
    }

    // MARK: Merge driver

    func checkMergeDriver(_ options: DoctorOptions) -> [DoctorFinding] {
        let current = mergeDriver()
        var problem: String?
        if let current {
            if let program = MergeDriverConfig.program(of: current, searchPath: options.searchPath), access(program, X_OK) == 0 {
                if MergeDriverConfig.canonical(program) != MergeDriverConfig.canonical(options.executable) {
                    let theirs = runProgram([program, "--version"], input: "", deadline: monotonicSeconds() + 10)?.split(separator: "\n").first.map(String.init)
                    if theirs != options.version {
                        problem = "the merge driver runs \(program), which is todo \(theirs ?? "of an unknown version"), not \(options.version)"
                    }
                }
            } else {
                problem = "the merge driver names a program that does not exist (\(current))"
            }
        } else {
            problem = "no merge driver is configured, so plain `git merge` would not merge task files field by field"
        }
        guard let problem else {
            return [DoctorFinding("merge-driver", .ok, "the merge driver runs this todo (\(current ?? ""))")]
        }
        if options.fix, (try? setMergeDriver(options.driverCommand)) != nil {
            return [DoctorFinding("merge-driver", .fixed, problem + "; now set to \(options.driverCommand)")]
        }
        return [
            DoctorFinding(
                "merge-driver", .problem, problem, advice: "run `todo doctor --fix` to set it to \(options.driverCommand)", fixable: true)
        ]
    }

    // MARK: Clocks

    func checkClocks(_ tasks: [Task]) -> [DoctorFinding] {
        let now = clock.nowMillis()
        var ahead: [String: (tasks: Int, newest: Int64)] = [:]
        for task in tasks {
            var members = Set<String>()
            for s in TaskMerge.futureStamps(in: task, now: now) {
                members.insert(s.member)
                ahead[s.member, default: (0, 0)].newest = max(ahead[s.member, default: (0, 0)].newest, s.stamp.wall)
            }
            for m in members { ahead[m, default: (0, 0)].tasks += 1 }
        }
        if ahead.isEmpty { return [DoctorFinding("clock", .ok, "no stamps more than a day ahead of this machine's clock")] }
        return ahead.keys.sorted().map { member in
            let a = ahead[member] ?? (0, 0)
            let days = (a.newest.subtractingReportingOverflow(now).partialValue) / 86_400_000
            let who = member.isEmpty ? "a member" : member
            return DoctorFinding(
                "clock", .problem,
                "\(who) wrote stamps up to \(days) day\(days == 1 ? "" : "s") ahead of this machine's clock (\(a.tasks) task\(a.tasks == 1 ? "" : "s"))",
                advice: "ask \(who) to check their clock (or check this one); merges still converge")
        }
    }

    // MARK: Remote

    func checkRemote(_ options: SyncOptions) -> [DoctorFinding] {
        guard let url = (try? remoteURL()).flatMap({ $0 }), !url.isEmpty else {
            return [DoctorFinding("remote", .ok, "no remote: this household is not synced (todo remote set URL)")]
        }
        let shown = redactedURL(url)
        do {
            guard let syncLock = try FileLock.acquire(path: repo.gitDirectory + "todo-sync.lock", timeout: 2) else {
                return [DoctorFinding("remote", .ok, "a sync is running; the remote \(shown) was not checked")]
            }
            defer { withExtendedLifetime(syncLock) {} }
            try Self.chooseCertificates(repo, options)
            let network = Network(url: url, options: options, deadline: monotonicSeconds() + options.timeout)
            network.sshCommand = try repo.configString("core.sshCommand")
            let have = [try repo.resolve(reference: Self.branch), try repo.resolve(reference: Self.trackingRef)].compactMap { $0 }
            let quarantine = try Quarantine.prepare(for: repo, have: have)
            defer { quarantine.discard() }
            try network.run("fetch") { cb in try fetchMain(url, into: quarantine, have: have, callbacks: cb) }
            let waiting = isWaitingForRemote()
            guard let tip = try quarantine.repo.resolve(reference: Self.fetchRef) else {
                if waiting {
                    return [DoctorFinding("remote", .ok, "\(shown) is reachable and has no history yet: this household waits for it, and tasks added here join it on the first sync after the household's creator has synced")]
                }
                return [DoctorFinding("remote", .ok, "\(shown) is reachable and empty; the next sync sends this household's history")]
            }
            let unrelated = try have.first.map { try quarantine.repo.mergeBase($0, tip) == nil } ?? false
            if unrelated && !waiting {
                return [
                    DoctorFinding(
                        "remote", .problem, "the main of \(shown) shares no history with this household: it is another household",
                        advice: "sync refuses to merge it. " + unrelatedAdvice(url: url).split(separator: "\n").joined(separator: " "))
                ]
            }
            if let (info, problem) = try Incoming.firstProblem(quarantine.repo, tip: tip, have: have) {
                return [
                    DoctorFinding(
                        "remote", .problem,
                        "\(shown) has \(problem) in commit \(info.id.hex.prefix(10)) by \(info.author.name) <\(info.author.email)>",
                        advice: "sync refuses it; ask that member to remove it with a new commit")
                ]
            }
            if unrelated {
                return [DoctorFinding("remote", .ok, "\(shown) holds the household's history now: this household waits for it, and the next sync joins it with the tasks added here on top")]
            }
            return [DoctorFinding("remote", .ok, "\(shown) is reachable and its main shares history with this household")]
        } catch let e as SyncError {
            let lines = e.message.split(separator: "\n").map(String.init)
            return [DoctorFinding("remote", .problem, lines.first ?? "", advice: lines.dropFirst().joined(separator: " "))]
        } catch {
            let e = Self.syncError(local: error, path: path)
            return [DoctorFinding("remote", .problem, e.message.split(separator: "\n").first.map(String.init) ?? "")]
        }
    }
}
