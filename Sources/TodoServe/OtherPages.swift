import Hummingbird
import TodoCore
import TodoStore
import TodoWording

/// `GET /add` and its refused form.
enum AddPage {
    struct Typed {
        var title = ""
        var due = ""
        var assignee = ""
        var tags = ""
        var form = ""
    }

    static func render(_ site: Site, _ session: Session, _ request: Request) -> Response {
        var typed = Typed()
        var rng = SystemRandomNumberGenerator()
        typed.form = TaskID.random(using: &rng).hex
        return render(site, session, typed: typed, errors: [:], members: members(site))
    }

    static func members(_ site: Site) -> [String] {
        // Only suggestions for a form field: without them it is free text.
        ((try? site.openForReading().memberNames()) ?? []).map(Pages.safe)
    }

    static func render(_ site: Site, _ session: Session, typed: Typed, errors: [String: String], members: [String]) -> Response {
        var c = Pages.frame(site, session, title: "Add a task", nav: "navAdd")
        c["form"] = typed.form
        c["members"] = members
        let fields: [(String, String, String, Int, String?, String?)] = [
            ("title", "Title", typed.title, FieldRules.maxTitle, nil, nil),
            ("due", "Due", typed.due, 100, "Like friday 18:00, tomorrow, +3d or 2026-12-24; empty for none.", nil),
            ("assignee", "Assigned to", typed.assignee, FieldRules.maxName, "A name from the household, or empty.", "members"),
            ("tags", "Tags", typed.tags, 500, "Words separated by spaces, like shopping garden.", nil),
        ]
        c["fields"] = fields.map { f -> [String: Any] in
            var d: [String: Any] = ["name": f.0, "label": f.1, "value": f.2, "max": f.3, "required": f.0 == "title"]
            if let hint = f.4 { d["hint"] = hint }
            if let list = f.5 { d["list"] = list }
            if let e = errors[f.0] { d["error"] = e }
            return d
        }
        return Pages.html(site.render("add", c), status: errors.isEmpty ? .ok : .unprocessableContent)
    }
}

enum OtherPages {
    /// `GET /changes`: what the others changed since this member's last visit of this page;
    /// then this visit is recorded (`visits.json`).
    static func changes(_ site: Site, _ session: Session, _ request: Request) throws -> Response {
        let h = try site.store { () throws(StoreError) in try site.openForReading() }
        let head = try site.store { () throws(StoreError) in try h.headCommit() }
        let key = session.member.lowercased()
        let last = try site.visits(member: key)
        var c = Pages.frame(site, session, title: "Since my last visit", nav: "navChanges", notice: Pages.notice(request))
        if let last {
            let today = h.clock.today
            let changes: [ReceivedChange]
            do {
                changes = try h.receivedChanges(from: last, to: head)
                c["since"] = last == head ? "Nothing has changed since your last visit." : "What the others changed since your last visit:"
            } catch {
                // Never an empty list that looks like "nothing new": the page says it could not
                // look, and this visit is not recorded, so the changes are shown once they can be.
                c["since"] = "What changed since your last visit could not be read: \(Pages.safe(Worded(error).sentence))"
                c["unread"] = true
                return Pages.html(site.render("changes", c))
            }
            c["changes"] = changes.filter { $0.member.lowercased() != key }.prefix(200).map { change -> [String: Any] in
                var what = "\(change.member.isEmpty ? "Someone" : Pages.safe(change.member)) \(verb(change.kind))"
                let fields = change.fields.map { f in CivilDate(iso: Substring(f)).map { Due(date: $0).display(today: today) } ?? Pages.safe(f) }
                if !fields.isEmpty, change.kind != .conflict, change.kind != .deletedMyEdit { what += " (" + fields.joined(separator: ", ") + ")" }
                return ["id": change.task.id.hex, "title": Pages.safe(change.task.title), "what": what, "base": site.prefix]
            }
        } else {
            c["since"] = "From now on, this page shows what the others changed since your previous visit."
        }
        if let head, head != last { try site.recordVisit(member: key, commit: head) }
        return Pages.html(site.render("changes", c))
    }

