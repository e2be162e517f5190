/// Durations people type for settings such as `todo sync --quiet-for`: a whole number and a
/// unit, `m` (minutes), `h` (hours), `d` (days) or `w` (weeks), like `90m`, `24h`, `2d`; or `0`.
public enum DurationInput {
    /// The longest duration accepted: ten years, far below any overflow.
    static let maximumMillis: Int64 = 10 * 366 * 86_400_000

    /// Milliseconds, or nil when `text` is not a duration in that form.
    public static func milliseconds(_ text: String) -> Int64? {
        let s = text.lowercased().filter { $0 != " " }
        if s == "0" { return 0 }
        guard let unit = s.last, let n = Int64(s.dropLast()), n >= 0, n <= 1_000_000 else { return nil }
        let per: Int64
        switch unit {
        case "m": per = 60_000
        case "h": per = 3_600_000
        case "d": per = 86_400_000
        case "w": per = 7 * 86_400_000
        default: return nil
        }
        let ms = n * per
        return ms <= maximumMillis ? ms : nil
    }
}
