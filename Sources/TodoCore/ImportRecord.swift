/// The `imported` field: what the last `todo import` read for a task from its file, so that a
/// re-import changes only what changed in the file since (docs/FORMAT.md, "The last import").
public enum ImportRecord {
    /// The field's name in the task file.
    public static let field = "imported"
    /// The plain fields a record holds, each in the field's own JSON form.
    static let plainFields = ["title", "status", "notes", "assignee", "due", "priority", "deleted"]

    /// Throws when a task's record does not have its documented shape. Keys this version does
    /// not know are allowed (a later version may record more); `null` is no record.
    static func check(_ value: JSONValue?) throws(TaskFormatError) {
        guard let value, value != .null else { return }
        guard case .object(let members) = value else { throw TaskFormatError("\"imported\" must be an object") }
        var probe = Task(id: TaskID(high: 0, low: 0), title: "", createdAt: "", createdBy: "")
        for (key, v) in members {
            let ok: Bool
            switch key {
            case "title", "notes": ok = v.stringValue != nil
            case "assignee": ok = v == .null || v.stringValue != nil
            case "status", "due", "priority", "deleted": ok = (try? probe.setValue(v, of: key)) != nil  // a value its field cannot hold: not ok, as checked
            case "tags":
                guard case .array(let tags) = v else { ok = false; break }
                ok = tags.allSatisfy { $0.stringValue != nil }
            case "repeat": ok = v == .null || ChoreFields.validRepeat(v)
            case "occurrences":
                guard case .object(let entries) = v else { ok = false; break }
                ok = entries.allSatisfy { key, state in
                    CivilDate(iso: Substring(key)) != nil && (state == .string("done") || state == .string("skipped"))
                }
            default: ok = true
            }
            if !ok { throw TaskFormatError("\"\(key)\" of \"imported\" is malformed") }
        }
    }

