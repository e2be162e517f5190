/// Chores and checklists in a task file: the `repeat`, `rotation`, `occurrences`, `turns` and
/// `items` fields (docs/FORMAT.md, "Chores" and "Checklists"). They live in `Task.extra` as the
/// JSON of the file, checked when a file is read, so the list cache and older code carry them
/// unchanged; these are the typed views and the writes.

public enum OccurrenceState: String, Sendable, CaseIterable {
    case done, skipped, open
}

/// What someone did about one occurrence of a chore.
public struct OccurrenceEntry: Hashable, Sendable {
    public var state: OccurrenceState
    public var stamp: FieldStamp

    public init(state: OccurrenceState, stamp: FieldStamp) {
        self.state = state
        self.stamp = stamp
    }

    /// The member who recorded this state, and when.
    public var recorded: Authorship { Authorship(stamp) }

    var json: JSONValue { .array([.string(state.rawValue), .string(stamp.description)]) }
}

/// One occurrence taken over by a member, whatever the rotation says.
public struct TurnEntry: Hashable, Sendable {
    /// Empty: the take-over was cancelled.
    public var member: String
    public var stamp: FieldStamp

    public init(member: String, stamp: FieldStamp) {
        self.member = member
        self.stamp = stamp
    }

    var json: JSONValue { .array([.string(member), .string(stamp.description)]) }
}

public enum ItemState: String, Sendable, CaseIterable {
    case open, checked, removed
}

/// One checklist item.
public struct ChecklistItem: Hashable, Sendable {
    /// 16 hex digits: the hash of the normalised text (`Checklist.key`).
    public var key: String
    public var state: ItemState
    public var text: String
    /// The stamp of the write that first added the item: its place in the order.
    public var added: FieldStamp
    /// The stamp of the item's last write.
    public var stamp: FieldStamp

    public init(key: String, state: ItemState, text: String, added: FieldStamp, stamp: FieldStamp) {
        self.key = key
        self.state = state
        self.text = text
        self.added = added
        self.stamp = stamp
    }

    var json: JSONValue {
        .array([.string(state.rawValue), .string(text), .string(added.description), .string(stamp.description)])
    }

    /// The shared display order: by `added`, then by key.
    static func precedes(_ x: ChecklistItem, _ y: ChecklistItem) -> Bool {
        if x.added != y.added { return FieldStamp.precedes(x.added, y.added) }
        return x.key.utf8.lexicographicallyPrecedes(y.key.utf8)
    }
}

public enum Checklist {
    /// White space trimmed at both ends, inner runs made one space.
    public static func normalised(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// The item key of a text: FNV-1a 64 of the lowercased normalised text, in hex.
    public static func key(_ text: String) -> String {
        hex64(fnv1a64(Array(normalised(text).lowercased().utf8)))
    }
}

/// Checking, merging and stamps of the chore and checklist fields.
public enum ChoreFields {
    /// The maps whose entries carry their own stamps, merged per key.
    public static let maps: Set<String> = ["completions", "items", "occurrences", "rotations", "turns"]

    /// Throws when a chore or checklist field does not have its documented shape; drops empty maps.
    static func check(_ task: inout Task) throws(TaskFormatError) {
        if let r = task.extra["repeat"], r != .null, !validRepeat(r) {
            throw TaskFormatError("\"repeat\" must be {\"every\": RULE, \"from\": \"YYYY-MM-DD\"}")
        }
        for field in ["anchor", "schedule", "rotate"] {
            guard let v = task.extra[field] else { continue }
            // Null is what undoing the first setting writes; an unknown value reads as the default.
            guard v == .null || v.stringValue != nil else { throw TaskFormatError("\"\(field)\" must be a string") }
        }
        if let r = task.extra["rotation"] {
            guard case .array(let names) = r, names.allSatisfy({ ($0.stringValue.map { !$0.isEmpty }) ?? false }) else {
                throw TaskFormatError("\"rotation\" must be an array of names")
            }
        }
        for map in maps.sorted() {
            guard let value = task.extra[map] else { continue }
            guard case .object(let entries) = value else { throw TaskFormatError("\"\(map)\" must be an object") }
            if entries.isEmpty {
                task.extra[map] = nil
                continue
            }
            for (key, entry) in entries where !validEntry(map, key: key, entry) {
                throw TaskFormatError("entry \"\(key)\" of \"\(map)\" is malformed")
            }
        }
    }

