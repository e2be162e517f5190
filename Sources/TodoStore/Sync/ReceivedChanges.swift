import Glibc
import GitKit
public import TodoCore

/// One thing another member did to a task, as `todo sync` and `todo changes` tell it.
public struct ReceivedChange: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case added, completed, reopened, deleted, restored, edited
        /// A task that appeared and was deleted by the same member within the range: its net
        /// effect, told once.
        case addedAndDeleted = "added-and-deleted"
        /// Occurrences of a chore done, or skipped (`fields`: their dates, `YYYY-MM-DD`).
        case choreDone = "chore-done"
        case choreSkipped = "chore-skipped"
        /// The task was assigned to me.
        case assignedToMe = "assigned-to-me"
        /// A merge set a value aside in the conflict log.
        case conflict
        /// An edit of mine was folded into the tombstone of a task someone deleted.
        case deletedMyEdit = "deleted-my-edit"
    }

    public let kind: Kind
    /// Who did it (from the stamp of the write).
    public let member: String
    /// The task as it is after the change.
    public let task: Task
    /// Fields edited (`edited`), the fields of my edit that a deletion set aside, or the
    /// occurrence dates (`YYYY-MM-DD`) of a chore done, skipped, reopened or given to me.
    public let fields: [String]
    /// The conflict-log entry, for `conflict` and `deletedMyEdit`.
    public let entry: String?
    /// Whether the task is assigned to me (after the change), or was my edit.
    public let touchesMe: Bool
}

extension Household {
    /// The current commit of `main`, in hex.
    public func headCommit() throws(StoreError) -> String? { try snapshot().commit?.hex }

