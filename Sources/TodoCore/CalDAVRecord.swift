/// The task file's `caldav` field (docs/CALDAV.md, "What is kept for clients"): what CalDAV
/// clients gave the task that it has no field for, their UIDs and hrefs, and what each member
/// cleared from their own collections. One stamped field, merged whole like `imported`.
public struct CalDAVRecord: Equatable, Sendable {
    /// One VTODO's client data: the client's UID and href, if a client created it, and the
    /// property lines kept for it.
    public struct Entry: Equatable, Sendable {
        public var uid: String?
        public var href: String?
        public var kept: [String]

        public init(uid: String? = nil, href: String? = nil, kept: [String] = []) {
            self.uid = uid
            self.href = href
            self.kept = kept
        }

        public var isEmpty: Bool { uid == nil && href == nil && kept.isEmpty }
    }

    /// The field's name in the task file.
    public static let field = "caldav"
    /// The most lines kept for one VTODO, and the longest line, in bytes.
    public static let maxKeptLines = 64
    public static let maxKeptLine = 8 * 1024

    /// The task's own VTODO (for a chore, the base of its occurrences' UIDs).
    public var item = Entry()
    /// Per checklist item key.
    public var items: [String: Entry] = [:]
    /// Per occurrence date (`YYYY-MM-DD`).
    public var occurrences: [String: Entry] = [:]
    /// Per member: `""` (the task) and occurrence dates the member cleared.
    public var hidden: [String: [String]] = [:]

    public init() {}

    /// The record a task holds; empty when it has none or one this version cannot read.
    public init(_ task: Task) {
        guard case .object(let members)? = task.extra[Self.field] else { return }
        for (key, value) in members {
            switch key {
            case "item": item = Self.entry(value)
            case "items": items = Self.entries(value)
            case "occurrences": occurrences = Self.entries(value)
            case "hidden":
                guard case .object(let who) = value else { continue }
                for (member, list) in who {
                    guard case .array(let values) = list else { continue }
                    hidden[member] = values.compactMap(\.stringValue)
                }
            default: continue
            }
        }
    }

    public var isEmpty: Bool { item.isEmpty && items.isEmpty && occurrences.isEmpty && hidden.isEmpty }

    /// The field's value, keys sorted, so the same record always writes the same bytes.
    public var json: JSONValue {
        var out: [(String, JSONValue)] = []
        let hiddenValues = hidden.filter { !$0.value.isEmpty }
        if !hiddenValues.isEmpty {
            out.append(("hidden", .object(hiddenValues.keys.sorted().map { ($0, .array((hiddenValues[$0] ?? []).sorted().map(JSONValue.string))) })))
        }
        if !item.isEmpty { out.append(("item", Self.json(item))) }
        let itemValues = items.filter { !$0.value.isEmpty }
        if !itemValues.isEmpty { out.append(("items", .object(itemValues.keys.sorted().map { ($0, Self.json(itemValues[$0]!)) }))) }
        let occurrenceValues = occurrences.filter { !$0.value.isEmpty }
        if !occurrenceValues.isEmpty {
            out.append(("occurrences", .object(occurrenceValues.keys.sorted().map { ($0, Self.json(occurrenceValues[$0]!)) })))
        }
        return .object(out)
    }

    /// Whether `member` cleared the task (`""`) or an occurrence from their collections.
    public func isHidden(_ what: String, from member: String) -> Bool { hidden[member]?.contains(what) ?? false }

    public mutating func hide(_ what: String, from member: String) {
        var list = hidden[member] ?? []
        if !list.contains(what) { list.append(what) }
        hidden[member] = list
    }

    public mutating func unhide(_ what: String, from member: String) {
        hidden[member]?.removeAll { $0 == what }
    }

    private static func entry(_ value: JSONValue) -> Entry {
        guard case .object(let members) = value else { return Entry() }
        var e = Entry()
        for (key, v) in members {
            switch key {
            case "uid": e.uid = v.stringValue
            case "href": e.href = v.stringValue
            case "kept":
                if case .array(let lines) = v { e.kept = lines.compactMap(\.stringValue) }
            default: continue
            }
        }
        return e
    }

    private static func entries(_ value: JSONValue) -> [String: Entry] {
        guard case .object(let members) = value else { return [:] }
        var out: [String: Entry] = [:]
        for (key, v) in members { out[key] = entry(v) }
        return out
    }

    private static func json(_ e: Entry) -> JSONValue {
        var out: [(String, JSONValue)] = []
        if let href = e.href { out.append(("href", .string(href))) }
        if !e.kept.isEmpty { out.append(("kept", .array(e.kept.map(JSONValue.string)))) }
        if let uid = e.uid { out.append(("uid", .string(uid))) }
        return .object(out)
    }
}
