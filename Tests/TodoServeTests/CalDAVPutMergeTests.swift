import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// docs/CALDAV.md, "The base of a PUT": a phone's edit is merged field by field against the
/// version it started from, reaches its task wherever the task went, and never undoes what
/// someone else did meanwhile.
@Suite(.timeLimit(.minutes(5)))
struct CalDAVPutMergeTests {
    typealias DAV = CalDAVRouteTests.DAV
    static let calendarType = CalDAVRouteTests.calendarType

    static func put(
        _ client: some TestClientProtocol, _ d: DAV, _ href: String, _ body: String, ifMatch: String? = nil, auth: String? = nil
    ) async throws -> TestResponse {
        var headers = d.h(calendarType, auth: auth)
        if let ifMatch { headers[.ifMatch] = ifMatch }
        return try await client.execute(uri: href, method: .put, headers: headers, body: ByteBuffer(string: body))
    }

    /// The body without its X-TODO-VERSION line: a client that names no base.
    static func withoutVersion(_ body: String) -> String {
        body.components(separatedBy: "\r\n").filter { !$0.hasPrefix("X-TODO-VERSION:") }.joined(separator: "\r\n")
    }

    // MARK: A task no longer in the collection

    /// Ben's task, in Ann's Household, is completed in the shell while Ann's phone renames it:
    /// the title lands, the task stays done, the answer is 204 without an ETag, and the
    /// address then answers 404.
    @Test(arguments: [true, false])
    func aNewTitleForATaskCompletedMeanwhileLandsAndItStaysDone(withIfMatch: Bool) async throws {
        let d = try DAV()
        let ben = try d.f.taskID(titled: "Ben's first chore")
        let href = d.household + ben + ".ics"
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: href, method: .get, headers: d.h())
            let etag = try #require(got.headers[.eTag])
            _ = try d.f.household().set(.done, ids: [ben])
            let body = got.text.replacingOccurrences(of: "SUMMARY:Ben's first chore", with: "SUMMARY:Renamed on Ann's phone")
            let r = try await Self.put(client, d, href, body, ifMatch: withIfMatch ? etag : nil)
            #expect(r.status == .noContent)
            #expect(r.headers[.eTag] == nil)
            let t = try d.task(ben)
            #expect(t.title == "Renamed on Ann's phone")
            #expect(t.status == .done)
            #expect(!t.deleted)
            #expect(try d.tasks().filter { $0.title == "Renamed on Ann's phone" }.count == 1)
            let after = try await client.execute(uri: href, method: .get, headers: d.h())
            #expect(after.status == .notFound)
        }
    }

    /// Without If-Match and without X-TODO-VERSION, the body is read against the current task:
    /// NEEDS-ACTION reopens a completion only when the client's LAST-MODIFIED is later.
    @Test func withoutABaseAnOlderReopeningLeavesTheCompletion() async throws {
        let d = try DAV()
        let ben = try d.f.taskID(titled: "Ben's first chore")
        let href = d.household + ben + ".ics"
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: href, method: .get, headers: d.h())
            _ = try d.f.household().set(.done, ids: [ben])
            let stale = Self.withoutVersion(got.text)
                .replacingOccurrences(of: "SUMMARY:Ben's first chore", with: "SUMMARY:Stale title")
                .replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "LAST-MODIFIED:20000101T000000Z\r\nSTATUS:NEEDS-ACTION")
            let r = try await Self.put(client, d, href, stale)
            #expect(r.status == .noContent)
            var t = try d.task(ben)
            #expect(t.title == "Stale title")
            #expect(t.status == .done)
            // No STATUS and no COMPLETED: the status is left alone, however late.
            let silent = Self.withoutVersion(got.text)
                .replacingOccurrences(of: "STATUS:NEEDS-ACTION\r\n", with: "LAST-MODIFIED:21991231T000000Z\r\n")
            #expect(!silent.contains("STATUS:"))
            _ = try await Self.put(client, d, href, silent)
            #expect(try d.task(ben).status == .done)
            // A later reopening wins.
            let later = Self.withoutVersion(got.text)
                .replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "LAST-MODIFIED:21991231T000000Z\r\nSTATUS:NEEDS-ACTION")
            let reopen = try await Self.put(client, d, href, later)
            #expect(reopen.status == .noContent)
            t = try d.task(ben)
            #expect(t.status == .open)
        }
    }

    /// A status the phone changed against its base wins over a completion made meanwhile,
    /// and the completion goes into the conflict log.
    @Test func anExplicitReopeningWinsAndTheCompletionIsLogged() async throws {
        let d = try DAV()
        let ben = try d.f.taskID(titled: "Ben's first chore")
        let href = d.household + ben + ".ics"
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: href, method: .get, headers: d.h())
            let etag = try #require(got.headers[.eTag])
            _ = try d.f.household().set(.done, ids: [ben])
            let body = got.text.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "STATUS:IN-PROCESS")
            let r = try await Self.put(client, d, href, body, ifMatch: etag)
            #expect(r.status == .noContent)
            let t = try d.task(ben)
            #expect(t.status == .open)
            #expect(t.conflicts.count == 1)
        }
    }

    /// A task the shell deleted after the phone's base stays deleted, the phone's fields in it.
    @Test func aTaskDeletedMeanwhileStaysDeletedWithThePhonesEdit() async throws {
        let d = try DAV()
        let ben = try d.f.taskID(titled: "Ben's first chore")
        let href = d.household + ben + ".ics"
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: href, method: .get, headers: d.h())
            let etag = try #require(got.headers[.eTag])
            _ = try d.f.household().set(.rm, ids: [ben])
            let count = try d.tasks().count
            let body = got.text.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "PRIORITY:1\r\nSTATUS:NEEDS-ACTION")
            for ifMatch in [etag, nil] {
                let r = try await Self.put(client, d, href, body, ifMatch: ifMatch)
                #expect(r.status == .noContent)
            }
            let t = try d.task(ben)
            #expect(t.deleted)
            #expect(t.priority == .high)
            #expect(try d.tasks().count == count)
        }
    }

    /// Ann's task, given to Ben meanwhile, takes the edit from Ann's Mine and stays Ben's; the
    /// next sync-collection of Ann's Mine reports it removed.
    @Test func aTaskNowInAnotherMembersMineTakesTheEdit() async throws {
        let d = try DAV()
        let ann = try d.f.taskID(titled: "Ann's first chore")
        let href = d.mine + ann + ".ics"
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: href, method: .get, headers: d.h())
            let etag = try #require(got.headers[.eTag])
            let first = try await client.execute(
                uri: d.mine, method: CalDAVRouteTests.report, headers: d.h(),
                body: ByteBuffer(string: #"<d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>"#))
            let token = try #require(first.text.components(separatedBy: "<d:sync-token>").last?.components(separatedBy: "<").first)
            var edit = TaskEdit()
            edit.assignee = .set("Ben")
            _ = try d.f.household().edit(ann, edit)
            let body = got.text.replacingOccurrences(of: "SUMMARY:Ann's first chore", with: "SUMMARY:Ann's title")
            // With If-Match, and with only the body's version: the same edit.
            for ifMatch in [etag, nil] {
                let r = try await Self.put(client, d, href, body, ifMatch: ifMatch)
                #expect(r.status == .noContent)
            }
            let t = try d.task(ann)
            #expect(t.title == "Ann's title")
            #expect(t.assignee == "Ben")
            #expect(try await client.execute(uri: href, method: .get, headers: d.h()).status == .notFound)
            let sync = try await client.execute(
                uri: d.mine, method: CalDAVRouteTests.report, headers: d.h(),
                body: ByteBuffer(string: #"<d:sync-collection xmlns:d="DAV:"><d:sync-token>"# + token + "</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>"))
            #expect(sync.text.contains(href))
            #expect(sync.text.contains("404"))
        }
    }

    /// A checklist item Ben removed stays removed when Ann's phone ticks it.
    @Test func aRemovedItemStaysRemoved() async throws {
        let d = try DAV()
        let milk = d.shopping + d.list + "-" + Checklist.key("milk") + ".ics"
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: milk, method: .get, headers: d.h())
            let etag = try #require(got.headers[.eTag])
            let benMilk = "/dav/" + DAVKey.of("Ben") + "/list-\(d.list)/" + d.list + "-" + Checklist.key("milk") + ".ics"
            let removed = try await client.execute(uri: benMilk, method: .delete, headers: d.h(auth: d.benAuth))
            #expect(removed.status == .noContent)
            let body = got.text.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "STATUS:COMPLETED")
            let r = try await Self.put(client, d, milk, body, ifMatch: etag)
            #expect(r.status == .noContent)
            #expect(try d.task(d.list).checklist.first { $0.key == Checklist.key("milk") }?.state == .removed)
            #expect(try d.task(d.list).visibleItems.map(\.text) == ["eggs"])
        }
    }

    /// Apple's move: a DELETE by this member, then the same UID PUT into another collection,
    /// brings the task back there.
    @Test func theMembersOwnDeleteThenPutIsAMove() async throws {
        let d = try DAV()
        let ben = try d.f.taskID(titled: "Ben's first chore")
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: d.household + ben + ".ics", method: .get, headers: d.h())
            let del = try await client.execute(uri: d.household + ben + ".ics", method: .delete, headers: d.h())
            #expect(del.status == .noContent)
            #expect(try d.task(ben).deleted)
            let r = try await Self.put(client, d, d.mine + ben + ".ics", got.text)
            #expect(r.status == .created)
            let t = try d.task(ben)
            #expect(!t.deleted)
            #expect(t.assignee == "Ann")
        }
    }

    // MARK: DELETE is not merged

    @Test func aDeleteWithAnOtherETagChangesNothing() async throws {
        let d = try DAV()
        let ann = try d.f.taskID(titled: "Ann's first chore")
        let href = d.mine + ann + ".ics"
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: href, method: .get, headers: d.h())
            let old = try #require(got.headers[.eTag])
            var edit = TaskEdit()
            edit.notes = "changed in the shell"
            _ = try d.f.household().edit(ann, edit)
            let before = try d.f.commitCount()
            for tag in [old, "\"" + String(repeating: "ab", count: 20) + ".00000000\""] {
                let r = try await client.execute(uri: href, method: .delete, headers: d.h([.ifMatch: tag]))
                #expect(r.status == .preconditionFailed)
            }
            #expect(try d.f.commitCount() == before)
            #expect(!(try d.task(ann).deleted))
            let now = try #require(try await client.execute(uri: href, method: .get, headers: d.h()).headers[.eTag])
            let r = try await client.execute(uri: href, method: .delete, headers: d.h([.ifMatch: now]))
            #expect(r.status == .noContent)
            #expect(try d.task(ann).deleted)
        }
    }
}
