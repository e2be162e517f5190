/// A task's 128-bit random id, as 32 lowercase hex digits.
public struct TaskID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The id as a number, its first and last 16 hex digits. Only the number is stored (the
    /// text is made when asked for): an id is two words, copied without reference counting,
    /// and a list of a hundred thousand tasks holds no string for them.
    public let high: UInt64
    public let low: UInt64

    public init?(_ hex: String) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var n = 0
        for c in hex.utf8 {
            guard n < 32, isLowerHex(c) else { return nil }
            let digit = UInt64(c <= 0x39 ? c - 0x30 : c - 0x61 + 10)
            if n < 16 { high = high << 4 | digit } else { low = low << 4 | digit }
            n += 1
        }
        guard n == 32 else { return nil }
        self.high = high
        self.low = low
    }

    /// The id of these 128 bits.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The 32 lowercase hex digits.
    public var hex: String { hexPrefix(32) }

    /// The first `length` (0 to 32) hex digits; up to 15 of them need no storage of their own.
    public func hexPrefix(_ length: Int) -> String {
        let n = min(max(length, 0), 32)
        return String(unsafeUninitializedCapacity: n) { out in
            for i in 0..<n {
                let half = i < 16 ? high : low
                let digit = UInt8(truncatingIfNeeded: half >> (60 - 4 * UInt64(i % 16))) & 15
                out[i] = digit < 10 ? 0x30 + digit : 0x61 + digit - 10
            }
            return n
        }
    }

    public static func == (a: TaskID, b: TaskID) -> Bool { a.high == b.high && a.low == b.low }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(high)
        hasher.combine(low)
    }

    /// A fresh random id.
    public static func random<G: RandomNumberGenerator>(using rng: inout G) -> TaskID {
        let a = rng.next() as UInt64
        let b = rng.next() as UInt64
        return TaskID(high: a, low: b)
    }

    public var description: String { hex }

    /// `tasks/<first two>/<id>.json`
    public var path: String { "tasks/\(hex.prefix(2))/\(hex).json" }

    /// The order of the hex digits.
    public static func < (a: TaskID, b: TaskID) -> Bool { a.high != b.high ? a.high < b.high : a.low < b.low }
}

func isLowerHex(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) }

/// `v` as 16 lowercase hex digits.
public func hex64(_ v: UInt64) -> String {
    String(unsafeUninitializedCapacity: 16) { out in
        for i in 0..<16 {
            let digit = UInt8(truncatingIfNeeded: v >> (60 - 4 * UInt64(i))) & 15
            out[i] = digit < 10 ? 0x30 + digit : 0x61 + digit - 10
        }
        return 16
    }
}

public enum Status: String, Sendable, CaseIterable {
    case open, done
}

public enum Priority: String, Sendable, CaseIterable, Comparable {
    case low, normal, high

    var rank: Int {
        switch self {
        case .low: 0
        case .normal: 1
        case .high: 2
        }
    }

    public static func < (a: Priority, b: Priority) -> Bool { a.rank < b.rank }
}

/// The last add or remove of one tag, with its stamp.
public struct TagState: Hashable, Sendable {
    public var present: Bool
    public var stamp: FieldStamp

    public init(present: Bool, stamp: FieldStamp) {
        self.present = present
        self.stamp = stamp
    }

    /// `+<stamp> <member>` or `-<stamp> <member>`.
    public var encoded: String { (present ? "+" : "-") + stamp.description }

    public init?(encoded: String) {
        guard let sign = encoded.first, sign == "+" || sign == "-",
            let stamp = FieldStamp(String(encoded.dropFirst()))
        else { return nil }
        self.init(present: sign == "+", stamp: stamp)
    }
}

/// One household task: the state of one task file.
public struct Task: Equatable, Sendable {
    /// The fields every write carries a stamp for, in file order.
    public static let stampedFields = ["title", "status", "notes", "assignee", "due", "priority", "deleted"]
    /// All known top-level keys, in file order (unknown keys follow, sorted; then the clocks).
    public static let fieldOrder = [
        "id", "title", "status", "notes", "assignee", "due", "tags", "priority", "createdAt", "createdBy", "deleted",
    ]
    public static let trailerKeys = ["stamps", "tagStamps", "conflicts"]

    public var id: TaskID
    public var title: String
    public var status: Status
    public var notes: String
    public var assignee: String?
    public var due: Due?
    public var priority: Priority
    /// Creation time, `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC).
    public var createdAt: String
    public var createdBy: String
    public var deleted: Bool
    /// Per-field stamps, keyed by field name. Keys this version does not know are kept.
    public var stamps: [String: FieldStamp]
    /// Per-tag add/remove state; the visible tags are those present.
    public var tagStates: [String: TagState]
    /// Conflict-log entries recorded in this task by merges (kept in id order).
    public var conflicts: [JSONValue]
    /// Top-level fields this version does not know, kept verbatim.
    public var extra: [String: JSONValue]

