/// Arithmetic on times that come from files and commits (stamps, commit times, zone offsets):
/// it saturates at the ends of `Int64` instead of trapping, so no value another machine wrote
/// can crash the program that shows it.
public enum Millis {
    /// Milliseconds for `seconds` since the epoch (a commit time).
    public static func fromSeconds(_ seconds: Int64) -> Int64 {
        let (v, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? (seconds < 0 ? .min : .max) : v
    }

    /// Local wall-clock milliseconds for UTC `millis` in a zone `offsetMinutes` east of UTC.
    public static func local(_ millis: Int64, offsetMinutes: Int32) -> Int64 {
        let (v, overflow) = millis.addingReportingOverflow(Int64(offsetMinutes) * 60_000)
        return overflow ? (offsetMinutes < 0 ? .min : .max) : v
    }

    /// `a / b` rounded towards negative infinity, for `b > 0` (never overflows).
    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return a % b < 0 ? q - 1 : q
    }

    /// `a mod b` in `0..<b`, for `b > 0`.
    static func floorMod(_ a: Int64, _ b: Int64) -> Int64 {
        let r = a % b
        return r < 0 ? r + b : r
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for milliseconds since the epoch (UTC). Defined for every value:
/// a time outside years 0–9999 shows a longer or negative year, never a crash.
public func isoMillis(_ ms: Int64) -> String {
    let secs = Millis.floorDiv(ms, 1000)
    let days = Millis.floorDiv(secs, 86_400)
    let rest = Int(Millis.floorMod(secs, 86_400))
    let date = CivilDate(daysSinceEpoch: Int(days))
    let milli = Int(Millis.floorMod(ms, 1000))
    return "\(date)T\(pad(rest / 3600, 2)):\(pad(rest / 60 % 60, 2)):\(pad(rest % 60, 2)).\(pad(milli, 3))Z"
}
