import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// The routes through Hummingbird's in-process client (docs/SERVE.md, "Tests").
@Suite(.kit, .timeLimit(.minutes(5)), .serialized)
struct ServeRouteTests {
    static let securityHeaders: [(String, String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; style-src 'self'; img-src 'self'; manifest-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        ),
        ("Referrer-Policy", "same-origin"), ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"),
    ]

    func expectSecurityHeaders(_ r: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        for (name, value) in Self.securityHeaders {
            #expect(r.headers[HTTPField.Name(name)!] == value, "\(name) on \(r.status)", sourceLocation: sourceLocation)
        }
    }

    @Test func everyPageAnswersAndCarriesTheSecurityHeaders() async throws {
        let f = try ServeFixture()
        let id = try f.taskID(titled: "Ann's first chore")
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            for path in ["/", "/tasks", "/tasks?which=all&tag=x&assignee=Ann&overdue=1", "/t/\(id)", "/add", "/lists", "/changes", "/sync", "/feed"] {
                let r = try await client.get(path, device)
                #expect(r.status == .ok, "\(path)")
                #expect(r.headers[.contentType] == "text/html; charset=utf-8", "\(path)")
                #expect(r.headers[.cacheControl] == "no-store", "\(path)")
                #expect(r.text.contains("<html lang=\"en\">") && r.text.contains("<main id=\"content\">"), "\(path)")
                #expect(r.text.contains("href=\"#content\">Skip to content</a>"), "\(path)")
                for nav in ["Mine", "All tasks", "Lists", "Add", "Changes", "Sync", "Calendar"] {
                    #expect(r.text.contains(">\(nav)</a>"), "\(path) nav \(nav)")
                }
                expectSecurityHeaders(r)
            }
            let css = try await client.get("/static/app.css")
            #expect(css.status == .ok && css.headers[.contentType] == "text/css; charset=utf-8")
            expectSecurityHeaders(css)
            for (path, status) in [("/", 401), ("/nowhere", 404), ("/t/zz", 401)] {
                let r = try await client.get(path)
                #expect(r.status.code == status, "\(path)")
                #expect(!r.text.contains("Error(") && !r.text.contains(f.home), "\(path) tells nothing of the server")
                expectSecurityHeaders(r)
            }
            let notTask = try await client.get("/t/zz", device)
            #expect(notTask.status == .notFound)
            let gone = try await client.get("/t/" + String(repeating: "a", count: 32), device)
            #expect(gone.status == .notFound)
            expectSecurityHeaders(gone)
        }
    }

    @Test func signInChangesNothingUntilThePostAndAnInviteWorksOnce() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let token = try f.invite("ann")
            let page = try await client.get("/i/\(token)")
            #expect(page.status == .ok)
            #expect(page.text.contains("<form method=\"post\" action=\"/i\">"))
            #expect(page.text.contains("name=\"token\" value=\"\(token)\""))
            #expect(page.text.contains(">Sign in</button>"))
            // Looking twice (a messenger's preview) does not use it up.
            #expect(try await client.get("/i/\(token)").status == .ok)
            let r = try await client.post("/i", nil, [("token", token)])
            #expect(r.status == .seeOther && r.headers[.location] == "/" && r.notice == "signed-in")
            let cookie = try #require(r.headers[values: .setCookie].first { $0.hasPrefix("todo_session=") })
            #expect(cookie.hasPrefix("todo_session=") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"))
            #expect(cookie.contains("Path=/") && !cookie.contains("Secure"))
            expectSecurityHeaders(r)
            // Used: refused, and the page says what to do.
            let again = try await client.post("/i", nil, [("token", token)])
            #expect(again.status == .unauthorized && again.text.contains("Ask for a new sign-in link"))
            #expect(try await client.get("/i/\(token)").status == .unauthorized)
            // Unknown or malformed tokens.
            #expect(try await client.get("/i/12345678.xyz").status == .unauthorized)
            #expect(try await client.post("/i", nil, [("token", "../../etc/passwd")]).status == .unauthorized)
        }
        // Only hashes at rest.
        let stored = try String(contentsOfFile: f.site.state.file("tokens.json"), encoding: .utf8)
        #expect(stored.contains("\"sha256\""))
        let mode = try FileManager.default.attributesOfItem(atPath: f.site.state.file("tokens.json"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let dirMode = try FileManager.default.attributesOfItem(atPath: f.site.state.path)[.posixPermissions] as? Int
        #expect(dirMode == 0o700)
    }

    @Test func expiredRevokedAndForgedTokensAreRefused() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let old = try f.invite("Ann", now: f.site.now() - 8 * 86_400_000)
            #expect(try await client.get("/i/\(old)").status == .unauthorized)
            #expect(try await client.post("/i", nil, [("token", old)]).status == .unauthorized)

            let device = try await client.signIn(f, as: "Ann")
            #expect(try await client.get("/", device).status == .ok)
            // A cookie with the right id and a wrong secret.
            let forged = Device(cookie: String(device.cookie.prefix(9)) + String(repeating: "A", count: 43), csrf: device.csrf)
            #expect(try await client.get("/", forged).status == .unauthorized)
            // Revoked from the shell: refused from the next request on.
            #expect(try f.site.tokens.revoke(member: "ann", device: nil, feedOnly: false) == 1)
            #expect(try await client.get("/", device).status == .unauthorized)
        }
    }

    @Test func aPostWithoutTheRightCSRFValueOrFromAnotherOriginChangesNothing() async throws {
        let f = try ServeFixture()
        let id = try f.taskID(titled: "Ann's first chore")
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            let before = try f.commitCount()
            #expect(try await client.post("/t/\(id)/done", nil, []).status == .unauthorized)
            var missing = try await client.execute(
                uri: "/t/\(id)/done", method: .post, headers: device.formHeaders(), body: ByteBuffer(string: ""))
            #expect(missing.status == .forbidden)
            missing = try await client.post("/t/\(id)/done", device, [], csrf: "x")
            #expect(missing.status == .forbidden)
            expectSecurityHeaders(missing)
            let otherSite = try await client.post(
                "/t/\(id)/done", device, [], headers: [.origin: "http://evil.example"])
            #expect(otherSite.status == .forbidden)
            #expect(try f.commitCount() == before)
            // `Origin: null` (a sandboxed or opaque page) names no site this server serves:
            // refused, the right CSRF value or not, and so is a sign-in from it (sign-in CSRF).
            let nullOrigin = try await client.post("/t/\(id)/done", device, [], headers: [.origin: "null"])
            #expect(nullOrigin.status == .forbidden)
            let invite = try f.invite("Ann")
            let foreignSignIn = try await client.post("/i", nil, [("token", invite)], headers: [.origin: "null"])
            #expect(foreignSignIn.status == .forbidden && foreignSignIn.headers[.setCookie] == nil)
            #expect(try await client.post("/i", nil, [("token", invite)], headers: [.origin: "http://localhost:8080"]).status == .seeOther,
                "the invite is still unused after the refused sign-in")
            #expect(nullOrigin.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin")
            // The same with a matching Origin goes through.
            let ok = try await client.post("/t/\(id)/done", device, [], headers: [.origin: "http://localhost:8080"])
            #expect(ok.status == .seeOther)
            #expect(try f.commitCount() == before + 1)
        }
    }

    @Test func aForeignHostIsRefusedBeforeAnything() async throws {
        // Listening on every address adds no name; only --host's.
        let f = try ServeFixture { $0.listenHost = "0.0.0.0"; $0.extraHosts = ["nas.example"] }
        try await f.application().test(.router) { client in
            // The in-process client always says Host: localhost.
            let r = try await client.get("/static/app.css")
            #expect(r.status.code == 421)
            expectSecurityHeaders(r)
        }
        #expect(f.site.config.allowedHosts == ["nas.example"])
    }

    @Test func sizeLimitsAnswer413And422() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            let before = try f.commitCount()
            let big = try await client.post("/add", device, [("title", String(repeating: "x", count: 20_000)), ("form", String(repeating: "a", count: 32))])
            #expect(big.status.code == 413)
            expectSecurityHeaders(big)
            let long = try await client.post(
                "/add", device, [("title", String(repeating: "x", count: 1_001)), ("form", String(repeating: "b", count: 32)), ("due", "frydai")])
            #expect(long.status.code == 422)
            #expect(long.text.contains("<p class=\"error\" id=\"title-error\">The title is longer than 1000 characters.</p>"))
            #expect(long.text.contains("aria-invalid=\"true\" aria-describedby=\"title-error\""))
            #expect(long.text.contains("<p class=\"error\" id=\"due-error\">&quot;frydai&quot; is not a date I understand."))
            #expect(long.text.contains("value=\"frydai\""), "what was typed is kept")
            let empty = try await client.post("/add", device, [("title", "  "), ("form", String(repeating: "c", count: 32))])
            #expect(empty.status.code == 422 && empty.text.contains("id=\"title-error\">The title is empty."))
            let id = try f.taskID(titled: "Ann's first chore")
            let item = try await client.post("/t/\(id)/items", device, [("text", String(repeating: "y", count: 201))])
            #expect(item.status.code == 422 && item.text.contains("id=\"text-error\""))
            #expect(try f.commitCount() == before)
            #expect(try await client.get("/tasks?tag=" + String(repeating: "x", count: 2_100), device).status.code == 414)
            let fat = try await client.get("/", device, headers: [HTTPField.Name("X-Padding")!: String(repeating: "p", count: 9_000)])
            #expect(fat.status.code == 431)
            expectSecurityHeaders(fat)
        }
    }

    @Test func aClientOverItsLimitsGets429AndForwardedForIsIgnoredWithoutTrustProxy() async throws {
        let f = try ServeFixture(limits: RateLimiter.Limits(requests: 5, posts: 2, failures: 3))
        try await f.application().test(.router) { client in
            for i in 0..<5 {
                #expect(try await client.get("/static/app.css", headers: [HTTPField.Name("X-Forwarded-For")!: "10.0.0.\(i)"]).status == .ok)
            }
            let r = try await client.get("/static/app.css", headers: [HTTPField.Name("X-Forwarded-For")!: "10.0.0.99"])
            #expect(r.status == .tooManyRequests)
            #expect(r.headers[.retryAfter] != nil)
            expectSecurityHeaders(r)
        }
        let g = try ServeFixture(limits: RateLimiter.Limits(requests: 100, posts: 100, failures: 3))
        try await g.application().test(.router) { client in
            for _ in 0..<3 { #expect(try await client.get("/i/12345678." + String(repeating: "a", count: 43)).status == .unauthorized) }
            // Past the failed-token limit, even a good invite waits.
            let token = try g.invite("Ann")
            #expect(try await client.get("/i/\(token)").status == .tooManyRequests)
        }
    }

    @Test func hostileTextIsShownAsText() async throws {
        let f = try ServeFixture()
        let h = try f.household()
        var t = NewTask(title: "<script>alert(1)</script>")
        t.notes = "\"><img src=x onerror=alert(1)>"
        t.assignee = "Ann"
        t.due = Due(date: h.clock.today)
        t.tags = ["<b>"]
        let id = try #require(try h.add(t).tasks.first).task.id.hex
        var edit = TaskEdit()
        edit.addItems = ["<i onmouseover=alert(1)>milk"]
        _ = try h.edit(id, edit)
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            for path in ["/", "/tasks", "/t/\(id)", "/lists"] {
                let r = try await client.get(path, device)
                #expect(r.status == .ok)
                #expect(!r.text.contains("<script>") && !r.text.contains("<img") && !r.text.contains("<i ") && !r.text.contains("<b>"), "\(path)")
            }
            let page = try await client.get("/t/\(id)", device)
            #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(page.text.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"))
            #expect(page.text.contains("aria-label=\"Done: &lt;script&gt;alert(1)&lt;/script&gt;\""))
        }
    }

    @Test func templatesNeverWriteUnescaped() {
        for (name, text) in Templates.all {
            #expect(!text.contains("{{{") && !text.contains("{{&"), "\(name)")
            #expect(!text.contains("<script") && !text.contains("style="), "\(name)")
        }
    }

    @Test func theColoursReachTheirContrast() {
        func luminance(_ hex: String) -> Double {
            let v = Int(hex.dropFirst(), radix: 16)!
            return [16, 8, 0].map { shift -> Double in
                let c = Double((v >> shift) & 255) / 255
                return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
            }.enumerated().map { [0.2126, 0.7152, 0.0722][$0.offset] * $0.element }.reduce(0, +)
        }
        // The home screen icon's tick is white on the household's colour (a graphic: 3:1).
        for (fg, bg, need) in Palette.textPairs + HomeScreen.colours.map({ ("#ffffff", $0, 3.0) }) {
            let (a, b) = (luminance(fg), luminance(bg))
            let ratio = (max(a, b) + 0.05) / (min(a, b) + 0.05)
            #expect(ratio >= need, "\(fg) on \(bg): \(ratio)")
        }
        #expect(Style.css.contains("min-height:44px") && Style.css.contains(":focus"))
    }

    @Test func forwardedHeadersCountOnlyFromATrustedProxy() {
        var config = ServeConfig(household: "home")
        #expect(Guard.client(peer: "10.0.0.7", config: config, forwardedFor: ["1.2.3.4"], forwardedProto: "https") == ("10.0.0.7", false))
        config.trustProxy = ["127.0.0.1"]
        #expect(Guard.client(peer: "10.0.0.7", config: config, forwardedFor: ["1.2.3.4"], forwardedProto: "https") == ("10.0.0.7", false))
        // The rightmost entry is the one the proxy added; what the client wrote before it is not believed.
        #expect(
            Guard.client(peer: "127.0.0.1", config: config, forwardedFor: ["6.6.6.6, 192.168.1.20"], forwardedProto: "https")
                == ("192.168.1.20", true))
        // Without X-Forwarded-For the client is unknown, never this machine.
        #expect(Guard.client(peer: "127.0.0.1", config: config, forwardedFor: [], forwardedProto: nil) == (Guard.unknownBehindProxy, false))
        #expect(Guard.client(peer: "127.0.0.1", config: config, forwardedFor: [" "], forwardedProto: "https") == (Guard.unknownBehindProxy, true))
        #expect(!DAVAuth.transportAllowed(address: Guard.unknownBehindProxy, secure: false))
    }

    @Test func aBaseURLPathPrefixesEveryRoute() async throws {
        let f = try ServeFixture { $0.baseURL = BaseURL.parse("https://nas.example/todo/") }
        #expect(f.site.config.allowedHosts.contains("nas.example") && f.site.config.allowedHosts.contains("localhost"))
        try await f.application().test(.router) { client in
            #expect(try await client.get("/todo/static/app.css").status == .ok)
            #expect(try await client.get("/static/app.css").status == .notFound)
            let token = try f.invite("Ann")
            let page = try await client.get("/todo/i/\(token)")
            #expect(page.text.contains("action=\"/todo/i\"") && page.text.contains("href=\"/todo/static/app.css\""))
            let r = try await client.post("/todo/i", nil, [("token", token)])
            #expect(r.headers[.location] == "/todo/")
            let cookie = try #require(r.headers[values: .setCookie].first { $0.hasPrefix("todo_session=") })
            #expect(cookie.contains("Path=/todo;"))
            let secret = try #require(cookie.split(separator: ";").first?.split(separator: ".").last)
            let device = Device(cookie: String(try #require(cookie.split(separator: ";").first?.dropFirst(13))), csrf: TokenHash.csrf(sessionSecret: String(secret)))
            let mine = try await client.get("/todo/", device)
            #expect(mine.status == .ok && mine.text.contains("href=\"/todo/tasks\">All tasks</a>"))
            let made = try await client.post("/todo/feed/new", device)
            #expect(made.headers[.location] == "/todo/feed")
            let feed = try await client.get("/todo/feed", device)
            #expect(feed.text.contains("value=\"https://nas.example/todo/feed/"))
        }
    }
}
