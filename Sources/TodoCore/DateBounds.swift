/// The dates a change may write (docs/FORMAT.md, "Dates"): from 1970-01-01 through
/// 2199-12-31. Every transaction refuses a date outside them before it writes (the store's
/// `dateOutOfRange`); a date already stored outside them (an older version, a hand edit, a
/// sync) is still read and shown, and a chore's schedule does not walk the years before the
/// range because of it (`ChoreSchedule`, `TurnWalk`). The file format itself takes any date
/// of the years 1 to 9999, so a merge or a sync keeps whatever it holds.
public enum DateBounds {
    /// The first date a change may write: 1970-01-01.
    public static let first = CivilDate(daysSinceEpoch: 0)
    /// The last date a change may write: 2199-12-31.
    public static let last = CivilDate(daysSinceEpoch: 84_005)

    /// Whether a change may write `date`.
    public static func contains(_ date: CivilDate) -> Bool { first <= date && date <= last }

    /// Whether a change may write `due`.
    public static func contains(_ due: Due) -> Bool { contains(due.date) }

    /// The range as people read it: "1970-01-01 through 2199-12-31".
    public static var text: String { "\(first) through \(last)" }

    /// The first date `after` holds outside the range that `before` did not hold (nil: none),
    /// with the field that holds it: `due`, `repeat` (a chore's start), `occurrences`,
    /// `completions` (an occurrence's date or the day it was done), `turns`, `rotations`. What a
    /// change writes is checked, not what the task already held. `before` nil: a new task.
    public static func firstNewDateOutside(_ after: Task, before: Task?) -> (field: String, date: CivilDate)? {
        if let due = after.due, !contains(due), before?.due != due { return ("due", due.date) }
        if let r = after.recurrence, !contains(r.from), before?.recurrence?.from != r.from { return ("repeat", r.from) }
        func entries(_ map: String, _ task: Task?) -> [(String, JSONValue)] {
            guard case .object(let entries)? = task?.extra[map] else { return [] }
            return entries
        }
        for map in ["occurrences", "turns", "rotations"] {
            let old = Dictionary(entries(map, before), uniquingKeysWith: { a, _ in a })
            for (key, value) in entries(map, after).sorted(by: { $0.0 < $1.0 }) where old[key] != value {
                if let d = CivilDate(iso: Substring(key)), !contains(d) { return (map, d) }
            }
        }
        let old = Set((before?.completions ?? []).map { "\($0.key) \($0.day)" })
        for c in after.completions.sorted(by: { $0.key < $1.key }) where !old.contains("\(c.key) \(c.day)") {
            if let (d, _) = Completion.parse(key: c.key), !contains(d) { return ("completions", d) }
            if !contains(c.day) { return ("completions", c.day) }
        }
        return nil
    }

    /// The first date an imported task holds outside the range, with its JSON key (`due`,
    /// `repeat` for a chore's start, `occurrences`, and the dated keys of `todo list --json`'s
    /// maps: `occurrences`, `completions`, `turns`, `rotations`).
    public static func firstDateOutside(_ item: ImportedTask) -> (field: String, date: CivilDate)? {
        if let due = item.due, !contains(due) { return ("due", due.date) }
        if let r = item.recurrence, !contains(r.from) { return ("repeat", r.from) }
        for o in item.occurrences where !contains(o.date) { return ("occurrences", o.date) }
        for map in ["occurrences", "completions", "turns", "rotations"] {
            guard case .object(let entries)? = item.maps[map] else { continue }
            for key in entries.map(\.0).sorted() {
                let date = map == "completions" ? Completion.parse(key: key)?.date : CivilDate(iso: Substring(key))
                if let date, !contains(date) { return (map, date) }
            }
            if map == "completions" {
                for (_, e) in entries.sorted(by: { $0.0 < $1.0 }) {
                    guard case .array(let a) = e, a.count == 4, let day = a[2].stringValue.flatMap({ CivilDate(iso: Substring($0)) })
                    else { continue }
                    if !contains(day) { return (map, day) }
                }
            }
        }
        return nil
    }
}
