import Glibc
import GitKit

extension Household {
    /// A path remote has no server: this process writes it. Under a kernel lock in the remote
    /// (`todo-push.lock`): write what the remote lacks as one pack into its object store, then
    /// move its `main` by compare-and-swap. A record (`todo-push-inflight`) exists while the
    /// ref is being written; the next push that finds it knows that a `main.lock` there was
    /// left by a killed process, and clears it, instead of failing on it forever.
    func pushToPath(
        _ head: ObjectID, over expected: ObjectID?, from source: Repository, remotePath: String, url: String, network: Network
    ) throws -> Bool {
        let remote = try Repository.open(path: remotePath)
        let remoteGit = remote.gitDirectory
        let wait = max(0.5, min(10, (network.deadline - .now) / .seconds(1)))
        guard let lock = try FileLock.acquire(path: remoteGit + "todo-push.lock", timeout: wait) else { return false }
        defer { withExtendedLifetime(lock) {} }
        let inflight = remoteGit + "todo-push-inflight"
        if readFile(inflight) != nil {
            unlink(remoteGit + Self.branch + ".lock")
            unlink(inflight)
        }
        try network.run("push") { _ in
            let objects = try source.objectsMissing(reaching: [head], from: expected.map { [$0] } ?? [])
            try source.copy(objects, to: remote)
        }
        try writeFile(inflight, Self.branch + "\n", sync: false)
        defer { unlink(inflight) }
        do {
            try remote.updateReference(Self.branch, to: head, expected: expected, message: "todo sync")
        } catch let e as GitError where e.isModified || e.isExists || e.isLocked {
            return false
        }
        // The push is done: a HEAD that cannot be pointed at `main` costs only `git clone`'s
        // checkout, never the sync.
        try? Self.pointHeadAtMain(remote)
        _ = try? remote.consolidatePacks(above: Self.packLimit)  // packing the remote is housekeeping: a failure loses nothing
        return true
    }

    /// `git init --bare` without `-b` points HEAD at `refs/heads/master`, a branch a household's
    /// remote never gets, and `git clone` then checks nothing out ("remote HEAD refers to
    /// nonexistent ref"). Once `main` is there, a HEAD naming a branch that does not exist is
    /// pointed at `main`; a HEAD naming one that exists is someone's choice and stays.
    static func pointHeadAtMain(_ remote: Repository) throws {
        guard let target = try remote.headTarget(), target != branch, try remote.resolve(reference: target) == nil,
            try remote.resolve(reference: branch) != nil
        else { return }
        try remote.setHead(branch)
    }

    /// Fetches the remote's `main` into `quarantine` as `fetchRef`, over the network or, for a
    /// path remote, by copying what `have` lacks.
    func fetchMain(_ url: String, into quarantine: Quarantine, have: [ObjectID], callbacks: RemoteCallbacks) throws {
        if let remotePath = Self.localPath(url) {
            try Self.fetch(fromPath: remotePath, into: quarantine.repo, have: have, callbacks: callbacks)
        } else {
            try quarantine.repo.fetch(url: url, refspecs: ["+refs/heads/main:\(Self.fetchRef)"], callbacks: callbacks)
        }
    }

    /// Fetches the `main` of the repository at `remotePath` into `quarantine` as `fetchRef`:
    /// what `have` lacks, as one pack. A remote without `main` leaves `fetchRef` unset.
    static func fetch(fromPath remotePath: String, into quarantine: Repository, have: [ObjectID], callbacks: RemoteCallbacks? = nil) throws {
        let remote = try Repository.open(path: remotePath)
        guard let tip = try remote.resolve(reference: branch) else { return }
        do {
            _ = try remote.commit(tip)
        } catch {
            throw SyncError(.remoteData, .remoteMainNotACommit(commit: String(tip.hex.prefix(10))))
        }
        // Only what the remote's main reaches counts as shared: a sync killed while copying into
        // the remote can leave our newest commits there without their history.
        // A commit the remote cannot answer for is not counted as shared: its objects are copied again.
        let shared = have.filter { (try? remote.isAncestor($0, of: tip)) == true }
        let objects = try remote.objectsMissing(reaching: [tip], from: shared)
        try remote.copy(objects, to: quarantine) { done, total in
            guard let callbacks else { return true }
            if callbacks.shouldCancel() { return false }
            callbacks.transferProgress(GitKit.TransferProgress(receivedObjects: done, totalObjects: total, receivedBytes: 0))
            return true
        }
        try quarantine.updateReference(fetchRef, to: tip, expected: nil, force: true, message: "fetch")
    }
}
