import Crypto
import Hummingbird
import NIOCore
import TodoCore
import TodoStore

/// The Done links of the hub's reminders (docs/SERVE.md, "Reminders from the hub"): one per
/// item, `BASE/r/TOKEN`, where TOKEN names the member, the task, the reminder's household day
/// and, for a chore, the occurrence, and carries an HMAC-SHA256 of them under a secret of this
/// server (`reminder-links.key` in its state folder). The same reminder gives the same links,
/// so a retried reminder is byte for byte the same. A link is good until the end of the
/// household day after its day, and only while the member has not left. `GET` shows a page with
/// a Done button and changes nothing (mail scanners follow links); `POST` (ntfy's action
/// button, or that page's button) credits the member for that occurrence, once: the store's
/// completion makes no commit when it is done already.
struct ReminderLinks: Sendable {
    /// What a link names.
    struct Target: Equatable, Sendable {
        var member: String
        var id: TaskID
        /// The reminder's household day.
        var day: CivilDate
        /// The chore's occurrence; nil for a task.
        var occurrence: CivilDate?
    }

    /// The secret's 32 bytes.
    let secret: [UInt8]
    var key: SymmetricKey { SymmetricKey(data: secret) }

    /// The key of `state`, made (32 random bytes) the first time.
    static func load(_ state: StateFolder) throws(StateError) -> ReminderLinks {
        let name = "reminder-links.key"
        if let bytes = try state.read(name), bytes.count == 32 { return ReminderLinks(secret: bytes) }
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
        try state.replace(name, with: bytes)
        return ReminderLinks(secret: bytes)
    }

    /// The key of `state` when the server made one; nil otherwise (nothing is written).
    static func existing(_ state: StateFolder) -> ReminderLinks? {
        // Unreadable is as absent: `todo remind` then sends without links, as with no server.
        guard let bytes = (try? state.read("reminder-links.key")) ?? nil, bytes.count == 32 else { return nil }
        return ReminderLinks(secret: bytes)
    }

    /// The address the server serves, as it recorded it when it started listening
    /// (`StateFolder.recordBase`, the file `base-url`).
    static func recordedBase(_ state: StateFolder) -> String? {
        // Unreadable is as absent: no links (above).
        ((try? state.recordedBase()) ?? nil)?.text
    }

    /// The server's links, or none when its state folder cannot keep the secret: reminders then
    /// go without Done buttons and `/r/` answers 404, and the rest of the server works.
    static func forServer(_ state: StateFolder) -> ReminderLinks? {
        try? load(state)  // none: see above
    }

    private func payload(_ t: Target) -> [UInt8] {
        Array("\(t.member)\u{0}\(t.id.hex)\u{0}\(t.day)\u{0}\(t.occurrence.map { "\($0)" } ?? "")".utf8)
    }

    private func mac(_ payload: [UInt8]) -> String {
        base64url(Array(HMAC<SHA256>.authenticationCode(for: payload, using: key)))
    }

    /// The token of `target`.
    func token(_ target: Target) -> String {
        let p = payload(target)
        return base64url(p) + "." + mac(p)
    }

    /// What `token` names, when its HMAC is this server's; nil otherwise.
    func target(_ token: String) -> Target? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count <= 1024, let bytes = base64urlDecode(String(parts[0])),
            TokenHash.constantTimeEqual(String(parts[1]), mac(bytes))
        else { return nil }
        let fields = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard fields.count == 4, !fields[0].isEmpty, let id = TaskID(fields[1]), let day = CivilDate(iso: Substring(fields[2])) else {
            return nil
        }
        let occurrence = fields[3].isEmpty ? nil : CivilDate(iso: Substring(fields[3]))
        if !fields[3].isEmpty && occurrence == nil { return nil }
        return Target(member: fields[0], id: id, day: day, occurrence: occurrence)
    }

    /// The Done links and the member's page for `message` (at most three, ntfy's limit).
    func decorate(_ message: inout ReminderMessage, base: String) {
        guard let day = message.day else { return }
        let member = message.member
        message.links = message.items.prefix(3).map { item in
            let t = Target(member: member, id: item.id, day: day, occurrence: item.isChore ? item.due?.date : nil)
            return ReminderLink(label: "Done: " + ReminderText.line(item.title), url: base + "/r/" + token(t))
        }
        message.click = base + "/"
    }
}

