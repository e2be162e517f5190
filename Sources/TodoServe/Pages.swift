import Hummingbird
import NIOCore
import TodoCore
import TodoStore

/// Turns what the store answers into page contexts and HTML. Runs on the worker queues.
enum Pages {
    /// Text from a task file, made safe to show (control characters and bidirectional
    /// overrides visible); the template escapes it for HTML.
    static func safe(_ s: String) -> String { DisplayText.escaped(s) }

    /// Notes keep their line breaks; each line is made safe.
    static func safeLines(_ s: String) -> String {
        s.split(separator: "\n", omittingEmptySubsequences: false).map { DisplayText.escaped(String($0)) }.joined(separator: "\n")
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// What every page's top and bottom need; with `request`, the notice a POST left for this
    /// page and its Undo.
    static func frame(_ site: Site, _ session: Session?, title: String, nav: String? = nil, request: Request? = nil) -> [String: Any] {
        var c: [String: Any] = [
            "pageTitle": title, "household": safe(site.household), "base": site.prefix, "signedIn": session != nil,
            "themeColor": HomeScreen.colour(for: site.household),
        ]
        if let session {
            c["member"] = safe(session.member)
            c["csrf"] = session.csrf
        }
        if let nav { c[nav] = true }
        if let request, let notice = notice(request) {
            c["notice"] = notice.text
            if let session, let undo = undoable(request) {
                c["undo"] = ["task": undo.task, "commit": undo.commit, "csrf": session.csrf, "back": request.uri.string]
            }
        }
        return c
    }

    /// The notice a POST left for this page (`Redirect.see`); `Routes.page` clears it.
    static func notice(_ request: Request) -> Notice? {
        Cookie.value(Cookie.noticeName, in: request).flatMap { Notice(rawValue: String($0.prefix { $0 != "~" })) }
    }

    /// The change the notice offers to take back, if it offers one.
    static func undoable(_ request: Request) -> Undoable? {
        guard let parts = Cookie.value(Cookie.noticeName, in: request)?.split(separator: "~"), parts.count == 3 else { return nil }
        return Undoable(task: String(parts[1]), commit: String(parts[2]))
    }

    /// The task files that cannot be read, named above a list that leaves them out (as
    /// `todo list` warns): their path in the household and why, at most 20.
    static func unreadable(_ bad: [BadFile], into c: inout [String: Any]) {
        guard !bad.isEmpty else { return }
        c["unreadable"] = [
            "intro": bad.count == 1
                ? "One task file cannot be read, so it is left out of this page:"
                : "\(bad.count) task files cannot be read, so they are left out of this page:",
            "files": bad.prefix(20).map { ["path": safe($0.path), "reason": safe($0.reason)] },
            "advice": ServeWording.askOwner,
        ]
    }

    // MARK: Error pages

    static func error(_ site: Site, _ e: PageError) -> Response {
        var headers: HTTPFields = [:]
        if let wait = e.retryAfter { headers[.retryAfter] = "\(wait)" }
        return html(errorHTML(site, e), status: HTTPResponse.Status(code: e.status), headers: headers)
    }

    /// The error page's HTML.
    static func errorHTML(_ site: Site, _ e: PageError) -> String {
        let (title, text) = words(e)
        var c = frame(site, nil, title: title)
        c["paragraphs"] = [text]
        return site.render("message", c)
    }

    static func words(_ e: PageError) -> (String, String) {
        if let title = e.title, let text = e.text { return (title, text) }
        switch e.status {
        case 400: return ("Not understood", "What was sent is not a form of this site, so nothing was changed. Go back, reload the page and try again.")
        case 401: return ("Ask for a new sign-in link", "This device is not signed in, or its sign-in has ended. Ask whoever runs the household's server for a new sign-in link.")
        case 403: return ("Refused", "This form is out of date or came from another site, so nothing was changed. Go back, reload the page and try again.")
        case 404: return ("Not found", "There is no such page.")
        case 405: return ("Not allowed", "This page does not take that kind of request.")
        case 413: return ("Too much", "What was sent is larger than this server takes. Nothing was changed.")
        case 414: return ("Address too long", "The page address is longer than this server takes.")
        case 421: return ("Wrong address", "This server does not answer to that name. Use the address you were given.")
        case 422: return ("Not accepted", "Something typed was not accepted. Go back and check the form.")
        case 429: return ("Too many requests", "This device sent too many requests. Wait a little, then try again.")
        case 431: return ("Too much", "The request's headers are larger than this server takes.")
        default: return ("Something went wrong", "The server could not answer. Nothing was changed. " + ServeWording.askOwner)
        }
    }

    // MARK: Rows

    /// A task as one row of a list, with its Done (and, for a chore, Skip) buttons.
    static func row(
        _ task: Task, site: Site, session: Session, today: CivilDate, minute: Int, back: String, context: TurnContext
    ) -> [String: Any] {
        let (due, who) = Agenda.due(of: task, today: today, context: context)
        let open = task.status == .open && !task.deleted
        var r: [String: Any] = [
            "id": task.id.hex, "title": safe(task.title), "open": open, "chore": task.recurrence != nil, "back": back,
            "csrf": session.csrf, "base": site.prefix,
        ]
        if let due {
            r["due"] = due.display(today: today)
            let overdue = due.date < today || (due.date == today && (due.minutes ?? 24 * 60) <= minute)
            r["overdue"] = open && overdue
        }
        if task.recurrence != nil, let due { r["occurrence"] = due.date.description }
        if let who { r["who"] = safe(who) }
        let items = task.visibleItems
        if !items.isEmpty { r["items"] = "\(items.filter { $0.state == .checked }.count)/\(items.count) items" }
        if !task.tags.isEmpty { r["tags"] = task.tags.map { "+" + safe($0) }.joined(separator: " ") }
        if task.status == .done { r["due"] = "done" }
        return r
    }

    static func itemRows(_ task: Task, site: Site, session: Session, back: String) -> [[String: Any]] {
        task.visibleItems.map { item in
            let checked = item.state == .checked
            return [
                "id": task.id.hex, "key": item.key, "text": safe(item.text), "checked": checked,
                "action": checked ? "uncheck" : "check", "csrf": session.csrf,
                "back": back, "base": site.prefix,
            ]
        }
    }
}
