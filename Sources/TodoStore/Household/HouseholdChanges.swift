import GitKit
public import TodoCore

/// What another member changed in the household settings file (docs/FORMAT.md, "The household
/// settings file"), as a fact about the household: the file is never told as a task.
public struct HouseholdChange: Sendable {
    public enum What: Sendable {
        /// `timeZone`: the zone's name; nil when cleared.
        case timeZone(String?)
        /// `member:<field>:<name>` details (`email`, `via`, `postURL`, `every`), in key order.
        case memberDetails(name: String, fields: [String])
        /// `member:roster@<from>:<name>` `"member"`.
        case joined(name: String, from: CivilDate)
        /// `member:roster@<from>:<name>` `"left"`, with the tasks the same commit gave to others.
        case left(name: String, from: CivilDate, tasks: [Reassignment])
        /// `member:away@<from>:<name>`: away through a date (inclusive); nil when cleared.
        case away(name: String, from: CivilDate, through: CivilDate?)
        /// `member:key@<recipient>:<name>` `"granted"`: a device key given to a member.
        case keyGranted(name: String, recipient: String)
        /// `member:key@<recipient>:<name>` `"removed"`.
        case keyRemoved(name: String, recipient: String)
        /// `recovery`: the household's recovery recipient.
        case recoveryKey(String)
        /// Keys this version does not know, or values it cannot read.
        case other(keys: [String])
    }

    /// Who wrote it (the stamp's member).
    public let member: String
    public let what: What
    /// Whether it is about me: my details, roster or time away, or tasks given to me.
    public let touchesMe: Bool
}

/// A task a leave gave to someone else (or to nobody).
public struct Reassignment: Sendable {
    public let id: TaskID
    /// The title now.
    public let title: String
    /// The new assignee; nil when unassigned.
    public let to: String?
    public let toMe: Bool
}

/// What others changed in a range: tasks, and the household's settings.
public struct ReceivedChanges: Sendable {
    public var tasks: [ReceivedChange]
    public var household: [HouseholdChange]
    public var isEmpty: Bool { tasks.isEmpty && household.isEmpty }

    public init(tasks: [ReceivedChange], household: [HouseholdChange]) {
        self.tasks = tasks
        self.household = household
    }

    /// The tasks it names (for their short ids).
    public var taskIDs: [TaskID] {
        var ids = tasks.map(\.task.id)
        for c in household { if case .left(_, _, let given) = c.what { ids += given.map(\.id) } }
        return ids
    }

    /// Only what touches me.
    public func mine() -> ReceivedChanges {
        ReceivedChanges(tasks: tasks.filter(\.touchesMe), household: household.filter(\.touchesMe))
    }
}

