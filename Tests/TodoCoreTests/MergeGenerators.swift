import TestKit
@testable import TodoCore

/// Random versions of one task for the merge laws. Values and stamps come from small pools so
/// that the sides collide often, including identical stamps with different values (which an
/// honest replica never writes, but the merge must still order the same way round).
struct TaskVersionGenerator {
    static let id = TaskID("3f2a9c0e5b7d41e8a6c2d9f0b1e4c7a5")!
    static let otherID = TaskID("00000000000000000000000000000001")!

    static let values: [String: [JSONValue]] = [
        "title": ["Buy milk", "Buy oat milk", "Call mum", "Ünïcödé ✓ \"quoted\""].map { .string($0) },
        "status": [.string("open"), .string("done")],
        "notes": ["", "2 litres", "line one\nline two"].map { .string($0) },
        "assignee": [.null, .string("Ana"), .string("Ben")],
        "due": [.null, .string("2026-11-30"), .string("2026-12-01T09:30")],
        "priority": ["low", "normal", "high"].map { .string($0) },
        "deleted": [.bool(false), .bool(true)],
        // An unknown field from a newer version that carries a stamp.
        "zone": [.string("kitchen"), .string("garage"), .number("3"), .object([("floor", .number("1"))])],
        // A chore's rule and rotation: ordinary stamped fields.
        "repeat": [
            .null, .object([("every", .string("tue")), ("from", .string("2026-11-03"))]),
            .object([("every", .string("3d")), ("from", .string("2026-11-01"))]),
        ],
        "rotation": [.array([]), .array([.string("Ana"), .string("Ben")]), .array([.string("Ben"), .string("Cy")])],
        "schedule": [.null, .string("calendar"), .string("catch-up")],
        "rotate": [.null, .string("order"), .string("fewest")],
    ]
    /// Occurrence dates, take-over names and checklist texts the map entries are drawn from
    /// ("Milk" and "milk" are one item).
    static let dates = ["2026-11-03", "2026-11-10", "2026-11-17"]
    static let turnNames = ["", "Ana", "Ben"]
    static let itemTexts = ["milk", "Milk", "eggs", "bread"]

    /// One write to a chore or checklist map: an occurrence state, a take-over or an item.
    /// Returns the entries written, named as the conflict log names them (`occurrence:<date>`,
    /// `completion:<key>`, `turn:<date>`, `item:<key>`): a completion writes its occurrence's
    /// entry too.
    @discardableResult
    mutating func mapEdit(_ t: inout Task, stamp s: FieldStamp) -> [String] {
        switch rng.int(4) {
        case 3:
            // A completion of its own (with its occurrence's entry), or one taken back.
            let existing = t.completions
            if !existing.isEmpty && rng.int(3) == 0 {
                let key = rng.pick(existing.map(\.key))
                t.setCompletion(key, rng.pick([.done, .undone]), stamp: s)
                return [ChoreFields.logField(map: "completions", key: key)]
            }
            let d = CivilDate(iso: Substring(rng.pick(Self.dates)))!
            t.complete(d, member: s.member, day: d.adding(days: rng.int(8)), stamp: s)
            return [
                ChoreFields.logField(map: "completions", key: Completion.key(d, s.stamp)),
                ChoreFields.logField(map: "occurrences", key: d.description),
            ]
        case 0:
            let d = CivilDate(iso: Substring(rng.pick(Self.dates)))!
            t.setOccurrence(d, rng.pick(OccurrenceState.allCases), stamp: s)
            return [ChoreFields.logField(map: "occurrences", key: d.description)]
        case 1:
            let d = CivilDate(iso: Substring(rng.pick(Self.dates)))!
            t.setTurn(d, rng.pick(Self.turnNames), stamp: s)
            return [ChoreFields.logField(map: "turns", key: d.description)]
        default:
            let text = rng.pick(Self.itemTexts)
            let key = Checklist.key(text)
            let added = t.checklist.first { $0.key == key }?.added ?? s
            t.setItem(ChecklistItem(key: key, state: rng.pick(ItemState.allCases), text: text, added: added, stamp: s))
            return [ChoreFields.logField(map: "items", key: key)]
        }
    }
    /// Two of them are one tag spelled two ways (precomposed, and "e" + U+0301), as two
    /// members' keyboards or file systems may write it.
    static let tags = ["shop", "urgent", "weekly", "x y", "caf\u{E9}", "cafe\u{301}"]
    static let extraKeys = ["legacy", "r\u{E9}sum\u{E9}", "re\u{301}sume\u{301}"]
    /// Stored entries, including two with one id and one without an id.
    static let storedEntries: [JSONValue] = {
        let v1 = ConflictEntry.Version(value: .string("Buy milk"), stamp: Stamp(wall: 1_763_800_000_005, counter: 0, replica: "a1"), member: "Ana")
        let v2 = ConflictEntry.Version(value: .string("Buy tea"), stamp: Stamp(wall: 1_763_800_000_006, counter: 0, replica: "b2"), member: "Ben")
        let e1 = ConflictEntry(kind: .field, task: id, title: "Buy tea", field: "title", kept: v2, lost: v1)
        let e2 = ConflictEntry(kind: .tag, task: id, title: "Buy tea", field: "tag:shop", kept: v1, lost: v2)
        // Same id, another title: only a hand edit makes this.
        var clash = e1.json
        if case .object(var members) = clash {
            members[3] = ("title", .string("Something else"))
            clash = .object(members)
        }
        return [e1.json, e2.json, clash, .object([("note", .string("no id"))]), .string("not an object")]
    }()

