import GitKit
import Synchronization
public import TodoCore

extension WallClock {
    /// The household day of a moment (milliseconds since the epoch), by this clock's offsets.
    public var day: @Sendable (Int64) -> CivilDate {
        let offset = offsetMinutes
        return { millis in
            let local = millis / 1000 + Int64(offset(millis)) * 60
            return CivilDate(daysSinceEpoch: Int((local - (local < 0 ? 86_399 : 0)) / 86_400))
        }
    }

    /// The day after today: when a change of rotation, roster or absence takes effect.
    public var nextDay: CivilDate { today.adding(days: 1) }
}

/// The settings file last read and its roster, by the file's blob: a command that reads them
/// several times (the zone at open, the roster for a change and for its report) parses once.
private let lastSettings = Mutex<(blob: ObjectID, task: Task?, roster: Roster?)?>(nil)

extension Snapshot {
    /// The household settings file at this snapshot; nil when there is none, or it cannot be
    /// read (as for the time zone: `doctor` reports an unreadable file).
    func settings() -> Task? { settingsEntry().map { settings(blob: $0) } ?? nil }

    /// The household's roster as the settings file at this snapshot records it (worked out
    /// once per settings file).
    func roster() -> Roster {
        guard let blob = settingsEntry() else { return .empty }
        if let hit = lastSettings.withLock({ $0?.blob == blob ? $0?.roster : nil }) { return hit }
        let roster = Roster(settings: settings(blob: blob))
        lastSettings.withLock { if $0?.blob == blob { $0?.roster = roster } }
        return roster
    }

    private func settingsEntry() -> ObjectID? {
        // No settings file readable: no roster, every name a member (docs/FORMAT.md, "Members"); status and doctor report an unreadable file.
        guard let tree, let entry = try? repo.treeEntry(tree, path: HouseholdSettings.id.path) else { return nil }
        return entry.id
    }

    private func settings(blob: ObjectID) -> Task? {
        if let hit = lastSettings.withLock({ $0?.blob == blob ? $0 : nil }) { return hit.task }
        let task = try? decode(blob: blob, id: HouseholdSettings.id)  // unreadable: as above
        lastSettings.withLock { $0 = (blob, task, nil) }
        return task
    }

    public func turnContext(_ clock: WallClock) -> TurnContext { TurnContext(roster: roster(), day: clock.day) }
}

extension Household {
    /// What chores' turns depend on beyond their own files: the roster, the household's days.
    public func turnContext() throws(StoreError) -> TurnContext { try snapshot().turnContext(clock) }

    /// The household's roster.
    public func roster() throws(StoreError) -> Roster { try snapshot().roster() }
}

/// Where a member stands for a front end's doors (docs/FORMAT.md, "Members"): out as soon as
/// their latest roster entry (the greatest date, whatever it is: past, today or later) is
/// `left`; the date of a leave decides turns, not access. A member in the household is in one
/// membership, named by their latest `member` entry, so that what a front end gave them (a
/// session, an app password) can be tied to it and ends with it: a later `member add` of the
/// same name is a new membership.
public enum Standing: Sendable, Equatable {
    /// In the household: `membership` is the latest `member` entry's date and stamp
    /// (`"2026-11-20 <stamp>"`), "" for a member the roster has no entry for.
    case member(membership: String)
    /// The latest roster entry is `left`.
    case left
}

extension Snapshot {
    /// Where `name` (compared ignoring case) stands in the roster of this snapshot.
    public func standing(of name: String) -> Standing {
        guard let m = roster().member(name), let last = m.events.last else { return .member(membership: "") }
        guard last.member else { return .left }
        // The entry's stamp: each writing of the key has its own, so a leave and a new `member
        // add` on the same date (which write the same key) make a new membership.
        var stamp: FieldStamp?
        if let settings = settings() {
            let fold = m.name.lowercased()
            for key in settings.extra.keys {
                guard let (field, date, n) = Roster.parse(key), field == Roster.rosterField, date == last.date, n.lowercased() == fold,
                    let s = settings.stamps[key]
                else { continue }
                if stamp.map({ FieldStamp.precedes($0, s) }) ?? true { stamp = s }
            }
        }
        return .member(membership: last.date.description + (stamp.map { " \($0)" } ?? ""))
    }
}

extension Household {
    /// Where `name` stands in the roster of `main` now.
    public func standing(of name: String) throws(StoreError) -> Standing { try snapshot().standing(of: name) }
}