extension Household {
    /// The settings keys another replica wrote, told by key (`me`: my name and email,
    /// lowercased), each with the key and stamp it was read from (for a leave, its own).
    static func describeSettings(before: Task?, after: Task, me: Set<String>, foreign: (FieldStamp?) -> Bool)
        -> [(change: HouseholdChange, key: String, stamp: FieldStamp)]
    {
        func isMe(_ name: String?) -> Bool { name.map { me.contains($0.lowercased()) } ?? false }
        var out: [(rank: Int, change: HouseholdChange, key: String, stamp: FieldStamp)] = []
        var details: [String: (member: String, name: String, fields: [String], stamp: FieldStamp)] = [:]
        var other: [String: (keys: [String], stamp: FieldStamp)] = [:]
        for key in after.extra.keys.sorted() {
            guard let s = after.stamps[key], s != before?.stamps[key], foreign(s), before?.extra[key] != after.extra[key]
            else { continue }
            let value = after.extra[key]?.stringValue
            func told(_ rank: Int, _ what: HouseholdChange.What, about name: String?) {
                out.append((rank, HouseholdChange(member: s.member, what: what, touchesMe: isMe(name)), key, s))
            }
            if key == HouseholdSettings.timeZoneField, let value {
                told(0, .timeZone(value.isEmpty ? nil : value), about: nil)
                continue
            }
            guard let value else {
                other[s.member, default: ([], s)].keys.append(key)
                continue
            }
            if let (text, name) = KeyRoster.parse(key), let recipient = KeyRoster.recipient(text),
                value == KeyRoster.granted || value == KeyRoster.removed
            {
                told(3, value == KeyRoster.granted ? .keyGranted(name: name, recipient: recipient) : .keyRemoved(name: name, recipient: recipient), about: name)
            } else if key == KeyRoster.recoveryField, let recipient = KeyRoster.recipient(value) {
                told(3, .recoveryKey(recipient), about: nil)
            } else if let (field, name) = MemberFields.parse(key) {
                let group = s.member + "\u{0}" + name
                details[group, default: (s.member, name, [], s)].fields.append(field)
            } else if let (field, from, name) = Roster.parse(key), field == Roster.rosterField, value == "member" || value == "left" {
                if value == "left" {
                    told(1, .left(name: name, from: from, tasks: []), about: name)
                } else {
                    told(2, .joined(name: name, from: from), about: name)
                }
            } else if let (field, from, name) = Roster.parse(key), field == Roster.awayField,
                value.isEmpty || CivilDate(iso: Substring(value)) != nil
            {
                told(3, .away(name: name, from: from, through: CivilDate(iso: Substring(value))), about: name)
            } else {
                other[s.member, default: ([], s)].keys.append(key)
            }
        }
        for d in details.values {
            // Sorted by the name (its keys' fields come first in byte order).
            out.append((4, HouseholdChange(member: d.member, what: .memberDetails(name: d.name, fields: d.fields), touchesMe: isMe(d.name)), d.name, d.stamp))
        }
        for (member, o) in other {
            out.append((5, HouseholdChange(member: member, what: .other(keys: o.keys), touchesMe: false), o.keys[0], o.stamp))
        }
        // By who wrote it, then the kind, then the key (a date in it sorts by date).
        out.sort { ($0.change.member, $0.rank, $0.key) < ($1.change.member, $1.rank, $1.key) }
        return out.map { ($0.change, $0.key, $0.stamp) }
    }

    /// The tasks the commit that wrote a leave (the settings key `key` with `stamp`) gave away
    /// from `name`, and the assignee stamps it wrote them with; nil when no commit between
    /// `old` and `new` wrote it (a history that was rewritten). Reads one commit's changes.
    func leaveReassignments(key: String, stamp: FieldStamp, name: String, from old: ObjectID?, to new: ObjectID)
        throws -> [(id: TaskID, to: String?, stamp: FieldStamp)]?
    {
        let path = HouseholdSettings.id.path
        var found: [(id: TaskID, to: String?, stamp: FieldStamp)]?
        var walked = 0
        try repo.walk(from: new, hiding: old.map { [$0] } ?? [], sorted: false) { oid in
            walked += 1
            let info = try repo.commit(oid)
            guard info.parents.count == 1 else { return walked < Self.leaveSearchLimit }
            let parentTree = try repo.commit(info.parents[0]).tree
            guard let nb = try repo.treeEntry(info.tree, path: path)?.id,
                // A version that cannot be decoded is not the leave being looked for: the search goes on.
                let after = try? decodeBlob(nb, id: HouseholdSettings.id), after.stamps[key] == stamp
            else { return walked < Self.leaveSearchLimit }
            let ob = try repo.treeEntry(parentTree, path: path)?.id
            if let ob, (try? decodeBlob(ob, id: HouseholdSettings.id))?.stamps[key] == stamp {  // as above
                return walked < Self.leaveSearchLimit
            }
            var tasks: [(id: TaskID, to: String?, stamp: FieldStamp)] = []
            for (id, ob, nb) in try changedTaskFiles(old: parentTree, new: info.tree) where id != HouseholdSettings.id {
                guard let ob, let nb, let b = try? decodeBlob(ob, id: id), let a = try? decodeBlob(nb, id: id),  // an unreadable version is not a reassignment
                    let s = a.stamps["assignee"], s != b.stamps["assignee"], s.member == stamp.member,
                    b.assignee?.lowercased() == name.lowercased(), a.assignee?.lowercased() != name.lowercased()
                else { continue }
                tasks.append((id, a.assignee, s))
            }
            found = tasks
            return false
        }
        return found
    }

    /// How many commits a search for a leave's commit reads at most.
    static let leaveSearchLimit = 10_000
}
