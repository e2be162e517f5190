import Glibc
import GitKit
import TodoCore

/// One thing `todo doctor` found: a check, its outcome, the facts, and what to do
/// (DoctorFacts.swift).
public struct DoctorFinding: Sendable {
    public enum Status: String, Sendable {
        /// Healthy.
        case ok
        /// Needs a person (or `--fix`, when `fixable`).
        case problem
        /// Was a problem; `--fix` repaired it.
        case fixed
    }

    /// Which check: `locks`, `unsent`, `task-file`, `hand-edit`, `merge-driver`, `serve-unit`, `timezone`, `clock`,
    /// `storage`, `remote`.
    public let check: String
    public var status: Status
    /// The file concerned, if any.
    public let path: String?
    /// What was found.
    public let fact: Fact
    /// What to do about it; nil when nothing is needed.
    public var advice: Advice?
    /// Whether `--fix` can repair it.
    public let fixable: Bool

    init(_ check: String, _ status: Status, path: String? = nil, _ fact: Fact, advice: Advice? = nil, fixable: Bool = false) {
        self.check = check
        self.status = status
        self.path = path
        self.fact = fact
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
    /// `$XDG_CONFIG_HOME` (else `~/.config`), where `todo serve install` writes the server's
    /// unit; nil skips the unit check.
    public var configHome: String?

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
    /// unreadable or misplaced task files, uncommitted hand edits, the merge driver, the server's user unit (when there
    /// is one), clocks in the stamps, the remote. With `options.fix`, repairs
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
                    files[i].advice = .seeUnsent
                }
            }
            findings += files
            findings += checkHandEdits(fix: options.fix)
            findings += checkMergeDriver(options)
            findings += checkServeUnit(configHome: options.configHome)
            findings += try checkZone()
            findings += checkClocks(tasks)
            findings += checkStorage(fix: options.fix)
            if !options.offline {
                findings += checkRemote(options.sync)
            } else if isWaitingForRemote() {
                findings.append(DoctorFinding("remote", .ok, .waitingOffline))
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
            return [DoctorFinding("locks", .ok, .locksNotChecked)]
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
                findings.append(DoctorFinding("locks", .fixed, path: ".git/" + name, .staleLockRemoved(name: name)))
            } else {
                findings.append(
                    DoctorFinding(
                        "locks", .problem, path: ".git/" + name, .staleLock(name: name), advice: .removeStaleLock, fixable: true))
            }
        }
        if let pending = readFile(pendingPath), pending.contains(where: { !$0.isWhitespace }) {
            if fix {
                try recoverInterruptedChange()
                findings.append(DoctorFinding("locks", .fixed, path: ".git/todo-pending", .interruptedChangeFinished))
            } else {
                findings.append(
                    DoctorFinding(
                        "locks", .problem, path: ".git/todo-pending", .interruptedChange, advice: .finishInterruptedChange, fixable: true))
            }
        }
        if findings.isEmpty { findings.append(DoctorFinding("locks", .ok, .noStaleLocks)) }
        return findings
    }

    // MARK: Hand edits

    func checkHandEdits(fix: Bool) -> [DoctorFinding] {
        let edited: [String]
        do {
            edited = try handEdits(repairing: fix)
        } catch {
            return [DoctorFinding("hand-edit", .problem, .workTreeNotCompared(reason: error))]
        }
        if edited.isEmpty { return [DoctorFinding("hand-edit", .ok, .noHandEdits)] }
        return edited.map {
            DoctorFinding("hand-edit", .problem, path: $0, .handEdit(path: $0), advice: .commitOrDiscard(repo: path, path: $0))
        }
    }

    // MARK: Merge driver

    func checkMergeDriver(_ options: DoctorOptions) -> [DoctorFinding] {
        let current = mergeDriver()
        var problem: DoctorFinding.DriverProblem?
        if let current {
            if let program = MergeDriverConfig.program(of: current, searchPath: options.searchPath), access(program, X_OK) == 0 {
                if MergeDriverConfig.canonical(program) != MergeDriverConfig.canonical(options.executable) {
                    let theirs = runProgram([program, "--version"], input: "", deadline: .now + .seconds(10))?.split(separator: "\n").first.map(String.init)
                    if theirs != options.version {
                        problem = .otherVersion(program: program, version: theirs, expected: options.version)
                    }
                }
            } else {
                problem = .missingProgram(setting: current)
            }
        } else {
            problem = .notConfigured
        }
        guard let problem else {
            return [DoctorFinding("merge-driver", .ok, .mergeDriverRunsThis(setting: current ?? ""))]
        }
        // Not repaired: reported as a problem with its advice (below).
        if options.fix, (try? setMergeDriver(options.driverCommand)) != nil {
            return [DoctorFinding("merge-driver", .fixed, .mergeDriver(problem, nowSetTo: options.driverCommand))]
        }
        return [
            DoctorFinding(
                "merge-driver", .problem, .mergeDriver(problem, nowSetTo: nil), advice: .setMergeDriver(command: options.driverCommand),
                fixable: true)
        ]
    }

    // MARK: Time zone

    func checkZone() throws -> [DoctorFinding] {
        let zone = try zone()
        switch zone.source {
        case .recorded:
            return [DoctorFinding("timezone", .ok, .zoneFollowed(name: zone.rules.name))]
        case .machine:
            return [DoctorFinding("timezone", .ok, .zoneFollowed(name: nil))]
        case .unknownRecorded(let name):
            return [
                DoctorFinding(
                    "timezone", .problem, .zoneUnknown(name: name, using: zone.rules.name), advice: .installZoneData(name: name))
            ]
        }
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
        if ahead.isEmpty { return [DoctorFinding("clock", .ok, .clocksInStep)] }
        return ahead.keys.sorted().map { member in
            let a = ahead[member] ?? (0, 0)
            let days = (a.newest.subtractingReportingOverflow(now).partialValue) / 86_400_000
            let who = member.isEmpty ? nil : member
            return DoctorFinding(
                "clock", .problem, .clockAhead(member: who, days: days, tasks: a.tasks), advice: .checkClock(member: who))
        }
    }

    // MARK: Remote

    func checkRemote(_ options: SyncOptions) -> [DoctorFinding] {
        // A remote setting that cannot be read counts as none; the other checks read the config too and report it.
        guard let url = (try? remoteURL()).flatMap({ $0 }), !url.isEmpty else {
            return [DoctorFinding("remote", .ok, .noRemote)]
        }
        let shown = redactedURL(url)
        do {
            guard let syncLock = try FileLock.acquire(path: repo.gitDirectory + "todo-sync.lock", timeout: 2) else {
                return [DoctorFinding("remote", .ok, .syncRunning(remote: shown))]
            }
            defer { withExtendedLifetime(syncLock) {} }
            try Self.chooseCertificates(repo, options)
            let network = Network(url: url, options: options, deadline: options.deadline())
            network.sshCommand = try repo.configString("core.sshCommand")
            let have = [try repo.resolve(reference: Self.branch), try repo.resolve(reference: Self.trackingRef)].compactMap { $0 }
            let quarantine = try Quarantine.prepare(for: repo, have: have)
            defer { quarantine.discard() }
            // An encrypted remote is read as a sync reads it, nothing of what was read kept.
            var encrypted: DoctorFinding?
            let fetchedTip: ObjectID?
            if try remoteIsEncrypted() {
                let side = try EncryptedSide(self, options)
                fetchedTip = try side.fetchAndRead(url, network: network, into: quarantine.repo).plain
                let keys = try keyRoster()
                encrypted = DoctorFinding(
                    "remote", .ok,
                    .remoteEncrypted(remote: shown, devices: keys.members.reduce(0) { $0 + $1.recipients.count }, members: keys.members.map(\.name),
                        recovery: keys.recovery != nil))
            } else {
                try network.run("fetch") { cb in try fetchMain(url, into: quarantine, have: have, callbacks: cb) }
                fetchedTip = try quarantine.repo.resolve(reference: Self.fetchRef)
            }
            let waiting = isWaitingForRemote()
            guard let tip = fetchedTip else {
                if waiting {
                    return [DoctorFinding("remote", .ok, .remoteWaiting(remote: shown))]
                }
                return [DoctorFinding("remote", .ok, .remoteEmpty(remote: shown))]
            }
            let unrelated = try have.first.map { try quarantine.repo.mergeBase($0, tip) == nil } ?? false
            if unrelated && !waiting {
                return [
                    DoctorFinding(
                        "remote", .problem, .remoteIsAnotherHousehold(remote: shown), advice: .anotherHousehold(remote: shown, household: name))
                ]
            }
            if let (info, problem) = try Incoming.firstProblem(quarantine.repo, tip: tip, have: have) {
                return [
                    DoctorFinding(
                        "remote", .problem, .remoteHasRefused(remote: shown, problem: problem, commit: CommitFacts(info)),
                        advice: .askAuthorToRemove)
                ]
            }
            if unrelated {
                return [DoctorFinding("remote", .ok, .remoteToJoin(remote: shown))]
            }
            return [DoctorFinding("remote", .ok, .remoteShared(remote: shown))] + (encrypted.map { [$0] } ?? [])
        } catch let e as SyncError {
            return [DoctorFinding("remote", .problem, .syncFailed(e), advice: .syncFailed(e))]
        } catch {
            return [DoctorFinding("remote", .problem, .syncFailed(Self.syncError(local: error, path: path)))]
        }
    }
}