    /// The record of what `item` says, keys sorted by bytes.
    public static func make(_ item: ImportedTask) -> JSONValue {
        let members: [(String, JSONValue)] = [
            ("assignee", item.assignee.map { .string($0) } ?? .null),
            ("deleted", .bool(item.deleted)),
            ("due", item.due.map { .string($0.description) } ?? .null),
            ("notes", .string(item.notes)),
            ("occurrences", .object(occurrences(item).sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
            ("priority", .string(item.priority.rawValue)),
            ("repeat", repeatValue(item.recurrence)),
            ("status", .string(item.status.rawValue)),
            ("tags", .array(Set(item.tags).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { .string($0) })),
            ("title", .string(item.title)),
        ]
        return .object(members)
    }

    static func occurrences(_ item: ImportedTask) -> [String: String] {
        var out: [String: String] = [:]
        for o in item.occurrences where o.state != .open { out[o.date.description] = o.state.rawValue }
        return out
    }

    static func repeatValue(_ r: Recurrence?) -> JSONValue {
        r.map { .object([("every", .string($0.rule.description)), ("from", .string($0.from.description))]) } ?? .null
    }
}

/// What a re-import did to one task: field names (`tags`, `occurrences` for any tag or date).
public struct ReimportResult: Sendable, Equatable {
    /// Fields the import wrote because the file changed them.
    public var updated: [String] = []
    /// Fields a member changed since the last import, left alone because the file did not.
    public var kept: [String] = []
    /// Updated fields where a member's value was set aside in the conflict log.
    public var replaced: [String] = []
    /// Whether only the record was written (a task imported by an older version, or a record
    /// that lacked a field).
    public var recordOnly = false
    /// Whether the task was written at all.
    public var changed: Bool { !updated.isEmpty || recordOnly }

    public init() {}
}

extension Task {
    /// Brings this task, imported before, up to date with `item` as one edit with `stamp`:
    /// only what changed in the file since the last import (the `imported` record), a member's
    /// value that the file replaces going to the conflict log. Writes the record anew.
    public mutating func reimport(_ item: ImportedTask, stamp: FieldStamp) -> ReimportResult {
        var result = ReimportResult()
        let record: JSONValue? = extra[ImportRecord.field].flatMap { $0 == .null ? nil : $0 }
        var entries: [(kind: ConflictEntry.Kind, field: String, kept: ConflictEntry.Version, lost: ConflictEntry.Version)] = []
        func note(_ list: inout [String], _ field: String) { if !list.contains(field) { list.append(field) } }

        // Plain fields and the rule: one value each.
        let fileValues = ImportRecord.make(item)
        for field in ImportRecord.plainFields + ["repeat"] {
            guard let f = fileValues[field] else { continue }
            let recorded = record?[field]
            let current = field == "repeat" ? (extra["repeat"] ?? .null) : (value(of: field) ?? .null)
            if let recorded, recorded == f {
                if current != recorded { note(&result.kept, field) }
                continue
            }
            guard current != f else { continue }
            if recorded == nil || current != recorded {
                let lost = ConflictEntry.Version(value: current, stamp: stamps[field])
                entries.append((.field, field, ConflictEntry.Version(value: f, stamp: stamp), lost))
                note(&result.replaced, field)
            }
            if field == "repeat" { setRecurrence(item.recurrence, stamp: stamp) } else { try? write(field, f, stamp: stamp) }  // a value checked to fit its field when the file was read
            note(&result.updated, field)
        }

        // Tags, each on its own.
        let fileTags = Set(item.tags)
        let recordedTags: Set<String>? = record?["tags"].flatMap { v in
            guard case .array(let a) = v else { return nil }
            return Set(a.compactMap(\.stringValue))
        }
        var names = fileTags.union(recordedTags ?? [])
        if recordedTags == nil { names.formUnion(tagStates.filter { $0.value.present }.keys) }
        for tag in names.sorted() {
            let inFile = fileTags.contains(tag)
            let present = tagStates[tag]?.present ?? false
            if let recordedTags, recordedTags.contains(tag) == inFile {
                if present != inFile { note(&result.kept, "tags") }
                continue
            }
            guard present != inFile else { continue }
            if recordedTags == nil || present != recordedTags?.contains(tag) {
                entries.append((
                    .tag, "tag:" + tag, ConflictEntry.Version(value: .bool(inFile), stamp: stamp),
                    ConflictEntry.Version(value: .bool(present), stamp: tagStates[tag]?.stamp)
                ))
                note(&result.replaced, "tags")
            }
            setTag(tag, present: inFile, stamp: stamp)
            note(&result.updated, "tags")
        }

        // Occurrences, each date on its own; a date the file no longer has is left alone.
        let fileDates = ImportRecord.occurrences(item)
        var recordedDates: [String: String]?
        if case .object(let m)? = record?["occurrences"] {
            recordedDates = Dictionary(m.compactMap { k, v in v.stringValue.map { (k, $0) } }, uniquingKeysWith: { a, _ in a })
        }
        let current = occurrenceEntries
        for date in Set(fileDates.keys).union(recordedDates.map { Array($0.keys) } ?? []).sorted() {
            let inFile = fileDates[date]
            let now = current[date]
            if let recordedDates, recordedDates[date] == inFile {
                if now?.state.rawValue != inFile { note(&result.kept, "occurrences") }
                continue
            }
            guard let inFile, let state = OccurrenceState(rawValue: inFile), let day = CivilDate(iso: Substring(date)),
                now?.state != state
            else { continue }
            if let now, recordedDates == nil || now.state.rawValue != recordedDates?[date] {
                entries.append((
                    .field, ChoreFields.logField(map: "occurrences", key: date),
                    ConflictEntry.Version(value: .string(inFile), stamp: stamp),
                    ConflictEntry.Version(value: .string(now.state.rawValue), stamp: now.stamp)
                ))
                note(&result.replaced, "occurrences")
            }
            setOccurrence(day, state, stamp: stamp)
            note(&result.updated, "occurrences")
        }

        if !entries.isEmpty {
            // Titled as the task now reads, as a merge titles its entries.
            let logged = entries.map {
                ConflictEntry(kind: $0.kind, task: id, title: title, field: $0.field, kept: $0.kept, lost: $0.lost).json
            }
            conflicts = ConflictLog.union([conflicts, logged])
        }
        if extra[ImportRecord.field] != fileValues {
            try? write(ImportRecord.field, fileValues, stamp: stamp)  // a field of its own, an object: `write` refuses neither
            result.recordOnly = result.updated.isEmpty
        }
        return result
    }
}