    /// Whether `r` is a `repeat` object: exactly `every` (a canonical rule) and `from` (a date).
    static func validRepeat(_ r: JSONValue) -> Bool {
        guard case .object(let members) = r, members.count == 2, case .string(let every)? = r["every"],
            case .string(let from)? = r["from"], RepeatRule(every)?.description == every
        else { return false }
        return CivilDate(iso: Substring(from)) != nil
    }

    static func validEntry(_ map: String, key: String, _ entry: JSONValue) -> Bool {
        guard case .array(let e) = entry else { return false }
        let strings = e.compactMap(\.stringValue)
        guard strings.count == e.count else { return false }
        switch map {
        case "occurrences":
            return e.count == 2 && CivilDate(iso: Substring(key)) != nil && OccurrenceState(rawValue: strings[0]) != nil
                && FieldStamp(strings[1]) != nil
        case "turns":
            return e.count == 2 && CivilDate(iso: Substring(key)) != nil && FieldStamp(strings[1]) != nil
        case "rotations":
            return e.count >= 1 && e.count <= 1_001 && CivilDate(iso: Substring(key)) != nil && FieldStamp(strings[e.count - 1]) != nil
                && strings.dropLast().allSatisfy { !$0.isEmpty }
        case "completions":
            return e.count == 4 && Completion.parse(key: key) != nil && CompletionState(rawValue: strings[0]) != nil
                && strings[2].utf8.count == 10 && CivilDate(iso: Substring(strings[2])) != nil && FieldStamp(strings[3]) != nil
        case "items":
            return e.count == 4 && key.utf8.count == 16 && key.utf8.allSatisfy(isLowerHex)
                && ItemState(rawValue: strings[0]) != nil && !strings[1].isEmpty && FieldStamp(strings[2]) != nil
                && FieldStamp(strings[3]) != nil
        default: return false
        }
    }

    /// The stamp deciding an entry's merge: its last element.
    public static func entryStamp(_ entry: JSONValue) -> FieldStamp? {
        guard case .array(let e) = entry, case .string(let s)? = e.last else { return nil }
        return FieldStamp(s)
    }

    /// Every stamp in a task's chore and checklist maps (for the clock: a new write must sort after them).
    static func stamps(in task: Task) -> [FieldStamp] {
        var out: [FieldStamp] = []
        for map in maps {
            guard case .object(let entries)? = task.extra[map] else { continue }
            for (_, entry) in entries {
                if let s = entryStamp(entry) { out.append(s) }
                // An item's `added` may be a little past its command's stamp (one per item added).
                if map == "items", case .array(let e) = entry, e.count == 4, let s = e[2].stringValue.flatMap(FieldStamp.init) {
                    out.append(s)
                }
            }
        }
        return out
    }

    /// Per-key merge of one map: the entry with the greater stamp; for identical stamps the one
    /// whose compact JSON sorts first. Keys in byte order; nil when empty.
    static func merge(_ x: JSONValue?, _ y: JSONValue?) -> JSONValue? {
        var merged: [String: JSONValue] = [:]
        var keys: [[String]] = []
        for side in [x, y] {
            guard case .object(let entries)? = side else { continue }
            keys.append(entries.map(\.0))
            for (key, entry) in entries {
                guard let other = merged[key] else {
                    merged[key] = entry
                    continue
                }
                if entryBeats(entry, other) { merged[key] = entry }
            }
        }
        if merged.isEmpty { return nil }
        // Keys spelled differently by the sides (canonically equivalent Unicode) are written in
        // one spelling chosen by bytes, so that the order of the sides does not matter.
        let spellings = FieldMerge.spellings(keys.joined())
        return .object(TaskCodec.sortedKeys(spellings).compactMap { key in merged[key].map { (key, $0) } })
    }

    /// The conflict-log prefixes of the maps' entries (docs/MERGE.md, "What is logged").
    static let logPrefixes: [(map: String, prefix: String)] = [
        ("occurrences", "occurrence:"), ("completions", "completion:"), ("turns", "turn:"), ("items", "item:"),
        ("rotations", "rotation@"),
    ]

