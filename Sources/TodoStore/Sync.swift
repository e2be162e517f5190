#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import Dispatch
import GitKit
import TodoCore

/// How a sync runs.
public struct SyncOptions: Sendable {
    /// Seconds allowed for all network work together (fetches, pushes, retries).
    public var timeout: Double = 60
    /// How often to fetch-merge-push when someone else keeps pushing first.
    public var maxRounds = 5
    /// Attempts per network step for transient failures.
    public var attempts = 4
    /// Whether credential helpers may prompt (a person at a terminal).
    public var interactive = false
    /// `$HOME`, for `~/.ssh` keys.
    public var home: String = "/"
    /// CA certificates to trust for https instead of the system's (`GIT_SSL_CAINFO`); else
    /// git's `http.sslCAInfo` setting, else the system bundle.
    public var certificateFile: String?
    public var agentSocket: String?
    /// Called with a progress line ("Receiving objects: 45% (450/1000)") during transfers.
    public var progress: (@Sendable (String) -> Void)?
    public init() {}
}

/// What a sync did.
public struct SyncReport: Sendable {
    /// Task files the remote changed in our household.
    public var received = 0
    /// Task files we changed that the remote now has.
    public var sent = 0
    public var merge: MergeResult?
    public var remoteWasEmpty = false
    /// The remote's history was rewritten (it no longer contains what we last fetched).
    public var remoteRewritten = false
    public var rounds = 0
    public var conflicts: [ConflictEntry] { merge?.entries ?? [] }
}

/// The record behind `todo status`: `.git/todo/sync-state`.
public struct SyncState: Sendable {
    public var lastSuccess: Int64?
    public var lastAttempt: Int64?
    public var lastError: String?
    public var lastErrorClass: String?
}

extension Household {
    static let remoteName = "origin"
    static let trackingRef = "refs/remotes/origin/main"
    /// Past this many pack files in the household or a path remote, sync combines all but the
    /// largest into one (each sync that moves more than a few objects adds one).
    static let packLimit = 32
    /// Where a fetch puts the remote's `main`, in the quarantine repository.
    static let fetchRef = "refs/todo/fetched"

    // MARK: The remote

