/// The merge of two readable versions of one task, field by field and tag by tag, against
/// their common ancestor when there is one. Symmetric in `a` and `b` by construction: every
/// choice is made by comparing stamps and values, never by side.
struct FieldMerge {
    /// Keys that may carry a stamp but whose value the merge never sets.
    static let reserved: Set<String> = ["id", "tags", "stamps", "tagStamps", "conflicts"]

    let base: Task?
    let a: Task
    let b: Task
    private(set) var result: Task
    /// The conflicts found, with the merged title; set by `run()`.
    private(set) var entries: [ConflictEntry] = []
    private var found: [(kind: ConflictEntry.Kind, field: String, kept: ConflictEntry.Version, lost: ConflictEntry.Version)] = []

    init(base: Task?, _ a: Task, _ b: Task) {
        self.base = base
        self.a = a
        self.b = b
        result = Task(id: a.id, title: "", createdAt: "", createdBy: "")
    }

    mutating func run() {
        let fields = Self.fields(a, b)
        for field in fields { mergeField(field) }
        for tag in Self.spellings([a.tagStates.keys, b.tagStates.keys].joined()) { mergeTag(tag) }
        if result.deleted { noteDeletedEdits(fields) }
        entries = found.map {
            ConflictEntry(kind: $0.kind, task: result.id, title: result.title, field: $0.field, kept: $0.kept, lost: $0.lost)
        }
    }

    /// The known fields, then every other key either side has a value or a stamp for.
    static func fields(_ a: Task, _ b: Task) -> [String] {
        let known = Task.stampedFields + ["createdAt", "createdBy"]
        let others = spellings([Array(a.extra.keys), Array(b.extra.keys), Array(a.stamps.keys), Array(b.stamps.keys)].joined()).filter { !known.contains($0) }
        return known + TaskCodec.sortedKeys(others)
    }

    /// One spelling of each key in `keys`: Swift compares strings by canonical equivalence, so
    /// "café" precomposed and "cafe" + U+0301 are one key in a dictionary but different bytes
    /// in a file. When the sides spell a key differently, the result takes the spelling whose
    /// UTF-8 bytes come first, whichever side it came from, so that merge(a, b) and merge(b, a)
    /// write the same bytes.
    static func spellings(_ keys: some Sequence<String>) -> [String] {
        var chosen: [String: String] = [:]
        for key in keys {
            if let old = chosen[key], !key.utf8.lexicographicallyPrecedes(old.utf8) { continue }
            chosen[key] = key
        }
        return Array(chosen.values)
    }

    private mutating func mergeField(_ field: String) {
        if ChoreFields.maps.contains(field) {
            // Entries carry their own stamps: merged per key (docs/MERGE.md).
            result.extra[field] = ChoreFields.merge(a.extra[field], b.extra[field])
            if let s = [a.stamps[field], b.stamps[field]].compactMap({ $0 }).max(by: FieldStamp.precedes) {
                result.stamps[field] = s
            }
            noteEntryConflicts(field)
            return
        }
        let ca = MergeCandidate(a, field)
        let cb = MergeCandidate(b, field)
        let co = base.map { MergeCandidate($0, field) }
        let changedA = co.map { $0 != ca } ?? true
        let changedB = co.map { $0 != cb } ?? true
        let aWins: Bool
        if ca.stamp != nil || cb.stamp != nil {
            aWins = !cb.beats(ca)
        } else if !changedA || !changedB {
            // Unstamped: a change against the base wins over no change.
            aWins = changedA
        } else {
            aWins = !MergeCandidate.valuePrecedes(cb, ca)
        }
        let (winner, loser) = aWins ? (ca, cb) : (cb, ca)
        if let stamp = winner.stamp { result.stamps[field] = stamp }
        guard !Self.reserved.contains(field) else { return }
        if let value = winner.value {
            // Both values were read from valid files, so they fit the field.
            try? result.setValue(value, of: field)
        }
        if changedA && changedB && ca.text != cb.text {
            found.append((.field, field, winner.version, loser.version))
        }
    }

