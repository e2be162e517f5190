import Glibc
import GitKit

/// Where a sync fetches to: a scratch bare repository, `.git/todo/incoming.git`, that borrows
/// the household's objects (an `alternates` entry) but keeps what it receives to itself. What
/// came in is checked there; only when it passes are the received packs and objects moved
/// into the household's object store. Refused content is deleted with the scratch repository,
/// so it never enters the household, and `git fsck` of the household stays clean.
///
/// The scratch repository holds refs to what the household already has, so that the fetch
/// asks only for what is new.
struct Quarantine {
    let repo: Repository
    let path: String
    private let objects: String
    private let target: String

    /// A fresh scratch repository (any left by a killed sync is removed first); the caller
    /// holds the sync lock.
    static func prepare(for household: Repository, have: [ObjectID]) throws -> Quarantine {
        let dir = household.gitDirectory + "todo"
        mkdir(dir, 0o755)
        let path = dir + "/incoming.git"
        removeTree(path)
        let target = household.gitDirectory + "objects"
        let objects = path + "/objects"
        // The alternates entry goes in first, so the repository reads it whenever it opens its
        // object store; creating the repository keeps what is already there.
        try makeDirectories(objects + "/info")
        try writeFile(objects + "/info/alternates", target + "\n", sync: false)
        let scratch = try Repository.create(path: path, bare: true, durableReferences: false)
        for (i, id) in have.enumerated() {
            try scratch.updateReference("refs/have/\(i)", to: id, expected: nil, force: true, message: "have")
        }
        return Quarantine(repo: scratch, path: path, objects: objects, target: target)
    }

    /// Moves what was received into the household: packs (the index last, so that a pack is
    /// never seen without its data) and loose objects. Objects the household already has are
    /// left where they are.
    func admit() throws {
        var touched: Set<String> = []
        let packs = objects + "/pack"
        let names = listDirectory(packs)
        for suffix in [".pack", ".rev", ".idx"] {
            for name in names where name.hasPrefix("pack-") && name.hasSuffix(suffix) {
                try move(packs + "/" + name, to: target + "/pack/" + name)
                touched.insert(target + "/pack")
            }
        }
        for fan in listDirectory(objects) where fan.utf8.count == 2 && fan.utf8.allSatisfy(Incoming.isLowerHex) {
            let into = target + "/" + fan
            mkdir(into, 0o755)
            for name in listDirectory(objects + "/" + fan) {
                try move(objects + "/" + fan + "/" + name, to: into + "/" + name)
            }
            touched.insert(into)
        }
        for dir in touched { syncDirectory(dir) }
    }

    /// Removes the scratch repository and whatever it still holds.
    func discard() { removeTree(path) }

    private func move(_ from: String, to: String) throws {
        if access(to, F_OK) == 0 {
            unlink(from)
            return
        }
        if rename(from, to) != 0 { throw SystemError(errno: errno, what: "rename \(from)") }
    }
}