    /// The household's remote URL (`remote.origin.url`), if set.
    public func remoteURL() throws(StoreError) -> String? {
        do {
            return try repo.configString("remote.origin.url")
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Sets or removes the remote; plain `git pull`/`git push` use the same settings.
    public func setRemote(_ url: String?) throws(StoreError) {
        do {
            if let url {
                try repo.setLocalConfig("remote.origin.url", url)
                try repo.setLocalConfig("remote.origin.fetch", "+refs/heads/main:refs/remotes/origin/main")
                try repo.setLocalConfig("branch.main.remote", "origin")
                try repo.setLocalConfig("branch.main.merge", "refs/heads/main")
            } else {
                for key in ["remote.origin.url", "remote.origin.fetch", "branch.main.remote", "branch.main.merge"] {
                    try repo.removeLocalConfig(key)
                }
            }
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    // MARK: Sync

    /// Fetches the remote's `main`, merges it field by field, and pushes the result, retrying
    /// transient failures and push races. Local commits are never rewritten or lost; nothing
    /// is ever force-pushed.
    public func sync(_ options: SyncOptions) throws(SyncError) -> SyncReport {
        let started = clock.nowMillis()
        do {
            let report = try syncLocked(options)
            recordSync(at: started, error: nil)
            // Housekeeping only: a failure here loses nothing and fails nothing. Under the
            // household lock, so that no other command is writing meanwhile.
            _ = try? withLock { try repo.consolidatePacks(above: Self.packLimit) }
            return report
        } catch let e as SyncError {
            recordSync(at: started, error: e)
            throw e
        } catch {
            let e = Self.syncError(local: error, path: path)
            recordSync(at: started, error: e)
            throw e
        }
    }

    static func syncError(local error: Error, path: String) -> SyncError {
        switch StoreError.from(error, path: path) {
        case .diskFull:
            return SyncError(.local, "The disk is full. Nothing was lost; free some space and sync again.")
        case .locked:
            return SyncError(.local, "The household was busy for too long. Nothing was lost; sync again in a moment.")
        case .handEdits(_, let paths):
            return SyncError(
                .local,
                "Task files were changed by hand and not committed (\(paths.prefix(3).joined(separator: ", "))).\nCommit or discard them with git, then sync again.")
        case .mergeFailed(let failures):
            return SyncError(.data, failures.prefix(3).map(\.description).joined(separator: "\n") + "\nNothing was merged.")
        case .unrelatedHistories:
            return SyncError(
                .data,
                "The remote's history has nothing in common with this household's, so it is another household.\nNothing was merged; check the remote URL (todo remote).")
        case .git(let g):
            return SyncError(.local, "The household repository could not be updated (\(g.message)). Nothing was lost.", detail: g.description)
        case let other:
            return SyncError(.local, "\(other)")
        }
    }

    private func syncLocked(_ options: SyncOptions) throws -> SyncReport {
        guard let url = try remoteURL(), !url.isEmpty else {
            throw SyncError(.configuration, "This household has no remote. Set one with `todo remote set URL`.")
        }
        guard let syncLock = try FileLock.acquire(path: repo.gitDirectory + "todo-sync.lock", timeout: 2) else {
            throw SyncError(.transient, "Another sync of this household is running. Nothing was changed; it will carry your changes.")
        }
        defer { withExtendedLifetime(syncLock) {} }
        // Only a sync writes the tracking ref, and we hold the sync lock: a lock file on it was
        // left by a sync that was killed, and would fail every later one.
        unlink(repo.gitDirectory + Self.trackingRef + ".lock")
        try Self.chooseCertificates(repo, options)
        let network = Network(url: url, options: options, deadline: monotonicSeconds() + options.timeout)
        network.sshCommand = try repo.configString("core.sshCommand")
        var report = SyncReport()
        let previous = try repo.resolve(reference: Self.trackingRef)
        for round in 1...options.maxRounds {
            report.rounds = round
            // 1. Fetch into quarantine, so that nothing refused enters the household.
            // What the tracking ref points at was checked when it was fetched.
            let have = [try repo.resolve(reference: Self.branch), try repo.resolve(reference: Self.trackingRef)].compactMap { $0 }
            let quarantine = try Quarantine.prepare(for: repo, have: have)
            defer { quarantine.discard() }
            try network.run("fetch") { cb in
                if let remotePath = Self.localPath(url) {
                    try Self.fetch(fromPath: remotePath, into: quarantine.repo, have: have)
                } else {
                    try quarantine.repo.fetch(url: url, refspecs: ["+refs/heads/main:\(Self.fetchRef)"], callbacks: cb)
                }
            }
            let remoteTip = try quarantine.repo.resolve(reference: Self.fetchRef)
            if remoteTip == nil { report.remoteWasEmpty = true }
            // 2. Check what came in, then merge it.
            if let remoteTip {
                try Incoming.validate(quarantine.repo, tip: remoteTip, have: have)
                try quarantine.admit()
                if let previous, try !repo.isAncestor(previous, of: remoteTip) { report.remoteRewritten = true }
                let merged = try withLock { () throws -> MergeResult in
                    try recoverInterruptedChange()
                    return try mergeLocked(theirs: remoteTip) { counts in Self.mergeMessage(counts) }
                }
                if merged.kind != .upToDate {
                    report.received += merged.changedTasks.count
                    if merged.kind == .merged || report.merge == nil { report.merge = merged }
                }
                try repo.updateReference(Self.trackingRef, to: remoteTip, expected: nil, force: true, message: "sync: fetch")
            }
            // 3. Push what the remote lacks.
            guard let head = try repo.resolve(reference: Self.branch) else { return report }
            if head == remoteTip {
                return report
            }
            let pushed = try push(head, over: remoteTip, url: url, network: network)
            if pushed {
                report.sent += try sentCount(from: remoteTip, to: head)
                try repo.updateReference(Self.trackingRef, to: head, expected: nil, force: true, message: "sync: push")
                return report
            }
            // Someone pushed first: fetch and merge again.
        }
        throw SyncError(
            .transient,
            "Other members kept pushing while this sync ran (\(options.maxRounds) rounds). Your changes are saved and will be sent on the next sync.")
    }

    /// Task files changed between what the remote had and what we pushed.
    func sentCount(from remoteTip: ObjectID?, to head: ObjectID) throws -> Int {
        let before = try Snapshot(repo: repo, commit: remoteTip)
        let after = try Snapshot(repo: repo, commit: head)
        return try before.changedFiles(oldTasks: before.tasksTree, newTasks: after.tasksTree).count
    }

    /// Pushes `head` to the remote's `main` if it still is `expected`. False when someone else
    /// pushed first (the caller fetches and merges again).
    func push(_ head: ObjectID, over expected: ObjectID?, url: String, network: Network) throws -> Bool {
        if let remotePath = Self.localPath(url) {
            return try pushToPath(head, over: expected, remotePath: remotePath, url: url, network: network)
        }
        var refusal: String?
        do {
            try network.run("push") { cb in
                try repo.push(url: url, refspecs: ["refs/heads/main:refs/heads/main"], callbacks: cb)
                refusal = cb.rejections.first?.reason
            }
        } catch let e as GitError where e.isNonFastForward {
            // libgit2 saw, before sending, that the remote's main moved since our fetch.
            return false
        }
        guard let refusal else { return true }
        if Self.isRace(refusal) { return false }
        throw SyncError(
            .configuration,
            "The household remote \(redactedURL(url)) refused the push of main (\(refusal)).\nYour changes are saved; ask whoever runs the remote to allow pushes to main.")
    }

    /// A path remote has no server: this process writes it. Under a kernel lock in the remote
    /// (`todo-push.lock`): write what the remote lacks as one pack into its object store, then
    /// move its `main` by compare-and-swap. A record (`todo-push-inflight`) exists while the
    /// ref is being written; the next push that finds it knows that a `main.lock` there was
    /// left by a killed process, and clears it, instead of failing on it forever.
    func pushToPath(_ head: ObjectID, over expected: ObjectID?, remotePath: String, url: String, network: Network) throws -> Bool {
        let remote = try Repository.open(path: remotePath)
        let remoteGit = remote.gitDirectory
        let wait = max(0.5, min(10, network.deadline - monotonicSeconds()))
        guard let lock = try FileLock.acquire(path: remoteGit + "todo-push.lock", timeout: wait) else { return false }
        defer { withExtendedLifetime(lock) {} }
        let inflight = remoteGit + "todo-push-inflight"
        if readFile(inflight) != nil {
            unlink(remoteGit + Self.branch + ".lock")
            unlink(inflight)
        }
        try network.run("push") { _ in
            let objects = try repo.objectsMissing(reaching: [head], from: expected.map { [$0] } ?? [])
            try repo.copy(objects, to: remote)
        }
        try writeFile(inflight, Self.branch + "\n", sync: false)
        defer { unlink(inflight) }
        do {
            try remote.updateReference(Self.branch, to: head, expected: expected, message: "todo sync")
        } catch let e as GitError where e.isModified || e.isExists || e.isLocked {
            return false
        }
        _ = try? remote.consolidatePacks(above: Self.packLimit)
        return true
    }

    /// Fetches the `main` of the repository at `remotePath` into `quarantine` as `fetchRef`:
    /// what `have` lacks, as one pack. A remote without `main` leaves `fetchRef` unset.
    static func fetch(fromPath remotePath: String, into quarantine: Repository, have: [ObjectID]) throws {
        let remote = try Repository.open(path: remotePath)
        guard let tip = try remote.resolve(reference: branch) else { return }
        do {
            _ = try remote.commit(tip)
        } catch {
            throw SyncError(
                .data, "The remote's main points at \(tip.hex.prefix(10)), which is not a commit it holds.\nNothing was merged; check the remote.")
        }
        // Only what the remote's main reaches counts as shared: a sync killed while copying into
        // the remote can leave our newest commits there without their history.
        let shared = have.filter { (try? remote.isAncestor($0, of: tip)) == true }
        let objects = try remote.objectsMissing(reaching: [tip], from: shared)
        try remote.copy(objects, to: quarantine)
        try quarantine.updateReference(fetchRef, to: tip, expected: nil, force: true, message: "fetch")
    }

    /// Which CA certificates https trusts: `GIT_SSL_CAINFO`, else git's `http.sslCAInfo`, else
    /// the system's bundle.
    static func chooseCertificates(_ repo: Repository, _ options: SyncOptions) throws {
        guard let file = try options.certificateFile ?? repo.configString("http.sslCAInfo"), !file.isEmpty else { return }
        GitLibrary.useCertificates(from: file.hasPrefix("~/") ? options.home + file.dropFirst(1) : file)
    }

    /// Whether a server's reason for refusing a ref update means someone else updated it first.
    static func isRace(_ reason: String) -> Bool {
        let r = reason.lowercased()
        return ["non-fast-forward", "fetch first", "stale info", "failed to lock", "cannot lock", "failed to update ref"]
            .contains { r.contains($0) }
    }

    /// The file-system path of a path or `file://` remote; nil for network remotes.
    static func localPath(_ url: String) -> String? {
        if url.hasPrefix("file://") { return String(url.dropFirst(7)) }
        if url.contains("://") { return nil }
        if url.hasPrefix("/") || url.hasPrefix("./") || url.hasPrefix("../") { return url }
        // scp-like `host:path` is ssh; a bare relative path has no colon before any slash.
        if let colon = url.firstIndex(of: ":"), url.firstIndex(of: "/").map({ colon < $0 }) ?? true { return nil }
        return url
    }

    static func mergeMessage(_ c: MergeCounts) -> String {
        var from = c.authors.prefix(3).joined(separator: ", ")
        if c.authors.count > 3 { from += " and others" }
        var msg = "sync: \(c.changed) task\(c.changed == 1 ? "" : "s")"
        if !from.isEmpty { msg += " from \(from)" }
        if c.conflicts > 0 { msg += ", \(c.conflicts) conflict\(c.conflicts == 1 ? "" : "s")" }
        return msg
    }

    // MARK: Joining

    /// A new member joins: creates the household from the remote's `main` (or, if the remote is
    /// empty, as a new household whose history the first sync pushes). Nothing is left behind
    /// when it fails.
    public static func clone(
        home: String, name: String, url: String, identity: Identity, clock: WallClock = .system, driverCommand: String,
        options: SyncOptions
    ) throws -> Household {
        try validate(name: name)
        let path = "\(home)/\(name)"
        if access(path, F_OK) == 0 { throw StoreError.householdExists(name: name, path: path) }
        try makeDirectories(home)
        GitLibrary.start()
        do {
            let repo = try Repository.create(path: path)
            let household = Household(name: name, path: path, repo: repo, clock: clock)
            try household.configure(identity: identity, driverCommand: driverCommand)
            try household.setRemote(url)
            let started = clock.nowMillis()
            try chooseCertificates(repo, options)
            let network = Network(url: url, options: options, deadline: monotonicSeconds() + options.timeout)
            try network.run("fetch") { cb in
                try repo.fetch(url: url, refspecs: ["+refs/heads/main:\(trackingRef)"], callbacks: cb)
            }
            if let tip = try repo.resolve(reference: trackingRef) {
                try Incoming.validate(repo, tip: tip, have: [])
                try repo.updateReference(branch, to: tip, expected: nil, message: "clone")
                try repo.checkoutAll(tree: try repo.commit(tip).tree)
            } else {
                try household.update { _ in
                    Household.Update(
                        tasks: [], files: [(MergeSetup.attributesPath, Array(MergeSetup.attributes.utf8))],
                        message: "init: household \(name)", value: ())
                }
            }
            // Joining is the first exchange with the remote: `todo status` counts it as a sync.
            household.recordSync(at: started, error: nil)
            return household
        } catch {
            removeTree(path)
            if let e = error as? SyncError { throw e }
            throw StoreError.from(error, path: path)
        }
    }

    // MARK: State for `todo status`

    var syncStatePath: String { repo.gitDirectory + "todo/sync-state" }

    func recordSync(at time: Int64, error: SyncError?) {
        var state = syncState()
        state.lastAttempt = time
        if let error {
            state.lastError = error.message.split(separator: "\n").first.map(String.init)
            state.lastErrorClass = error.kind.rawValue
        } else {
            state.lastSuccess = time
            state.lastError = nil
            state.lastErrorClass = nil
        }
        var text = ""
        if let v = state.lastSuccess { text += "lastSuccess=\(v)\n" }
        if let v = state.lastAttempt { text += "lastAttempt=\(v)\n" }
        if let v = state.lastErrorClass { text += "lastErrorClass=\(v)\n" }
        if let v = state.lastError { text += "lastError=\(v)\n" }
        mkdir(repo.gitDirectory + "todo", 0o755)
        try? writeFile(syncStatePath, text, sync: false)
    }

    /// When the last sync succeeded and, if the last attempt failed, why.
    public func syncState() -> SyncState {
        var s = SyncState()
        for line in (readFile(syncStatePath) ?? "").split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            let key = line[..<eq]
            let value = String(line[line.index(after: eq)...])
            switch key {
            case "lastSuccess": s.lastSuccess = Int64(value)
            case "lastAttempt": s.lastAttempt = Int64(value)
            case "lastErrorClass": s.lastErrorClass = value
            case "lastError": s.lastError = value
            default: break
            }
        }
        return s
    }
}

/// Network steps with a deadline, retries with backoff for transient failures, and one
/// credential source for the whole sync.
final class Network {
    let url: String
    let options: SyncOptions
    let deadline: Double
    let credentials: CredentialSource
    /// The household's `core.sshCommand` (fetches run in a scratch repository without it).
    var sshCommand: String?
    /// Set by the watchdog when the deadline passes.
    nonisolated(unsafe) static var timedOut = false

    init(url: String, options: SyncOptions, deadline: Double) {
        self.url = url
        self.options = options
        self.deadline = deadline
        credentials = CredentialSource(home: options.home, agentSocket: options.agentSocket, interactive: options.interactive)
    }

    /// Runs one network step, retrying transient failures with exponential backoff and jitter
    /// while time remains; classifies the final failure.
    func run(_ what: String, _ body: (RemoteCallbacks) throws -> Void) throws {
        var delay = 0.5
        var attempt = 0
        while true {
            attempt += 1
            credentials.beginStep()
            let callbacks = RemoteCallbacks()
            callbacks.credentials = { [credentials] url, user, allowed in
                credentials.next(url: url, userFromURL: user, allowed: allowed)
            }
            callbacks.shouldCancel = { Network.timedOut || monotonicSeconds() > self.deadline }
            callbacks.allowPrompts = options.interactive
            callbacks.sshCommand = sshCommand
            if let progress = options.progress {
                callbacks.transferProgress = { p in
                    guard p.totalObjects > 0 else { return }
                    progress("Receiving objects: \(p.receivedObjects * 100 / p.totalObjects)% (\(p.receivedObjects)/\(p.totalObjects))")
                }
                callbacks.pushProgress = { current, total, _ in
                    guard total > 0 else { return }
                    progress("Sending objects: \(current * 100 / total)% (\(current)/\(total))")
                }
            }
            let watchdog = Watchdog(deadline: deadline)
            do {
                try body(callbacks)
                watchdog.cancel()
                credentials.report(success: true)
                return
            } catch let e as GitError {
                watchdog.cancel()
                // Someone pushed first: the caller fetches and merges, which no retry can replace.
                if e.isNonFastForward { throw e }
                let shape = FailureShape.of(e, timedOut: watchdog.fired || monotonicSeconds() > deadline)
                let error =
                    callbacks.sshExit.flatMap { sshError($0, e, what: what) }
                    ?? classify(shape, e, what: what, refusedHost: callbacks.certificateRefused)
                if shape == .auth { credentials.report(success: false) }
                let remaining = deadline - monotonicSeconds()
                guard error.kind == .transient, shape != .timeout, attempt < options.attempts, remaining > delay else {
                    throw error
                }
                var rng = SystemRandomNumberGenerator()
                let jitter = Double.random(in: 0..<(delay / 2), using: &rng)
                usleep(UInt32((delay + jitter) * 1_000_000))
                delay *= 2
            }
        }
    }

    func classify(_ shape: FailureShape, _ e: GitError, what: String, refusedHost: String?) -> SyncError {
        let shown = redactedURL(url)
        let detail = e.description
        switch shape {
        case .timeout:
            return SyncError(.transient, "The household remote did not answer within \(Int(options.timeout)) seconds (\(what)).", detail: detail)
        case .refused:
            return SyncError(.transient, "Could not reach the household remote \(shown) (\(e.message)).", detail: detail)
        case .dns:
            return SyncError(.transient, "Could not find the host of the household remote \(shown) (\(e.message)).", detail: detail)
        case .busy:
            return SyncError(.transient, "The household remote is busy (\(e.message)).", detail: detail)
        case .auth:
            // https: ssh's refusals are explained in SSHFailure.swift.
            return SyncError(
                .authentication,
                "The household remote \(shown) did not accept your credentials.\nStore the password with a git credential helper.",
                detail: detail)
        case .hostKey:
            // Only a transport of libgit2's that checks host keys itself gets here: ssh runs
            // OpenSSH, whose refusals SSHFailure.swift explains.
            return SyncError(
                .configuration,
                "The ssh host key of \(refusedHost ?? "the server") could not be verified, so the remote cannot be trusted yet.\nConnect once at a terminal with `ssh HOST` and compare the fingerprint it shows with the server's own.",
                detail: detail)
        case .certificate:
            return SyncError(
                .configuration,
                "The https certificate of \(refusedHost ?? shown) is not trusted.\nInstall its CA certificate in the system store (update-ca-certificates) or name it in git's http.sslCAInfo setting.",
                detail: detail)
        case .notFound:
            return SyncError(
                .configuration, "There is no git repository at \(shown).\nCheck the URL with `todo remote`, or create the repository there (git init --bare).",
                detail: detail)
        case .badURL:
            return SyncError(.configuration, "\(shown) is not a remote URL todo understands (use a path, file://, git://, ssh:// or https://).", detail: detail)
        case .rejected, .other:
            return SyncError(.transient, "The sync with \(shown) failed (\(e.message)).", detail: detail)
        }
    }
}

/// At the deadline, shuts down every socket of the process so that a libgit2 call blocked on a
/// silent server returns (libgit2 1.5 has no network timeouts of its own).
final class Watchdog {
    private let item: DispatchWorkItem
    private let state = WatchdogState()

    init(deadline: Double) {
        let state = self.state
        item = DispatchWorkItem {
            state.fired = true
            Network.timedOut = true
            shutdownSockets()
        }
        let delay = max(0, deadline - monotonicSeconds())
        DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: item)
    }

    var fired: Bool { state.fired }

    func cancel() { item.cancel() }
}

final class WatchdogState: @unchecked Sendable {
    var fired = false
}

func shutdownSockets() {
    for name in listDirectory("/proc/self/fd") {
        guard let fd = Int32(name) else { continue }
        var st = stat()
        if fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK { shutdown(fd, Int32(SHUT_RDWR)) }
    }
}
