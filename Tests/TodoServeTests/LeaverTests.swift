import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// A member who leaves loses every door at once (docs/SERVE.md, "When a member leaves"): as
/// soon as the `main` the server reads holds a `left` entry that is their latest, whoever put
/// it there and whether or not any sync ran; a later `member add` brings none of their old
/// ways in back.
@Suite(.kit, .timeLimit(.minutes(5)), .serialized)
struct LeaverTests {
    static let propfind = HTTPRequest.Method("PROPFIND")!

    static func basic(_ user: String, _ password: String) -> HTTPFields {
        [.authorization: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString(), HTTPField.Name("Depth")!: "0"]
    }

    /// Everything Ben can hold: a signed-in device, an app password, a feed address, an unused
    /// invite and a reminder's Done link, each used once (so each is bound to his membership).
    struct Keys {
        var device: Device
        var app: (user: String, password: String)
        var feed: String
        var invite: String
        var done: String
    }

    func bensKeys(_ f: ServeFixture, _ client: some TestClientProtocol) async throws -> Keys {
        let device = try await client.signIn(f, as: "Ben")
        let app = try f.site.tokens.appPassword(member: "Ben", label: "phone", now: f.site.now())
        let feed = try f.site.tokens.newFeed(member: "Ben", now: f.site.now()).text
        let invite = try f.invite("Ben")
        var task = NewTask(title: "Ben's errand")
        task.assignee = "Ben"
        let id = try #require(try f.household().add(task).tasks.first).task.id
        let done = try ReminderLinks.load(f.site.state).token(.init(member: "Ben", id: id, day: try f.household().clock.today, occurrence: nil))
        let keys = Keys(device: device, app: app, feed: feed, invite: invite, done: done)
        try await expectOpen(keys, client)
        return keys
    }

