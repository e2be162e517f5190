import Hummingbird
import TodoCore
import TodoStore
import TodoWording

/// `GET /add` and its refused form.
enum AddPage {
    struct Typed {
        var title = ""
        /// The due date in the CLI's words; they win over the picked date and time.
        var due = ""
        /// `<input type="date">` and `type="time"`: `YYYY-MM-DD` and `HH:MM`.
        var dueDate = ""
        var dueTime = ""
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

    /// The household's members, for the assignee's select: the roster's names (none when it
    /// cannot be read: the select then offers nobody and the name already chosen).
    static func members(_ site: Site) -> [String] {
        (try? site.openForReading().memberNames()) ?? []  // unreadable: nobody to offer, as above
    }

    static func render(_ site: Site, _ session: Session, typed: Typed, errors: [String: String], members: [String]) -> Response {
        var c = Pages.frame(site, session, title: "Add a task", nav: "navAdd")
        c["form"] = typed.form
        func field(_ name: String, _ label: String, _ value: String, _ max: Int, hint: String?) -> [String: Any] {
            var d: [String: Any] = ["name": name, "label": label, "value": value, "max": max, "required": name == "title"]
            if let hint { d["hint"] = hint }
            if let e = errors[name] { d["error"] = e }
            return d
        }
        c["titleField"] = field("title", "Title", typed.title, FieldRules.maxTitle, hint: nil)
        c["tagsField"] = field("tags", "Tags", typed.tags, 500, hint: "Words separated by spaces, like shopping garden.")
        var due = field("due", "Or in words", typed.due, 100, hint: "Like friday 18:00, tomorrow or +3d. Words, when given, win over the date and time above.")
        due["date"] = typed.dueDate
        due["time"] = typed.dueTime
        c["dueField"] = due
        // The typed name stays chosen, member or not, so a refused form shows what was sent.
        var names = members
        let chosen = typed.assignee.trimmed()
        if !chosen.isEmpty, !names.contains(where: { $0.lowercased() == chosen.lowercased() }) { names.append(chosen) }
        c["assignees"] = names.map { n -> [String: Any] in ["name": Pages.safe(n), "value": n, "selected": n.lowercased() == chosen.lowercased()] }
        c["nobodySelected"] = chosen.isEmpty
        if let e = errors["assignee"] { c["assigneeError"] = e }
        return Pages.html(site.render("add", c), status: errors.isEmpty ? .ok : .unprocessableContent)
    }

    /// What the form says is due: the words when given (the CLI's, `FormInput.due`), else the
    /// picked date with its time, else a time alone (today's or tomorrow's, as the CLI reads
    /// `18:00`); nil for nothing.
    static func due(_ typed: Typed, clock: WallClock) -> Result<Due, InputProblem>? {
        let words = typed.due.trimmed()
        let date = typed.dueDate.trimmed()
        let time = typed.dueTime.trimmed()
        if !words.isEmpty { return FormInput.due(words, clock: clock) }
        if !date.isEmpty {
            guard CivilDate(iso: Substring(date)) != nil else {
                return .failure(InputProblem("The date picked is not a date of the calendar."))
            }
            return FormInput.due(time.isEmpty ? date : date + " " + time, clock: clock)
        }
        return time.isEmpty ? nil : FormInput.due(time, clock: clock)
    }
}

enum OtherPages {
    /// `GET /changes`: what the others changed since the commit this member last marked as
    /// seen (`visits.json`); changes nothing. "Mark as seen" (`POST /changes/seen`) records the
    /// commit the page showed. "The others" are every writer but the member, whichever replica
    /// wrote (the owner's own commands on the server's clone included). Without a mark, or with
    /// one whose commit cannot be read, the page shows what the others changed since the start
    /// of the household day seven days before today (as `todo changes --since`), and says so.
    static func changes(_ site: Site, _ session: Session, _ request: Request) throws -> Response {
        let h = try site.store { () throws(StoreError) in try site.openForReading() }
        let head = try site.store { () throws(StoreError) in try h.headCommit() }
        let key = session.member.lowercased()
        let last = try site.visits(member: key)
        var c = Pages.frame(site, session, title: "Since my last visit", nav: "navChanges", request: request)
        if let head, head != last { c["seen"] = ["commit": head, "csrf": session.csrf, "base": site.prefix] }
        let today = h.clock.today
        // The member's name and email: a change by either is theirs.
        let email = (try? h.memberEmail(session.member))??.lowercased()  // no email readable: the name alone
        let viewer = Set([key] + (email.map { [$0] } ?? []))
        var changes: [ReceivedChange] = []
        var readable = false
        if let last {
            do {
                changes = try h.receivedChanges(from: last, to: head, viewer: viewer)
                readable = true
                c["since"] = last == head ? "Nothing has changed since your last visit." : "What the others changed since your last visit:"
            } catch {
                c["since"] = "Your last visit could not be read (\(Pages.safe(Worded(error).sentence))), so this shows "
                    + Self.lastWeek(today) + "."
            }
        } else {
            c["since"] = "Nothing is marked as seen yet, so this shows " + Self.lastWeek(today) + "; \"Mark as seen\" starts from now."
        }
        if !readable {
            let start = Due(date: today.adding(days: -Self.fallbackDays))
            let millis = h.clock.millis(atLocal: start)
            do {
                let from = try h.commitBefore(millis)
                changes = try h.receivedChanges(from: from, to: head, sinceMillis: millis, viewer: viewer)
            } catch {
                // Never an empty list that looks like "nothing new": the page says it could not look.
                c["since"] = "What the others changed could not be read: \(Pages.safe(Worded(error).sentence))"
                c["unread"] = true
                return Pages.html(site.render("changes", c))
            }
        }
        c["changes"] = changes.prefix(200).map { change -> [String: Any] in
            var what = "\(change.member.isEmpty ? "Someone" : Pages.safe(change.member)) \(verb(change.kind))"
            let fields = change.fields.map { f in CivilDate(iso: Substring(f)).map { Due(date: $0).display(today: today) } ?? Pages.safe(f) }
            if !fields.isEmpty, change.kind != .conflict, change.kind != .deletedMyEdit { what += " (" + fields.joined(separator: ", ") + ")" }
            return ["id": change.task.id.hex, "title": Pages.safe(change.task.title), "what": what, "base": site.prefix]
        }
        return Pages.html(site.render("changes", c))
    }

