import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import WordingSamples

@testable import TodoServe

/// App passwords for phones' task apps (docs/SERVE.md, "Phones' task apps"): the subcommand,
/// the token store, HTTP Basic on CalDAV paths and its limits, and the page.
@Suite(.kit, .timeLimit(.minutes(4)), .serialized)
struct AppPasswordTests {
    static let passwordAlphabet = Set("abcdefghjkmnpqrstuvwxyz23456789")

    /// `app-password` through `Subcommands`, its lines of standard output collected.
    func appPassword(_ f: ServeFixture, _ args: [String]) throws -> [String] {
        var lines: [String] = []
        #expect(try Subcommands.appPassword(args, environment: f.environment) { lines.append($0) } == .ok)
        return lines
    }

    func expectWellFormed(user: String, password: String, slug: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(user.hasPrefix(slug + "-") && user.utf8.count == slug.utf8.count + 7, "\(user)", sourceLocation: sourceLocation)
        #expect(AppPassword.isUser(user), "\(user)", sourceLocation: sourceLocation)
        #expect(password.count == 24 && password.allSatisfy(Self.passwordAlphabet.contains), "\(password)", sourceLocation: sourceLocation)
    }

    /// An application with the routes and, for the tests, `GET /dav/probe`: 200 and
    /// `member device` once `davIdentity` signs the request in.
    func application(_ f: ServeFixture) -> some ApplicationProtocol {
        let router = Router(context: ServeContext.self)
        Routes(site: f.site).register(on: router)
        let site = f.site
        router.get("/dav/probe") { request, context in
            let identity = try await site.workers.read { try site.davIdentity(request, context) }
            return "\(identity.member) \(identity.device)"
        }
        return Application(router: router)
    }

    static func basic(_ user: String, _ password: String) -> HTTPFields {
        [.authorization: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()]
    }

    // MARK: The subcommand and the store

