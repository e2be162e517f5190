import GitKit

/// Something the household format does not allow in a commit, and where (docs/FORMAT.md). Other
/// members' todo refuses every commit that adds it.
public struct FormatViolation: Sendable {
    public enum Kind: Sendable, Equatable {
        case symbolicLink
        case submodule
        case executableFile
        /// `.gitattributes` larger than `Incoming.maxAttributesSize`.
        case oversizedFile
        /// A path outside what the format names (`tasks/XX/ID.json`, `.gitattributes`).
        case pathNotAllowed
        /// A task file larger than 1 MiB.
        case oversizedTaskFile(bytes: Int)
    }

    public let kind: Kind
    public let path: String

    /// The words for a commit message (history is data, the same for every front end), which
    /// the command line also shows.
    public var historyText: String {
        let shown = "\"\(path)\""
        switch kind {
        case .symbolicLink: return "a symbolic link at \(shown)"
        case .submodule: return "a submodule at \(shown)"
        case .executableFile: return "an executable file at \(shown)"
        case .oversizedFile: return "an oversized file at \(shown)"
        case .pathNotAllowed: return "a path the household format does not allow, \(shown)"
        case .oversizedTaskFile(let bytes): return "an oversized task file (\(bytes) bytes) at \(shown)"
        }
    }
}

/// What the household format allows in a commit received from a remote.
enum Incoming {
    static let maxAttributesSize = 4 << 10

    /// Checks every commit reachable from `tip` and from none of `have` (commits this household
    /// already holds or checked before). Each commit's tree is compared with its first parent's,
    /// so only what changed is read. Throws a data error with the violation and the commit.
    /// `progress` gets the commits checked and their number now and then. `threads` (default:
    /// `HistoryCheck.threads(for:)`) share the commits; the outcome is the same with any number.
    static func validate(
        _ repo: Repository, tip: ObjectID, have: [ObjectID], progress: ((Int, Int) -> Void)? = nil, threads: Int? = nil
    ) throws {
        if let (info, problem) = try firstProblem(repo, tip: tip, have: have, progress: progress, threads: threads) {
            throw SyncError(.remoteData, .remoteData(problem, commit: CommitFacts(info)))
        }
    }

    /// The first commit reachable from `tip` and from none of `have`, in the order of an
    /// unsorted walk, that adds something the format does not allow, and that thing; nil when
    /// all is well. An error reading a commit is thrown when no earlier commit has a problem:
    /// what a single walk checking one commit after another would report, with any `threads`.
    /// `meanwhile`, when given, runs on this thread while at least one other thread checks the
    /// commits; if it throws, the check is given up and its error thrown. A commit whose tree is
    /// `verified` (a tree checked in full) has nothing to report: what it changes is entries of
    /// that tree.
    static func firstProblem(
        _ repo: Repository, tip: ObjectID, have: [ObjectID], progress: ((Int, Int) -> Void)? = nil, threads: Int? = nil,
        verified: ObjectID? = nil, meanwhile: (() throws -> Void)? = nil
    ) throws -> (CommitInfo, FormatViolation)? {
        var commits: [ObjectID] = []
        var walkError: (any Error)?
        do {
            try repo.walk(from: tip, hiding: have, sorted: false) { commits.append($0); return true }
        } catch {
            // With progress, the count of the commits came first and failed first; without, the
            // commits walked before the failure are checked first and may have a problem to report.
            if progress != nil { throw error }
            walkError = error
        }
        let check = HistoryCheck(commits, verified: verified)
        let count = walkError == nil ? threads ?? HistoryCheck.threads(for: commits.count) : 1
        // With work to do meanwhile, even a few commits are checked on a thread of their own.
        try check.start(repo, threads: count, beside: meanwhile != nil)
        do {
            try meanwhile?()
        } catch {
            check.abandon()
            throw error
        }
        switch check.finish(repo, progress: progress) {
        case .some((let index, .problem(let problem))):
            return (try repo.commit(commits[index]), problem)
        case .some((_, .failure(let error))):
            throw error
        case nil:
            if let walkError { throw walkError }
            progress?(commits.count, commits.count)
            return nil
        }
    }