    /// The conflict-log field of one map entry: `occurrence:<date>`, `turn:<date>`, `item:<key>`.
    public static func logField(map: String, key: String) -> String {
        (logPrefixes.first { $0.map == map }?.prefix ?? map + ":") + key
    }

    /// The map and key a conflict-log field names; nil for any other field.
    public static func mapEntry(ofLogField field: String) -> (map: String, key: String)? {
        for (map, prefix) in logPrefixes where field.hasPrefix(prefix) {
            return (map, String(field.dropFirst(prefix.count)))
        }
        return nil
    }

    /// Whether two entries of one key say different things: an occurrence's state, a
    /// take-over's member, an item's state (texts of one key differ at most in case).
    public static func entriesDiffer(map: String, _ x: JSONValue, _ y: JSONValue) -> Bool {
        guard case .array(let ex) = x, case .array(let ey) = y else { return x != y }
        // A rotation entry: its names (all but the stamp).
        if map == "rotations" { return Array(ex.dropLast()) != Array(ey.dropLast()) }
        return ex.first != ey.first
    }

    /// What the conflict log keeps of an entry: an occurrence's state, a take-over's member,
    /// an item's `[state, text]` (its stamps are the version's).
    public static func entryValue(map: String, _ entry: JSONValue) -> JSONValue {
        guard case .array(let e) = entry, let first = e.first else { return entry }
        if map == "items", e.count >= 2 { return .array([first, e[1]]) }
        if map == "rotations" { return .array(Array(e.dropLast())) }
        return first
    }

    /// The value that says a stamped field a task did not have is absent, in a form the file
    /// format accepts: `[]` for `rotation` (no rotation), `null` for the others (`repeat`: not a
    /// chore; a newer version's field: nothing).
    public static func absentFieldValue(_ field: String) -> JSONValue {
        field == "rotation" ? .array([]) : .null
    }

    /// What an entry's absence says, as `entryValue` would: an occurrence open, no take-over,
    /// an item removed (with the text of `entry`, the same key's entry).
    public static func absentValue(map: String, like entry: JSONValue) -> JSONValue {
        switch map {
        case "occurrences": return .string(OccurrenceState.open.rawValue)
        case "completions": return .string(CompletionState.undone.rawValue)
        case "turns": return .string("")
        case "rotations": return .null
        default:
            guard case .array(let e) = entry, e.count > 1 else { return .array([.string(ItemState.removed.rawValue), .string("")]) }
            return .array([.string(ItemState.removed.rawValue), e[1]])
        }
    }

    /// The conflict-log version of an entry: its value and its deciding stamp.
    static func logVersion(map: String, _ entry: JSONValue) -> ConflictEntry.Version {
        ConflictEntry.Version(value: entryValue(map: map, entry), stamp: entryStamp(entry))
    }

    static func entryBeats(_ x: JSONValue, _ y: JSONValue) -> Bool {
        let sx = entryStamp(x)
        let sy = entryStamp(y)
        switch (sx, sy) {
        case (let s?, let t?) where s != t: return FieldStamp.precedes(t, s)
        case (.some, nil): return true
        case (nil, .some): return false
        default: return Array(JSONWriter.compact(x).utf8).lexicographicallyPrecedes(Array(JSONWriter.compact(y).utf8))
        }
    }

    static func setEntry(_ task: inout Task, map: String, key: String, _ entry: JSONValue) {
        var members: [(String, JSONValue)] = []
        if case .object(let m)? = task.extra[map] { members = m.filter { $0.0 != key } }
        members.append((key, entry))
        members.sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        task.extra[map] = .object(members)
    }
}

extension Task {
    /// The chore's rule and start, nil for a plain task.
    public var recurrence: Recurrence? {
        guard case .object? = extra["repeat"], case .string(let every)? = extra["repeat"]?["every"],
            case .string(let from)? = extra["repeat"]?["from"], let rule = RepeatRule(every),
            let start = CivilDate(iso: Substring(from))
        else { return nil }
        return Recurrence(rule: rule, from: start)
    }

    public var isChore: Bool { recurrence != nil }

    /// The members in turn; empty without a rotation.
    public var rotation: [String] {
        guard case .array(let names)? = extra["rotation"] else { return [] }
        return names.compactMap(\.stringValue)
    }

