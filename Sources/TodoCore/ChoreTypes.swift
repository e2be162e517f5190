/// The values a chore's schedule is made of and answers with (docs/FORMAT.md, "Chores").

/// How a chore that fell behind is shown (the `schedule` field).
public enum ChoreScheduleMode: String, Sendable, CaseIterable {
    /// The occurrence due now; older open ones are missed.
    case calendar
    /// The earliest open occurrence, however old (rent: every one must be done).
    case catchUp = "catch-up"
}

/// How a rotation picks whose turn an occurrence is (the `rotate` field).
public enum RotateMode: String, Sendable, CaseIterable {
    /// In rotation order, one occurrence each.
    case order
    /// The member with the fewest completions in the four weeks before the occurrence.
    case fewest
}

public enum CompletionState: String, Sendable {
    case done, undone
}

/// One `done`, as its `completions` entry records it.
public struct Completion: Hashable, Sendable {
    /// `<date>/<stamp id>`: the occurrence named and the stamp of the `done` that wrote it.
    public var key: String
    public var state: CompletionState
    /// Who did it.
    public var member: String
    /// The member's local date when they ran `done`.
    public var day: CivilDate
    /// The entry's last write.
    public var stamp: FieldStamp

    public init(key: String, state: CompletionState, member: String, day: CivilDate, stamp: FieldStamp) {
        self.key = key
        self.state = state
        self.member = member
        self.day = day
        self.stamp = stamp
    }

    /// The key of a completion of `date` written with `stamp`.
    public static func key(_ date: CivilDate, _ stamp: Stamp) -> String { "\(date)/\(stamp)" }

    /// The occurrence date and the writing stamp a key names; nil when it is not a key.
    public static func parse(key: String) -> (date: CivilDate, stamp: Stamp)? {
        let parts = key.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count == 10, let date = CivilDate(iso: parts[0]),
            let stamp = Stamp(parts[1]), !parts[1].contains(" ")
        else { return nil }
        return (date, stamp)
    }

    var json: JSONValue {
        .array([.string(state.rawValue), .string(member), .string(day.description), .string(stamp.description)])
    }
}

/// A completion counted for one occurrence.
public struct Credit: Hashable, Sendable {
    public var member: String
    /// The occurrence it counts for.
    public var occurrence: CivilDate
    /// The occurrence the member's replica named (differs when the credit moved).
    public var named: CivilDate
    /// The day the member did it.
    public var day: CivilDate
    /// The stamp it is ordered by: its `done`'s.
    public var stamp: FieldStamp
    /// Its `completions` key; nil for a completion recorded only in `occurrences` (an older version's).
    public var key: String?

    public var moved: Bool { occurrence != named }
}

/// An occurrence's state as derived.
public enum OccurrenceStatus: String, Sendable {
    case done, skipped, open, missed
}