    static func verb(_ k: ReceivedChange.Kind) -> String {
        switch k {
        case .added: "added it"
        case .addedAndDeleted: "added and deleted it"
        case .completed: "completed it"
        case .choreDone: "did it"
        case .choreSkipped: "skipped it"
        case .reopened: "reopened it"
        case .deleted: "deleted it"
        case .restored: "restored it"
        case .edited: "edited it"
        case .assignedToMe: "assigned it to you"
        case .conflict: "made a change that conflicted (the version set aside is kept in the household's conflict log)"
        case .deletedMyEdit: "deleted it, with your edit"
        }
    }

    /// `GET /sync`: the last success and attempt, the last problem as written in `sync-state`,
    /// and the changes waiting to be sent.
    static func sync(_ site: Site, _ session: Session, _ request: Request) throws -> Response {
        let h = try site.store { () throws(StoreError) in try site.openForReading() }
        let state = h.syncState()
        let status: HouseholdStatus?
        var statusProblem: String?
        do { status = try h.status() } catch {
            status = nil
            statusProblem = Pages.safe(Worded(error).sentence)
        }
        func when(_ ms: Int64?) -> String {
            guard let ms else { return "never" }
            return TaskPage.localTime(ms / 1000, offsetMinutes: h.clock.offsetMinutes(ms))
        }
        var facts: [[String: String]] = [
            ["name": "Last success", "value": when(state.lastSuccess)], ["name": "Last attempt", "value": when(state.lastAttempt)],
        ]
        if let status {
            facts.append(["name": "Waiting to be sent", "value": "\(status.unsent.count) changed tasks"])
            if status.remote == nil { facts.append(["name": "Remote", "value": "none: this household does not sync"]) }
        } else if let statusProblem {
            facts.append(["name": "Waiting to be sent", "value": "could not be counted: \(statusProblem)"])
        }
        facts.append([
            "name": "Background sync", "value": site.config.syncEvery == 0 ? "off (cron syncs)" : "every \(site.config.syncEvery / 60) minutes",
        ])
        var c = Pages.frame(site, session, title: "Sync", nav: "navSync", notice: Pages.notice(request))
        c["facts"] = facts
        if let e = state.lastError {
            c["lastError"] = Pages.safe(e)
            c["lastErrorAdvice"] = ServeWording.syncAdvice(errorClass: state.lastErrorClass)
        }
        return Pages.html(site.render("sync", c))
    }

    /// `GET /feed`, and the answer to `POST /feed/new` (the only time the address is shown:
    /// only its hash is kept).
    static func feed(_ site: Site, _ session: Session, _ request: Request?, url: String?) throws -> Response {
        var c = Pages.frame(site, session, title: "Calendar", nav: "navFeed", notice: request.flatMap(Pages.notice))
        if let url {
            c["feedURL"] = url
        } else {
            // Whether to say "you have an address": unknown is said as none, and making one works either way.
            let has = (try? site.tokens.hasFeed(member: session.member)) ?? false
            c["feedState"] =
                has
                ? "You have a feed address. Lost it? Make a new one: the old one then stops working."
                : "You have no feed address yet."
        }
        return Pages.html(site.render("feed", c))
    }
}

extension Site {
    /// The commit of `member`'s previous visit of "Since my last visit".
    func visits(member: String) throws -> String? {
        // A visits file that is not JSON is a first visit: the page says so and writes a good one.
        guard let bytes = try state.read("visits.json"), let v = try? JSONParser.parse(bytes) else { return nil }
        return v[member]?.stringValue
    }

    func recordVisit(member: String, commit: String) throws {
        try state.withLock { () throws(StateError) in
            var entries: [(String, JSONValue)] = []
            if let bytes = try state.read("visits.json"), case .object(let e)? = try? JSONParser.parse(bytes) { entries = e }  // not JSON: replaced by a good file
            entries.removeAll { $0.0 == member }
            entries.append((member, .string(commit)))
            try state.replace("visits.json", with: JSONWriter.document(.object(entries)))
        }
    }
}
