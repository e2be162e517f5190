import Glibc
import CLibgit2

extension Repository {
    /// The files of work-tree folder `folder` (relative, e.g. `tasks/ab`) whose presence, type
    /// or content differ from the tree `tree` (nil: the commit has no such folder). Every file
    /// there is read and hashed; the index is not consulted, so this costs in proportion to
    /// the folder, not to the repository.
    public func folderDiffers(_ folder: String, from tree: ObjectID?) throws -> [String] {
        guard let workDirectory else { return [] }
        let base = workDirectory + folder + "/"
        var expected: [String: TreeEntry] = [:]
        if let tree { for e in try treeEntries(tree) { expected[e.name] = e } }
        var differing: [String] = []
        for name in listDirectory(base) {
            guard let entry = expected.removeValue(forKey: name) else {
                differing.append(folder + "/" + name)
                continue
            }
            if try !file(base + name, is: entry) { differing.append(folder + "/" + name) }
        }
        differing += expected.keys.map { folder + "/" + $0 }
        return differing.sorted()
    }

    /// Whether the work-tree file at `full` holds exactly `entry` (a regular file, same
    /// executable bit, same blob).
    private func file(_ full: String, is entry: TreeEntry) throws -> Bool {
        guard entry.kind == .blob else { return false }
        var st = stat()
        guard lstat(full, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
        if (st.st_mode & 0o111 != 0) != (entry.mode == 0o100755) { return false }
        var actual = git_oid()
        try check(git_odb_hashfile(&actual, full, GIT_OBJECT_BLOB), call: "git_odb_hashfile")
        return ObjectID(actual) == entry.id
    }
}
