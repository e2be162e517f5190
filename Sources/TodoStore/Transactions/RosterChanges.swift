public import TodoCore

/// What `member leave` did, for a front end to tell.
public struct LeaveOutcome: Sendable {
    /// The member as the household spells them.
    public var member: String
    /// False when they had already left (nothing written).
    public var changed: Bool
    /// The first day they are out.
    public var from: CivilDate
    /// Open tasks and chores without a rotation that went to `to` (nil: unassigned).
    public var reassigned: [ChangedTask]
    public var to: String?
    /// Chores whose rotation no longer names them.
    public var rotations: [ChangedTask]
    public var commit: String?
}

extension Household {
    /// The household's spelling of `name`, or `noSuchMember`.
    func member(named name: String) throws(StoreError) -> String {
        if let m = try roster().member(name) { return m.name }
        guard let known = try knownMember(name) else { throw StoreError.noSuchMember(name) }
        return known
    }

    /// `member add`: records NAME as a member from the next household day when they are new
    /// or had left; nil (nothing written) when the household already counts them.
    public func addMember(_ name: String) throws(StoreError) -> (member: String, commit: String?) {
        let from = clock.nextDay
        let roster = try roster()
        var existing = roster.member(name)?.name
        if existing == nil { existing = try knownMember(name) }
        if let existing, !roster.hasLeft(existing, on: from) { return (existing, nil) }
        let spelled = existing ?? name
        let commit = try writeSettings(message: "member: \(spelled) joined") { task, stamp in
            try task.write(Roster.key(Roster.rosterField, from, spelled), .string("member"), stamp: stamp)
        }
        return (spelled, commit)
    }

    /// `member leave NAME [--to OTHER]` in one commit (docs/FORMAT.md, "Members").
    public func leaveMember(_ name: String, to other: String?) throws(StoreError) -> LeaveOutcome {
        let from = clock.nextDay
        let member = try member(named: name)
        let roster = try roster()
        var to: String?
        if let other {
            let o = try self.member(named: other)
            guard o.lowercased() != member.lowercased() else { throw StoreError.leaveToSelf(member) }
            try Self.mustBePresent(o, on: from, roster)
            to = o
        }
        var outcome = LeaveOutcome(member: member, changed: false, from: from, reassigned: [], to: to, rotations: [])
        if roster.hasLeft(member, on: from) { return outcome }
        let stamper = try stamper()
        let fold = member.lowercased()
        let (_, commit) = try transact { snap in
            var settings = try HouseholdSettings.task(in: snap, stamper: stamper)
            try settings.write(Roster.key(Roster.rosterField, from, member), .string("left"), stamp: stamper.stamp(after: settings))
            var changed: [Task] = [settings]
            let (tasks, _) = try snap.loadAll()
            var reassigned: [Task] = []
            var rotations: [Task] = []
            for var t in tasks where !t.deleted && t.id != HouseholdSettings.id {
                var touched = false
                let stamp = stamper.stamp(after: t)
                if t.isChore, t.rotation.contains(where: { $0.lowercased() == fold }) {
                    t.changeRotation(t.rotation.filter { $0.lowercased() != fold }, from: from, stamp: stamp)
                    rotations.append(t)
                    touched = true
                }
                let open = t.isChore || t.status == .open
                if open, t.rotation.isEmpty, t.assignee?.lowercased() == fold {
                    try t.write("assignee", to.map { .string($0) } ?? .null, stamp: stamp)
                    reassigned.append(t)
                    touched = true
                }
                if touched { changed.append(t) }
            }
            let shorts = try snap.shortIDs((reassigned + rotations).map(\.id))
            func listed(_ ts: [Task], _ field: String) -> [ChangedTask] {
                ts.map { ChangedTask(task: $0, short: shorts[$0.id] ?? String($0.id.hex.prefix(4)), fields: [field]) }
            }
            outcome.reassigned = listed(reassigned, "assignee")
            outcome.rotations = listed(rotations, "rotation")
            var message = "member: \(member) left"
            if !reassigned.isEmpty {
                message += "; \(reassigned.count) task\(reassigned.count == 1 ? "" : "s") " + (to.map { "to \($0)" } ?? "unassigned")
            }
            return Update(tasks: changed, message: message, value: ())
        }
        outcome.changed = true
        outcome.commit = commit
        return outcome
    }

    /// `member away NAME --from A --until B`: a window from the later of A and the next
    /// household day through B; nil commit when it is already recorded.
    public func setAway(_ name: String, from: CivilDate, until: CivilDate) throws(StoreError) -> (member: String, from: CivilDate, commit: String?) {
        let today = clock.today
        try Self.mustBeInBounds(from, field: "away")
        try Self.mustBeInBounds(until, field: "away")
        let start = max(from, clock.nextDay)
        guard until >= from, until >= start else { throw StoreError.badAwayWindow(from: from, until: until, today: today) }
        let member = try member(named: name)
        if try roster().hasLeft(member, on: start) {
            throw StoreError.memberAbsent(member: member, date: start, away: nil)
        }
        let key = Roster.key(Roster.awayField, start, member)
        let commit = try writeSettings(message: "member: \(member) away \(start)..\(until)") { task, stamp in
            if task.extra[key]?.stringValue == until.description { return false }
            try task.write(key, .string(until.description), stamp: stamp)
            return true
        }
        return (member, start, commit)
    }

    /// `member away NAME --clear`: windows that have not begun are removed; one under way ends
    /// today. The windows changed, and the commit (nil when none).
    public func clearAway(_ name: String) throws(StoreError) -> (member: String, cleared: Int, commit: String?) {
        let today = clock.today
        let member = try member(named: name)
        var cleared = 0
        let commit = try writeSettings(message: "member: \(member) away cleared") { task, stamp in
            guard let m = Roster(settings: task).member(member) else { return false }
            for w in m.away where w.until > today {
                let key = Self.awayKey(in: task, member: member, from: w.from)
                if w.from > today {
                    try task.write(key, .string(""), stamp: stamp)
                } else {
                    try task.write(key, .string(today.description), stamp: stamp)
                }
                cleared += 1
            }
            return cleared > 0
        }
        return (member, cleared, commit)
    }

    /// The key of `member`'s window from `from` as the file spells it.
    static func awayKey(in task: Task, member: String, from: CivilDate) -> String {
        for key in task.extra.keys {
            if let (f, d, n) = Roster.parse(key), f == Roster.awayField, d == from, n.lowercased() == member.lowercased() { return key }
        }
        return Roster.key(Roster.awayField, from, member)
    }

    /// One change of the settings file in one commit: `body` returns false when it has nothing
    /// to write; nil commit then.
    func writeSettings(message: String, _ body: (inout Task, FieldStamp) throws -> Bool) throws(StoreError) -> String? {
        let stamper = try stamper()
        let (_, commit) = try transact { snap in
            var task = try HouseholdSettings.task(in: snap, stamper: stamper)
            guard try body(&task, stamper.stamp(after: task)) else { return Update(tasks: [], message: "", value: ()) }
            return Update(tasks: [task], message: message, value: ())
        }
        return commit
    }

    func writeSettings(message: String, _ body: (inout Task, FieldStamp) throws -> Void) throws(StoreError) -> String? {
        try writeSettings(message: message) { (task: inout Task, stamp: FieldStamp) throws -> Bool in
            try body(&task, stamp)
            return true
        }
    }
}
