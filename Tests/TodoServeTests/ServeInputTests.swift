import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// What the server makes of the request's own bytes: the `Cookie` headers (Hummingbird's
/// `request.cookies`, with the checks around it in `Cookie.value`) and form bodies
/// (Hummingbird's `URLEncodedFormDecoder`, in `Form.parse`).
@Suite(.kit, .timeLimit(.minutes(5)), .serialized)
struct ServeInputTests {
    /// Only a cookie named exactly `todo_session` signs in; of two, the first counts, in one
    /// header or across two; spaces around the value and other cookies (attributes included,
    /// which a request never carries) change nothing; an oversized one names no session.
    @Test func theSessionCookieIsReadByItsExactNameAndTheFirstCounts() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            let good = device.cookie
            let forged = String(good.prefix(9)) + String(repeating: "A", count: 43)
            func status(_ cookies: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
                var headers = HTTPFields()
                for c in cookies { headers.append(HTTPField(name: .cookie, value: c)) }
                return try await client.get("/", nil, headers: headers).status.code
            }
            #expect(try await status(["todo_session=\(good)"]) == 200)
            #expect(try await status(["todo_session=\(good); todo_session=\(forged)"]) == 200)
            #expect(try await status(["todo_session=\(forged); todo_session=\(good)"]) == 401)
            #expect(try await status(["todo_session=\(good)", "todo_session=\(forged)"]) == 200)
            #expect(try await status(["todo_session=\(forged)", "todo_session=\(good)"]) == 401)
            #expect(try await status(["theme=dark;   todo_session=\(good) ;lang=en"]) == 200)
            #expect(try await status(["Path=/; todo_session=\(good); Max-Age=0; HttpOnly"]) == 200)
            for name in ["xtodo_session", "todo_session_old", "TODO_SESSION", "todo_session ", "todo"] {
                #expect(try await status(["\(name)=\(good)"]) == 401, "\(name)")
            }
            #expect(try await status(["todo_session"]) == 401)
            #expect(try await status(["todo_session="]) == 401)
            #expect(try await status(["todo_session=\"\(good)\""]) == 401)
            #expect(try await status(["todo_session=\(good)=x"]) == 401)
            #expect(try await status(["todo_session=" + good + String(repeating: "A", count: 8_000)]) == 401)
        }
    }

    /// The notice cookie shows one of the server's own notices, by exact name and value.
    @Test func theNoticeCookieShowsOnlyAKnownNotice() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            func notice(_ cookie: String) async throws -> Bool {
                try await client.get("/lists", device, headers: [.cookie: cookie]).text.contains("class=\"notice\"")
            }
            #expect(try await notice("todo_notice=checked"))
            #expect(try await notice("todo_notice=checked; todo_notice=<b>"))
            #expect(!(try await notice("todo_notice=<b>; todo_notice=checked")))
            #expect(!(try await notice("todo_notice=Checked")))
            #expect(!(try await notice("xtodo_notice=checked")))
            #expect(!(try await notice("todo_notice=" + String(repeating: "x", count: 8_000))))
        }
    }

    /// A form is decoded as a browser encodes it; a body no page of the site sends is a 400 that
    /// changes nothing, and none of them is a crash.
    @Test func formsDecodeAsBrowsersSendThemAndAnythingElseIs400() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            func post(_ body: some Sequence<UInt8>) async throws -> TestResponse {
                try await client.execute(uri: "/add", method: .post, headers: device.formHeaders(), body: ByteBuffer(bytes: Array(body)))
            }
            let csrf = "csrf=" + percentEncoded(device.csrf)
            var n = 0
            func form() -> String {
                n += 1
                return "form=" + String(repeating: String(n, radix: 16), count: 32)
            }

            // `+` is a space, `%XX` a byte of UTF-8 (either case), a name without `=` is left out.
            let added = try await post(Array("\(csrf)&title=Fix+the%20b%C3%A4r+%26+gate%2b%2F&flag&\(form())".utf8))
            #expect(added.status == .seeOther)
            #expect(try f.taskID(titled: "Fix the bär & gate+/").count == 32)

            let before = try f.commitCount()
            var refused: [(String, [UInt8])] = [
                ("a name twice", "\(csrf)&title=One&title=Two&\(form())"),
                ("the CSRF value twice", "\(csrf)&\(csrf)&title=One&\(form())"),
                ("a nested name", "\(csrf)&title[a]=One&\(form())"),
                ("an array name", "\(csrf)&title[]=One&\(form())"),
                ("a broken escape", "\(csrf)&title=100%&\(form())"),
                ("an escape with a sign", "\(csrf)&title=%+f&\(form())"),
                ("an escaped byte that is not UTF-8", "\(csrf)&title=caf%E9&\(form())"),
                ("a cut UTF-8 sequence", "\(csrf)&title=%C3&\(form())"),
                ("an escaped U+FFFD", "\(csrf)&title=%EF%BF%BD&\(form())"),
                ("a name not UTF-8", "\(csrf)&t%FFitle=One&\(form())"),
            ].map { (what: String, body: String) in (what, Array(body.utf8)) }
            let raw: [UInt8] = Array("\(csrf)&title=caf".utf8) + [0xE9] + Array("&\(form())".utf8)
            refused.append(("a raw byte that is not UTF-8", raw))
            for (what, body) in refused {
                let r = try await post(body)
                #expect(r.status.code == 400, "\(what)")
                #expect(r.text.contains("nothing was changed"), "\(what)")
            }
            #expect(try f.commitCount() == before)
        }
    }
}
