/// A compact binary form of a task's visible fields (no stamps, no conflict entries), for the
/// list cache: far cheaper to read back than the JSON file.
///
/// Layout of one record, integers little-endian, strings as u32 length + UTF-8 bytes:
/// id (16 bytes) · flags u8 (1 done, 2 deleted, 4 due, 8 due time, 16 assignee) · priority u8 ·
/// due days i32 · due minutes u16 · conflict count u32 · title · notes · assignee · createdAt ·
/// createdBy · extra fields as compact JSON ("" when none) · tag count u16 · tags · list facts:
/// flags u8 (1 chore, 2 current occurrence, 4 turn, 8 items, 16 valid from, 32 valid through),
/// then with 2 the occurrence's days i32, with 4 the turn, with 8 checked and total u32 each,
/// with 16 and 32 the days i32 of the first and last day the facts hold.
public enum TaskRecord {
    /// One record read back. With `parseExtra` false, `task.extra` is left empty and its JSON
    /// text is in `unparsedExtra` (nil when there is none).
    public struct Entry {
        public var task: Task
        public var facts: ListFacts?
        public var unparsedExtra: ArraySlice<UInt8>?
    }

    /// Appends `task`'s record. `extraText` stands in for the extra fields when the task was
    /// read without them; `facts` are computed from the task when not given.
    public static func append(
        _ task: Task, facts: ListFacts?, today: CivilDate, extraText: ArraySlice<UInt8>? = nil, to out: inout [UInt8]
    ) {
        appendID(task.id, to: &out)
        var flags: UInt8 = 0
        if task.status == .done { flags |= 1 }
        if task.deleted { flags |= 2 }
        if task.due != nil { flags |= 4 }
        if task.due?.minutes != nil { flags |= 8 }
        if task.assignee != nil { flags |= 16 }
        out.append(flags)
        out.append(UInt8(task.priority.rank))
        appendInt(UInt32(bitPattern: Int32(clamping: task.due?.date.daysSinceEpoch ?? 0)), 4, to: &out)
        appendInt(UInt32(task.due?.minutes ?? 0), 2, to: &out)
        appendInt(UInt32(task.conflicts.count), 4, to: &out)
        for s in [task.title, task.notes, task.assignee ?? "", task.createdAt, task.createdBy] { appendString(s, to: &out) }
        if task.extra.isEmpty {
            appendInt(UInt32(extraText?.count ?? 0), 4, to: &out)
            if let extraText { out.append(contentsOf: extraText) }
        } else {
            let keys = task.extra.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            appendString(JSONWriter.compact(.object(keys.compactMap { k in task.extra[k].map { (k, $0) } })), to: &out)
        }
        // The count is 16 bits: a file with more tags (only a hand edit makes one) lists the first.
        let tags = task.tags.prefix(Int(UInt16.max))
        appendInt(UInt32(tags.count), 2, to: &out)
        for t in tags { appendString(t, to: &out) }
        guard let f = facts ?? ListFacts(task, today: today, context: .plain) else {
            out.append(0)
            return
        }
        out.append(
            (f.isChore ? 1 : 0) | (f.current != nil ? 2 : 0) | (f.turn != nil ? 4 : 0) | (f.total > 0 ? 8 : 0)
                | (f.validFrom != nil ? 16 : 0) | (f.validThrough != nil ? 32 : 0))
        if let c = f.current { appendInt(UInt32(bitPattern: Int32(clamping: c.daysSinceEpoch)), 4, to: &out) }
        if let t = f.turn { appendString(t, to: &out) }
        if f.total > 0 {
            appendInt(UInt32(clamping: f.checked), 4, to: &out)
            appendInt(UInt32(clamping: f.total), 4, to: &out)
        }
        for day in [f.validFrom, f.validThrough] {
            if let day { appendInt(UInt32(bitPattern: Int32(clamping: day.daysSinceEpoch)), 4, to: &out) }
        }
    }

