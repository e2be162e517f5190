import GitKit
import Glibc

/// What this clone's `undo` and `redo` took back, kept in `.git/todo/undo-stack` (docs/FORMAT.md):
/// a line `<commit made> <commit taken back>` for each, oldest first. A redo is an undo of an
/// undo, so one kind of line says both: a commit that took back a change (or a redo) is an
/// undo, one that took back an undo is a redo. Without the file every commit counts as a change
/// of its own, as it did before there was a record: nothing is lost by deleting it but the
/// chain that repeated `undo` and `redo` walk.
struct UndoRecord {
    /// The commit each undo or redo took back, by the commit it made.
    private(set) var tookBack: [String: String] = [:]
    /// Every commit an undo or redo took back.
    private(set) var takenBack: Set<String> = []
    private var lines: [String] = []

    /// The lines kept: as many as the commits `undo` searches, which is more than it can reach.
    static let limit = 1_000

    init(text: String) {
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, parts.allSatisfy(Self.isCommitID) else { continue }
            add(made: parts[0], tookBack: parts[1])
        }
    }

    enum Kind: Equatable { case change, undo, redo }

    /// A commit no undo or redo made is a change; otherwise, counting the commits it took back
    /// down to a change, an odd count is an undo and an even one a redo.
    func kind(of commit: String) -> Kind {
        var count = 0
        var current = commit
        while let target = tookBack[current], count <= tookBack.count {
            count += 1
            current = target
        }
        return count == 0 ? .change : count % 2 == 1 ? .undo : .redo
    }

    mutating func add(made: String, tookBack target: String) {
        lines.append(made + " " + target)
        tookBack[made] = target
        takenBack.insert(target)
    }

    var text: String { lines.suffix(Self.limit).map { $0 + "\n" }.joined() }

    static func isCommitID(_ s: String) -> Bool {
        s.utf8.count == 40 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}

/// A commit that `undo` or `redo` takes back, and what taking it back is.
public struct UndoStep: Sendable {
    /// The commit taken back.
    public let entry: HistoryEntry
    /// `entry` is an undo, so taking it back brings back the change it undid: a redo.
    public let isRedo: Bool
    /// The subject of the change itself: an undo's or redo's without its `undo: ` or `redo: `.
    public let subject: String
}

extension Household {
    var undoRecordPath: String { repo.gitDirectory + "todo/undo-stack" }

    func undoRecord() -> UndoRecord { UndoRecord(text: readFile(undoRecordPath) ?? "") }

    /// Adds a line to the record; a record that cannot be written costs only the chain (the
    /// commit is made), so a failure is not the command's.
    func recordUndo(made: String, tookBack target: String) {
        var record = undoRecord()
        record.add(made: made, tookBack: target)
        mkdir(repo.gitDirectory + "todo", 0o755)
        // Without the record an undo counts as a change like any other (docs/FORMAT.md, "The undo stack"): the undo itself is committed.
        try? writeFile(undoRecordPath, record.text, sync: false)
    }

    /// Whether an undo (of this clone, whichever front end made it) took back `commit` already.
    public func wasTakenBack(_ commit: String) -> Bool { undoRecord().takenBack.contains(commit) }

    /// What taking back `entry` is: an undo, or a redo when `entry` is an undo.
    public func undoStep(_ entry: HistoryEntry) -> UndoStep {
        step(entry, undoRecord())
    }

    private func step(_ entry: HistoryEntry, _ record: UndoRecord) -> UndoStep {
        let kind = record.kind(of: entry.commit)
        var subject = entry.message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        if kind != .change {
            for verb in ["undo: ", "redo: "] where subject.hasPrefix(verb) { subject.removeFirst(verb.count) }
        }
        return UndoStep(entry: entry, isRedo: kind == .undo, subject: subject)
    }

    /// What a plain `undo` takes back: this replica's newest change (a redo is one) among the
    /// last `depth` commits that no undo took back already; undos are passed over. Nil when there
    /// is none.
    public func nextUndo(depth: Int) throws(StoreError) -> UndoStep? {
        let record = undoRecord()
        let entry = try firstOwnCommit(depth: depth) { entry in
            record.kind(of: entry.commit) == .undo || record.takenBack.contains(entry.commit) ? .skip : .take
        }
        return entry.map { step($0, record) }
    }

    /// What `redo` takes back: this replica's newest undo that no redo took back yet, as long as
    /// only undos and redos of its own came after it. A change of its own since ends the chain:
    /// nil.
    public func nextRedo(depth: Int) throws(StoreError) -> UndoStep? {
        let record = undoRecord()
        let entry = try firstOwnCommit(depth: depth) { entry in
            switch record.kind(of: entry.commit) {
            case .change: .stop
            case .redo: .skip
            case .undo: record.takenBack.contains(entry.commit) ? .skip : .take
            }
        }
        return entry.map { step($0, record) }
    }

    enum Pick { case take, skip, stop }

    /// The first of this replica's own commits, newest first among the last `depth`, that `pick`
    /// takes; `.stop` ends the search with none.
    private func firstOwnCommit(depth: Int, _ pick: (HistoryEntry) -> Pick) throws(StoreError) -> HistoryEntry? {
        let replica = try replicaID()
        // The latest few commits first, as `undoableCommits` does.
        for d in [min(depth, 16), depth] {
            let entries = try history(limit: d)
            for entry in entries where Self.isOwn(entry, replica: replica) {
                switch pick(entry) {
                case .take: return entry
                case .stop: return nil
                case .skip: continue
                }
            }
            if entries.count < d { return nil }
        }
        return nil
    }
}
