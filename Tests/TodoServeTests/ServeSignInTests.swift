import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// Sign-in links opened again, and the household's zone as the page learns it.
@Suite(.kit, .timeLimit(.minutes(5)), .serialized)
struct ServeSignInTests {
    /// The device a link signed in opens it again (a second tap, a bookmark, the mail again):
    /// it is told it is signed in, and nothing counts against it, however often.
    @Test func reopeningOnesOwnUsedInviteIsNotAFailure() async throws {
        let f = try ServeFixture(limits: RateLimiter.Limits(requests: 10_000, posts: 10_000, failures: 3))
        try await f.application().test(.router) { client in
            let token = try f.invite("Ann")
            let signIn = try await client.post("/i", nil, [("token", token)])
            #expect(signIn.status == .seeOther)
            let setCookie = try #require(signIn.headers[values: .setCookie].first { $0.hasPrefix("todo_session=") })
            let cookie = try #require(setCookie.split(separator: ";").first.map(String.init))
            for _ in 0..<5 {
                let again = try await client.get("/i/\(token)", headers: [.cookie: cookie])
                #expect(again.status == .seeOther)
                #expect(again.headers[.location] == "/")
                #expect(again.notice != nil)
                let posted = try await client.execute(
                    uri: "/i", method: .post, headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "token=\(token)"))
                #expect(posted.status == .seeOther)
                #expect(!posted.headers[values: .setCookie].contains { $0.hasPrefix("todo_session=") }, "no second session")
            }
            #expect(try await client.get("/", headers: [.cookie: cookie]).status == .ok, "not locked out")
            // Another device with the used link, or this device with another member's used
            // link, is refused and counted as before.
            let other = try f.invite("Ben")
            #expect(try await client.post("/i", nil, [("token", other)]).status == .seeOther)
            #expect(try await client.get("/i/\(other)", headers: [.cookie: cookie]).status == .unauthorized)
            #expect(try await client.get("/i/\(token)").status == .unauthorized)
            #expect(try await client.get("/i/\(token)").status == .unauthorized)
            #expect(try await client.get("/", headers: [.cookie: cookie]).status == .tooManyRequests)
        }
    }

    @Test func aHouseholdWithoutAZoneIsWarnedOfAtStart() throws {
        let f = try ServeFixture()
        let reader = try f.site.openForReading()
        #expect(ZoneCheck.warning(reader, household: "home")?.contains("todo timezone ZONE") == true)
        _ = try f.household().setZone("Europe/Paris")
        #expect(ZoneCheck.warning(try f.site.openForReading(), household: "home") == nil)
    }
}
