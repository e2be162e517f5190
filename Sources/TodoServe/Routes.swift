import HTTPTypes
import Hummingbird
import NIOCore
import TodoCore
import TodoStore

/// The routes of docs/SERVE.md, "Pages and routes". Every handler does its blocking work on
/// the workers (reads on a reader queue, changes on the writer queue).
struct Routes {
    let site: Site

    /// The router every route goes on: a GET route answers HEAD too, as the GET without the
    /// body (RFC 9110 §9.3.2), unless the route takes HEAD itself (CalDAV's).
    static func router() -> Router<ServeContext> { Router(context: ServeContext.self, options: .autoGenerateHeadEndpoints) }

    func register(on router: Router<ServeContext>) {
        let allowed = AllowedMethods()
        router.add(middleware: Guard(site: site, allowed: allowed))
        defer { allowed.record(router.routes) }
        let g = site.prefix.isEmpty ? router.group() : router.group(RouterPath(site.prefix))
        g.get("/static/app.css") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=3600"],
                body: .init(byteBuffer: ByteBuffer(string: Style.css)))
        }
        g.get("/health") { _, _ in try await Health.answer(site) }
        g.get("/i/:token") { request, context in try await signInPage(request, context) }
        g.post("/i") { request, context in try await signIn(request, context) }
        g.get("/feed/:file") { request, context in try await feedFile(request, context) }
        g.get("/") { request, context in try await page(request, context) { s in try MinePage.render(site, s, request) } }
        g.get("/tasks") { request, context in try await page(request, context) { s in try ListPages.tasks(site, s, request) } }
        g.get("/t/:id") { request, context in
            let id = try context.parameters.require("id")
            return try await page(request, context) { s in try TaskPage.render(site, s, id: id, request: request) }
        }
        g.get("/add") { request, context in try await page(request, context) { s in AddPage.render(site, s, request) } }
        g.get("/lists") { request, context in try await page(request, context) { s in try ListPages.lists(site, s, request) } }
        g.get("/changes") { request, context in try await page(request, context) { s in try OtherPages.changes(site, s, request) } }
        g.get("/sync") { request, context in try await page(request, context) { s in try OtherPages.sync(site, s, request) } }
        g.get("/feed") { request, context in try await page(request, context) { s in try OtherPages.feed(site, s, request) } }
        g.get("/phone") { request, context in try await page(request, context) { s in try OtherPages.phone(site, s, request, made: nil) } }
        g.post("/phone/new") { request, context in try await phoneChange(request, context) { s, _ in try phoneNew(s) } }
        g.post("/phone/revoke") { request, context in try await phoneChange(request, context) { s, form in try phoneRevoke(s, form) } }
        Changes(site: site).register(on: g)
        HomeScreen(site: site).register(on: g)
        if let links = site.reminderLinks { ReminderLinkRoutes(site: site, links: links).register(on: g) }
        DAVRoutes(site: site).register(on: router)
    }

    /// A page for a signed-in member: 401 without a live session.
    func page(
        _ request: Request, _ context: ServeContext, write: Bool = false,
        _ body: @escaping @Sendable (Session) throws -> Response
    ) async throws -> Response {
        let cookie = Cookie.token(request)
        let client = context.client
        let secure = context.secure
        let hadNotice = Pages.notice(request) != nil
        let site = self.site
        let work: @Sendable () throws -> Response = {
            let session = try site.session(cookie, client: client)
            var response = try body(session)
            if session.renew, let cookie {
                response.headers.append(HTTPField(name: .setCookie, value: Cookie.set(cookie, secure: secure, path: site.prefix)))
            }
            if hadNotice { response.headers.append(HTTPField(name: .setCookie, value: Cookie.clearNotice(path: site.prefix))) }
            return response
        }
        return write ? try await site.workers.write(work) : try await site.workers.read(work)
    }

    // MARK: Sign-in

    /// `GET /i/<token>`: changes nothing; shows who the link signs in, and the button.
    func signInPage(_ request: Request, _ context: ServeContext) async throws -> Response {
        let token = try context.parameters.require("token")
        let client = context.client
        let site = self.site
        let cookie = Cookie.token(request)
        return try await site.workers.read {
            guard let invite = try site.tokens.liveInvite(token, now: site.now()) else {
                if let back = try site.ownUsedInvite(token, cookie: cookie) { return back }
                site.limiter.failed(client)
                throw PageError(status: 401)
            }
            guard try site.admits(id: invite.id, kind: .invite, member: invite.member, membership: invite.membership) != nil else {
                throw PageError(status: 401)
            }
            var c = Pages.frame(site, nil, title: "Sign in")
            c["invitee"] = Pages.safe(invite.member)
            c["token"] = token
            return Pages.html(site.render("signin", c))
        }
    }

    /// `POST /i`: consumes the invite, sets the session cookie, 303 to `/`.
    func signIn(_ request: Request, _ context: ServeContext) async throws -> Response {
        let form = try await Form.read(request)
        let client = context.client
        let secure = context.secure
        let site = self.site
        let cookie = Cookie.token(request)
        return try await site.workers.write {
            // The invite's member's standing, read before the token store's lock is taken.
            let token = form["token"] ?? ""
            let standing = try site.inviteStanding(token)
            let admits: (TokenRecord) -> Bool = { invite in
                standing.map { Site.verdict(membership: invite.membership, standing: $0).keep } ?? false
            }
            switch try site.tokens.signIn(invite: token, now: site.now(), admits: admits) {
            case .failure(.memberLeft):
                throw PageError(status: 401)
            case .failure:
                if let back = try site.ownUsedInvite(form["token"] ?? "", cookie: cookie) { return back }
                site.limiter.failed(client)
                throw PageError(status: 401)
            case .success(let (token, _)):
                var response = Redirect.see(site.prefix + "/", notice: .signedIn, site: site)
                response.headers.append(HTTPField(name: .setCookie, value: Cookie.set(token.text, secure: secure, path: site.prefix)))
                return response
            }
        }
    }

    /// `GET /feed/<token>.ics`: the member's feed, 8 weeks; nothing else for this token.
    func feedFile(_ request: Request, _ context: ServeContext) async throws -> Response {
        let file = try context.parameters.require("file")
        let client = context.client
        let site = self.site
        return try await site.workers.read {
            guard file.hasSuffix(".ics"), let feed = try site.tokens.feed(String(file.dropLast(4)), now: site.now()) else {
                site.limiter.failed(client)
                throw PageError(status: 404)
            }
            // A member who has left: as if the address had never been.
            guard try site.admits(id: feed.id, kind: .feed, member: feed.member, membership: feed.membership) != nil else {
                throw PageError(status: 404)
            }
            let member = feed.member
            let h = try site.store { () throws(StoreError) in try site.openForReading() }
            var options = CalendarFeedOptions()
            options.member = member
            options.weeks = 8
            options.name = "todo: \(member)"
            let bytes: [UInt8]
            switch try site.store({ () throws(StoreError) in try h.calendar(options) }) {
            case .success(let b): bytes = b
            // A member no task names yet: an empty calendar, not an error.
            case .failure: bytes = Array("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//todo//serve//EN\r\nEND:VCALENDAR\r\n".utf8)
            }
            return Response(
                status: .ok, headers: [.contentType: "text/calendar; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
    }
}

extension Site {
    /// The live session a cookie names, else 401 (a cookie that names none counts as a failed
    /// token check for the client).
    func session(_ cookie: String?, client: String) throws -> Session {
        guard let cookie else { throw PageError(status: 401) }
        guard let session = try tokens.session(cookie: cookie, now: now()) else {
            limiter.failed(client)
            throw PageError(status: 401)
        }
        // A member whose latest roster entry is `left` (or whose membership has ended since
        // the sign-in): refused, not counted as a failed attempt.
        guard let membership = try admits(id: session.id, kind: .session, member: session.member, membership: session.membership) else {
            throw PageError(status: 401)
        }
        var admitted = session
        admitted.membership = membership
        return admitted
    }

    /// Where the member of the invite `token` names stands now; nil when it names no invite.
    func inviteStanding(_ token: String) throws -> Standing? {
        guard let (id, _) = IssuedToken.parse(token) else { return nil }
        let invite: TokenRecord?
        do { invite = try tokens.records().first { $0.id == id && $0.kind == .invite } } catch { throw error.page }
        guard let invite else { return nil }
        return try store { () throws(StoreError) in try self.standing(of: invite.member) }
    }

    /// A used invite link opened again on the device it signed in (a second tap, a bookmark):
    /// not a failed sign-in, and nothing counted against the client; 303 to Mine, saying the
    /// device is signed in. Nil for any other link or device.
    func ownUsedInvite(_ token: String, cookie: String?) throws -> Response? {
        guard let cookie, let (id, _) = IssuedToken.parse(token), let session = try tokens.session(cookie: cookie, now: now()),
            session.invite == id
        else { return nil }
        return Redirect.see(prefix + "/", notice: .signedIn, site: self)
    }

    /// A POST's `csrf` field, compared in constant time with the session's: 403 otherwise.
    func checkCSRF(_ form: Form, _ session: Session) throws {
        guard let value = form["csrf"], TokenHash.constantTimeEqual(value, session.csrf) else { throw PageError(status: 403) }
    }

    /// Runs a store call; a store failure becomes its page.
    func store<T>(_ body: () throws(StoreError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            let (status, title, text) = ServeWording.failure(error)
            throw PageError(status: status, title: title, text: text)
        }
    }

    /// A task id from a URL: exactly 32 hex digits (no prefix), else 404.
    func taskID(_ s: String) throws -> TaskID {
        guard s.utf8.count == 32, s.utf8.allSatisfy(isLowerHex), let id = TaskID(s) else { throw PageError(status: 404) }
        return id
    }
}

extension StateError {
    var page: PageError { PageError(status: 500) }
}
