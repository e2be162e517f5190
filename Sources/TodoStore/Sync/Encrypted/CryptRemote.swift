import Glibc
internal import Age
import AgeFormat
import FileKit
import GitKit
import TodoCore

/// An encrypted household's side of the remote (docs/ENCRYPTION.md): a scratch bare
/// repository, `.git/todo/crypt.git`, that the ciphertext remote is fetched into and pushed
/// from, so that ciphertext never mixes with the household's objects; and what this clone last
/// read there, in `.git/todo/keys` (mode 0600): the remote commit, the plaintext commit it
/// carried, and the key file in force (`read <commit|-> <commit|->`, then the key file).
struct CryptRemote {
    /// Where a fetch puts the remote's `main`.
    static let fetchedRef = "refs/todo/fetched"
    /// What a push sends as the remote's `main`.
    static let outgoingRef = "refs/heads/main"
    static let dataFile = "data.age"
    static let keyFile = "key.age"
    /// Every commit on an encrypted remote is by this signature, at the push's time in +0000.
    static let author = "todo"
    static let email = "todo@todo.invalid"
    static let message = "todo\n"
    /// A data or key file larger than this is refused before it is read (a household's whole
    /// history is a few megabytes; this bounds what a hostile remote can make a sync allocate).
    static let maxFileBytes = 512 << 20

    let repo: Repository
    let statePath: String

    /// What this clone last read from the remote.
    struct ReadState: Equatable {
        /// The remote commit read last; nil before the first read.
        var commit: ObjectID?
        /// The plaintext `main` that commit carried.
        var plain: ObjectID?
        /// The key file in force there.
        var keys: KeyFile?
    }

    /// Opens the scratch repository, creating it on first use. The caller holds the sync lock,
    /// so a lock file on one of its references was left by a sync that was killed, and would
    /// fail every later one: it goes.
    static func open(for household: Repository) throws -> CryptRemote {
        let dir = household.gitDirectory + "todo"
        mkdir(dir, 0o755)
        let path = dir + "/crypt.git"
        for ref in [fetchedRef, outgoingRef, "packed-refs", "HEAD"] { unlink(path + "/" + ref + ".lock") }
        let repo: Repository
        if access(path + "/HEAD", F_OK) == 0 {
            repo = try Repository.open(path: path)
        } else {
            removeTree(path)
            repo = try Repository.create(path: path, bare: true, durableReferences: false)
        }
        return CryptRemote(repo: repo, statePath: dir + "/keys")
    }

    // MARK: What was read

    /// The state saved by the last read; an empty state when there is none (or it cannot be
    /// read: then the remote is read from its start, which checks everything again).
    func readState() -> ReadState { Self.readState(at: statePath) }

    static func readState(at statePath: String) -> ReadState {
        // Unreadable: the remote is read again from its start.
        guard let bytes = try? WholeFile.readIfPresent(statePath) else { return ReadState() }
        guard let newline = bytes.firstIndex(of: 0x0A), let head = String(validating: bytes[..<newline], as: UTF8.self) else {
            return ReadState()
        }
        let words = head.split(separator: " ")
        guard words.count == 3, words[0] == "read", let keys = KeyFile(Array(bytes[(newline + 1)...])) else { return ReadState() }
        let commit = ObjectID(hex: String(words[1]))
        return ReadState(commit: commit, plain: commit == nil ? nil : ObjectID(hex: String(words[2])), keys: keys)
    }

    /// Saves what was read; without a commit, only the keys (a remote not read yet: one moved
    /// to, or emptied), which the next epoch follows on from.
    func saveReadState(_ state: ReadState) throws { try Self.saveReadState(state, at: statePath) }

    static func saveReadState(_ state: ReadState, at statePath: String) throws {
        guard let keys = state.keys else {
            unlink(statePath)
            return
        }
        let head = "read \(state.commit?.hex ?? "-") \(state.plain?.hex ?? "-")\n"
        try WholeFile.replace(statePath, with: Array(head.utf8) + keys.encoded, mode: 0o600, durable: true, suffix: ".todo-tmp")
    }

