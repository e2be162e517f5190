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

extension Snapshot {
    /// The household's roster as the settings file at this snapshot records it.
    func roster() -> Roster { Roster(settings: try? task(HouseholdSettings.id)) }

    public func turnContext(_ clock: WallClock) -> TurnContext { TurnContext(roster: roster(), day: clock.day) }
}

extension Household {
    /// What chores' turns depend on beyond their own files: the roster, the household's days.
    public func turnContext() throws(StoreError) -> TurnContext { try snapshot().turnContext(clock) }

    /// The household's roster.
    public func roster() throws(StoreError) -> Roster { try snapshot().roster() }
}