    var rng: SplitMix64

    mutating func stamp() -> FieldStamp {
        FieldStamp(
            Stamp(wall: 1_763_800_001_000 + Int64(rng.int(4)), counter: UInt32(rng.int(2)), replica: rng.pick(["a1", "b2"])),
            by: rng.pick(["Ana", "Ben"]))
    }

    /// A fresh task with every stamped field written.
    mutating func task() -> Task {
        var t = Task(id: Self.id, title: "Buy milk", createdAt: "2026-11-22T10:00:00.000Z", createdBy: "Ana")
        for field in Task.stampedFields { t.stamps[field] = stamp() }
        if rng.chance(50) { t.setTag("shop", present: true, stamp: stamp()) }
        if rng.chance(20) { t.extra["legacy"] = .string("v1") }
        return t
    }

    /// `base` (or a fresh task) after up to five random edits.
    mutating func variant(of base: Task?) -> Task {
        var t = base ?? task()
        for _ in 0..<rng.int(6) { edit(&t) }
        return t
    }

    mutating func edit(_ t: inout Task) {
        switch rng.int(100) {
        case 0..<55:
            let field = rng.pick(Array(Self.values.keys).sorted())
            if field == "zone" && rng.chance(20) {
                // The newer version cleared the field: a stamp without a value.
                t.extra["zone"] = nil
                t.stamps["zone"] = stamp()
            } else {
                try? t.write(field, rng.pick(Self.values[field]!), stamp: stamp())
            }
        case 55..<75: t.setTag(rng.pick(Self.tags), present: rng.chance(60), stamp: stamp())
        case 75..<82: t.createdAt = rng.pick(["2026-11-22T10:00:00.000Z", "2026-11-21T09:00:00.000Z"])
        case 82..<87: t.createdBy = rng.pick(["Ana", "Ben"])
        case 87..<92: t.extra[rng.pick(Self.extraKeys)] = rng.chance(70) ? rng.pick([.string("v1"), .string("v2"), .null]) : nil
        case 92..<94: t.stamps["tags"] = stamp()  // a stamp on a key the merge never sets
        case 94..<97: mapEdit(&t, stamp: stamp())
        default: t.conflicts = ConflictLog.union([t.conflicts, [rng.pick(Self.storedEntries)]])
        }
    }

    /// The file bytes of one side: mostly the encoded task, sometimes removed or unreadable.
    mutating func file(_ task: Task, removed: Int = 3, malformed: Int = 3) -> [UInt8]? {
        let roll = rng.int(100)
        if roll < removed { return nil }
        let bytes = TaskCodec.encode(task)
        if roll < removed + malformed {
            return rng.chance(50) ? Array(bytes.prefix(rng.int(bytes.count))) : [0xFF, 0xFE] + Array(bytes.prefix(40))
        }
        return bytes
    }
}