    /// Logs, for each key of a chore or checklist map that both sides changed against the base,
    /// the entry that lost when the two say different things (docs/MERGE.md, "What is logged").
    private mutating func noteEntryConflicts(_ map: String) {
        guard case .object(let xs)? = a.extra[map], case .object(let ys)? = b.extra[map] else { return }
        let theirs = Dictionary(ys, uniquingKeysWith: { first, _ in first })
        for (key, x) in xs {
            guard let y = theirs[key], x != y else { continue }
            let old = base?.extra[map]?[key]
            guard old != x, old != y, ChoreFields.entriesDiffer(map: map, x, y) else { continue }
            // The same choice as `ChoreFields.merge`.
            let (winner, loser) = ChoreFields.entryBeats(y, x) ? (y, x) : (x, y)
            found.append((
                .field, ChoreFields.logField(map: map, key: key), ChoreFields.logVersion(map: map, winner),
                ChoreFields.logVersion(map: map, loser)
            ))
        }
    }

    private mutating func mergeTag(_ tag: String) {
        let ta = a.tagStates[tag]
        let tb = b.tagStates[tag]
        let ca = MergeCandidate(tag: ta)
        let cb = MergeCandidate(tag: tb)
        let aWins = !cb.beats(ca)
        if let state = aWins ? ta : tb { result.tagStates[tag] = state }
        let old = base?.tagStates[tag]
        if let ta, let tb, ta != old, tb != old, ta.present != tb.present {
            let (winner, loser) = aWins ? (ca, cb) : (cb, ca)
            found.append((.tag, "tag:" + tag, winner.version, loser.version))
        }
    }

    /// The deletion won: record each edit the other side made without having seen it, so that
    /// `todo restore` can be chosen knowing what the tombstone hides.
    private mutating func noteDeletedEdits(_ fields: [String]) {
        let deletion = ConflictEntry.Version(value: .bool(true), stamp: result.stamps["deleted"])
        for (x, d) in [(a, b), (b, a)] where !x.deleted && d.deleted {
            for field in fields where field != "deleted" && !Self.reserved.contains(field) && x.stamps[field] != nil {
                let cx = MergeCandidate(x, field)
                let changed = base.map { MergeCandidate($0, field) != cx } ?? true
                if changed && MergeCandidate(result, field) == cx && MergeCandidate(d, field).text != cx.text {
                    found.append((.deletedEdit, field, deletion, cx.version))
                }
            }
            for (tag, state) in x.tagStates where state != base?.tagStates[tag] && result.tagStates[tag] == state {
                if (d.tagStates[tag]?.present ?? false) != state.present {
                    found.append((.deletedEdit, "tag:" + tag, deletion, MergeCandidate(tag: state).version))
                }
            }
        }
    }
}

/// One side's value of a field (nil when the key is absent) with its stamp.
struct MergeCandidate: Equatable {
    let value: JSONValue?
    let stamp: FieldStamp?
    /// The value's compact canonical JSON, nil when absent.
    let text: [UInt8]?

    init(value: JSONValue?, stamp: FieldStamp?) {
        self.value = value
        self.stamp = stamp
        text = value.map { Array(JSONWriter.compact($0).utf8) }
    }

    init(_ task: Task, _ field: String) {
        self.init(value: task.value(of: field), stamp: task.stamps[field])
    }

    init(tag state: TagState?) {
        self.init(value: state.map { .bool($0.present) }, stamp: state?.stamp)
    }

    static func == (x: MergeCandidate, y: MergeCandidate) -> Bool { x.stamp == y.stamp && x.text == y.text }

    /// Whether this candidate wins over `other`: the greater stamp (a stamp beats none); for
    /// identical stamps, or none, the value that `valuePrecedes`.
    func beats(_ other: MergeCandidate) -> Bool {
        switch (stamp, other.stamp) {
        case (let s?, let t?) where s != t: return FieldStamp.precedes(t, s)
        case (.some, nil): return true
        case (nil, .some): return false
        default: return Self.valuePrecedes(self, other)
        }
    }

    /// The deterministic value order for ties: a present value before an absent one, then by
    /// canonical bytes.
    static func valuePrecedes(_ x: MergeCandidate, _ y: MergeCandidate) -> Bool {
        switch (x.text, y.text) {
        case (let p?, let q?): return p.lexicographicallyPrecedes(q)
        case (.some, nil): return true
        default: return false
        }
    }

    var version: ConflictEntry.Version { .init(value: value ?? .null, stamp: stamp) }
}