    /// Completed, skipped and reopened occurrences, by date (`YYYY-MM-DD`).
    public var occurrenceEntries: [String: OccurrenceEntry] {
        guard case .object(let entries)? = extra["occurrences"] else { return [:] }
        var out: [String: OccurrenceEntry] = [:]
        for (key, e) in entries {
            guard case .array(let a) = e, a.count == 2, let st = a[0].stringValue.flatMap(OccurrenceState.init),
                let s = a[1].stringValue.flatMap(FieldStamp.init)
            else { continue }
            out[key] = OccurrenceEntry(state: st, stamp: s)
        }
        return out
    }

    /// Taken-over occurrences, by date.
    public var turnEntries: [String: TurnEntry] {
        guard case .object(let entries)? = extra["turns"] else { return [:] }
        var out: [String: TurnEntry] = [:]
        for (key, e) in entries {
            guard case .array(let a) = e, a.count == 2, let m = a[0].stringValue, let s = a[1].stringValue.flatMap(FieldStamp.init)
            else { continue }
            out[key] = TurnEntry(member: m, stamp: s)
        }
        return out
    }

    /// Every checklist item, removed ones included, in the shared order.
    public var checklist: [ChecklistItem] {
        guard case .object(let entries)? = extra["items"] else { return [] }
        var out: [ChecklistItem] = []
        for (key, e) in entries {
            guard case .array(let a) = e, a.count == 4, let st = a[0].stringValue.flatMap(ItemState.init),
                let text = a[1].stringValue, let added = a[2].stringValue.flatMap(FieldStamp.init),
                let s = a[3].stringValue.flatMap(FieldStamp.init)
            else { continue }
            out.append(ChecklistItem(key: key, state: st, text: text, added: added, stamp: s))
        }
        return out.sorted(by: ChecklistItem.precedes)
    }

    /// Checked and total items not removed (nil without items): what `list` shows, read
    /// without parsing stamps or ordering.
    public var checklistProgress: (checked: Int, total: Int)? {
        guard case .object(let entries)? = extra["items"] else { return nil }
        var checked = 0
        var total = 0
        for (_, e) in entries {
            guard case .array(let a) = e, case .string(let state)? = a.first, state != "removed" else { continue }
            total += 1
            if state == "checked" { checked += 1 }
        }
        return total == 0 ? nil : (checked, total)
    }

    /// The items not removed, in order: what `show` numbers from 1.
    public var visibleItems: [ChecklistItem] { checklist.filter { $0.state != .removed } }

    /// The current occurrence on `today` (docs/FORMAT.md, "What is derived"); nil for a plain
    /// task or a rule that has run past the last date.
    public func currentOccurrence(today: CivilDate) -> CivilDate? { schedule(today: today, context: .plain)?.current }

    /// Writes one occurrence's state.
    public mutating func setOccurrence(_ date: CivilDate, _ state: OccurrenceState, stamp: FieldStamp) {
        ChoreFields.setEntry(&self, map: "occurrences", key: date.description, OccurrenceEntry(state: state, stamp: stamp).json)
    }

    /// Gives one occurrence to `member` ("" cancels a take-over).
    public mutating func setTurn(_ date: CivilDate, _ member: String, stamp: FieldStamp) {
        ChoreFields.setEntry(&self, map: "turns", key: date.description, TurnEntry(member: member, stamp: stamp).json)
    }

    /// Writes one checklist item.
    public mutating func setItem(_ item: ChecklistItem) {
        ChoreFields.setEntry(&self, map: "items", key: item.key, item.json)
    }

    /// The rule written as one stamped field (nil: no longer a chore).
    public mutating func setRecurrence(_ r: Recurrence?, stamp: FieldStamp) {
        let value: JSONValue =
            r.map { .object([("every", .string($0.rule.description)), ("from", .string($0.from.description))]) } ?? .null
        try? write("repeat", value, stamp: stamp)  // a known field and a value of its own type: `write` refuses neither
    }

    public mutating func setRotation(_ names: [String], stamp: FieldStamp) {
        try? write("rotation", .array(names.map { .string($0) }), stamp: stamp)  // as above
    }
}
