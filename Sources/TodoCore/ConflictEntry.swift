// The entry id is FNV-1a 64 of the entry's canonical JSON, hand-written at the end of this file
// on purpose: ids are stored in task files (docs/FORMAT.md) and must be computed the same way
// by every version; a hashing library's choice of function or seed is not the format's.

/// One conflict-log entry: what a merge kept and what it set aside, stored in the task file's
/// `conflicts` array (see docs/MERGE.md).
///
/// Everything in an entry follows from the merged files; nothing says who ran the merge or
/// when. The id is derived from the content, so the same conflict found on two replicas is one
/// entry and the log merges as a plain set union.
public struct ConflictEntry: Equatable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// Both sides changed a field to different values.
        case field
        /// Both sides changed one tag, one adding and the other removing it.
        case tag
        /// A field or tag was edited concurrently with a deletion that won: the value is in the
        /// tombstone and `todo restore` brings it back.
        case deletedEdit = "deleted-edit"
        /// One side's file could not be read; its raw bytes are in `lost.value`.
        case invalidFile = "invalid-file"
        /// One side removed the file, the other kept it.
        case modifyDelete = "modify-delete"
    }

    /// A value with the stamp and member that wrote it. `stamp` is nil for unstamped fields and
    /// for whole-file entries.
    public struct Version: Equatable, Sendable {
        public var value: JSONValue
        public var stamp: Stamp?
        public var member: String

        public init(value: JSONValue, stamp: Stamp?, member: String) {
            self.value = value
            self.stamp = stamp
            self.member = member
        }

        public init(value: JSONValue, stamp: FieldStamp?) {
            self.init(value: value, stamp: stamp?.stamp, member: stamp?.member ?? "")
        }

        public var fieldStamp: FieldStamp? { stamp.map { FieldStamp($0, by: member) } }

        public var json: JSONValue {
            .object([("value", value), ("stamp", stamp.map { .string($0.description) } ?? .null), ("member", .string(member))])
        }

        init(json: JSONValue, name: String) throws(TaskFormatError) {
            guard case .object = json, let value = json["value"] else {
                throw TaskFormatError("conflict entry \"\(name)\" must be an object with a value")
            }
            var stamp: Stamp?
            switch json["stamp"] {
            case nil, .null?: stamp = nil
            case .string(let text)?:
                guard let s = Stamp(Substring(text)) else { throw TaskFormatError("conflict entry \"\(name)\" has a malformed stamp") }
                stamp = s
            default: throw TaskFormatError("conflict entry \"\(name)\" has a malformed stamp")
            }
            guard case .string(let member) = json["member"] ?? .string("") else {
                throw TaskFormatError("conflict entry \"\(name)\" member must be a string")
            }
            self.init(value: value, stamp: stamp, member: member)
        }
    }

    /// The keys of an entry in file order.
    public static let keyOrder = ["id", "kind", "task", "title", "field", "kept", "lost"]

    /// 16 lowercase hex digits derived from the content (see `contentID`).
    public let id: String
    public let kind: Kind
    public let task: TaskID
    /// The merged task's title when the entry was made, for people reading the log.
    public let title: String
    /// The field name, `tag:<name>` for a tag, or `file` for whole-file entries.
    public let field: String
    public let kept: Version
    public let lost: Version

    public init(kind: Kind, task: TaskID, title: String, field: String, kept: Version, lost: Version) {
        self.id = Self.contentID(kind: kind, task: task, field: field, kept: kept, lost: lost)
        self.kind = kind
        self.task = task
        self.title = title
        self.field = field
        self.kept = kept
        self.lost = lost
    }

    /// FNV-1a 64 over the compact canonical JSON of `{task, kind, field, kept, lost}`: the title
    /// is left out because it only describes.
    public static func contentID(kind: Kind, task: TaskID, field: String, kept: Version, lost: Version) -> String {
        let content = JSONValue.object([
            ("task", .string(task.hex)), ("kind", .string(kind.rawValue)), ("field", .string(field)),
            ("kept", kept.json), ("lost", lost.json),
        ])
        return hex64(fnv1a64(Array(JSONWriter.compact(content).utf8)))
    }

    /// The entry as stored, keys in `keyOrder`.
    public var json: JSONValue {
        .object([
            ("id", .string(id)), ("kind", .string(kind.rawValue)), ("task", .string(task.hex)), ("title", .string(title)),
            ("field", .string(field)), ("kept", kept.json), ("lost", lost.json),
        ])
    }

    /// Reads a stored entry. The id is taken as stored, not recomputed, so an entry written by
    /// another version keeps its identity.
    public init(json: JSONValue) throws(TaskFormatError) {
        guard case .object = json else { throw TaskFormatError("conflict entry must be an object") }
        func string(_ key: String) throws(TaskFormatError) -> String {
            guard case .string(let s)? = json[key] else { throw TaskFormatError("conflict entry \"\(key)\" must be a string") }
            return s
        }
        guard let kind = Kind(rawValue: try string("kind")) else { throw TaskFormatError("conflict entry has an unknown kind") }
        guard let task = TaskID(try string("task")) else { throw TaskFormatError("conflict entry \"task\" is not a task id") }
        guard let kept = json["kept"], let lost = json["lost"] else {
            throw TaskFormatError("conflict entry needs \"kept\" and \"lost\"")
        }
        self.id = try string("id")
        self.kind = kind
        self.task = task
        self.title = try string("title")
        self.field = try string("field")
        self.kept = try Version(json: kept, name: "kept")
        self.lost = try Version(json: lost, name: "lost")
    }
}

/// The conflict log of a task: a grow-only set of entries keyed by id.
public enum ConflictLog {
    /// The set union of several logs by entry id, sorted by id. An entry without a string id is
    /// keyed by its compact JSON text (after every id, since ids are hex). Two different entries
    /// with one id (only a hand edit makes those) resolve to the one whose compact JSON sorts first.
    public static func union(_ logs: [[JSONValue]]) -> [JSONValue] {
        var byKey: [String: (entry: JSONValue, text: [UInt8])] = [:]
        for log in logs {
            for entry in log {
                let text = Array(JSONWriter.compact(entry).utf8)
                let key = entry["id"]?.stringValue ?? "~" + String(decoding: text, as: UTF8.self)
                if let old = byKey[key], !text.lexicographicallyPrecedes(old.text) { continue }
                byKey[key] = (entry, text)
            }
        }
        return byKey.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { $0.value.entry }
    }

    /// The ids of a log's entries that have one.
    public static func ids(_ log: [JSONValue]) -> Set<String> {
        Set(log.compactMap { $0["id"]?.stringValue })
    }
}

/// 64-bit FNV-1a.
public func fnv1a64<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes {
        h ^= UInt64(b)
        h = h &* 0x0000_0100_0000_01b3
    }
    return h
}

/// Standard base64 with padding (RFC 4648 section 4).
func base64Encoded(_ bytes: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var i = 0
    while i < bytes.count {
        let n = min(3, bytes.count - i)
        let b0 = UInt32(bytes[i])
        let b1 = n > 1 ? UInt32(bytes[i + 1]) : 0
        let b2 = n > 2 ? UInt32(bytes[i + 2]) : 0
        let v = b0 << 16 | b1 << 8 | b2
        out.append(alphabet[Int(v >> 18 & 63)])
        out.append(alphabet[Int(v >> 12 & 63)])
        out.append(n > 1 ? alphabet[Int(v >> 6 & 63)] : UInt8(ascii: "="))
        out.append(n > 2 ? alphabet[Int(v & 63)] : UInt8(ascii: "="))
        i += 3
    }
    return String(decoding: out, as: UTF8.self)
}
