import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// HTTP itself (docs/SERVE.md, "Pages and routes"; docs/THREAT-MODEL.md): one Host, the
/// methods each address takes, the Origin of a form, and the health check.
@Suite(.kit, .timeLimit(.minutes(5)), .serialized)
struct ServeProtocolTests {
    @Test func aSecondHostHeaderIsRefusedWith400() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            // The in-process client says Host: localhost; this adds another.
            let r = try await client.get("/static/app.css", headers: [HTTPField.Name("Host")!: "evil.example"])
            #expect(r.status == .badRequest)
            ServeRouteTests().expectSecurityHeaders(r)
            #expect(try await client.get("/static/app.css").status == .ok)
        }
    }

    @Test func aMethodAnAddressDoesNotTakeIs405WithAllow() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            let put = try await client.execute(uri: "/tasks", method: .put, headers: device.headers)
            #expect(put.status == .methodNotAllowed)
            #expect(put.headers[.allow] == "GET, HEAD")
            ServeRouteTests().expectSecurityHeaders(put)
            let delete = try await client.execute(uri: "/i", method: .delete)
            #expect(delete.status == .methodNotAllowed && delete.headers[.allow] == "POST")
            let odd = try await client.execute(uri: "/add", method: HTTPRequest.Method("BREW")!, headers: device.headers)
            #expect(odd.status == .methodNotAllowed && odd.headers[.allow] == "GET, HEAD, POST")
            let getOfPost = try await client.get("/signout", device)
            #expect(getOfPost.status == .methodNotAllowed && getOfPost.headers[.allow] == "POST")
            // The root takes CalDAV's PROPFIND and OPTIONS beside the page's GET.
            let root = try await client.execute(uri: "/", method: .delete, headers: device.headers)
            #expect(root.status == .methodNotAllowed && root.headers[.allow] == "OPTIONS, GET, HEAD, PROPFIND")
            #expect(try await client.execute(uri: "/nothing-here", method: .put).status == .notFound)
        }
    }

    @Test func aHeadOfAPageAnswersAsItsGetWithoutTheBody() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            let get = try await client.get("/", device)
            let head = try await client.execute(uri: "/", method: .head, headers: device.headers)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            #expect(head.headers[.contentType] == get.headers[.contentType])
            ServeRouteTests().expectSecurityHeaders(head)
            let signedOut = try await client.execute(uri: "/", method: .head)
            #expect(signedOut.status == .unauthorized && signedOut.body.readableBytes == 0)
            let css = try await client.execute(uri: "/static/app.css", method: .head)
            let cssGet = try await client.get("/static/app.css")
            #expect(css.status == .ok && css.headers[.contentType] == "text/css; charset=utf-8" && css.body.readableBytes == 0)
            #expect(css.headers[.contentLength] == cssGet.headers[.contentLength] && cssGet.headers[.contentLength] != nil)
            let nowhere = try await client.execute(uri: "/nothing-here", method: .head)
            #expect(nowhere.status == .notFound && nowhere.body.readableBytes == 0)
        }
    }

    @Test func aFormsOriginMustMatchSchemeHostAndPort() async throws {
        let f = try ServeFixture()
        let id = try f.taskID(titled: "Ann's first chore")
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            let before = try f.commitCount()
            for foreign in ["http://localhost:9999", "https://localhost:8080", "http://localhost", "http://localhost:8080/x"] {
                let r = try await client.post("/t/\(id)/done", device, [], headers: [.origin: foreign])
                #expect(r.status == .forbidden, "\(foreign)")
            }
            #expect(try f.commitCount() == before)
            #expect(try await client.post("/t/\(id)/done", device, [], headers: [.origin: "http://LOCALHOST:8080"]).status == .seeOther)
        }
        // Behind a proxy: the base address's origin, its default port spelled or not.
        let g = try ServeFixture {
            $0.baseURL = BaseURL.parse("https://nas.example/todo")
            $0.trustProxy = ["127.0.0.1"]
        }
        #expect(Guard.isOwnOrigin(try #require(BaseURL.parse("https://nas.example")), config: g.site.config, port: 8080))
        #expect(Guard.isOwnOrigin(try #require(BaseURL.parse("https://nas.example:443")), config: g.site.config, port: 8080))
        #expect(!Guard.isOwnOrigin(try #require(BaseURL.parse("http://nas.example")), config: g.site.config, port: 8080))
        #expect(!Guard.isOwnOrigin(try #require(BaseURL.parse("https://nas.example:8443")), config: g.site.config, port: 8080))
        #expect(!Guard.isOwnOrigin(try #require(BaseURL.parse("https://other.example")), config: g.site.config, port: 8080))
    }

    /// The slots one client may hold: taken up to the cap, given back, counted per client.
    @Test func clientSlotsCapEachClientApart() {
        let slots = ClientSlots(perClient: 2)
        #expect(slots.take("a") && slots.take("a"))
        #expect(!slots.take("a"), "a third for the same client")
        #expect(slots.take("b"), "another client is not held up")
        slots.give("a")
        #expect(slots.held("a") == 1)
        #expect(slots.take("a"))
        slots.give("a")
        slots.give("a")
        slots.give("a")
        #expect(slots.held("a") == 0, "never below zero")
        #expect(slots.take("a") && slots.take("a") && !slots.take("a"))
    }

    @Test func healthIsOkOr503AndSaysNothingElse() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let ok = try await client.get("/health")
            #expect(ok.status == .ok)
            #expect(ok.text == "ok\n")
            #expect(ok.headers[.contentType] == "text/plain; charset=utf-8")
            #expect(ok.headers[.setCookie] == nil)
            ServeRouteTests().expectSecurityHeaders(ok)
            // The household's repository gone: 503, and no path or cause.
            try FileManager.default.moveItem(atPath: f.repo, toPath: f.repo + ".away")
            let down = try await client.get("/health")
            #expect(down.status == .serviceUnavailable)
            #expect(down.text == "unavailable\n")
            try FileManager.default.moveItem(atPath: f.repo + ".away", toPath: f.repo)
            #expect(try await client.get("/health").status == .ok)
        }
    }
}