    func expectOpen(_ k: Keys, _ client: some TestClientProtocol, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try await client.get("/", k.device).status == .ok, sourceLocation: sourceLocation)
        let dav = try await client.execute(uri: "/dav/", method: Self.propfind, headers: Self.basic(k.app.user, k.app.password))
        #expect(dav.status.code == 207, "\(dav.text)", sourceLocation: sourceLocation)
        #expect(try await client.get("/feed/\(k.feed).ics").status == .ok, sourceLocation: sourceLocation)
        #expect(try await client.get("/i/\(k.invite)").status == .ok, sourceLocation: sourceLocation)
        #expect(try await client.get("/r/\(k.done)").status == .ok, sourceLocation: sourceLocation)
    }

    /// Every door answers as docs/SERVE.md says for a member who has left.
    func expectClosed(_ f: ServeFixture, _ k: Keys, _ client: some TestClientProtocol, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let page = try await client.get("/", k.device)
        #expect(page.status == .unauthorized && page.text.contains("Ask for a new sign-in link"), "\(page.text)", sourceLocation: sourceLocation)
        let dav = try await client.execute(uri: "/dav/", method: Self.propfind, headers: Self.basic(k.app.user, k.app.password))
        #expect(dav.status == .unauthorized, "\(dav.text)", sourceLocation: sourceLocation)
        #expect(dav.headers[.wwwAuthenticate]?.hasPrefix("Basic ") == true, sourceLocation: sourceLocation)
        #expect(try await client.get("/feed/\(k.feed).ics").status == .notFound, sourceLocation: sourceLocation)
        #expect(try await client.get("/i/\(k.invite)").status == .unauthorized, sourceLocation: sourceLocation)
        #expect(try await client.post("/i", nil, [("token", k.invite)]).status == .unauthorized, sourceLocation: sourceLocation)
        #expect(try await client.get("/add", k.device).status == .unauthorized, sourceLocation: sourceLocation)
        #expect(try await client.post("/add", k.device, [("title", "Sneaky")]).status == .unauthorized, sourceLocation: sourceLocation)
    }

    @Test func everyDoorClosesAsSoonAsMainHoldsTheLeaveWithoutASync() async throws {
        // Ten failed attempts lock a client out: none of what follows may count as one.
        let f = try ServeFixture(limits: RateLimiter.Limits(requests: 10_000, posts: 10_000, failures: 10))
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            let annApp = try f.site.tokens.appPassword(member: "Ann", label: "phone", now: f.site.now())
            let keys = try await bensKeys(f, client)
            let commits = try f.commitCount()
            // Ben leaves from the shell on the server's own clone: his leave is dated tomorrow,
            // no sync runs, and the server is not told.
            _ = try f.household().leaveMember("Ben", to: "Ann")
            try await expectClosed(f, keys, client)
            let done = try await client.get("/r/\(keys.done)")
            #expect(done.status == .gone && done.text.contains("Ben is no longer a member of this household"), "\(done.text)")
            #expect(!done.text.contains("expired"))
            #expect(try await client.post("/r/\(keys.done)", nil).status == .gone)
            for _ in 0..<12 {
                #expect(try await client.execute(uri: "/dav/", method: Self.propfind, headers: Self.basic(keys.app.user, keys.app.password)).status == .unauthorized)
            }
            // Not counted as failed attempts: the client is not locked out.
            #expect(try await client.get("/", ann).status == .ok)
            let annDAV = try await client.execute(uri: "/dav/", method: Self.propfind, headers: Self.basic(annApp.user, annApp.password))
            #expect(annDAV.status.code == 207)
            // Nothing was written for Ben, and none of his tokens is listed.
            #expect(try f.commitCount() == commits + 1, "the leave only")
            var listed: [String] = []
            #expect(try Subcommands.devices([], environment: f.environment) { listed.append($0) } == .ok)
            #expect(!listed.isEmpty && listed.allSatisfy { !$0.contains("  Ben  ") }, "\(listed)")
        }
    }

    /// The store itself makes no commit as a member whose latest entry is `left`, whichever
    /// front end asks and however `main` came to hold the leave.
    @Test func theStoreRefusesAChangeAsAMemberWhoHasLeft() throws {
        let f = try ServeFixture()
        let ben = Actor(name: "Ben", email: "ben@example.org", replica: "00112233aabbccdd")
        _ = try Household.open(home: f.home, name: "home", acting: ben).add(NewTask(title: "Before"))
        _ = try f.household().leaveMember("Ben", to: nil)
        let commits = try f.commitCount()
        #expect {
            try Household.open(home: f.home, name: "home", acting: ben).add(NewTask(title: "After"))
        } throws: { error in
            if case StoreError.memberLeft(let name)? = error as? StoreError { return name == "Ben" }
            return false
        }
        let opened = try f.site.openForChange(member: "ben")
        #expect(throws: StoreError.self) { try opened.add(NewTask(title: "After, through the page's opening")) }
        #expect(try f.commitCount() == commits)
        // The clone's own commands go on (the CLI acts as the clone, not as a member).
        _ = try f.household().add(NewTask(title: "Owner's"))
        #expect(try f.commitCount() == commits + 1)
        // Back again: his changes are taken.
        _ = try f.household().addMember("Ben")
        _ = try Household.open(home: f.home, name: "home", acting: ben).add(NewTask(title: "Back"))
        #expect(try f.commitCount() == commits + 3)
    }

    /// Leaving and being added again on the same clone, with no request to the server between:
    /// none of the old tokens opens; new ones are made for the new membership.
    @Test func aMemberAddedAgainGetsNoneOfTheOldTokensBack() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let keys = try await bensKeys(f, client)
            _ = try f.household().leaveMember("Ben", to: "Ann")
            _ = try f.household().addMember("Ben")
            #expect(try f.household().standing(of: "Ben") != .left)
            try await expectClosed(f, keys, client)
            // New ones work.
            var lines: [String] = []
            #expect(try Subcommands.appPassword(["Ben"], environment: f.environment) { lines.append($0) } == .ok)
            let user = String(try #require(lines.dropFirst().first?.dropFirst("User: ".count)))
            let password = String(try #require(lines.last?.dropFirst("Password: ".count)))
            #expect(try await client.execute(uri: "/dav/", method: Self.propfind, headers: Self.basic(user, password)).status.code == 207)
            let device = try await client.signIn(f, as: "Ben")
            #expect(try await client.get("/", device).status == .ok)
        }
    }

    /// A leave then an add the same day write the same roster key: the membership is told by
    /// the entry's stamp, not its date alone.
    @Test func aLeaveAndAnAddOnOneDayMakeANewMembership() throws {
        let f = try ServeFixture()
        _ = try f.household().addMember("Cat")
        let first = try f.household().standing(of: "cat")
        guard case .member(let m1) = first else { Issue.record("\(first)"); return }
        #expect(!m1.isEmpty)
        _ = try f.household().leaveMember("Cat", to: nil)
        #expect(try f.household().standing(of: "Cat") == .left)
        _ = try f.household().addMember("Cat")
        let again = try f.household().standing(of: "Cat")
        guard case .member(let m2) = again else { Issue.record("\(again)"); return }
        #expect(m1 != m2 && m1.prefix(10) == m2.prefix(10), "\(m1) \(m2)")
        #expect(try f.household().standing(of: "Ann") == .member(membership: ""))
    }

    /// `invite` and `app-password` refuse a member who has left (exit 66, naming `member add`);
    /// `devices` reads the roster itself and lists none of the leaver's tokens, though no
    /// server has run since the leave.
    @Test func theOwnersCommandsReadTheRosterThemselves() throws {
        let f = try ServeFixture()
        _ = try f.invite("Ben")
        _ = try f.site.tokens.appPassword(member: "Ben", label: "phone", now: f.site.now())
        _ = try f.invite("Ann")
        func devices() throws -> [String] {
            var lines: [String] = []
            #expect(try Subcommands.devices([], environment: f.environment) { lines.append($0) } == .ok)
            return lines
        }
        #expect(try devices().filter { $0.contains("  Ben  ") }.count == 2)
        _ = try f.household().leaveMember("Ben", to: nil)
        let listed = try devices()
        #expect(listed.count == 1 && listed.allSatisfy { $0.contains("  Ann  ") }, "\(listed)")
        let commands: [(String, ([String], ServeEnvironment) throws -> ServeMain.Exit)] = [
            ("invite", { try Subcommands.invite($0, environment: $1) }),
            ("app-password", { try Subcommands.appPassword($0, environment: $1) { _ in } }),
        ]
        for (name, run) in commands {
            #expect {
                _ = try run(["Ben"], f.environment)
            } throws: { error in
                guard let failure = error as? ServeMain.Failure else { return false }
                #expect(failure.exit == .noInput, "\(name)")
                #expect(failure.message.contains("Ben has left") && failure.message.contains("todo member add Ben"), "\(failure.message)")
                return true
            }
        }
    }
}