    /// Checks what a clone received while `write` puts the tip's tree in the work tree: that
    /// tree first, in full (so that nothing the format does not allow is written), then every
    /// commit reachable from `tip` as `validate` does (a commit whose tree is the tip's passes
    /// at once: that tree was just checked), on other threads while `write` runs.
    /// Throws what `validate` throws, after `write` returned (or what `write` threw).
    static func validate(_ repo: Repository, tip: ObjectID, progress: ((Int, Int) -> Void)? = nil, while write: () throws -> Void) throws {
        let tree = try repo.commitTreeAndFirstParent(tip).tree
        if let problem = try check(repo, tree: tree, old: nil, prefix: "") {
            // Some commit added it: the check of the history names which, and nothing is written.
            try validate(repo, tip: tip, have: [], progress: progress)
            throw SyncError(.remoteData, .remoteData(problem, commit: CommitFacts(try repo.commit(tip))))
        }
        let found = try withoutActuallyEscaping(write) { write in
            try firstProblem(repo, tip: tip, have: [], progress: progress, verified: tree, meanwhile: write)
        }
        if let (info, problem) = found {
            throw SyncError(.remoteData, .remoteData(problem, commit: CommitFacts(info)))
        }
    }

    /// What the format does not allow in `commit` that its first parent does not have; nil
    /// when all is well. The tree and first parent only: the signatures and message are read
    /// for the report of a problem.
    static func problem(_ repo: Repository, commit: ObjectID, trees: TreeChanges, verified: ObjectID? = nil) throws -> FormatViolation? {
        let (tree, parent) = try repo.commitTreeAndFirstParent(commit)
        if tree == verified { return nil }
        let parentTree = try parent.map { try repo.commitTreeAndFirstParent($0).tree }
        return try disallowed(repo, tree: tree, old: parentTree, prefix: "", all: false, trees: trees).first?.problem
    }

    /// The first disallowed entry under `prefix`; nil when all is well.
    static func check(_ repo: Repository, tree: ObjectID, old: ObjectID?, prefix: String) throws -> FormatViolation? {
        try disallowed(repo, tree: tree, old: old, prefix: prefix, all: false).first?.problem
    }

    /// An entry the format does not allow: its path, the entry, and what is wrong with it.
    struct Disallowed {
        let path: String
        let entry: TreeEntry
        let problem: FormatViolation
    }

    /// The disallowed entries of `tree` under `prefix` that differ from `old`'s: the first one
    /// only, or with `all` every one (a disallowed folder counts once, not its content).
    static func disallowed(
        _ repo: Repository, tree: ObjectID, old: ObjectID?, prefix: String, all: Bool, trees: TreeChanges? = nil
    ) throws -> [Disallowed] {
        let trees = trees ?? TreeChanges(repo, limit: 64)
        // Only the entries that differ from `old`'s entry of the same name are looked at (a long
        // history compares `tasks/`'s 256 folders once per commit); TreeChanges passes over
        // the others by name and id, without making values of them.
        var found: [Disallowed] = []
        for change in try trees.changed(tree, since: old) {
            let e = change.entry
            let path = prefix + e.name
            func problem() throws -> FormatViolation.Kind? {
                switch e.mode {
                case 0o120000: return .symbolicLink
                case 0o160000: return .submodule
                case 0o100755: return .executableFile
                default: break
                }
                let oldTree = change.old.flatMap { $0.kind == .tree ? $0.id : nil }
                switch prefix {
                case "":
                    if e.name == "tasks" && e.kind == .tree {
                        found += try disallowed(repo, tree: e.id, old: oldTree, prefix: "tasks/", all: all, trees: trees)
                    } else if e.name == MergeSetup.attributesPath && e.mode == 0o100644 {
                        if try repo.blobSize(e.id) > maxAttributesSize { return .oversizedFile }
                    } else {
                        return .pathNotAllowed
                    }
                case "tasks/":
                    guard e.kind == .tree, e.name.utf8.count == 2, e.name.utf8.allSatisfy(isLowerHex) else {
                        return .pathNotAllowed
                    }
                    found += try disallowed(repo, tree: e.id, old: oldTree, prefix: path + "/", all: all, trees: trees)
                default:
                    let dir = String(prefix.dropFirst(6).dropLast())
                    guard e.mode == 0o100644, Snapshot.taskID(fileName: e.name, dir: dir) != nil else {
                        return .pathNotAllowed
                    }
                    let size = try repo.blobSize(e.id)
                    if size > 1 << 20 { return .oversizedTaskFile(bytes: Int(size)) }
                }
                return nil
            }
            if let p = try problem() { found.append(Disallowed(path: path, entry: e, problem: FormatViolation(kind: p, path: path))) }
            if !all && !found.isEmpty { return Array(found.prefix(1)) }
        }
        return found
    }

    static func isLowerHex(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) }
}
