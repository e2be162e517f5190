import Dispatch
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
    /// `packs`: the repository's packs, when every one of them was indexed on this machine (a
    /// clone's, a sync's scratch repository's), read without libgit2 (`TreeChanges`).
    static func validate(
        _ repo: Repository, tip: ObjectID, have: [ObjectID], progress: ((Int, Int) -> Void)? = nil, threads: Int? = nil,
        packs: PackFiles? = nil
    ) throws {
        if let (info, problem) = try firstProblem(repo, tip: tip, have: have, progress: progress, threads: threads, packs: packs) {
            throw SyncError(.remoteData, .remoteData(problem, commit: CommitFacts(info)))
        }
    }

    /// A commit reachable from `tip` and from none of `have` that adds something the format does
    /// not allow, and that thing; nil when all is well. Of several, the oldest along first
    /// parents from the tip (`oldestAlongFirstParents`). An error reading a commit is thrown when
    /// no commit before it in an unsorted walk has a problem, with any `threads`.
    /// `meanwhile`, when given, runs on this thread while at least one other thread checks the
    /// commits; if it throws, the check is given up and its error thrown. A commit whose tree is
    /// `verified` (a tree checked in full) has nothing to report: what it changes is entries of
    /// that tree. `packs` as for `validate`.
    static func firstProblem(
        _ repo: Repository, tip: ObjectID, have: [ObjectID], progress: ((Int, Int) -> Void)? = nil, threads: Int? = nil,
        verified: ObjectID? = nil, packs: PackFiles? = nil, meanwhile: (() throws -> Void)? = nil
    ) throws -> (CommitInfo, FormatViolation)? {
        let started = try startCheck(
            repo, tip: tip, have: have, progress: progress != nil, threads: threads, verified: verified, packs: packs,
            beside: meanwhile != nil)
        do {
            try meanwhile?()
        } catch {
            started.check.abandon()
            throw error
        }
        return try finishCheck(started, repo, progress: progress)
    }

    /// A check of received commits, walked and started (`startCheck`), for `finishCheck`.
    struct StartedCheck: Sendable {
        let check: HistoryCheck
        /// The commit the walk started from.
        let tip: ObjectID
        /// What the walk failed with, after the commits before the failure (without progress).
        let walkError: (any Error)?
    }

    /// `firstProblem`'s first half: walks the commits and starts their check on other threads
    /// (with `beside`, on at least one: the caller has other work to do meanwhile).
    static func startCheck(
        _ repo: Repository, tip: ObjectID, have: [ObjectID], progress: Bool, threads: Int?, verified: ObjectID?, packs: PackFiles?,
        beside: Bool
    ) throws -> StartedCheck {
        var commits: [ObjectID] = []
        var walkError: (any Error)?
        do {
            try repo.walk(from: tip, hiding: have, sorted: false) { commits.append($0); return true }
        } catch {
            // With progress, the count of the commits came first and failed first; without, the
            // commits walked before the failure are checked first and may have a problem to report.
            if progress { throw error }
            walkError = error
        }
        let check = HistoryCheck(commits, verified: verified, packs: packs)
        let count = walkError == nil ? threads ?? HistoryCheck.threads(for: commits.count) : 1
        // With work to do meanwhile, even a few commits are checked on a thread of their own.
        try check.start(repo, threads: count, beside: beside)
        return StartedCheck(check: check, tip: tip, walkError: walkError)
    }

    /// `firstProblem`'s second half: waits for the check `startCheck` started. When it found a
    /// problem, the one reported is the oldest along first parents from the tip
    /// (`oldestAlongFirstParents`), whichever the threads met first.
    static func finishCheck(_ started: StartedCheck, _ repo: Repository, progress: ((Int, Int) -> Void)?) throws -> (
        CommitInfo, FormatViolation
    )? {
        let check = started.check
        let commits = check.commits
        switch check.finish(repo, progress: progress) {
        case .some((let index, .problem(let problem))):
            let trees = TreeChanges(repo, limit: 64, packs: check.packs)
            let oldest = try oldestAlongFirstParents(
                repo, tip: started.tip, among: Set(commits), trees: trees, verified: check.verified)
            let (commit, reported) = oldest ?? (commits[index], problem)
            return (try repo.commit(commit), reported)
        case .some((_, .failure(let error))):
            throw error
        case nil:
            if let walkError = started.walkError { throw walkError }
            progress?(commits.count, commits.count)
            return nil
        }
    }

    /// Of the first-parent line from `tip` (the commits in `among` it passes through), the
    /// oldest commit whose check finds a problem, with it; nil when none does (the problem is
    /// on a branch merged in and gone before the merge). Checked from the oldest, one commit
    /// after another: only a history that has a problem comes here.
    static func oldestAlongFirstParents(
        _ repo: Repository, tip: ObjectID, among: Set<ObjectID>, trees: TreeChanges, verified: ObjectID?
    ) throws -> (ObjectID, FormatViolation)? {
        var line: [ObjectID] = []
        var next: ObjectID? = tip
        while let id = next, among.contains(id), line.count < among.count {
            line.append(id)
            next = try trees.commitTreeAndFirstParent(id).parent
        }
        for id in line.reversed() {
            if let problem = try problem(repo, commit: id, trees: trees, verified: verified) { return (id, problem) }
        }
        return nil
    }

    /// Checks what a clone received while `write` puts the tip's tree in the work tree: that
    /// tree first, in full (so that nothing the format does not allow is written), then every
    /// commit reachable from `tip` as `validate` does (a commit whose tree is the tip's passes
    /// at once: that tree was just checked). The commits are walked, and checked, on other
    /// threads while the tip's tree is checked and written on this one.
    /// Throws what `validate` throws, after `write` returned (or what `write` threw). `packs`
    /// are `repo`'s, every one indexed on this machine (as for `validate`).
    static func validate(
        _ repo: Repository, tip: ObjectID, packs: PackFiles, progress: ((Int, Int) -> Void)? = nil, while write: () throws -> Void
    ) throws {
        let tree = try repo.commitTreeAndFirstParent(tip).tree
        let path = repo.gitDirectory
        let withProgress = progress != nil
        let walking = Outcome<StartedCheck>()
        HistoryCheck.queue.async {
            walking.set {
                // A handle of its own: this thread goes on with `repo`.
                try startCheck(
                    try Repository.open(path: path), tip: tip, have: [], progress: withProgress, threads: nil, verified: tree,
                    packs: packs, beside: true)
            }
        }
        let tipProblem: FormatViolation?
        do {
            tipProblem = try disallowed(repo, tree: tree, old: nil, prefix: "", all: false, trees: TreeChanges(repo, packs: packs)).first?.problem
            if tipProblem == nil { try write() }
        } catch {
            // Given up: what the other threads found does not matter.
            (try? walking.wait())?.check.abandon()
            throw error
        }
        if let tipProblem {
            // Some commit added it: the check of the history names which, and nothing is written.
            (try? walking.wait())?.check.abandon()  // given up, as above
            try validate(repo, tip: tip, have: [], progress: progress)
            throw SyncError(.remoteData, .remoteData(tipProblem, commit: CommitFacts(try repo.commit(tip))))
        }
        if let (info, problem) = try finishCheck(try walking.wait(), repo, progress: progress) {
            throw SyncError(.remoteData, .remoteData(problem, commit: CommitFacts(info)))
        }
    }

    /// What the format does not allow in `commit` that its first parent does not have; nil
    /// when all is well. The tree and first parent only: the signatures and message are read
    /// for the report of a problem.
    static func problem(_ repo: Repository, commit: ObjectID, trees: TreeChanges, verified: ObjectID? = nil) throws -> FormatViolation? {
        let (tree, parent) = try trees.commitTreeAndFirstParent(commit)
        if tree == verified { return nil }
        let parentTree = try parent.map { try trees.commitTreeAndFirstParent($0).tree }
        return try disallowed(repo, tree: tree, old: parentTree, prefix: "", all: false, trees: trees).first?.problem
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
                        if try trees.size(e.id) > maxAttributesSize { return .oversizedFile }
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
                    let size = try trees.size(e.id)
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