    /// The stamp of the last write of the status: who marked it done or open, and when.
    public var statusStamp: FieldStamp? { stamps["status"] }
    /// The stamp of the last write of `deleted`: who deleted (or restored) the task, and when.
    public var deletedStamp: FieldStamp? { stamps["deleted"] }

    public init(
        id: TaskID, title: String, createdAt: String, createdBy: String, status: Status = .open, notes: String = "",
        assignee: String? = nil, due: Due? = nil, priority: Priority = .normal, deleted: Bool = false
    ) {
        self.id = id
        self.title = title
        self.status = status
        self.notes = notes
        self.assignee = assignee
        self.due = due
        self.priority = priority
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.deleted = deleted
        self.stamps = [:]
        self.tagStates = [:]
        self.conflicts = []
        self.extra = [:]
    }

    /// The visible tags, sorted by their UTF-8 bytes.
    public var tags: [String] { Self.visibleTags(tagStates) }

    /// The tags present in `states`, sorted by their UTF-8 bytes.
    public static func visibleTags(_ states: [String: TagState]) -> [String] {
        var tags: [String] = []
        tags.reserveCapacity(states.count)
        for (tag, state) in states where state.present { tags.append(tag) }
        tags.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return tags
    }

    /// The greatest stamp anywhere in the task.
    public var maxStamp: Stamp? {
        var best: Stamp?
        for s in stamps.values where best == nil || best! < s.stamp { best = s.stamp }
        for t in tagStates.values where best == nil || best! < t.stamp.stamp { best = t.stamp.stamp }
        for s in ChoreFields.stamps(in: self) where best == nil || best! < s.stamp { best = s.stamp }
        return best
    }

    /// The value of a stamped field as JSON (as written in the file).
    public func value(of field: String) -> JSONValue? {
        switch field {
        case "title": return .string(title)
        case "status": return .string(status.rawValue)
        case "notes": return .string(notes)
        case "assignee": return assignee.map { .string($0) } ?? .null
        case "due": return due.map { .string($0.description) } ?? .null
        case "priority": return .string(priority.rawValue)
        case "deleted": return .bool(deleted)
        case "createdAt": return .string(createdAt)
        case "createdBy": return .string(createdBy)
        case "tags": return .array(tags.map { .string($0) })
        case "id": return .string(id.hex)
        default: return extra[field]
        }
    }

    /// Sets a field from its JSON form; throws when the value does not fit the field.
    public mutating func setValue(_ value: JSONValue, of field: String) throws(TaskFormatError) {
        func str() throws(TaskFormatError) -> String {
            guard case .string(let s) = value else { throw TaskFormatError("\"\(field)\" must be a string") }
            return s
        }
        switch field {
        case "title": title = try str()
        case "status":
            guard let s = Status(rawValue: try str()) else { throw TaskFormatError("\"status\" must be open or done") }
            status = s
        case "notes": notes = try str()
        case "assignee": assignee = value == .null ? nil : try str()
        case "due":
            if value == .null {
                due = nil
            } else {
                guard let d = Due(stored: try str()) else { throw TaskFormatError("\"due\" is not a valid date") }
                due = d
            }
        case "priority":
            guard let p = Priority(rawValue: try str()) else {
                throw TaskFormatError("\"priority\" must be low, normal or high")
            }
            priority = p
        case "deleted":
            guard case .bool(let b) = value else { throw TaskFormatError("\"deleted\" must be true or false") }
            deleted = b
        case "createdAt": createdAt = try str()
        case "createdBy": createdBy = try str()
        case "id", "tags", "stamps", "tagStamps", "conflicts":
            throw TaskFormatError("\"\(field)\" cannot be set as a plain field")
        default: extra[field] = value
        }
    }

    /// Writes `value` to `field` with a stamp, as one local edit does.
    public mutating func write(_ field: String, _ value: JSONValue, stamp: FieldStamp) throws(TaskFormatError) {
        try setValue(value, of: field)
        stamps[field] = stamp
    }

    /// Adds or removes a tag with a stamp.
    public mutating func setTag(_ tag: String, present: Bool, stamp: FieldStamp) {
        tagStates[tag] = TagState(present: present, stamp: stamp)
    }
}

/// Why a task file cannot be read.
public struct TaskFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
