/// Reads and writes task files in the canonical layout described in docs/FORMAT.md.
public enum TaskCodec {
    /// Task files larger than this are refused as malformed.
    public static let maxFileSize = 1 << 20

    // MARK: Encoding

    /// The task's canonical file bytes.
    public static func encode(_ task: Task) -> [UInt8] { JSONWriter.document(fileObject(task)) }

    /// The task as the JSON object of its file: fields in the documented order, unknown fields
    /// (sorted), then the clocks and the conflict entries.
    public static func fileObject(_ task: Task) -> JSONValue {
        var members = publicMembers(task)
        var stampMembers: [(String, JSONValue)] = []
        for field in Task.stampedFields + ["createdAt", "createdBy"] {
            if let s = task.stamps[field] { stampMembers.append((field, .string(s.description))) }
        }
        for key in sortedKeys(task.stamps.keys.filter { !Task.stampedFields.contains($0) && $0 != "createdAt" && $0 != "createdBy" }) {
            if let s = task.stamps[key] { stampMembers.append((key, .string(s.description))) }
        }
        members.append(("stamps", .object(stampMembers)))
        // A tag without a stamp (listed in `tags` by hand) has the zero stamp, which is no stamp
        // a file can carry: the `tags` list alone says it again.
        let stampedTags = task.tagStates.filter { $0.value.stamp.stamp != .zero }
        members.append(
            ("tagStamps", .object(sortedKeys(stampedTags.keys).compactMap { tag in stampedTags[tag].map { (tag, .string($0.encoded)) } })))
        if !task.conflicts.isEmpty { members.append(("conflicts", .array(task.conflicts))) }
        return .object(members)
    }

    /// The task's fields without the clocks: what `--json` prints.
    public static func publicObject(_ task: Task) -> JSONValue { .object(publicMembers(task)) }

    static func publicMembers(_ task: Task) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        members.reserveCapacity(Task.fieldOrder.count + task.extra.count + 3)
        for field in Task.fieldOrder {
            if let v = task.value(of: field) { members.append((field, v)) }
        }
        for key in sortedKeys(task.extra.keys) {
            if let v = task.extra[key] { members.append((key, v)) }
        }
        return members
    }

    static func sortedKeys<S: Sequence>(_ keys: S) -> [String] where S.Element == String {
        keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    // MARK: Decoding

    /// Parses a task file. `expectedID`, when given, must match the file's `id`.
    public static func decode(_ bytes: [UInt8], expectedID: TaskID? = nil) throws(TaskFormatError) -> Task {
        if bytes.count > maxFileSize { throw TaskFormatError("file is larger than 1 MiB") }
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw TaskFormatError("not valid JSON: \(error)")
        }
        return try decode(root, expectedID: expectedID)
    }

    public static func decode(_ root: JSONValue, expectedID: TaskID? = nil) throws(TaskFormatError) -> Task {
        guard case .object(let members) = root else { throw TaskFormatError("not a JSON object") }
        var byKey: [String: JSONValue] = [:]
        for (k, v) in members { byKey[k] = v }
        guard case .string(let idText)? = byKey["id"], let id = TaskID(idText) else {
            throw TaskFormatError("\"id\" must be 32 lowercase hex digits")
        }
        if let expectedID, expectedID != id { throw TaskFormatError("\"id\" does not match the file name") }
        guard case .string(let title)? = byKey["title"] else { throw TaskFormatError("\"title\" must be a string") }
        var task = Task(id: id, title: title, createdAt: "", createdBy: "")
        for field in ["status", "notes", "assignee", "due", "priority", "deleted", "createdAt", "createdBy"] {
            if let v = byKey[field] { try task.setValue(v, of: field) }
        }
        for (key, value) in members
        where !Task.fieldOrder.contains(key) && !Task.trailerKeys.contains(key) {
            task.extra[key] = value
        }
        if let stamps = byKey["stamps"] {
            guard case .object(let entries) = stamps else { throw TaskFormatError("\"stamps\" must be an object") }
            for (field, value) in entries {
                guard case .string(let text) = value, let s = FieldStamp(text) else {
                    throw TaskFormatError("stamp of \"\(field)\" is malformed")
                }
                task.stamps[field] = s
            }
        }
        var listed = Set<String>()
        if let tags = byKey["tags"] {
            guard case .array(let items) = tags else { throw TaskFormatError("\"tags\" must be an array of strings") }
            for item in items {
                guard case .string(let t) = item, !t.isEmpty else {
                    throw TaskFormatError("\"tags\" must be an array of strings")
                }
                listed.insert(t)
            }
        }
        if let tagStamps = byKey["tagStamps"] {
            guard case .object(let entries) = tagStamps else {
                throw TaskFormatError("\"tagStamps\" must be an object")
            }
            for (tag, value) in entries {
                guard case .string(let text) = value, let state = TagState(encoded: text) else {
                    throw TaskFormatError("stamp of tag \"\(tag)\" is malformed")
                }
                task.tagStates[tag] = state
            }
        }
        // The `tags` list says which tags are present (a hand edit may have changed it); the
        // stamps say when. A listed tag without a stamp counts as added at time zero.
        for tag in listed where task.tagStates[tag]?.present != true {
            task.tagStates[tag] = TagState(present: true, stamp: task.tagStates[tag]?.stamp ?? FieldStamp(.zero, by: ""))
        }
        for (tag, state) in task.tagStates where state.present && !listed.contains(tag) {
            task.tagStates[tag] = TagState(present: false, stamp: state.stamp)
        }
        if let conflicts = byKey["conflicts"] {
            guard case .array(let items) = conflicts else { throw TaskFormatError("\"conflicts\" must be an array") }
            task.conflicts = items
        }
        try ChoreFields.check(&task)
        try ImportRecord.check(task.extra[ImportRecord.field])
        return task
    }
}