/// Base64url without padding, decoded; nil for anything else.
func base64urlDecode(_ text: String) -> [UInt8]? {
    var values: [UInt8] = []
    for b in text.utf8 {
        switch b {
        case 0x41...0x5A: values.append(b - 0x41)
        case 0x61...0x7A: values.append(b - 0x61 + 26)
        case 0x30...0x39: values.append(b - 0x30 + 52)
        case 0x2D: values.append(62)
        case 0x5F: values.append(63)
        default: return nil
        }
    }
    guard values.count % 4 != 1 else { return nil }
    var out: [UInt8] = []
    var i = 0
    while i < values.count {
        let chunk = values[i..<min(i + 4, values.count)]
        var v: UInt32 = 0
        for (k, x) in chunk.enumerated() { v |= UInt32(x) << UInt32(18 - 6 * k) }
        for k in 0..<(chunk.count - 1) { out.append(UInt8((v >> UInt32(16 - 8 * k)) & 0xFF)) }
        i += 4
    }
    return out
}

/// `GET /r/TOKEN` and `POST /r/TOKEN`.
struct ReminderLinkRoutes {
    let site: Site
    let links: ReminderLinks

    func register(on g: RouterGroup<ServeContext>) {
        g.get("/r/:token") { request, context in try await answer(context, act: false) }
        g.post("/r/:token") { request, context in try await answer(context, act: true) }
    }

    private func answer(_ context: ServeContext, act: Bool) async throws -> Response {
        let token = try context.parameters.require("token")
        let client = context.client
        let site = self.site
        let links = self.links
        let work: @Sendable () throws -> Response = {
            guard let target = links.target(token) else {
                site.limiter.failed(client)
                return Self.page(site, status: .notFound, title: "Not a link of this household", text: "This link is not one this server made.")
            }
            let reader = try site.store { () throws(StoreError) in try site.openForReading() }
            let today = reader.clock.today
            // A member whose latest roster entry is `left`, whatever its date: the link is theirs no more.
            if try site.store({ () throws(StoreError) in try reader.standing(of: target.member) }) == .left {
                return Self.page(
                    site, status: .gone, title: "\(Pages.safe(target.member)) is no longer a member of this household",
                    text: "A reminder's Done button works only for a member of the household; nothing was changed.")
            }
            if today.daysSinceEpoch > target.day.daysSinceEpoch + 1 {
                return Self.page(
                    site, status: .gone, title: "This link has expired",
                    text: "A reminder's Done button works until the end of the next day, and only for a member of the household.")
            }
            guard let task = try site.store({ () throws(StoreError) in try reader.snapshot().task(target.id) }), !task.deleted else {
                return Self.page(site, status: .notFound, title: "No such task", text: "This task is not in the household (it may have been removed).")
            }
            let title = Pages.safe(ReminderText.line(task.title))
            let member = Pages.safe(target.member)
            guard act else {
                return Self.page(
                    site, status: .ok, title: "Done?", text: "Mark \u{201C}\(title)\u{201D} done for \(member)?",
                    button: site.prefix + "/r/" + token)
            }
            let h = try site.store { () throws(StoreError) in try site.openForChange(member: target.member) }
            let outcome = try site.store { () throws(StoreError) in try h.complete([target.id.hex], .done, on: target.occurrence) }
            site.afterChange(commit: outcome.commit)
            return Self.page(
                site, status: .ok, title: outcome.commit == nil ? "Already done" : "Done",
                text: outcome.commit == nil ? "\u{201C}\(title)\u{201D} was done already." : "\u{201C}\(title)\u{201D} is done. Thank you, \(member).")
        }
        return act ? try await site.workers.write(work) : try await site.workers.read(work)
    }

    /// The page's message template (everything HTML-escaped, as every page): a title, a
    /// sentence, and the Done button for a GET.
    static func page(_ site: Site, status: HTTPResponse.Status, title: String, text: String, button: String? = nil) -> Response {
        var c = Pages.frame(site, nil, title: title)
        c["paragraphs"] = [text]
        if let button { c["button"] = ["action": button, "label": "Done"] }
        var response = Pages.html(site.render("message", c), status: status)
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
