import Hummingbird
import TodoCore
import TodoStore

/// A household with no recorded time zone follows the server's ("today", "overdue", reminder
/// hours), often UTC: Mine says so and offers a form to record one (`POST /zone`), as
/// `todo timezone ZONE` does. Once one is recorded the form is gone and the route refuses.
enum ZoneNotice {
    /// Common zones offered as suggestions; any name this machine's tz database has is taken.
    static let suggestions = [
        "Europe/London", "Europe/Dublin", "Europe/Lisbon", "Europe/Paris", "Europe/Berlin", "Europe/Madrid", "Europe/Rome",
        "Europe/Amsterdam", "Europe/Brussels", "Europe/Zurich", "Europe/Vienna", "Europe/Stockholm", "Europe/Oslo",
        "Europe/Copenhagen", "Europe/Helsinki", "Europe/Warsaw", "Europe/Prague", "Europe/Athens", "Europe/Istanbul",
        "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Toronto",
        "America/Vancouver", "America/Mexico_City", "America/Sao_Paulo", "America/Buenos_Aires", "Africa/Johannesburg",
        "Africa/Lagos", "Africa/Nairobi", "Asia/Kolkata", "Asia/Singapore", "Asia/Shanghai", "Asia/Tokyo", "Asia/Seoul",
        "Australia/Perth", "Australia/Sydney", "Pacific/Auckland",
    ]

    /// The notice and its form, when the household records no zone (or one this machine lacks).
    static func add(_ h: HouseholdReader, session: Session, site: Site, into c: inout [String: Any]) {
        // A settings file that cannot be read: no notice here; the pages' other reads report it.
        guard let zone = try? h.zone() else { return }
        let text: String
        switch zone.source {
        case .recorded: return
        case .machine:
            text = "So \"today\", \"overdue\" and the hours of reminders follow the server's clock (\(Pages.safe(zone.rules.name))), which may not be the family's. Set the household's own zone here, once, for everyone."
        case .unknownRecorded(let name):
            text = "The zone recorded, \(Pages.safe(name)), is not one this server knows, so its days follow the server's clock (\(Pages.safe(zone.rules.name))). Set a zone it knows here, for everyone."
        }
        c["zone"] = ["text": text, "zones": suggestions, "csrf": session.csrf, "base": site.prefix]
    }

    /// `POST /zone` (`zone`): records the household's zone when none it knows is recorded;
    /// 303 to Mine. A name this machine's tz database lacks is refused (422); a zone already
    /// recorded is not changed from the page (409).
    static func set(_ site: Site, _ session: Session, _ form: Form) throws -> Response {
        let name = (form["zone"] ?? "").trimmed()
        guard HouseholdZone.load(name) != nil else {
            throw PageError(
                status: 422, title: "Unknown time zone",
                text: "\"\(Pages.safe(String(name.prefix(128))))\" is not a time zone this server knows. Go back and type a name like Europe/Paris or America/New_York.")
        }
        let h = try site.store { () throws(StoreError) in try site.openForChange(member: session.member) }
        if case .recorded = try site.store({ () throws(StoreError) in try h.zone() }).source {
            throw PageError(status: 409, title: "Already set", text: "The household already has a time zone. " + ServeWording.askOwner)
        }
        let commit = try site.store { () throws(StoreError) in try h.setZone(name) }
        site.afterChange(commit: commit)
        return Redirect.see(site.prefix + "/", notice: .zoneSet, site: site)
    }
}
