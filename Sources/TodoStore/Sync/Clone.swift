import Glibc
import GitKit
import TodoCore

extension Household {
    /// A new member joins: creates the household from the remote's `main`, or, if the remote is
    /// empty (its creator has not synced yet), as a household that waits for the remote's first
    /// history (Join.swift). Nothing is left behind when it fails: no repository at the URL
    /// (`noRepository`), a `main` that is not a household's (`notAHousehold`) or content the
    /// format does not allow.
    public static func clone(
        home: String, name: String, url: String, identity: Identity, clock: WallClock = .system, driverCommand: String,
        options: SyncOptions
    ) throws -> Household {
        try make(home: home, name: name, identity: identity, clock: clock, driverCommand: driverCommand) { household in
            let repo = household.repo
            try household.setRemote(url)
            let started = clock.nowMillis()
            try chooseCertificates(repo, options)
            let network = Network(url: url, options: options, deadline: options.deadline())
            let shown = redactedURL(url)
            var copied = false
            do {
                try network.run("fetch") { cb in
                    if let remotePath = localPath(url) {
                        copied = try copyAll(fromPath: remotePath, into: repo, callbacks: cb)
                        if copied { return }
                    }
                    try repo.fetch(url: url, refspecs: ["+refs/heads/main:\(trackingRef)"], callbacks: cb)
                }
            } catch let e as SyncError where e.code == .noRepository {
                throw SyncError(.noRepository, .noRepositoryToJoin(remote: shown), detail: e.detail, cause: e.cause)
            }
            var fetched = try repo.resolve(reference: trackingRef)
            if let found = fetched, looksEncrypted(repo, tip: found) {
                fetched = try household.adoptEncrypted(tip: found, url: url, options: options)
                // Its packs were indexed here as they were taken, as a fetch's are.
                copied = false
            }
            if let tip = fetched {
                // A tip that cannot be read is not refused here: the check of what was received names it.
                if (try? looksLikeHousehold(repo, tip: tip)) == false {
                    throw SyncError(.notAHousehold, .notAHousehold(remote: shown))
                }
                // Every object here was hashed as it was written (the indexer computed each id
                // from the content), so reading it back need not hash it again; reading the
                // remote, in the fallback below, does.
                if copied { GitLibrary.verifyObjectsOnRead(false) }
                defer { GitLibrary.verifyObjectsOnRead(true) }
                let checking = options.progress.map { p in { (done: Int, total: Int) in p(.checking(done: done, total: total)) } }
                // Every pack here was indexed on this machine, by the copy or the fetch.
                let packs = PackFiles(gitDirectory: repo.gitDirectory)
                let write = {
                    let tree = try repo.commit(tip).tree
                    let writing = options.progress.map { p in { (done: Int, total: Int) in p(.writing(done: done, total: total)) } }
                    // The files on every core; libgit2's checkout for what that does not write.
                    if try !repo.writeFreshWorkTree(tree: tree, packs: packs, threads: HistoryCheck.cores, progress: writing) {
                        try repo.checkoutAll(tree: tree, progress: writing)
                    }
                }
                do {
                    // The tip's tree is checked first, then written while the rest of the history
                    // is checked on the other cores; `main` is set only once all of it passed.
                    try Incoming.validate(repo, tip: tip, packs: packs, progress: checking, while: write)
                } catch let e where copied && !(e is SyncError) {
                    // Something it reaches was not in the copy (the remote was repacked by
                    // another program meanwhile): what is missing comes the usual way.
                    GitLibrary.verifyObjectsOnRead(true)
                    try fetch(fromPath: localPath(url) ?? url, into: repo, have: [])
                    try repo.deleteReference(fetchRef)
                    try Incoming.validate(repo, tip: tip, have: [])
                    try write()
                }
                try repo.updateReference(branch, to: tip, expected: nil, message: "clone")
            } else {
                // Its own first commit stays here: the household's history comes from whoever
                // created it, on the first sync after theirs.
                try household.commitMergeSetup()
                try household.setWaitingForRemote(true)
            }
            // Joining is the first exchange with the remote: `todo status` counts it as a sync.
            household.recordSync(at: started, error: nil, remote: shown)
        }
    }

    /// A clone from a repository on this machine takes copies of its packs and loose objects
    /// (`Repository.copyEverything`: every object checked as it is indexed) and its `main` as
    /// `trackingRef`, under the remote's maintenance lock so that no pack is removed meanwhile.
    /// False when that cannot be done (no repository there, its lock busy or not writable):
    /// the caller fetches as for any remote.
    static func copyAll(fromPath remotePath: String, into repo: Repository, callbacks: RemoteCallbacks) throws -> Bool {
        // Nothing (no repository there, its lock busy): the caller fetches as from any remote, which reports what is wrong.
        guard let remote = try? Repository.open(path: remotePath),
            let lock = try? FileLock.acquire(path: remote.gitDirectory + "todo-maintenance.lock", timeout: 2)  // busy: fetch instead
        else { return false }
        defer { withExtendedLifetime(lock) {} }
        guard let tip = try remote.resolve(reference: branch) else { return true }
        try repo.copyEverything(from: remote) { done, total in
            if callbacks.shouldCancel() { return false }
            callbacks.transferProgress(GitKit.TransferProgress(receivedObjects: done, totalObjects: total, receivedBytes: 0))
            return true
        }
        try repo.updateReference(trackingRef, to: tip, expected: nil, force: true, message: "clone")
        return true
    }
}