    /// What records read one after another have in common, shared rather than made again: a
    /// household's tasks mostly carry the same few tag sets (each one a dictionary, the largest
    /// part of a task read back), and tasks created together have the same creation time and
    /// author. Values are shared as Swift shares them, copied on a write: nothing a record reads
    /// back depends on the records before it.
    public struct Sharing {
        /// Tag states by the record bytes of their tags (count and strings); at most `tagSetLimit`.
        var tagSets: [ArraySlice<UInt8>: [String: TagState]] = [:]
        static let tagSetLimit = 4096
        /// The last record's creation time and author, with the bytes they were read from.
        var createdAt: (bytes: ArraySlice<UInt8>, value: String)?
        var createdBy: (bytes: ArraySlice<UInt8>, value: String)?

        public init() {}
    }

    /// Reads one record at `offset`, advancing it; nil if the bytes are not a valid record.
    public static func read(_ bytes: [UInt8], at offset: inout Int, parseExtra: Bool = true) -> Entry? {
        var sharing = Sharing()
        return read(bytes, at: &offset, parseExtra: parseExtra, sharing: &sharing)
    }

    /// Reads one record at `offset`, advancing it; nil if the bytes are not a valid record.
    /// Reading many records with one `sharing` gives the same tasks with fewer allocations.
    public static func read(_ bytes: [UInt8], at offset: inout Int, parseExtra: Bool, sharing: inout Sharing) -> Entry? {
        var r = Reader(bytes: bytes, offset: offset)
        guard let id = r.id(), let flags = r.byte(), let prio = r.byte(), let days = r.int(4), let minutes = r.int(2),
            let conflictCount = r.int(4), let title = r.string(), let notes = r.string(), let assignee = r.string(),
            let createdAt = r.string(sameAs: &sharing.createdAt), let createdBy = r.string(sameAs: &sharing.createdBy),
            let extraLength = r.int(4), let extraText = r.raw(Int(extraLength)), let tagCount = r.int(2)
        else { return nil }
        var task = Task(
            id: id, title: title, createdAt: createdAt, createdBy: createdBy, status: flags & 1 != 0 ? .done : .open,
            notes: notes, assignee: flags & 16 != 0 ? assignee : nil,
            due: flags & 4 != 0
                ? Due(date: CivilDate(daysSinceEpoch: Int(Int32(bitPattern: days))), minutes: flags & 8 != 0 ? Int(minutes) : nil)
                : nil,
            priority: prio == 0 ? .low : prio == 2 ? .high : .normal, deleted: flags & 2 != 0)
        var unparsed: ArraySlice<UInt8>?
        if !extraText.isEmpty {
            if parseExtra {
                guard case .object(let members)? = try? JSONParser.parse(Array(extraText)) else { return nil }  // unparsable: nil, and the caller parses the whole file, which names the problem
                for (k, v) in members { task.extra[k] = v }
            } else {
                // A copy: a view would keep the whole cache file's bytes alive as long as the task.
                unparsed = ArraySlice(Array(extraText))
            }
        }
        if tagCount > 0 {
            guard let tags = r.tagStates(count: Int(tagCount), sharing: &sharing) else { return nil }
            task.tagStates = tags
        }
        if conflictCount > 0 { task.conflicts = Array(repeating: .null, count: Int(min(conflictCount, 1 << 20))) }
        guard let factFlags = r.byte() else { return nil }
        var facts: ListFacts?
        if factFlags != 0 {
            var f = ListFacts(isChore: factFlags & 1 != 0, current: nil, turn: nil, checked: 0, total: 0)
            if factFlags & 2 != 0 {
                guard let d = r.int(4) else { return nil }
                f.current = CivilDate(daysSinceEpoch: Int(Int32(bitPattern: d)))
            }
            if factFlags & 4 != 0 {
                guard let t = r.string() else { return nil }
                f.turn = t
            }
            if factFlags & 8 != 0 {
                guard let c = r.int(4), let n = r.int(4) else { return nil }
                (f.checked, f.total) = (Int(c), Int(n))
            }
            if factFlags & 16 != 0 {
                guard let d = r.int(4) else { return nil }
                f.validFrom = CivilDate(daysSinceEpoch: Int(Int32(bitPattern: d)))
            }
            if factFlags & 32 != 0 {
                guard let d = r.int(4) else { return nil }
                f.validThrough = CivilDate(daysSinceEpoch: Int(Int32(bitPattern: d)))
            }
            facts = f
        }
        offset = r.offset
        return Entry(task: task, facts: facts, unparsedExtra: unparsed)
    }

