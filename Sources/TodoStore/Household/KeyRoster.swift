import AgeFormat
public import TodoCore

/// One member's device recipients (`age1…`), sorted.
public struct MemberKeys: Sendable, Equatable {
    public var name: String
    public var recipients: [String]

    public init(name: String, recipients: [String]) {
        self.name = name
        self.recipients = recipients
    }
}

/// Who the household is encrypted to (docs/ENCRYPTION.md, "The household's keys"), as the
/// settings file records it: the `member:key@<recipient>:<name>` keys (`"granted"` or
/// `"removed"`, the latest stamp deciding) and `recovery` (docs/FORMAT.md, "Members").
public struct KeyRoster: Sendable, Equatable {
    /// Members with at least one granted key whose latest roster entry is not `left`, sorted
    /// by name.
    public var members: [MemberKeys]
    /// The recovery recipient, if one is recorded.
    public var recovery: String?
    /// Every granted recipient of every member not left, and the recovery recipient; sorted,
    /// each once.
    public var recipients: [String]

    public static let keyField = "key@"
    public static let granted = "granted"
    public static let removed = "removed"
    public static let recoveryField = "recovery"

    public static let empty = KeyRoster(members: [], recovery: nil, recipients: [])

    public init(members: [MemberKeys], recovery: String?, recipients: [String]) {
        self.members = members
        self.recovery = recovery
        self.recipients = recipients
    }

    /// `member:key@<recipient>:<name>`.
    public static func key(_ recipient: String, _ name: String) -> String { MemberFields.prefix + keyField + recipient + ":" + name }

    /// The recipient (as the key spells it) and the name of a key of `member:key@<recipient>:<name>`;
    /// nil for any other key. The recipient is not checked here.
    public static func parse(_ key: String) -> (recipient: String, name: String)? {
        let head = MemberFields.prefix + keyField
        guard key.hasPrefix(head) else { return nil }
        let rest = key.dropFirst(head.count)
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        let recipient = rest[..<colon]
        let name = rest[rest.index(after: colon)...]
        guard !recipient.isEmpty, !name.isEmpty else { return nil }
        return (String(recipient), String(name))
    }

    /// `text` as an age recipient in its canonical spelling; nil when it is not one. Read with
    /// AgeFormat alone (no cryptography), so that listing the keys runs nothing of `Age`.
    public static func recipient(_ text: String) -> String? {
        // Not a recipient: nil, the caller refuses or ignores it.
        guard text.utf8.count <= 100, let key = try? AgeKeyText.parseRecipient(text) else { return nil }
        return AgeKeyText.recipient(key)
    }

    /// The latest value of every recipient and member (folded) in `settings`, with the key
    /// that holds it.
    static func latest(in settings: Task) -> [Pair: (value: String, key: String, stamp: FieldStamp?)] {
        var out: [Pair: (value: String, key: String, stamp: FieldStamp?)] = [:]
        for (key, value) in settings.extra {
            guard let (text, name) = parse(key), let v = value.stringValue, v == granted || v == removed,
                let recipient = recipient(text)
            else { continue }
            let pair = Pair(recipient: recipient, member: name.lowercased())
            let stamp = settings.stamps[key]
            if let held = out[pair] {
                let later: Bool
                switch (held.stamp, stamp) {
                case (nil, _?): later = true
                case (let a?, let b?): later = FieldStamp.precedes(a, b) || (a == b && held.key.utf8.lexicographicallyPrecedes(key.utf8))
                default: later = false
                }
                guard later else { continue }
            }
            out[pair] = (v, key, stamp)
        }
        return out
    }

    /// A recipient and a member's folded name.
    struct Pair: Hashable {
        var recipient: String
        var member: String
    }

