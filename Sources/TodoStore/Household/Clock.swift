import Glibc
public import TodoCore

/// The wall clock a household uses for stamps and commit times.
public struct WallClock: Sendable {
    /// Milliseconds since the epoch.
    public var nowMillis: @Sendable () -> Int64
    /// The local time zone's offset from UTC at `nowMillis`, in minutes.
    public var offsetMinutes: @Sendable (Int64) -> Int32

    public init(nowMillis: @escaping @Sendable () -> Int64, offsetMinutes: @escaping @Sendable (Int64) -> Int32) {
        self.nowMillis = nowMillis
        self.offsetMinutes = offsetMinutes
    }

    public static let system = WallClock(
        nowMillis: {
            var ts = timespec()
            clock_gettime(CLOCK_REALTIME, &ts)
            return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
        },
        offsetMinutes: { millis in
            var t = time_t(millis / 1000)
            var tm = tm()
            localtime_r(&t, &tm)
            return Int32(tm.tm_gmtoff / 60)
        })

    /// The moment a local date and time (midnight when it has none) names, in milliseconds
    /// since the epoch, taking the zone's offset from UTC as it is now.
    public func millis(atLocal local: Due) -> Int64 {
        let seconds = Int64(local.date.daysSinceEpoch) * 86_400 + Int64(local.minutes ?? 0) * 60
        return (seconds - Int64(offsetMinutes(nowMillis())) * 60) * 1000
    }

    /// The local date now: what "today" means for due dates and chores.
    public var today: CivilDate {
        let now = nowMillis()
        let local = now / 1000 + Int64(offsetMinutes(now)) * 60
        return CivilDate(daysSinceEpoch: Int((local - (local < 0 ? 86_399 : 0)) / 86_400))
    }

    /// Minutes after local midnight now.
    public var minuteOfDay: Int {
        let now = nowMillis()
        let local = now / 1000 + Int64(offsetMinutes(now)) * 60
        return Int(((local % 86_400) + 86_400) % 86_400) / 60
    }

    /// This clock, held within what the file format can stamp: a time past the last stamp a
    /// file may hold reads as a day before it, so that today, in any time zone, and the dates
    /// and times derived from it stay within the year 9999.
    public var withinFormat: WallClock {
        let base = self
        let latest = Stamp.maxWall - 86_400_000
        return WallClock(nowMillis: { min(base.nowMillis(), latest) }, offsetMinutes: base.offsetMinutes)
    }

    /// A clock fixed at `millis` (or shifted by `skew`), for tests and demonstrations.
    public static func fixed(_ millis: Int64) -> WallClock {
        WallClock(nowMillis: { millis }, offsetMinutes: system.offsetMinutes)
    }
}
