/// The three-way merge of one task file, used alike by in-process sync and by git's merge
/// driver. The rules are in docs/MERGE.md.
///
/// A pure function of the bytes given: it never reads a clock or the host, and never treats
/// "ours" differently from "theirs", so `merge(b, x, y)` and `merge(b, y, x)` give the same bytes.
public enum TaskMerge {
    /// The most raw bytes of an unreadable file kept in an "invalid-file" entry. Well under
    /// `TaskCodec.maxFileSize`, so that the merged file, which carries the entry, stays readable.
    public static let maxStoredInvalidBytes = 64 * 1024

    /// The deepest value a conflict entry can hold: entries sit four levels down in the file
    /// (the file's object, `conflicts`, the entry, `kept` or `lost`), and a file nests at most
    /// `JSONParser.maxDepth` levels.
    public static let maxEntryValueDepth = JSONParser.maxDepth - 4

    /// How far ahead of the caller's clock a stamp may be before `futureStamps` reports it.
    public static let futureTolerance: Int64 = 86_400_000

    /// Merges three versions of a task file. A nil side removed the file; a nil base means the
    /// file was added on both sides. `path` is used only in messages.
    public static func merge(base: [UInt8]?, ours: [UInt8]?, theirs: [UInt8]?, path: String) -> MergeOutcome {
        // Equal inputs are read once: merging a file with itself is common (idempotent syncs).
        let sideA = MergeSide(ours)
        let sideB = theirs == ours ? sideA : MergeSide(theirs)
        switch (sideA, sideB) {
        case (.valid(let a), .valid(let b)):
            guard a.id == b.id else {
                return .failed(MergeFailure(path: path, reason: .differentTasks(ours: a.id, theirs: b.id)))
            }
            var warnings: [MergeWarning] = []
            var common: Task?
            switch base == ours ? sideA : base == theirs ? sideB : MergeSide(base) {
            case .valid(let o) where o.id == a.id: common = o
            case .valid(let o):
                warnings.append(MergeWarning(path: path, input: .base, kind: .baseIgnored(reason: "it is task \(o.id)")))
            case .invalid(let reason, _):
                warnings.append(MergeWarning(path: path, input: .base, kind: .baseIgnored(reason: reason)))
            case .removed: break
            }
            var merger = FieldMerge(base: common, a, b)
            merger.run()
            return finish(merger.result, inputs: [a, b], found: merger.entries, warnings: warnings, path: path)

        case (.valid(let kept), .invalid(let reason, let raw)):
            return keepOne(kept, lostFile: raw, warning: MergeWarning(path: path, input: .theirs, kind: .invalidFile(reason: reason)))
        case (.invalid(let reason, let raw), .valid(let kept)):
            return keepOne(kept, lostFile: raw, warning: MergeWarning(path: path, input: .ours, kind: .invalidFile(reason: reason)))
        case (.valid(let kept), .removed):
            return keepOne(kept, lostFile: nil, warning: MergeWarning(path: path, input: .theirs, kind: .removed))
        case (.removed, .valid(let kept)):
            return keepOne(kept, lostFile: nil, warning: MergeWarning(path: path, input: .ours, kind: .removed))

        case (let o, let t):
            return .failed(MergeFailure(path: path, reason: .noReadableSide(ours: o.problem, theirs: t.problem)))
        }

        func keepOne(_ kept: Task, lostFile raw: [UInt8]?, warning: MergeWarning) -> MergeOutcome {
            let newest = kept.maxFieldStamp
            let entry = ConflictEntry(
                kind: raw == nil ? .modifyDelete : .invalidFile, task: kept.id, title: kept.title, field: "file",
                kept: .init(value: .null, stamp: newest), lost: .init(value: raw.map(storedFile) ?? .null, stamp: nil))
            return finish(kept, inputs: [kept], found: [entry], warnings: [warning], path: path)
        }
    }

    /// The stamps in `task` more than `futureTolerance` ahead of `now` (milliseconds since the
    /// epoch, from the caller's clock), sorted and without repeats. Kept apart from `merge` so
    /// that the merge never depends on a clock.
    public static func futureStamps(in task: Task, now: Int64) -> [FieldStamp] {
        let (limit, overflow) = now.addingReportingOverflow(futureTolerance)
        if overflow { return [] }
        var found = Set<FieldStamp>()
        for s in task.stamps.values where s.stamp.wall > limit { found.insert(s) }
        for t in task.tagStates.values where t.stamp.stamp.wall > limit { found.insert(t.stamp) }
        return found.sorted(by: FieldStamp.precedes)
    }

    /// Adds the entries found to the union of the inputs' logs and encodes the result.
    static func finish(
        _ merged: Task, inputs: [Task], found: [ConflictEntry], warnings: [MergeWarning], path: String
    ) -> MergeOutcome {
        // A value that reads at the top of a task file can be too deep for an entry.
        for entry in found where entry.kept.value.nesting > maxEntryValueDepth || entry.lost.value.nesting > maxEntryValueDepth {
            return .failed(MergeFailure(path: path, reason: .tooDeep(field: entry.field)))
        }
        var task = merged
        let known = inputs.reduce(into: Set<String>()) { $0.formUnion(ConflictLog.ids($1.conflicts)) }
        var seen = Set<String>()
        let added = found.filter { !known.contains($0.id) && seen.insert($0.id).inserted }
            .sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        task.conflicts = ConflictLog.union(inputs.map(\.conflicts) + [found.map(\.json)])
        let bytes = TaskCodec.encode(task)
        if bytes.count > TaskCodec.maxFileSize {
            return .failed(MergeFailure(path: path, reason: .tooLarge(size: bytes.count)))
        }
        return .merged(bytes: bytes, entries: added, warnings: warnings)
    }

    /// An unreadable file as stored in an "invalid-file" entry: its text, or base64 when it is
    /// not UTF-8, cut to `maxStoredInvalidBytes`, with the original size.
    static func storedFile(_ raw: [UInt8]) -> JSONValue {
        let size = JSONValue.number(String(raw.count))
        guard String(validating: raw, as: UTF8.self) != nil else {
            return .object([("encoding", .string("base64")), ("data", .string(base64Encoded(Array(raw.prefix(maxStoredInvalidBytes))))), ("size", size)])
        }
        // Cut on a character boundary: never before a UTF-8 continuation byte.
        var end = min(raw.count, maxStoredInvalidBytes)
        while end > 0, end < raw.count, raw[end] & 0xC0 == 0x80 { end -= 1 }
        return .object([("encoding", .string("utf8")), ("data", .string(String(decoding: raw[..<end], as: UTF8.self))), ("size", size)])
    }
}

/// One side of a merge as read from its bytes.
enum MergeSide {
    case removed
    case invalid(reason: String, raw: [UInt8])
    case valid(Task)

    init(_ bytes: [UInt8]?) {
        guard let bytes else {
            self = .removed
            return
        }
        do {
            self = .valid(try TaskCodec.decode(bytes))
        } catch {
            self = .invalid(reason: error.message, raw: bytes)
        }
    }

    var problem: String {
        switch self {
        case .removed: "removed"
        case .invalid(let reason, _): "not a valid task file: \(reason)"
        case .valid: "valid"
        }
    }
}

extension Task {
    /// The greatest field or tag stamp, with its member.
    var maxFieldStamp: FieldStamp? {
        var best: FieldStamp?
        for s in stamps.values where best.map({ FieldStamp.precedes($0, s) }) ?? true { best = s }
        for t in tagStates.values where best.map({ FieldStamp.precedes($0, t.stamp) }) ?? true { best = t.stamp }
        return best
    }
}