    /// The id's 128 bits, most significant byte first (the order of its hex digits).
    static func appendID(_ id: TaskID, to out: inout [UInt8]) {
        for half in [id.high, id.low] {
            for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: half >> (56 - 8 * UInt64(i)))) }
        }
    }

    public static func appendInt(_ v: UInt32, _ width: Int, to out: inout [UInt8]) {
        for i in 0..<width { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) }
    }

    public static func appendString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { buf in
            appendInt(UInt32(buf.count), 4, to: &out)
            out.append(contentsOf: buf)
        }
    }

    /// Bounds-checked reading of the record layout.
    public struct Reader {
        public let bytes: [UInt8]
        public var offset: Int

        public init(bytes: [UInt8], offset: Int) {
            self.bytes = bytes
            self.offset = offset
        }

        public mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        public mutating func int(_ width: Int) -> UInt32? {
            guard offset + width <= bytes.count else { return nil }
            var v: UInt32 = 0
            for i in 0..<width { v |= UInt32(bytes[offset + i]) << (8 * UInt32(i)) }
            offset += width
            return v
        }

        public mutating func raw(_ n: Int) -> ArraySlice<UInt8>? {
            guard n >= 0, offset + n <= bytes.count else { return nil }
            defer { offset += n }
            return bytes[offset..<(offset + n)]
        }

        public mutating func string() -> String? {
            guard let n = int(4), let slice = raw(Int(n)) else { return nil }
            return Self.text(slice)
        }

        /// The bytes as a string, nil when they are not UTF-8. ASCII (most of what a household
        /// writes) is decoded directly, without the general validation's generic path.
        static func text(_ slice: ArraySlice<UInt8>) -> String? {
            slice.withUnsafeBufferPointer { b in
                var high: UInt8 = 0
                for byte in b { high |= byte }
                return high < 0x80 ? String(decoding: b, as: UTF8.self) : String(validating: b, as: UTF8.self)
            }
        }

        /// A string; the one in `last` when its bytes are the same (no new storage), which then
        /// becomes this one.
        mutating func string(sameAs last: inout (bytes: ArraySlice<UInt8>, value: String)?) -> String? {
            guard let n = int(4), let slice = raw(Int(n)) else { return nil }
            if let last, last.bytes == slice { return last.value }
            guard let s = Self.text(slice) else { return nil }
            // Short strings are stored inline: nothing to share, and no reason to keep the bytes.
            if slice.count > 15 { last = (slice, s) }
            return s
        }

        /// `count` tags, each present, with no stamp: the dictionary of an earlier record with
        /// the same tag bytes when there is one.
        mutating func tagStates(count: Int, sharing: inout Sharing) -> [String: TagState]? {
            let start = offset - 2
            for _ in 0..<count {
                guard let n = int(4), raw(Int(n)) != nil else { return nil }
            }
            let key = bytes[start..<offset]
            if let shared = sharing.tagSets[key] { return shared }
            var states: [String: TagState] = [:]
            states.reserveCapacity(count)
            var tags = Reader(bytes: bytes, offset: start + 2)
            for _ in 0..<count {
                guard let tag = tags.string() else { return nil }
                states[tag] = TagState(present: true, stamp: FieldStamp(.zero, by: ""))
            }
            // The key is copied: a view would keep the whole file's bytes alive.
            if sharing.tagSets.count < Sharing.tagSetLimit { sharing.tagSets[ArraySlice(Array(key))] = states }
            return states
        }

        mutating func id() -> TaskID? {
            guard let raw = raw(16) else { return nil }
            var high: UInt64 = 0
            var low: UInt64 = 0
            for (n, b) in raw.enumerated() {
                if n < 8 { high = high << 8 | UInt64(b) } else { low = low << 8 | UInt64(b) }
            }
            return TaskID(high: high, low: low)
        }
    }
}
