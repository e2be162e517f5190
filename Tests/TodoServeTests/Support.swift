import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@_exported import TestKit
@testable import TodoServe

/// A household made with the store directly, a server over it (not listening: Hummingbird's
/// in-process client), and helpers to sign in and post forms.
final class ServeFixture: @unchecked Sendable {
    let tmp = TemporaryDirectory("todo-serve-test")
    let home: String
    let repo: String
    let site: Site
    let environment: ServeEnvironment

    init(
        members: [String] = ["Ann", "Ben"], configure: (inout ServeConfig) -> Void = { _ in },
        limits: RateLimiter.Limits = RateLimiter.Limits(requests: 10_000, posts: 10_000)
    ) throws {
        home = tmp.path + "/data"
        repo = home + "/home"
        environment = ServeEnvironment(variables: [
            "TODO_HOME": home, "XDG_STATE_HOME": tmp.path + "/state", "HOME": tmp.path, "TODO_MAINTENANCE_THRESHOLD": "off",
            "TODO_SERVE_TODO": "/bin/false",
        ])
        let h = try Household.create(
            home: home, name: "home", identity: Identity(name: "Owner", email: "owner@example.org"), driverCommand: "false")
        // Each member named by a task's assignee, so the household knows them.
        for m in members {
            var t = NewTask(title: "\(m)'s first chore")
            t.assignee = m
            t.due = Due(date: h.clock.today)
            _ = try h.add(t)
        }
        var config = ServeConfig(household: "home")
        config.syncEvery = 0
        configure(&config)
        let state = StateFolder.forHousehold("home", environment: environment)
        try state.prepare()
        site = try Site(config: config, environment: environment, state: state, replica: try state.replica(), port: 8080, limits: limits)
    }

    func household() throws -> Household { try Household.open(home: home, name: "home") }

    /// Adds a daily chore from today, its turns in `rotation`'s order; its id.
    func addChore(_ title: String, rotation: [String] = []) throws -> String {
        let h = try household()
        var chore = NewTask(title: title)
        chore.recurrence = Recurrence(rule: try #require(RepeatRule("daily")), from: h.clock.today)
        chore.rotation = rotation
        return try #require(try h.add(chore).tasks.first).task.id.hex
    }

    /// Adds a task with a checklist; its id.
    func addList(_ title: String, items: [String], tags: [String] = []) throws -> String {
        var list = NewTask(title: title)
        list.tags = tags
        list.items = items
        return try #require(try household().add(list).tasks.first).task.id.hex
    }

    /// The routes; with `services`, the background sync runs beside them.
    func application(services: Bool = false) -> some ApplicationProtocol {
        let router = Routes.router()
        Routes(site: site).register(on: router)
        return Application(router: router, services: services ? [site.syncer] : [])
    }

    /// An invite link's token for `member`.
    func invite(_ member: String, now: Int64? = nil) throws -> String {
        try site.tokens.invite(member: member, label: "test", now: now ?? site.now()).text
    }

    /// How many commits `main` has (git is the judge).
    func commitCount() throws -> Int {
        Int(try git(["rev-list", "--count", "main"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    func git(_ args: [String]) throws -> String {
        let r = try runProcess(
            "/usr/bin/git", ["-C", repo] + args,
            environment: ["GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.org"])
        return r.stdout
    }

    func taskID(titled title: String) throws -> String {
        let (tasks, _) = try household().snapshot().loadAll()
        return try #require(tasks.first { $0.title == title }).id.hex
    }
}

/// A signed-in device: its cookie and CSRF value.
struct Device {
    let cookie: String
    let csrf: String

    var headers: HTTPFields { [.cookie: "todo_session=\(cookie)"] }

    func formHeaders() -> HTTPFields {
        [.cookie: "todo_session=\(cookie)", .contentType: "application/x-www-form-urlencoded"]
    }
}

extension TestClientProtocol {
    func get(_ uri: String, _ device: Device? = nil, headers: HTTPFields = [:]) async throws -> TestResponse {
        var h = device?.headers ?? [:]
        for f in headers { h.append(f) }
        return try await execute(uri: uri, method: .get, headers: h)
    }

    /// POSTs `fields` (form-encoded), with the device's cookie and, unless given, its CSRF value.
    func post(_ uri: String, _ device: Device?, _ fields: [(String, String)] = [], csrf: String? = nil, headers: HTTPFields = [:])
        async throws -> TestResponse
    {
        var all = fields
        if let device, !fields.contains(where: { $0.0 == "csrf" }) { all.append(("csrf", csrf ?? device.csrf)) }
        let body = all.map { "\(percentEncoded($0.0))=\(percentEncoded($0.1))" }.joined(separator: "&")
        var h: HTTPFields = device?.formHeaders() ?? [.contentType: "application/x-www-form-urlencoded"]
        for f in headers { h.append(f) }
        return try await execute(uri: uri, method: .post, headers: h, body: ByteBuffer(string: body))
    }

    /// Signs in with a fresh invite for `member`.
    func signIn(_ fixture: ServeFixture, as member: String) async throws -> Device {
        let token = try fixture.invite(member)
        let r = try await post("/i", nil, [("token", token)])
        #expect(r.status == .seeOther)
        let setCookie = try #require(r.headers[values: .setCookie].first { $0.hasPrefix("todo_session=") })
        let value = try #require(setCookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last)
        let secret = try #require(value.split(separator: ".").last)
        return Device(cookie: String(value), csrf: TokenHash.csrf(sessionSecret: String(secret)))
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }

    /// The notice a POST left for the next page: its code (its `todo_notice` cookie's value
    /// without the Undo's `~task~commit`).
    var notice: String? { noticeCookie.map { String($0.prefix { $0 != "~" }) } }

    /// The whole value of the `todo_notice` cookie.
    var noticeCookie: String? {
        headers[values: .setCookie].first { $0.hasPrefix("todo_notice=") }
            .flatMap { $0.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init) }
    }
}