    /// After the remote's URL changed: keeps only the keys of what was read (a new remote's
    /// first epoch follows on from them), and the scratch repository's ciphertext goes.
    static func forgetRead(in household: Repository) throws {
        let dir = household.gitDirectory + "todo"
        var state = readState(at: dir + "/keys")
        guard state.keys != nil || access(dir + "/crypt.git", F_OK) == 0 else { return }
        state.commit = nil
        state.plain = nil
        try saveReadState(state, at: dir + "/keys")
        removeTree(dir + "/crypt.git")
    }

    /// Moves every object of `other` (a clone that fetched this remote as if it were
    /// plaintext) into this repository: packs, indexes last, and loose objects.
    func take(objectsOf other: Repository) throws {
        let from = other.gitDirectory + "objects"
        let to = repo.gitDirectory + "objects"
        let names = listDirectory(from + "/pack")
        for suffix in [".pack", ".rev", ".idx"] {
            for name in names where name.hasPrefix("pack-") && name.hasSuffix(suffix) {
                try Self.move(from + "/pack/" + name, to + "/pack/" + name)
            }
        }
        for fan in listDirectory(from) where fan.utf8.count == 2 && fan.utf8.allSatisfy(Incoming.isLowerHex) {
            mkdir(to + "/" + fan, 0o755)
            for name in listDirectory(from + "/" + fan) { try Self.move(from + "/" + fan + "/" + name, to + "/" + fan + "/" + name) }
        }
        other.releaseCaches()
    }

    private static func move(_ from: String, _ to: String) throws {
        if rename(from, to) != 0 { throw SystemError(errno: errno, what: "rename \(from)") }
    }

    // MARK: Housekeeping

    /// Keeps the scratch repository small once it is due by the household's own thresholds
    /// (`Household.maintenanceDue`): every push leaves its commit loose and every fetch a pack.
    /// Packs everything into one pack; then the loose objects no reference reaches (a push that
    /// lost its race) go, but only while what was read last is one of the two references, so
    /// that the next fetch and read find it. Called at the end of a sync, under its lock: no
    /// other writer, so a temporary file of libgit2's here is a killed sync's. A failure leaves the repository as it was, to be packed next time.
    func tidy() {
        let objects = repo.gitDirectory + "objects"
        guard Household.maintenanceDue(objectsDirectory: objects, afterSync: true),
            let outcome = try? repo.packEverything(removingTemporariesOlderThan: Double(time(nil))),  // failed: packed at a later sync; nothing was removed
            outcome.references != nil
        else { return }
        let read = readState().commit
        let tips = [Self.fetchedRef, Self.outgoingRef].compactMap { try? repo.resolve(reference: $0) }  // unreadable: not a tip, so nothing is removed below
        guard let read, tips.contains(read) else { return }
        for object in outcome.unreachable { unlink(object.path) }
    }

    // MARK: The network

    /// Fetches the remote's `main` as `fetchedRef`; nil when the remote has none.
    func fetch(_ url: String, have: ObjectID?, callbacks: RemoteCallbacks) throws -> ObjectID? {
        if try repo.resolve(reference: Self.fetchedRef) != nil { try repo.deleteReference(Self.fetchedRef) }
        if let remotePath = Household.localPath(url) {
            try Household.fetch(fromPath: remotePath, into: repo, have: have.map { [$0] } ?? [], callbacks: callbacks)
        } else {
            try repo.fetch(url: url, refspecs: ["+refs/heads/main:\(Self.fetchedRef)"], callbacks: callbacks)
        }
        return try repo.resolve(reference: Self.fetchedRef)
    }

    // MARK: Writing a push

    /// The remote commit of one push: `data` (and `key` when the push opens an epoch) on top of
    /// `parent`, by the anonymous signature at `time`.
    func makeCommit(data: [UInt8], key: [UInt8]?, parent: ObjectID?, time: Int64) throws -> ObjectID {
        var changes: [TreeChange] = [.upsert(path: Self.dataFile, blob: try repo.writeBlob(data))]
        if let key { changes.append(.upsert(path: Self.keyFile, blob: try repo.writeBlob(key))) }
        let tree = try repo.updateTree(nil, changes)
        let who = Signature(name: Self.author, email: Self.email, time: time, offsetMinutes: 0)
        let commit = try repo.createCommit(tree: tree, parents: parent.map { [$0] } ?? [], author: who, committer: who, message: Self.message)
        try repo.updateReference(Self.outgoingRef, to: commit, expected: nil, force: true, message: "push")
        return commit
    }
}
