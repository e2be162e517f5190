/// A task's own alarm (the `alarm` field, docs/FORMAT.md): how long before the event starts, or
/// a time of day on the event's day. `todo calendar` gives the task's events this alarm instead
/// of the feed's `--alarm` and `--alarm-time`.
public enum TaskAlarm: Equatable, Sendable {
    /// Minutes before the event's start (1 minute to 7 days).
    case before(minutes: Int)
    /// Minutes after the midnight of the event's day.
    case timeOfDay(minutes: Int)

    public static let maximumMinutes = 7 * 24 * 60

    /// Reads what a person types or the field holds: `30m`, `2h`, `1d` or `HH:MM`; nil otherwise.
    public init?(_ text: String) {
        if text.contains(":") {
            guard let m = Self.clock(text) else { return nil }
            self = .timeOfDay(minutes: m)
            return
        }
        guard let ms = DurationInput.milliseconds(text), ms >= 60_000, ms % 60_000 == 0,
            ms / 60_000 <= Int64(Self.maximumMinutes)
        else { return nil }
        self = .before(minutes: Int(ms / 60_000))
    }

    /// `HH:MM` (two digits each) as minutes after midnight.
    public static func clock(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.utf8.count == 2 && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
            let h = Int(parts[0]), let m = Int(parts[1]), h < 24, m < 60
        else { return nil }
        return h * 60 + m
    }

    /// The canonical form written to the file: the largest whole unit (`90m`, `2h`, `1d`), or `HH:MM`.
    public var text: String {
        switch self {
        case .before(let m):
            if m % 1440 == 0 { return "\(m / 1440)d" }
            if m % 60 == 0 { return "\(m / 60)h" }
            return "\(m)m"
        case .timeOfDay(let m):
            let h = m / 60, mm = m % 60
            return (h < 10 ? "0" : "") + "\(h):" + (mm < 10 ? "0" : "") + "\(mm)"
        }
    }

    /// The trigger in minutes from the start of an event at `start` minutes after midnight
    /// (nil: all day, starting at midnight).
    public func trigger(start: Int?) -> Int {
        switch self {
        case .before(let m): return -m
        case .timeOfDay(let m): return m - (start ?? 0)
        }
    }
}

extension Task {
    /// The task's own alarm; nil when it has none or the field holds a form this version does not know.
    public var alarm: TaskAlarm? { extra["alarm"]?.stringValue.flatMap(TaskAlarm.init) }

    /// Sets the alarm, or clears it (`null`).
    public mutating func setAlarm(_ alarm: TaskAlarm?, stamp: FieldStamp) {
        try? write("alarm", alarm.map { .string($0.text) } ?? .null, stamp: stamp)  // a known field and a value of its own type: `write` refuses neither
    }
}
