#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

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

    /// A clock fixed at `millis` (or shifted by `skew`), for tests and demonstrations.
    public static func fixed(_ millis: Int64) -> WallClock {
        WallClock(nowMillis: { millis }, offsetMinutes: system.offsetMinutes)
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for a UTC instant.
public func isoUTC(_ millis: Int64) -> String {
    var t = time_t(millis / 1000)
    var tm = tm()
    gmtime_r(&t, &tm)
    func p(_ v: Int32, _ w: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, w - s.count)) + s
    }
    return "\(p(tm.tm_year + 1900, 4))-\(p(tm.tm_mon + 1, 2))-\(p(tm.tm_mday, 2))T\(p(tm.tm_hour, 2)):"
        + "\(p(tm.tm_min, 2)):\(p(tm.tm_sec, 2)).\(p(Int32(millis % 1000), 3))Z"
}
