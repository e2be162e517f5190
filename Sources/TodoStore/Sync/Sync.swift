import Glibc
import GitKit
import TodoCore

extension Household {
    static let remoteName = "origin"
    static let trackingRef = "refs/remotes/origin/main"
    /// Past this many pack files in the household or a path remote, sync combines all but the
    /// largest into one (each sync that moves more than a few objects adds one).
    static let packLimit = 32
    /// Where a fetch puts the remote's `main`, in the quarantine repository.
    static let fetchRef = "refs/todo/fetched"

    // MARK: The remote

    /// Where an encrypted household keeps its remote's URL (docs/ENCRYPTION.md): outside
    /// `remote.origin`, so that plain `git fetch` and `git pull` find no remote and never mix
    /// ciphertext into the household.
    static let encryptedRemoteKey = "todo.remote"

    /// The household's remote URL (`todo.remote` for an encrypted remote, else
    /// `remote.origin.url`), if set.
    public func remoteURL() throws(StoreError) -> String? {
        do {
            if let url = try repo.configString(Self.encryptedRemoteKey), !url.isEmpty { return url }
            return try repo.configString("remote.origin.url")
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Whether the household's remote holds only ciphertext (docs/ENCRYPTION.md).
    public func remoteIsEncrypted() throws(StoreError) -> Bool {
        do {
            return try !(repo.configString(Self.encryptedRemoteKey) ?? "").isEmpty
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Sets or removes the remote. A plaintext remote is git's `origin`, so plain `git pull` and
    /// `git push` use the same settings; an encrypted household's new remote stays encrypted
    /// (`todo.remote`). Removing it forgets that the remote was encrypted.
    public func setRemote(_ url: String?) throws(StoreError) {
        let encrypted = try remoteIsEncrypted()
        try setRemote(url, encrypted: url != nil && encrypted)
    }

    func setRemote(_ url: String?, encrypted: Bool) throws(StoreError) {
        do {
            let before = try remoteURL()
            for key in ["remote.origin.url", "remote.origin.fetch", "branch.main.remote", "branch.main.merge", Self.encryptedRemoteKey] {
                try repo.removeLocalConfig(key)
            }
            if let url, encrypted {
                try repo.setLocalConfig(Self.encryptedRemoteKey, url)
            } else if let url {
                try repo.setLocalConfig("remote.origin.url", url)
                try repo.setLocalConfig("remote.origin.fetch", "+refs/heads/main:refs/remotes/origin/main")
                try repo.setLocalConfig("branch.main.remote", "origin")
                try repo.setLocalConfig("branch.main.merge", "refs/heads/main")
            }
            // What was read from another remote says nothing of this one; the keys carry over.
            if before != url { try CryptRemote.forgetRead(in: repo) }
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
        // The log names the remote when it can be read; the sync itself reports a config it cannot read.
        let log = SyncLog(directory: options.logDirectory, household: name, remote: (try? remoteURL()) ?? nil, clock: clock)
        do {
            let report = try syncLocked(options)
            if report.skipped {
                // Neither a success nor a failure: the running sync records its own outcome.
                log.append(outcome: "skipped", fields: [:], message: "another sync is running")
                return report
            }
            recordSync(at: started, error: nil, remote: report.remote)
            // Housekeeping only: a failure here loses nothing and fails nothing. Under the
            // household lock, so that no other command is writing meanwhile.
            _ = try? withLock { try repo.consolidatePacks(above: Self.packLimit) }
            log.append(report)
            return report
        } catch {
            let e = (error as? SyncError) ?? Self.syncError(local: error, path: path)
            let said = Self.firstLine(options.describe?(e) ?? String(describing: e.problem))
            recordSync(at: started, error: e, said: said)
            log.append(e, said: said)
            throw withUnsentNote(e)
        }
    }

    /// A failure to try again later notes what waits to be sent (it is safe).
    func withUnsentNote(_ e: SyncError) -> SyncError {
        // A sync outrun by other pushes says so already.
        guard e.kind == .transient || e.kind == .local, e.code != .pushRaces,
            // The count of unsent changes only adds to a message that stands on its own.
            let n = try? status().unsent.count, n > 0
        else { return e }
        return e.noting(unsent: .init(count: n, waitingForRemote: isWaitingForRemote()))
    }

    static func syncError(local error: Error, path: String) -> SyncError {
        switch StoreError.from(error, path: path) {
        case .diskFull(_, let cause):
            return SyncError(.diskFull, .diskFull, cause: cause)
        case .locked:
            return SyncError(.householdBusy, .householdBusy)
        case .handEdits(_, let paths):
            return SyncError(.handEdits, .handEdits(paths: paths))
        case .mergeFailed(let failures):
            return SyncError(.mergeFailed, .mergeFailed(failures))
        case .unrelatedHistories:
            return SyncError(.unrelatedHistories, .unrelatedHistories)
        case .git(let g):
            return SyncError(.repository, .repository(said: g.message), detail: g.description)
        case let other:
            return SyncError(.local, .store(other))
        }
    }

    private func syncLocked(_ options: SyncOptions) throws -> SyncReport {
        guard let url = try remoteURL(), !url.isEmpty else {
            throw SyncError(.noRemote, .noRemote)
        }
        guard let syncLock = try FileLock.acquire(path: repo.gitDirectory + "todo-sync.lock", timeout: 2) else {
            // An overlapping run (cron's next one while a slow sync still runs) is no failure:
            // the running sync sends what was committed before it pushed, the next one the rest.
            var skipped = SyncReport()
            skipped.remote = redactedURL(url)
            skipped.skipped = true
            return skipped
        }
        defer { withExtendedLifetime(syncLock) {} }
        // Only a sync writes the tracking ref, and we hold the sync lock: a lock file on it was
        // left by a sync that was killed, and would fail every later one.
        unlink(repo.gitDirectory + Self.trackingRef + ".lock")
        try Self.chooseCertificates(repo, options)
        let previous = try repo.resolve(reference: Self.trackingRef)
        // A remote this household has synced with before is never something to create: if it
        // is missing now, it is unmounted, unreachable or moved, and a new one would split the
        // household.
        let network = Network(
            url: url, options: options, deadline: options.deadline(), syncedBefore: previous != nil && syncState().lastRemote == redactedURL(url))
        network.sshCommand = try repo.configString("core.sshCommand")
        var report = SyncReport()
        report.remote = redactedURL(url)
        var crypt = try remoteIsEncrypted() ? try EncryptedSide(self, options) : nil
        var finished = false
        defer { if finished, let crypt { crypt.remote.tidy() } }
        for round in 1...options.maxRounds {
            report.rounds = round
            // 1. Fetch into quarantine, so that nothing refused enters the household.
            // What the tracking ref points at was checked when it was fetched.
            let have = [try repo.resolve(reference: Self.branch), try repo.resolve(reference: Self.trackingRef)].compactMap { $0 }
            var quarantine = try Quarantine.prepare(for: repo, have: have)
            defer { quarantine.discard() }
            var remoteTip: ObjectID?
            var chain: EncryptedChain?
            var becameEncrypted = false
            if crypt == nil {
                try network.run("fetch") { cb in try fetchMain(url, into: quarantine, have: have, callbacks: cb) }
                remoteTip = try quarantine.repo.resolve(reference: Self.fetchRef)
                if let found = remoteTip, Self.looksEncrypted(quarantine.repo, tip: found) {
                    // Another member moved the household to this remote, encrypted: it is read
                    // as one from now on, once it reads. Its ciphertext never enters the household.
                    quarantine.discard()
                    quarantine = try Quarantine.prepare(for: repo, have: have)
                    crypt = try EncryptedSide(self, options)
                    becameEncrypted = true
                }
            }
            if let crypt {
                // The ciphertext into its own repository; what it carries into quarantine.
                chain = try crypt.fetchAndRead(url, network: network, into: quarantine.repo)
                remoteTip = chain?.plain
            }
            if remoteTip == nil {
                report.remoteWasEmpty = true
                // Emptied since we last fetched from it: everything is sent again below.
                if previous != nil, !report.remoteRewritten { report.remoteWentBack = true }
            }
            // 2. Check what came in, then merge it.
            if let remoteTip {
                // The scratch repository's packs are the fetch's, indexed here.
                try Incoming.validate(
                    quarantine.repo, tip: remoteTip, have: have, packs: PackFiles(gitDirectory: quarantine.repo.gitDirectory))
                try quarantine.admit()
                // What was read is in the household now: the next sync reads on from there.
                if let crypt, let chain { try crypt.remote.saveReadState(chain.state) }
                if becameEncrypted { try setRemote(url, encrypted: true) }
                if !report.remoteWentBack, !report.remoteRewritten, let previous, try !repo.isAncestor(previous, of: remoteTip) {
                    // Back to a state we had seen (a restored backup): what it lost is still
                    // ours and goes out below. Anything else it no longer holds: rewritten.
                    if try repo.isAncestor(remoteTip, of: previous) {
                        report.remoteWentBack = true
                    } else {
                        report.remoteRewritten = true
                    }
                }
                let merged = try withLock { () throws -> MergeResult in
                    try recoverInterruptedChange()
                    if isWaitingForRemote() {
                        // The first history found: joined. Already sharing it means a join
                        // killed after moving `main`, before removing the mark.
                        guard try sharesHistory(with: remoteTip) else {
                            report.joined = true
                            return try joinLocked(remoteTip: remoteTip)
                        }
                        try setWaitingForRemote(false)
                    }
                    do {
                        return try mergeLocked(theirs: remoteTip) { counts in Self.mergeMessage(counts) }
                    } catch StoreError.unrelatedHistories {
                        throw unrelatedHistoriesError(url: url)
                    }
                }
                if merged.kind != .upToDate {
                    report.received += merged.changedTasks.count
                    if merged.kind == .merged || report.merge == nil { report.merge = merged }
                }
                try repo.updateReference(Self.trackingRef, to: remoteTip, expected: nil, force: true, message: "sync: fetch")
            }
            // 3. Push what the remote lacks; nothing while waiting for the remote's first
            // history (Join.swift): this household's own would strand its creator's.
            if remoteTip == nil && isWaitingForRemote() {
                report.waiting = true
                finished = true
                return report
            }
            guard let head = try repo.resolve(reference: Self.branch) else {
                finished = true
                return report
            }
            if head == remoteTip {
                finished = true
                return report
            }
            try Outgoing.validate(repo, head: head, remote: remoteTip)
            let pushed =
                if let crypt, let chain {
                    try pushEncrypted(head, after: chain, crypt: crypt, url: url, network: network)
                } else {
                    try push(head, over: remoteTip, url: url, network: network)
                }
            if pushed {
                report.sent += try sentCount(from: remoteTip, to: head)
                report.commitsSent += try commitCount(from: head, hiding: remoteTip)
                try repo.updateReference(Self.trackingRef, to: head, expected: nil, force: true, message: "sync: push")
                finished = true
                return report
            }
            // Someone pushed first: fetch and merge again.
        }
        throw SyncError(.pushRaces, .pushRaces(rounds: options.maxRounds))
    }

    /// Task files changed between what the remote had and what we pushed.
    func sentCount(from remoteTip: ObjectID?, to head: ObjectID) throws -> Int {
        let before = try Snapshot(repo: repo, commit: remoteTip)
        let after = try Snapshot(repo: repo, commit: head)
        return try before.changedFiles(oldTasks: before.tasksTree, newTasks: after.tasksTree).count
    }

    /// Commits reachable from `head` and not from `remoteTip`.
    func commitCount(from head: ObjectID, hiding remoteTip: ObjectID?) throws -> Int {
        var n = 0
        try repo.walk(from: head, hiding: remoteTip.map { [$0] } ?? [], sorted: false) { _ in
            n += 1
            return true
        }
        return n
    }

    /// Pushes `head` to the remote's `main` if it still is `expected`. False when someone else
    /// pushed first (the caller fetches and merges again).
    /// From `source` when given (an encrypted remote's scratch repository), whose `main` is `head`.
    func push(_ head: ObjectID, over expected: ObjectID?, from source: Repository? = nil, url: String, network: Network) throws -> Bool {
        let source = source ?? repo
        if let remotePath = Self.localPath(url) {
            return try pushToPath(head, over: expected, from: source, remotePath: remotePath, url: url, network: network)
        }
        var refusal: PushRejection?
        do {
            try network.run("push") { cb in
                try source.push(url: url, refspecs: ["refs/heads/main:refs/heads/main"], callbacks: cb)
                refusal = cb.rejections.first
            }
        } catch let e as GitError where e.isNonFastForward {
            // libgit2 saw, before sending, that the remote's main moved since our fetch.
            return false
        }
        guard let refusal else { return true }
        if refusal.isRefUpdateRace { return false }
        throw SyncError(.pushRefused, .pushRefused(remote: redactedURL(url), reason: refusal.reason))
    }

    /// Which CA certificates https trusts: `GIT_SSL_CAINFO`, else git's `http.sslCAInfo`, else
    /// the system's bundle.
    static func chooseCertificates(_ repo: Repository, _ options: SyncOptions) throws {
        guard let file = try options.certificateFile ?? repo.configString("http.sslCAInfo"), !file.isEmpty else { return }
        GitLibrary.useCertificates(from: file.hasPrefix("~/") ? options.home + file.dropFirst(1) : file)
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
}