    /// The keys `settings` records, `roster` its roster (members whose latest entry is `left`
    /// have none). Values that do not fit are ignored, as other member fields are.
    init(settings: Task?, roster: Roster) {
        guard let settings else {
            self = .empty
            return
        }
        var byMember: [String: (name: String, recipients: Set<String>)] = [:]
        for (pair, held) in Self.latest(in: settings) where held.value == Self.granted {
            if let m = roster.member(pair.member), m.events.last?.member == false { continue }
            let spelled = roster.member(pair.member)?.name ?? Self.parse(held.key)?.name ?? pair.member
            var entry = byMember[pair.member] ?? (spelled, [])
            if spelled.utf8.lexicographicallyPrecedes(entry.name.utf8), roster.member(pair.member) == nil { entry.name = spelled }
            entry.recipients.insert(pair.recipient)
            byMember[pair.member] = entry
        }
        members = byMember.values.map { MemberKeys(name: $0.name, recipients: $0.recipients.sorted()) }
            .sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        recovery = settings.extra[Self.recoveryField]?.stringValue.flatMap(Self.recipient)
        var all = Set(members.flatMap(\.recipients))
        if let recovery { all.insert(recovery) }
        recipients = all.sorted()
    }
}

extension Snapshot {
    /// The household's keys at this snapshot.
    func keyRoster() -> KeyRoster { KeyRoster(settings: settings(), roster: roster()) }
}

extension Household {
    /// The household's keys on `main`.
    public func keyRoster() throws(StoreError) -> KeyRoster { try snapshot().keyRoster() }

    /// Grants the device recipient `recipient` to `name` in one commit (`member: key for Bob`),
    /// recording them as a member from the next household day when they are new or had left,
    /// as `addMember` does. Returns the household's spelling of the name; nothing is written
    /// when the key is granted already.
    public func grantKey(_ recipient: String, to name: String) throws(StoreError) -> String {
        guard let canonical = KeyRoster.recipient(recipient) else { throw StoreError.badRecipient(recipient) }
        let from = clock.nextDay
        let roster = try roster()
        var existing = roster.member(name)?.name
        if existing == nil { existing = try knownMember(name) }
        let joins = existing.map { roster.hasLeft($0, on: from) } ?? true
        let spelled = existing ?? name
        _ = try writeSettings(message: "member: key for \(spelled)") { task, stamp in
            let held = KeyRoster.latest(in: task)[KeyRoster.Pair(recipient: canonical, member: spelled.lowercased())]
            if !joins, held?.value == KeyRoster.granted { return false }
            if joins { try task.write(Roster.key(Roster.rosterField, from, spelled), .string("member"), stamp: stamp) }
            try task.write(held?.key ?? KeyRoster.key(canonical, spelled), .string(KeyRoster.granted), stamp: stamp)
            return true
        }
        return spelled
    }

    /// Removes the device recipient `recipient` from `name` in one commit (`member: key of Bob
    /// removed`); `keyNotGranted` when it is not granted to them.
    public func removeKey(_ recipient: String, of name: String) throws(StoreError) {
        guard let canonical = KeyRoster.recipient(recipient) else { throw StoreError.badRecipient(recipient) }
        let member = try member(named: name)
        var refused: StoreError?
        _ = try writeSettings(message: "member: key of \(member) removed") { task, stamp in
            guard let held = KeyRoster.latest(in: task)[KeyRoster.Pair(recipient: canonical, member: member.lowercased())],
                held.value == KeyRoster.granted
            else {
                refused = .keyNotGranted(recipient: canonical, member: member)
                return false
            }
            try task.write(held.key, .string(KeyRoster.removed), stamp: stamp)
            return true
        }
        if let refused { throw refused }
    }

    /// Records `recipient` as the household's recovery recipient in one commit (`member:
    /// recovery key`); nothing is written when it is recorded already.
    public func setRecoveryRecipient(_ recipient: String) throws(StoreError) {
        guard let canonical = KeyRoster.recipient(recipient) else { throw StoreError.badRecipient(recipient) }
        _ = try writeSettings(message: "member: recovery key") { task, stamp in
            if task.extra[KeyRoster.recoveryField]?.stringValue == canonical { return false }
            try task.write(KeyRoster.recoveryField, .string(canonical), stamp: stamp)
            return true
        }
    }
}

extension HouseholdReader {
    /// The household's keys on `main`.
    public func keyRoster() throws(StoreError) -> KeyRoster { try household.keyRoster() }
}
