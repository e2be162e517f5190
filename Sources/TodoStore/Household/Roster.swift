import GitKit
import Synchronization
import TodoCore

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