    /// The commit `main` names now, as 40 hex digits (nil before the first commit): the
    /// reference alone, nothing of the commit read, for a front end that keeps what it derives
    /// from a commit (the roster's standing, a page) by that commit.
    public func mainCommit() throws(StoreError) -> String? {
        do {
            return try repo.resolve(reference: Self.branch)?.hex
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// What others changed to tasks between two commits of `main`, each task change told on
    /// its own (a leave's reassignments too); the household settings file is left out.
    /// With `viewer` (a member's name and email, lowercased), "others" are every writer but
    /// that member, whichever replica wrote: what a page shows the member signed in, on a server
    /// whose clone the owner's own commands write too.
    public func receivedChanges(from old: String?, to new: String?, sinceMillis: Int64? = nil, viewer: Set<String>? = nil)
        throws(StoreError) -> [ReceivedChange]
    {
        try receivedChangeReport(from: old, to: new, sinceMillis: sinceMillis, foldLeaves: false, viewer: viewer).tasks
    }

    /// What others changed between two commits of `main` (`old` nil: from the start): every field
    /// and tag whose stamp moved and was written by another replica (at or after `sinceMillis`,
    /// if given), told per task and kind; the settings file's keys told as household changes.
    /// With `foldLeaves`, a task a leave gave away (its assignee as the leave's commit wrote it)
    /// is told in the leave, not as an assignee change of its own. Tasks whose files cannot be
    /// read are left out.
    public func receivedChangeReport(
        from old: String?, to new: String?, sinceMillis: Int64? = nil, foldLeaves: Bool = true, viewer: Set<String>? = nil
    ) throws(StoreError) -> ReceivedChanges {
        let myNames: Set<String>
        let isMine: (FieldStamp?) -> Bool
        if let viewer {
            myNames = viewer
            isMine = { s in s.map { viewer.contains($0.member.lowercased()) } ?? false }
        } else {
            let replica = try replicaID()
            let me = try identity()
            myNames = [me.name.lowercased(), me.email.lowercased()]
            isMine = { s in s?.stamp.replica == replica }
        }
        let foreign = Self.foreign(isMine: isMine, since: sinceMillis)
        do {
            let oldID = old.flatMap { ObjectID(hex: $0) }
            guard let newID = new.flatMap({ ObjectID(hex: $0) }) else { return ReceivedChanges(tasks: [], household: []) }
            let oldTree = try oldID.map { try repo.commit($0).tree }
            let newTree = try repo.commit(newID).tree
            var files = try changedTaskFiles(old: oldTree, new: newTree)
            var household: [HouseholdChange] = []
            var folded: Set<FieldStamp> = []
            if let i = files.firstIndex(where: { $0.0 == HouseholdSettings.id }) {
                let (id, ob, nb) = files.remove(at: i)
                // What a sync received is told in words as far as it can be read; an unreadable settings file is reported by status and doctor.
                if let nb, let after = try? decodeBlob(nb, id: id) {
                    let before = ob.flatMap { try? decodeBlob($0, id: id) }  // no earlier version: all of it is new
                    for (change, key, stamp) in Self.describeSettings(before: before, after: after, me: myNames, foreign: foreign) {
                        guard foldLeaves, case .left(let name, let from, _) = change.what,
                            let given = try leaveReassignments(key: key, stamp: stamp, name: name, from: oldID, to: newID)
                        else {
                            household.append(change)
                            continue
                        }
                        var tasks: [Reassignment] = []
                        for g in given {
                            guard let blob = try repo.treeEntry(newTree, path: g.id.path)?.id, let now = try? decodeBlob(blob, id: g.id)  // unreadable now: not listed as handed on
                            else { continue }
                            // Told in the leave while the assignee is still the one it wrote.
                            if now.stamps["assignee"] == g.stamp { folded.insert(g.stamp) }
                            let toMe = g.to.map { myNames.contains($0.lowercased()) } ?? false
                            tasks.append(Reassignment(id: g.id, title: now.title, to: g.to, toMe: toMe))
                        }
                        household.append(HouseholdChange(
                            member: change.member, what: .left(name: name, from: from, tasks: tasks),
                            touchesMe: change.touchesMe || tasks.contains(where: \.toMe)))
                    }
                }
            }
            var out: [ReceivedChange] = []
            for (id, ob, nb) in files {
                // A file that cannot be decoded is told by the sync's own check (and status), not described here.
                guard let nb, let after = try? decodeBlob(nb, id: id) else { continue }
                let before = ob.flatMap { try? decodeBlob($0, id: id) }  // no earlier version to compare: told as added
                out += Self.describe(
                    before: before, after: after, isMine: isMine, me: myNames, since: sinceMillis, folded: folded)
            }
            return ReceivedChanges(tasks: out, household: household)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Whether a write is another's, not `isMine` (and, with `since`, made at or after it).
    static func foreign(isMine: @escaping (FieldStamp?) -> Bool, since: Int64?) -> (FieldStamp?) -> Bool {
        { s in
            guard let s else { return false }
            return !isMine(s) && (since.map { s.stamp.wall >= $0 } ?? true)
        }
    }

    /// A task's changes; `isMine`: whether a write is mine (this replica's, or the viewer's);
    /// `folded`: assignee stamps told in a leave instead.
    static func describe(
        before: Task?, after: Task, isMine: @escaping (FieldStamp?) -> Bool, me: Set<String>, since: Int64?,
        folded: Set<FieldStamp> = []
    ) -> [ReceivedChange] {
        let foreign = foreign(isMine: isMine, since: since)
        let mine = after.assignee.map { me.contains($0.lowercased()) } ?? false
        var out: [ReceivedChange] = []
        func add(_ kind: ReceivedChange.Kind, _ member: String, fields: [String] = [], entry: String? = nil, touchesMe: Bool? = nil) {
            out.append(ReceivedChange(kind: kind, member: member, task: after, fields: fields, entry: entry, touchesMe: touchesMe ?? mine))
        }
        // A task new in the range: added by whoever wrote its first stamps; when that was me (or
        // before the range: with `--since`, `main`'s commit at that date may lack a task that
        // came in by a later merge), the earlier values are unknown, and every later write of
        // another member (its stamp neither the first nor mine nor too old) is told.
        let unknownBefore = before == nil
        let before = before ?? {
            var blank = Task(id: after.id, title: "", createdAt: after.createdAt, createdBy: after.createdBy)
            let first = after.stamps.values.min { FieldStamp.precedes($0, $1) }
            for field in Task.stampedFields { blank.stamps[field] = first }
            if let first, foreign(first) {
                // Told as its net effect: a task someone added and then deleted is both.
                let deletion = after.deleted ? after.stamps["deleted"] : nil
                if let deletion, deletion.member == first.member {
                    add(.addedAndDeleted, first.member)
                } else {
                    add(.added, first.member)
                    if let deletion, foreign(deletion) { add(.deleted, deletion.member) }
                }
                blank = after
                if mine, after.stamps["assignee"] == first { add(.assignedToMe, first.member) }
            }
            return blank
        }()
        /// Whether a write changed what was there: unknown for a task new in the range.
        func differs(_ x: JSONValue?, _ y: JSONValue?) -> Bool { unknownBefore || x != y }
        var edited: [String: [String]] = [:]
        for field in Task.stampedFields + after.extra.keys.sorted() {
            guard let s = after.stamps[field], s != before.stamps[field], foreign(s),
                differs(before.value(of: field), after.value(of: field)), !(field == "assignee" && folded.contains(s))
            else { continue }
            switch field {
            case "status": add(after.status == .done ? .completed : .reopened, s.member)
            case "deleted": add(after.deleted ? .deleted : .restored, s.member)
            case "assignee" where mine: add(.assignedToMe, s.member)
            default: edited[s.member, default: []].append(field)
            }
        }
        for (tag, t) in after.tagStates.sorted(by: { $0.key < $1.key })
        where t != before.tagStates[tag] && foreign(t.stamp)
            && differs(.bool(before.tagStates[tag]?.present ?? false), .bool(t.present))
        {
            edited[t.stamp.member, default: []].append((t.present ? "+" : "-") + tag)
        }
        describeMaps(before: before, after: after, me: me, foreign: foreign, edited: &edited, add: add)
        for (member, fields) in edited.sorted(by: { $0.key < $1.key }) { add(.edited, member, fields: fields) }
        // New conflict-log entries: a deletion that set my edit aside is told as such.
        let known = ConflictLog.ids(before.conflicts)
        for json in after.conflicts {
            // An entry that cannot be parsed is left out of the words; `todo conflicts` shows the log as it is.
            guard let entry = try? ConflictEntry(json: json), !known.contains(entry.id) else { continue }
            // Of a task new in the range, entries whose writes are all older than `since` are old.
            if unknownBefore, let since, ![entry.kept.stamp, entry.lost.stamp].contains(where: { ($0?.wall ?? 0) >= since }) {
                continue
            }
            if entry.kind == .deletedEdit, isMine(entry.lost.stamp.map { FieldStamp($0, by: entry.lost.member) }) {
                add(.deletedMyEdit, entry.kept.member, fields: [entry.field], entry: entry.id, touchesMe: true)
            } else {
                add(.conflict, entry.kept.member, fields: [entry.field], entry: entry.id)
            }
        }
        return out
    }

    /// A checklist's items others changed, as edits (`+milk`, `x milk`, `o milk`, `-milk`, as
    /// `edit` names them); a chore's occurrences that others did, skipped or reopened, one
    /// change per member and kind naming the dates (mine when one of them was my turn);
    /// take-overs given to me told as assigned to me, others as an edit of `turn`.
    static func describeMaps(
        before: Task, after: Task, me: Set<String>, foreign: (FieldStamp?) -> Bool, edited: inout [String: [String]],
        add: (ReceivedChange.Kind, String, [String], String?, Bool?) -> Void
    ) {
        let old = before.checklist
        for item in after.checklist where foreign(item.stamp) {
            let was = old.first { $0.key == item.key }
            guard was?.stamp != item.stamp, was?.state != item.state || was?.text != item.text else { continue }
            let mark: String
            switch (was?.state, item.state) {
            case (_, .removed): mark = "-"
            case (_, .checked): mark = "x "
            case (.checked?, .open): mark = "o "
            default: mark = "+"
            }
            edited[item.stamp.member, default: []].append(mark + item.text)
        }
        guard after.extra["occurrences"] != before.extra["occurrences"] || after.extra["turns"] != before.extra["turns"]
            || after.extra["completions"] != before.extra["completions"]
        else { return }
        func isMe(_ name: String?) -> Bool { name.map { me.contains($0.lowercased()) } ?? false }
        // Credits do not depend on the day; the schedule is read for them and for turns.
        guard let r = after.recurrence else { return }
        let schedule = ChoreSchedule(after, recurrence: r, today: r.from, context: .plain)
        let oldCompletions = Dictionary(before.completions.map { ($0.key, $0) }, uniquingKeysWith: { x, _ in x })
        var dates: [String: [ReceivedChange.Kind: [String]]] = [:]
        // Completions others recorded: each told by who did it, for the occurrence it counts for.
        for c in schedule.credits.sorted(by: { $0.occurrence < $1.occurrence }) {
            guard let key = c.key, oldCompletions[key]?.state != .done, foreign(c.stamp) else { continue }
            dates[c.member, default: [:]][.choreDone, default: []].append(c.occurrence.description)
        }
        let written = Set(after.completions.map(\.key))
        let oldEntries = before.occurrenceEntries
        for (date, e) in after.occurrenceEntries.sorted(by: { $0.key < $1.key })
        where e != oldEntries[date] && foreign(e.stamp) && (oldEntries[date]?.state ?? .open) != e.state {
            // A done entry that a completion wrote is told above, by the completion.
            if e.state == .done, let d = CivilDate(iso: Substring(date)), written.contains(Completion.key(d, e.stamp.stamp)) {
                continue
            }
            let kind: ReceivedChange.Kind = e.state == .done ? .choreDone : e.state == .skipped ? .choreSkipped : .reopened
            dates[e.stamp.member, default: [:]][kind, default: []].append(date)
        }
        for (member, kinds) in dates.sorted(by: { $0.key < $1.key }) {
            for kind in [ReceivedChange.Kind.choreDone, .choreSkipped, .reopened] {
                guard let ds = kinds[kind] else { continue }
                let mine = ds.contains { d in CivilDate(iso: Substring(d)).map { isMe(schedule.assignee(on: $0)) } ?? false }
                add(kind, member, ds, nil, mine || isMe(after.assignee))
            }
        }
        let oldTurns = before.turnEntries
        for (date, t) in after.turnEntries.sorted(by: { $0.key < $1.key })
        where t != oldTurns[date] && foreign(t.stamp) && (oldTurns[date]?.member ?? "") != t.member {
            if isMe(t.member) {
                add(.assignedToMe, t.stamp.member, [date], nil, true)
            } else if edited[t.stamp.member]?.contains("turn") != true {
                edited[t.stamp.member, default: []].append("turn")
            }
        }
    }

    // MARK: - The last sync's range

    var lastSyncPath: String { repo.gitDirectory + "todo/last-sync" }

    /// Records what `main` was before and after a sync, for `todo changes --last-sync`.
    public func recordLastSync(from old: String?, to new: String?) {
        guard let new, old != new else { return }
        mkdir(repo.gitDirectory + "todo", 0o755)
        // A note for `changes --last-sync` only: not written, that command says there is no last sync.
        try? writeFile(lastSyncPath, "\(old ?? "-") \(new)\n", sync: false)
    }

    /// `main` before and after the last sync that received something; nil when none did.
    public func lastSyncRange() -> (from: String?, to: String)? {
        let parts = (readFile(lastSyncPath) ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        guard parts.count == 2, ObjectID(hex: parts[1]) != nil else { return nil }
        return (ObjectID(hex: parts[0]) == nil ? nil : parts[0], parts[1])
    }

    /// The newest commit on `main`'s first-parent line made before `millis`: where "since"
    /// starts counting from. Nil when all of the history is newer.
    public func commitBefore(_ millis: Int64) throws(StoreError) -> String? {
        do {
            var current = try repo.resolve(reference: Self.branch)
            while let c = current {
                let info = try repo.commit(c)
                if info.committer.time < millis / 1000 { return c.hex }
                current = info.parents.first
            }
            return nil
        } catch {
            throw StoreError.from(error, path: path)
        }
    }
}