    @Test func theSubcommandPrintsAddressUserAndPasswordOnceAndKeepsOnlyTheHash() throws {
        let f = try ServeFixture()
        let lines = try appPassword(f, ["ann"])
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.first == "Address: http://127.0.0.1:8080/dav/")
        let user = String(try #require(lines.dropFirst().first?.dropFirst("User: ".count)))
        let password = String(try #require(lines.last?.dropFirst("Password: ".count)))
        #expect(lines[1].hasPrefix("User: ") && lines[2].hasPrefix("Password: "))
        expectWellFormed(user: user, password: password, slug: "ann")
        // The name as the household spells it, the label "phone" unless given.
        let record = try #require(try f.site.tokens.records().first { $0.kind == .app })
        #expect(record.member == "Ann" && record.label == "phone" && record.user == user && record.expires == nil)
        let stored = try String(contentsOfFile: f.site.state.file("tokens.json"), encoding: .utf8)
        #expect(!stored.contains(password) && stored.contains(TokenHash.sha256(password)) && stored.contains("\"kind\": \"app\""))
        #expect(try f.site.tokens.appMember(user: user, password: password, now: f.site.now())?.member == "Ann")
        #expect(try f.site.tokens.appMember(user: user.uppercased(), password: password, now: f.site.now())?.deviceID == user)
        #expect(try f.site.tokens.appMember(user: user, password: password.uppercased(), now: f.site.now()) == nil)

        let json = try appPassword(f, ["Ben", "--json", "--label", "Ben's tablet", "--base-url", "https://nas.example/todo/"])
        #expect(json.count == 1)
        let v = try JSONParser.parse(Array(try #require(json.first).utf8))
        #expect(v["url"]?.stringValue == "https://nas.example/todo/dav/")
        let jsonUser = try #require(v["user"]?.stringValue)
        let jsonPassword = try #require(v["password"]?.stringValue)
        expectWellFormed(user: jsonUser, password: jsonPassword, slug: "ben")
        #expect(try f.site.tokens.records().contains { $0.user == jsonUser && $0.label == "Ben's tablet" && $0.member == "Ben" })
    }

    @Test func anUnknownNameExits66AndBadArgumentsAreUsageErrors() throws {
        let f = try ServeFixture()
        do {
            _ = try appPassword(f, ["Zed"])
            Issue.record("an unknown member was given an app password")
        } catch let failure as ServeMain.Failure {
            #expect(failure.exit == .noInput && failure.message.contains("no member \"Zed\""))
        }
        #expect(throws: UsageError.self) { try Subcommands.appPassword([], environment: f.environment) { _ in } }
        #expect(throws: UsageError.self) { try Subcommands.appPassword(["Ann", "--nope"], environment: f.environment) { _ in } }
        #expect(throws: UsageError.self) { try Subcommands.appPassword(["Ann", "--base-url", "ftp://x"], environment: f.environment) { _ in } }
        #expect(try f.site.tokens.records().isEmpty)
    }

    @Test func devicesListsAppPasswordsAndRevokeEndsThem() throws {
        let f = try ServeFixture()
        let annUser = String(try appPassword(f, ["Ann"])[1].dropFirst("User: ".count))
        let annSecond = String(try appPassword(f, ["Ann", "--label", "tablet"])[1].dropFirst("User: ".count))
        let benUser = String(try appPassword(f, ["Ben"])[1].dropFirst("User: ".count))
        _ = try f.invite("Ben")
        var listed: [String] = []
        #expect(try Subcommands.devices([], environment: f.environment) { listed.append($0) } == .ok)
        #expect(listed.count == 4, "\(listed)")
        #expect(listed.contains { $0.contains("  app: \(annUser)  Ann  phone  last used never") }, "\(listed)")
        #expect(listed.contains { $0.contains("  app: \(annSecond)  Ann  tablet  ") }, "\(listed)")
        #expect(listed.contains { $0.contains("  invite  Ben  ") }, "\(listed)")

        var said: [String] = []
        #expect(try Subcommands.revoke(["Ann", "--device", annUser], environment: f.environment) { said.append($0) } == .ok)
        #expect(said == ["Revoked Ann's device (1)."])
        #expect(try f.site.tokens.appDevices(member: "Ann").map(\.user) == [annSecond])
        // By the record's id too, as the other devices.
        let id = try #require(try f.site.tokens.appDevices(member: "Ann").first?.id)
        #expect(try f.site.tokens.revoke(member: "ann", device: id, feedOnly: false) == 1)
        // All of a member's: the invite and the app password (as `todo serve revoke NAME` does).
        said = []
        #expect(try Subcommands.revoke(["ben"], environment: f.environment) { said.append($0) } == .ok)
        #expect(said == ["Revoked Ben's sign-in links, devices, app passwords and feed addresses (2)."])
        #expect(try f.site.tokens.records().isEmpty)
        #expect(try f.site.tokens.appMember(user: benUser, password: "x", now: f.site.now()) == nil)
    }

    @Test func userNamesAreSlugsAndPasswordsComeFromTheAlphabet() throws {
        for (name, slug) in [
            ("Ann", "ann"), ("Zoë Smith-Jones", "zo-smith-jones"), ("Élodie", "lodie"), ("李", "member"), ("", "member"),
            ("--Kim  O'Neil--", "kim-o-neil"), ("Bartholomew Fitzgerald", "bartholomew-fitz"), ("abcdefghijklmno pq", "abcdefghijklmno"),
        ] {
            #expect(AppPassword.slug(name) == slug, "\(name)")
            #expect(AppPassword.isUser(AppPassword.makeUser(member: name)), "\(name)")
        }
        for bad in ["ann", "ann-12345", "ann-12345g", "-ann-123456", "ann--123456", "Ann-123456", "ann 123456", "a-b-c-d-e-f-g-h-i-123456"] {
            #expect(!AppPassword.isUser(bad), "\(bad)")
        }
        let passwords = (0..<200).map { _ in AppPassword.makePassword() }
        #expect(Set(passwords).count == 200)
        #expect(Set(passwords.joined()) == Self.passwordAlphabet, "every character turns up, no other")
    }

    // MARK: Basic, unit by unit

    @Test func basicCredentialsAreDecodedCarefullyAndGarbageIsNothing() {
        let token = Data("ann-0a1b2c:pa:ss wörd".utf8).base64EncodedString()
        let c = DAVAuth.basicToken("Basic " + token).flatMap(DAVAuth.credentials)
        #expect(c?.user == "ann-0a1b2c" && c?.password == "pa:ss wörd")
        #expect(DAVAuth.basicToken("  bAsIc   \(token) ").flatMap(DAVAuth.credentials)?.user == "ann-0a1b2c")
        #expect(DAVAuth.basicToken("Bearer abc") == nil && DAVAuth.basicToken("Basic") == nil && DAVAuth.basicToken("Basicx abc") == nil)
        for (text, bytes) in [("", ""), ("YQ", "a"), ("YQ==", "a"), ("YWI=", "ab"), ("YWJj", "abc"), ("YWJjZA", "abcd")] {
            #expect(DAVAuth.base64Decode(Substring(text)) == Array(bytes.utf8), "\(text)")
        }
        for bad in ["Y", "YQ=", "Y===", "YQ==YQ==", "YW J", "YW_j", "é", "YQ==="] {
            #expect(DAVAuth.base64Decode(Substring(bad)) == nil, "\(bad)")
        }
        // No colon, an empty or non-ASCII user, a password that is not UTF-8, too long.
        for raw in [Array("annpassword".utf8), Array(":password".utf8), Array("ä:pw".utf8), Array("ann:".utf8) + [0xFF]] {
            #expect(DAVAuth.credentials(Substring(Data(raw).base64EncodedString())) == nil)
        }
        #expect(DAVAuth.credentials(Substring(String(repeating: "QUFB", count: 300))) == nil)
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            let n = Int.random(in: 0..<64, using: &rng)
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = DAVAuth.credentials(Substring(String(decoding: bytes, as: UTF8.self)))
            _ = DAVAuth.credentials(Substring(Data(bytes).base64EncodedString()))
            _ = DAVAuth.basicToken(String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func basicIsTakenOnlyOverHTTPSOrFromThisMachine() throws {
        let f = try ServeFixture()
        let lines = try appPassword(f, ["Ann"])
        let user = String(lines[1].dropFirst(6))
        let password = String(lines[2].dropFirst(10))
        let header = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        func identity(_ address: String?, secure: Bool) throws -> DAVIdentity {
            try f.site.davIdentity(authorization: [header], address: address, secure: secure, client: address ?? "unknown")
        }
        #expect(try identity(nil, secure: false) == DAVIdentity(member: "Ann", device: user))
        for loopback in ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"] {
            #expect(try identity(loopback, secure: false).member == "Ann", "\(loopback)")
        }
        #expect(try identity("192.0.2.7", secure: true).member == "Ann")
        for remote in ["192.0.2.7", "2001:db8::1", "::ffff:192.0.2.7", "128.0.0.1"] {
            do {
                _ = try identity(remote, secure: false)
                Issue.record("\(remote) over plain HTTP was signed in")
            } catch let e as DAVError {
                #expect(e.status == .forbidden && e.text.hasPrefix("App passwords are sent only over HTTPS"))
            }
        }
        // Two Authorization headers: refused, counted.
        #expect(throws: DAVError.self) {
            try f.site.davIdentity(authorization: [header, header], address: nil, secure: false, client: "twice")
        }
    }

    // MARK: Basic through the routes

    @Test func noCredentialsGetTheChallengeAndCountForNothing() async throws {
        let f = try ServeFixture(limits: RateLimiter.Limits(requests: 10_000, posts: 10_000, failures: 3))
        let lines = try appPassword(f, ["Ann"])
        let (user, password) = (String(lines[1].dropFirst(6)), String(lines[2].dropFirst(10)))
        try await application(f).test(.router) { client in
            for _ in 0..<50 {
                let r = try await client.get("/dav/probe")
                #expect(r.status == .unauthorized)
                #expect(r.headers[.wwwAuthenticate] == "Basic realm=\"todo home\", charset=\"UTF-8\"")
                #expect(r.headers[.contentType] == "text/plain; charset=utf-8" && !r.text.contains("<"))
                #expect(r.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            }
            // Another scheme is no credentials either.
            #expect(try await client.get("/dav/probe", headers: [.authorization: "Bearer x"]).status == .unauthorized)
            let ok = try await client.get("/dav/probe", headers: Self.basic(user, password))
            #expect(ok.status == .ok && ok.text == "Ann \(user)")
        }
    }

    @Test func wrongPasswordsCountAndLockOutAsOnThePage() async throws {
        let f = try ServeFixture(limits: RateLimiter.Limits(requests: 10_000, posts: 10_000, failures: 3))
        let lines = try appPassword(f, ["Ann"])
        let (user, password) = (String(lines[1].dropFirst(6)), String(lines[2].dropFirst(10)))
        try await application(f).test(.router) { client in
            for headers in [Self.basic(user, "wrong"), Self.basic("nobody-123456", password), [.authorization: "Basic %%%"]] {
                let r = try await client.get("/dav/probe", headers: headers)
                #expect(r.status == .unauthorized && r.headers[.wwwAuthenticate] != nil)
            }
            // Past the failed-attempt limit, even the right password waits.
            let locked = try await client.get("/dav/probe", headers: Self.basic(user, password))
            #expect(locked.status == .tooManyRequests && locked.headers[.retryAfter] != nil)
            #expect(try await client.get("/static/app.css").status == .tooManyRequests)
        }
    }

    @Test func aRevokedPasswordIsRefusedAtOnce() async throws {
        let f = try ServeFixture()
        let lines = try appPassword(f, ["Ann"])
        let (user, password) = (String(lines[1].dropFirst(6)), String(lines[2].dropFirst(10)))
        try await application(f).test(.router) { client in
            #expect(try await client.get("/dav/probe", headers: Self.basic(user, password)).status == .ok)
            // From a shell, as `todo serve revoke Ann --device <user>`.
            var said: [String] = []
            _ = try Subcommands.revoke(["Ann", "--device", user], environment: f.environment) { said.append($0) }
            #expect(said == ["Revoked Ann's device (1)."])
            #expect(try await client.get("/dav/probe", headers: Self.basic(user, password)).status == .unauthorized)
        }
    }

    @Test func aFirstSyncIsNotHeldBackByThePageBudget() async throws {
        let f = try ServeFixture(limits: RateLimiter.Limits(requests: 5, posts: 5, failures: 3))
        let lines = try appPassword(f, ["Ann"])
        let (user, password) = (String(lines[1].dropFirst(6)), String(lines[2].dropFirst(10)))
        try await application(f).test(.router) { client in
            for i in 0..<300 {
                let r = try await client.get("/dav/probe", headers: Self.basic(user, password))
                if r.status != .ok {
                    Issue.record("request \(i): \(r.status)")
                    break
                }
            }
            // The page's budget is its own: five pages, then 429.
            for _ in 0..<5 { #expect(try await client.get("/static/app.css").status == .ok) }
            #expect(try await client.get("/static/app.css").status == .tooManyRequests)
        }
        // The DAV budget has its end too.
        let limiter = RateLimiter(limits: RateLimiter.Limits(davRequests: 3))
        let now = ContinuousClock.now
        #expect((0..<3).allSatisfy { _ in limiter.admit("c", isPost: false, dav: true, now: now) == nil })
        #expect(limiter.admit("c", isPost: false, dav: true, now: now) != nil)
        #expect(limiter.admit("c", isPost: false, dav: true, now: now + .seconds(61)) == nil)
    }

    // MARK: The page

    /// The value of the read-only field `id` on the page.
    static func field(_ id: String, in html: String) -> String? {
        guard let start = html.range(of: "id=\"\(id)\" readonly value=\"") else { return nil }
        return String(html[start.upperBound...].prefix { $0 != "\"" })
    }

    @Test func thePageMakesAnAppPasswordShowsItOnceAndRemovesIt() async throws {
        let f = try ServeFixture()
        try await application(f).test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            let empty = try await client.get("/phone", ann)
            #expect(empty.status == .ok && empty.text.contains("None yet.") && !empty.text.contains("dav-password"))
            #expect(empty.text.contains("href=\"/phone\" aria-current=\"page\">Phone</a>"))
            #expect(empty.text.contains("<h1>Phone&#39;s task app</h1>") || empty.text.contains("<h1>Phone's task app</h1>"))
            PageWordingTests.expectNeutral(empty.text, "/phone", f)
            #expect(try await client.get("/phone").status == .unauthorized)
            #expect(try await client.post("/phone/new", ann, csrf: "forged").status == .forbidden)
            #expect(try f.site.tokens.records().allSatisfy { $0.kind != .app })

            let made = try await client.post("/phone/new", ann)
            #expect(made.status == .ok && made.headers[.cacheControl] == "no-store")
            PageWordingTests.expectNeutral(made.text, "/phone/new", f)
            #expect(Self.field("dav-address", in: made.text) == "http://127.0.0.1:8080/dav/")
            let user = try #require(Self.field("dav-user", in: made.text))
            let password = try #require(Self.field("dav-password", in: made.text))
            expectWellFormed(user: user, password: password, slug: "ann")
            #expect(made.text.contains("<label for=\"dav-password\">Password</label>"))
            let probe = try await client.get("/dav/probe", headers: Self.basic(user, password))
            #expect(probe.status == .ok && probe.text == "Ann \(user)")

            // Shown once: the page again lists the device, never the password.
            let again = try await client.get("/phone", ann)
            #expect(!again.text.contains(password) && !again.text.contains("dav-password"))
            #expect(again.text.contains("phone, user \(user), last used "))
            #expect(!again.text.contains("last used never"), "the sign-in above was recorded")

            // Ben cannot remove Ann's; Ann can.
            let ben = try await client.signIn(f, as: "Ben")
            #expect(!(try await client.get("/phone", ben).text.contains(user)))
            #expect(try await client.post("/phone/revoke", ben, [("device", user)]).status == .seeOther)
            #expect(try await client.get("/dav/probe", headers: Self.basic(user, password)).status == .ok)
            #expect(try await client.post("/phone/revoke", ann, [("device", user)], csrf: "forged").status == .forbidden)
            let removed = try await client.post("/phone/revoke", ann, [("device", user)])
            #expect(removed.status == .seeOther && removed.headers[.location] == "/phone")
            #expect(try await client.get("/dav/probe", headers: Self.basic(user, password)).status == .unauthorized)
            #expect(try await client.get("/phone", ann).text.contains("None yet."))
        }
    }

    @Test func thePageSaysSoWhenPhonesCannotSignInWithoutHTTPS() async throws {
        let f = try ServeFixture { $0.baseURL = BaseURL.parse("http://nas.example:8080/todo") }
        try await application(f).test(.router) { client in
            let token = try f.invite("Ann")
            let r = try await client.post("/todo/i", nil, [("token", token)])
            let cookie = try #require(r.headers[values: .setCookie].first { $0.hasPrefix("todo_session=") })
            let value = String(try #require(cookie.split(separator: ";").first?.dropFirst("todo_session=".count)))
            let ann = Device(cookie: value, csrf: TokenHash.csrf(sessionSecret: String(try #require(value.split(separator: ".").last))))
            let page = try await client.post("/todo/phone/new", ann)
            #expect(Self.field("dav-address", in: page.text) == "http://nas.example:8080/todo/dav/")
            #expect(page.text.contains("Server: nas.example:8080."))
            #expect(page.text.contains("phones cannot sign in to it from the network"))
            PageWordingTests.expectNeutral(page.text, "/phone over http", f)
        }
    }
}
