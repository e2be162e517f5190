import TodoCore
import TodoStore

/// A household with no time zone recorded follows the zone of the machine the server runs on
/// (often UTC on a NAS), for "today", "overdue" and reminder hours: the server says so at start
/// and the page shows how to set one (`ZoneNotice`).
enum ZoneCheck {
    /// The warning for stderr at start; nil when the household records a zone its machine knows.
    static func warning(_ reader: HouseholdReader, household: String) -> String? {
        // A settings file that cannot be read: no warning here; the first page or command reports it.
        guard let zone = try? reader.zone() else { return nil }
        switch zone.source {
        case .recorded: return nil
        case .machine:
            return "todo-serve: warning: the household \"\(household)\" records no time zone, so its days follow this machine's (\(zone.rules.name)). Record the household's with `todo timezone ZONE`, like `todo timezone Europe/Paris`."
        case .unknownRecorded(let name):
            return "todo-serve: warning: the household's time zone \(DisplayText.escaped(name)) is not in this machine's tz database, so its days follow this machine's (\(zone.rules.name)). Install the tz data (Debian: tzdata)."
        }
    }
}
