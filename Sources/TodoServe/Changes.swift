import Hummingbird
import TodoCore
import TodoStore
import TodoWording

/// The POST routes (docs/SERVE.md, "Changes, each idempotent"): each checks the session and
/// its `csrf` field, makes one store transaction on the writer queue (or none when the change
/// is already so), and answers 303 back to the page it came from with a notice.
struct Changes {
    let site: Site

    func register(on g: RouterGroup<ServeContext>) {
        g.post("/t/:id/done") { request, context in try await change(request, context) { s, form in try complete(s, form, context, .done) } }
        g.post("/t/:id/skip") { request, context in try await change(request, context) { s, form in try complete(s, form, context, .skip) } }
        g.post("/t/:id/items/:key/check") { request, context in
            try await change(request, context) { s, form in try item(s, form, context, check: true) }
        }
        g.post("/t/:id/items/:key/uncheck") { request, context in
            try await change(request, context) { s, form in try item(s, form, context, check: false) }
        }
        g.post("/t/:id/items") { request, context in
            try await change(request, context) { s, form in try addItem(s, form, context, request) }
        }
        g.post("/t/:id/reopen") { request, context in try await change(request, context) { s, form in try reopen(s, form, context) } }
        g.post("/undo") { request, context in try await change(request, context) { s, form in try undo(s, form) } }
        g.post("/zone") { request, context in try await change(request, context) { s, form in try ZoneNotice.set(site, s, form) } }
        g.post("/add") { request, context in try await change(request, context) { s, form in try add(s, form) } }
        g.post("/sync") { request, context in
            let form = try await Form.read(request)
            let cookie = Cookie.token(request)
            let client = context.client
            let site = self.site
            try await site.workers.read {
                let session = try site.session(cookie, client: client)
                try site.checkCSRF(form, session)
            }
            let notice: Notice =
                switch await site.syncer.syncNow() {
                case .done: .synced
                case .skipped: .syncSkipped
                case .failed: .syncFailed
                }
            return Redirect.see(site.prefix + "/sync", notice: notice, site: site)
        }
        g.post("/feed/new") { request, context in
            try await change(request, context) { s, _ in
                let token = try site.tokens.newFeed(member: s.member, membership: s.membership, now: site.now())
                // Shown once, by this session's next `GET /feed`: a reload after that shows it no more.
                site.shownOnce.put(s.id, site.base + "/feed/\(token.text).ics", now: site.now())
                return Redirect.see(site.prefix + "/feed", notice: .feedMade, site: site)
            }
        }
        g.post("/changes/seen") { request, context in
            try await change(request, context) { s, form in
                // The commit the page showed: what came in after it stays news.
                guard let commit = form["commit"], [40, 64].contains(commit.utf8.count), commit.utf8.allSatisfy(isLowerHex) else {
                    throw PageError(status: 422)
                }
                try site.recordVisit(member: s.member.lowercased(), commit: commit)
                return Redirect.see(site.prefix + "/changes", notice: .seen, site: site)
            }
        }
        g.post("/signout") { request, context in
            let secure = context.secure
            return try await change(request, context) { s, _ in
                try site.tokens.signOut(session: s.id)
                var c = Pages.frame(site, nil, title: "Signed out")
                c["paragraphs"] = ["This device is signed out. To sign in again, ask for a new sign-in link."]
                return Pages.html(site.render("message", c), headers: [.setCookie: Cookie.clear(secure: secure, path: site.prefix)])
            }
        }
    }