    /// How many household days before today the page looks without a readable mark.
    static let fallbackDays = 7

    /// "what the others changed since …": the start of the household day `fallbackDays` ago.
    static func lastWeek(_ today: CivilDate) -> String {
        let start = today.adding(days: -fallbackDays)
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        return "what the others changed in the last seven days (since \(names[start.weekday % 7]) \(start))"
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
        var c = Pages.frame(site, session, title: "Sync", nav: "navSync", request: request)
        c["facts"] = facts
        if let e = state.lastError {
            c["lastError"] = Pages.safe(e)
            c["lastErrorAdvice"] = ServeWording.syncAdvice(errorClass: state.lastErrorClass)
        }
        return Pages.html(site.render("sync", c))
    }

    /// `GET /feed`; the first one after `POST /feed/new` in the same session shows the new
    /// address (the only time: only its hash is kept).
    static func feed(_ site: Site, _ session: Session, _ request: Request) throws -> Response {
        var c = Pages.frame(site, session, title: "Calendar", nav: "navFeed", request: request)
        if let url = site.shownOnce.take(session.id, now: site.now()) {
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

    /// `GET /phone`, and the answer to `POST /phone/new` (`made`, the only time the password is
    /// shown: only its hash is kept): the steps for a phone's task app, a button for a new app
    /// password, and the member's app passwords, each with its Remove button.
    static func phone(_ site: Site, _ session: Session, _ request: Request?, made: (user: String, password: String)?) throws -> Response {
        var c = Pages.frame(site, session, title: "Phone's task app", nav: "navPhone", request: request)
        let address = site.base + "/dav/"
        if let made { c["made"] = ["url": address, "user": made.user, "password": made.password] }
        let url = BaseURL.parse(site.base)
        c["host"] = url.map { u in u.port.map { "\(u.host.contains(":") ? "[\(u.host)]" : u.host):\($0)" } ?? u.host } ?? address
        if let url, url.scheme != "https", !DAVAuth.isLoopback(url.host), url.host != "localhost" { c["plainHTTP"] = true }
        let devices: [TokenRecord]
        do { devices = try site.tokens.appDevices(member: session.member) } catch { throw error.page }
        if !devices.isEmpty {
            c["devices"] = [
                "list": devices.map { d -> [String: Any] in
                    let used = d.lastUsed.map { ms in TaskPage.localTime(ms / 1000, offsetMinutes: site.clock.offsetMinutes(ms)) } ?? "never"
                    return ["user": d.user ?? "", "label": Pages.safe(d.label), "used": used, "csrf": session.csrf, "base": site.prefix]
                }
            ]
        }
        return Pages.html(site.render("phone", c))
    }
}

/// The POSTs of the phone page (`Routes.register` names them).
extension Routes {
    /// A POST of the phone page: the form, then on the writer queue the session, its CSRF
    /// value and `body` (as the other POSTs, `Changes`).
    func phoneChange(
        _ request: Request, _ context: ServeContext, _ body: @escaping @Sendable (Session, Form) throws -> Response
    ) async throws -> Response {
        let form = try await Form.read(request)
        let cookie = Cookie.token(request)
        let client = context.client
        let site = self.site
        return try await site.workers.write {
            let session = try site.session(cookie, client: client)
            try site.checkCSRF(form, session)
            return try body(session, form)
        }
    }

    /// `POST /phone/new`: a new app password labelled "phone", shown on the page this once.
    func phoneNew(_ session: Session) throws -> Response {
        let made: (user: String, password: String)
        do { made = try site.tokens.appPassword(member: session.member, membership: session.membership, label: "phone", now: site.now()) } catch { throw error.page }
        return try OtherPages.phone(site, session, nil, made: made)
    }

    /// `POST /phone/revoke`: ends the member's app password named by `device` (its user name;
    /// another member's names nothing), then 303 to the page.
    func phoneRevoke(_ session: Session, _ form: Form) throws -> Response {
        do { _ = try site.tokens.revokeApp(member: session.member, user: form["device"] ?? "") } catch { throw error.page }
        return Redirect.see(site.prefix + "/phone", notice: nil, site: site)
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