    /// Reads the form, then on the writer queue: the session, its CSRF value, and `body`.
    private func change(
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

    // MARK: Done and skip

    private func complete(_ session: Session, _ form: Form, _ context: ServeContext, _ action: OccurrenceAction) throws -> Response {
        let id = try site.taskID(try context.parameters.require("id"))
        let back = Redirect.back(form, site: site, fallback: site.prefix + "/t/" + id.hex)
        let h = try site.store { () throws(StoreError) in try site.openForChange(member: session.member) }
        guard let before = try site.store({ () throws(StoreError) in try h.snapshot().task(id) }), !before.deleted else {
            throw PageError(status: 404, title: "No such task", text: "This task is not in the household (it may have been removed).")
        }
        var date: CivilDate?
        if before.recurrence != nil, let occurrence = form["occurrence"], !occurrence.isEmpty {
            guard let d = CivilDate(iso: Substring(occurrence)) else { throw PageError(status: 422) }
            date = d
        }
        // A skip of a plain task is the store's to refuse (`StoreError.notAChore`), worded by
        // `ServeWording.failure` through `site.store`.
        let outcome = try site.store { () throws(StoreError) in try h.complete([id.hex], action, on: date) }
        site.afterChange(commit: outcome.commit)
        let undo = outcome.commit.flatMap { Undoable(task: id.hex, commit: $0) }
        let notice: Notice
        if action == .skip {
            notice = outcome.commit == nil ? .alreadySkipped : .skipped
        } else if outcome.commit == nil {
            notice = .alreadyDone
        } else if let date, let r = before.recurrence,
            ChoreSchedule(before, recurrence: r, today: h.clock.today, context: .plain).credits(on: date).contains(where: {
                $0.member.lowercased() != session.member.lowercased()
            })
        {
            notice = .alsoDone
        } else {
            notice = .done
        }
        return Redirect.see(back, notice: notice, site: site, undo: undo)
    }

    /// `POST /t/<id>/reopen`: a done task open again (the CLI's `reopen`).
    private func reopen(_ session: Session, _ form: Form, _ context: ServeContext) throws -> Response {
        let id = try site.taskID(try context.parameters.require("id"))
        let h = try site.store { () throws(StoreError) in try site.openForChange(member: session.member) }
        let outcome = try site.store { () throws(StoreError) in try h.reopen([id.hex]) }
        site.afterChange(commit: outcome.commit)
        return Redirect.see(site.prefix + "/t/" + id.hex, notice: outcome.commit == nil ? .alreadyOpen : .reopened, site: site)
    }

    /// `POST /undo` (`task`, `commit`, `back`): takes back exactly that commit with the store's
    /// undo, when it is the member's own change of that task through this server; a second
    /// time, or after `todo undo` took it back, nothing changes. A field someone wrote since
    /// refuses it, as `todo undo` does without `--force`.
    private func undo(_ session: Session, _ form: Form) throws -> Response {
        guard let undoable = Undoable(task: form["task"] ?? "", commit: form["commit"] ?? ""), let id = TaskID(undoable.task) else {
            throw PageError(status: 422)
        }
        let back = Redirect.back(form, site: site, fallback: site.prefix + "/t/" + id.hex)
        let h = try site.store { () throws(StoreError) in try site.openForChange(member: session.member) }
        if h.wasTakenBack(undoable.commit) { return Redirect.see(back, notice: .alreadyUndone, site: site) }
        let recent = try site.store { () throws(StoreError) in try h.history(of: id, limit: Self.undoDepth) }
        guard let entry = recent.first(where: { $0.commit == undoable.commit }), Household.isOwn(entry, replica: site.replica),
            entry.authorName.lowercased() == session.member.lowercased()
        else {
            throw PageError(status: 404, title: "Cannot be undone", text: "That change is not one of your recent changes of this task. Reload the page.")
        }
        switch try site.store({ () throws(StoreError) in try h.undo(h.undoStep(entry), force: false) }) {
        case .undone(let outcome):
            site.afterChange(commit: outcome.commit)
            return Redirect.see(back, notice: outcome.commit == nil ? .unchanged : .undone, site: site)
        case .refused:
            return Redirect.see(back, notice: .undoRefused, site: site)
        }
    }

    /// How far back in a task's history an Undo looks for its commit.
    static let undoDepth = 50

    // MARK: Checklists

    private func item(_ session: Session, _ form: Form, _ context: ServeContext, check: Bool) throws -> Response {
        let id = try site.taskID(try context.parameters.require("id"))
        let key = try context.parameters.require("key")
        guard key.utf8.count == 16, key.utf8.allSatisfy(isLowerHex) else { throw PageError(status: 404) }
        let back = Redirect.back(form, site: site, fallback: site.prefix + "/t/" + id.hex)
        let h = try site.store { () throws(StoreError) in try site.openForChange(member: session.member) }
        // By its key: an index would shift, and the text may be ambiguous once normalised. A
        // task or an item that is gone is the store's to refuse (`taskNotFound`,
        // `itemNotFound`), worded by `ServeWording.failure`.
        var edit = TaskEdit()
        let name = Household.itemKeyPrefix + key
        if check { edit.checkItems = [name] } else { edit.uncheckItems = [name] }
        let outcome = try site.store { () throws(StoreError) in try h.edit(id.hex, edit) }
        site.afterChange(commit: outcome.commit)
        return Redirect.see(
            back, notice: outcome.commit == nil ? .unchanged : check ? .checked : .unchecked, site: site,
            undo: outcome.commit.flatMap { Undoable(task: id.hex, commit: $0) })
    }

    private func addItem(_ session: Session, _ form: Form, _ context: ServeContext, _ request: Request) throws -> Response {
        let idText = try context.parameters.require("id")
        let id = try site.taskID(idText)
        let typed = form["text"] ?? ""
        let text: String
        switch FormInput.item(typed) {
        case .success(let t): text = t
        case .failure(let problem):
            return try TaskPage.render(site, session, id: idText, request: request, itemError: problem.message, itemText: typed)
        }
        let h = try site.store { () throws(StoreError) in try site.openForChange(member: session.member) }
        var edit = TaskEdit()
        edit.addItems = [text]
        let outcome = try site.store { () throws(StoreError) in try h.edit(id.hex, edit) }
        site.afterChange(commit: outcome.commit)
        return Redirect.see(site.prefix + "/t/" + id.hex, notice: outcome.commit == nil ? .itemKnown : .itemAdded, site: site)
    }

    // MARK: Add

    private func add(_ session: Session, _ form: Form) throws -> Response {
        var typed = AddPage.Typed()
        typed.title = form["title"] ?? ""
        typed.due = form["due"] ?? ""
        typed.dueDate = form["due-date"] ?? ""
        typed.dueTime = form["due-time"] ?? ""
        typed.assignee = form["assignee"] ?? ""
        typed.tags = form["tags"] ?? ""
        typed.form = form["form"] ?? ""
        guard typed.form.utf8.count == 32, typed.form.utf8.allSatisfy(isLowerHex) else {
            throw PageError(status: 422, title: "Form out of date", text: "This form is out of date. Open Add again.")
        }
        let h = try site.store { () throws(StoreError) in try site.openForChange(member: session.member) }
        // The form's id is the task's: a resubmission finds it and changes nothing, even
        // after a restart.
        if let id = TaskID(typed.form), (try? h.snapshot().task(id)) != nil {
            return Redirect.see(site.prefix + "/t/" + typed.form, notice: .addedBefore, site: site)
        }
        var errors: [String: String] = [:]
        var new = NewTask(title: "")
        new.id = typed.form
        // The sentences `todo add` gives for the same text (TodoWording).
        switch FormInput.title(typed.title) {
        case .success(let t): new.title = t
        case .failure(let p): errors["title"] = p.message
        }
        switch AddPage.due(typed, clock: h.clock) {
        case .success(let due)?: new.due = due
        case .failure(let p)?: errors["due"] = p.message
        case nil: break
        }
        switch FormInput.assignee(typed.assignee) {
        case .success(let n?): new.assignee = (try? h.knownMember(n)) ?? n  // a roster that cannot be read: the name as typed; the transaction reports the file
        case .success(nil): break
        case .failure(let p): errors["assignee"] = p.message
        }
        for word in typed.tags.split(whereSeparator: { $0 == " " || $0 == "," }) {
            switch FormInput.tag(String(word)) {
            case .success(let t): if !new.tags.contains(t) { new.tags.append(t) }
            case .failure(let p): errors["tags"] = p.message
            }
        }
        if !errors.isEmpty {
            let members = (try? h.memberNames()) ?? []  // unreadable: the select offers the typed name alone
            return AddPage.render(site, session, typed: typed, errors: errors, members: members)
        }
        let outcome = try site.store { () throws(StoreError) in try h.add(new) }
        site.afterChange(commit: outcome.commit)
        return Redirect.see(site.prefix + "/t/" + typed.form, notice: outcome.commit == nil ? .addedBefore : .added, site: site)
    }
}
