import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// docs/CALDAV.md through Hummingbird's in-process client: each method, status and
/// precondition, with git and the store as judges of what was committed.
@Suite(.timeLimit(.minutes(5)))
struct CalDAVRouteTests {
    /// A household with Ann and Ben, a daily chore rotating Ann, Ben, a shopping list, and an
    /// app password for Ann.
    final class DAV: @unchecked Sendable {
        let f: ServeFixture
        let chore: String
        let list: String
        let auth: String
        let benAuth: String

        init() throws {
            f = try ServeFixture()
            chore = try f.addChore("Dishes", rotation: ["Ann", "Ben"])
            list = try f.addList("Shopping", items: ["milk", "eggs"], tags: ["shopping"])
            let ann = try f.site.tokens.appPassword(member: "Ann", label: "phone", now: f.site.now())
            auth = "Basic " + Data("\(ann.user):\(ann.password)".utf8).base64EncodedString()
            let ben = try f.site.tokens.appPassword(member: "Ben", label: "phone", now: f.site.now())
            benAuth = "Basic " + Data("\(ben.user):\(ben.password)".utf8).base64EncodedString()
        }

        var home: String { "/dav/" + DAVKey.of("Ann") + "/" }
        var mine: String { home + "mine/" }
        var household: String { home + "household/" }
        var shopping: String { home + "list-\(list)/" }

        func h(_ extra: HTTPFields = [:], auth: String? = nil) -> HTTPFields {
            var out: HTTPFields = [.authorization: auth ?? self.auth]
            for x in extra { out.append(x) }
            return out
        }

        func task(_ id: String) throws -> Task {
            let taskID = try #require(TaskID(id))
            return try #require(try f.household().snapshot().task(taskID))
        }

        func tasks() throws -> [Task] { try f.household().snapshot().loadAll().tasks }
    }

    static let propfind = HTTPRequest.Method("PROPFIND")!
    static let report = HTTPRequest.Method("REPORT")!

    static func propfindBody(_ props: String) -> ByteBuffer {
        ByteBuffer(string: #"<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/"><d:prop>"# + props + "</d:prop></d:propfind>")
    }

    /// The hrefs of a multistatus, in order.
    static func hrefs(_ text: String) -> [String] {
        var out: [String] = []
        var rest = Substring(text)
        while let start = rest.range(of: "<d:href>") {
            rest = rest[start.upperBound...]
            guard let end = rest.range(of: "</d:href>") else { break }
            out.append(String(rest[..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return out
    }

    static func vtodo(uid: String, summary: String, extra: [String] = []) -> ByteBuffer {
        let lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", "BEGIN:VTODO", "UID:\(uid)", "DTSTAMP:20261126T100000Z", "SUMMARY:\(summary)"]
            + extra + ["END:VTODO", "END:VCALENDAR", ""]
        return ByteBuffer(string: lines.joined(separator: "\r\n"))
    }

    static let calendarType: HTTPFields = [.contentType: "text/calendar; charset=utf-8"]

    // MARK: Discovery

    @Test func discoveryFindsTheMembersCollections() async throws {
        let d = try DAV()
        try await d.f.application().test(.router) { client in
            let wk = try await client.execute(uri: "/.well-known/caldav", method: .get, headers: [:])
            #expect(wk.status == .movedPermanently)
            #expect(wk.headers[.location] == "/dav/")
            let root = try await client.execute(
                uri: "/dav/", method: Self.propfind, headers: d.h([HTTPField.Name("Depth")!: "0"]),
                body: Self.propfindBody("<d:current-user-principal/>"))
            #expect(root.status.code == 207)
            #expect(root.text.contains("<d:current-user-principal><d:href>\(d.home)</d:href>"))
            let home = try await client.execute(
                uri: d.home, method: Self.propfind, headers: d.h([HTTPField.Name("Depth")!: "1"]),
                body: Self.propfindBody("<d:displayname/><d:resourcetype/><c:supported-calendar-component-set/><d:current-user-privilege-set/><c:calendar-home-set/>"))
            #expect(home.status.code == 207)
            let hrefs = Self.hrefs(home.text)
            #expect(hrefs.contains(d.mine) && hrefs.contains(d.household) && hrefs.contains(d.shopping))
            #expect(home.text.contains("<d:displayname>Mine</d:displayname>"))
            #expect(home.text.contains("<d:displayname>Shopping</d:displayname>"))
            #expect(home.text.contains(#"<c:comp name="VTODO"/>"#))
            #expect(home.text.contains("<d:privilege><d:write/></d:privilege>"))
            let options = try await client.execute(uri: d.mine, method: .options, headers: d.h())
            #expect(options.headers[HTTPField.Name("DAV")!] == "1, 3, calendar-access")
        }
    }

    @Test func signInIsAsked() async throws {
        let d = try DAV()
        try await d.f.application().test(.router) { client in
            let none = try await client.execute(uri: d.mine, method: Self.propfind, headers: [HTTPField.Name("Depth")!: "0"])
            #expect(none.status == .unauthorized)
            #expect(none.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
            // Ben's password does not open Ann's collections.
            let other = try await client.execute(uri: d.mine, method: Self.propfind, headers: d.h([HTTPField.Name("Depth")!: "0"], auth: d.benAuth))
            #expect(other.status == .forbidden)
        }
    }

    // MARK: Collections

    @Test func mineHoldsMyTurnsAndHouseholdTheRest() async throws {
        let d = try DAV()
        try await d.f.application().test(.router) { client in
            let mine = try await client.execute(
                uri: d.mine, method: Self.propfind, headers: d.h([HTTPField.Name("Depth")!: "1"]), body: Self.propfindBody("<d:getetag/>"))
            let names = Self.hrefs(mine.text).dropFirst()
            let today = try d.f.household().clock.today
            // Ann's own task, and every other day's turn of the daily chore for 15 days.
            let annTask = try d.f.taskID(titled: "Ann's first chore")
            #expect(names.contains(d.mine + annTask + ".ics"))
            #expect(names.contains(d.mine + d.chore + "-" + ICalendarText.date(today) + ".ics"))
            #expect(!names.contains(d.mine + d.chore + "-" + ICalendarText.date(today.adding(days: 1)) + ".ics"))
            #expect(names.filter { $0.contains(d.chore) }.count == 8)
            let household = try await client.execute(
                uri: d.household, method: Self.propfind, headers: d.h([HTTPField.Name("Depth")!: "1"]), body: Self.propfindBody("<d:getetag/>"))
            let benTask = try d.f.taskID(titled: "Ben's first chore")
            let other = Self.hrefs(household.text)
            #expect(other.contains(d.household + benTask + ".ics"))
            #expect(!other.contains { $0.contains(d.chore) })
            #expect(!other.contains { $0.contains(annTask) })
        }
    }

    // MARK: Changes

    @Test func tickingAnOccurrenceCreditsMe() async throws {
        let d = try DAV()
        let today = try d.f.household().clock.today
        let href = d.mine + d.chore + "-" + ICalendarText.date(today) + ".ics"
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: href, method: .get, headers: d.h())
            #expect(got.status == .ok)
            let etag = try #require(got.headers[.eTag])
            let body = got.text.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "STATUS:COMPLETED")
            let put = try await client.execute(
                uri: href, method: .put, headers: d.h([.ifMatch: etag, .contentType: "text/calendar"]), body: ByteBuffer(string: body))
            #expect(put.status == .noContent)
            let chore = try d.task(d.chore)
            let schedule = try #require(ChoreSchedule(chore, today: today, context: .plain))
            #expect(schedule.credits(on: today).map(\.member) == ["Ann"])
            #expect(try d.f.git(["log", "-1", "--format=%an"]).hasPrefix("Ann"))
        }
    }

    /// As `done --on`: a turn after today that is not the chore's current occurrence is not due.
    @Test func aLaterTurnCannotBeTickedAhead() async throws {
        let d = try DAV()
        let today = try d.f.household().clock.today
        let later = today.adding(days: 2)
        let href = d.mine + d.chore + "-" + ICalendarText.date(later) + ".ics"
        let before = try d.f.commitCount()
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: href, method: .get, headers: d.h())
            #expect(got.status == .ok)
            let body = got.text.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "STATUS:COMPLETED")
            let put = try await client.execute(uri: href, method: .put, headers: d.h(Self.calendarType), body: ByteBuffer(string: body))
            #expect(put.status == .forbidden)
            #expect(put.text.contains("has not come yet"))
        }
        #expect(try d.f.commitCount() == before)
    }

    @Test func newTaskInMineIsMineAndKeepsWhatItHasNoFieldFor() async throws {
        let d = try DAV()
        try await d.f.application().test(.router) { client in
            let body = Self.vtodo(uid: "ABC-123", summary: "Call the plumber", extra: ["X-APPLE-SORT-ORDER:42", "PRIORITY:1", "CATEGORIES:home,urgent"])
            var headers = d.h(Self.calendarType)
            headers[.ifNoneMatch] = "*"
            let created = try await client.execute(uri: d.mine + "ABC-123.ics", method: .put, headers: headers, body: body)
            #expect(created.status == .created)
            let t = try #require(try d.tasks().first { $0.title == "Call the plumber" })
            #expect(t.assignee == "Ann")
            #expect(t.priority == .high)
            #expect(Set(t.tags) == ["home", "urgent"])
            let again = try await client.execute(uri: d.mine + "ABC-123.ics", method: .put, headers: headers, body: body)
            #expect(again.status == .preconditionFailed)
            let got = try await client.execute(uri: d.mine + "ABC-123.ics", method: .get, headers: d.h())
            #expect(got.text.contains("UID:ABC-123"))
            #expect(got.text.contains("X-APPLE-SORT-ORDER:42"))
        }
    }

    @Test func anOldVersionsEditMergesWithTheCLIs() async throws {
        let d = try DAV()
        let annTask = try d.f.taskID(titled: "Ann's first chore")
        let href = d.mine + annTask + ".ics"
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: href, method: .get, headers: d.h())
            let etag = try #require(got.headers[.eTag])
            // Meanwhile the CLI edits the notes.
            var notes = TaskEdit()
            notes.notes = "from the shell"
            _ = try d.f.household().edit(annTask, notes)
            let body = got.text.replacingOccurrences(of: "SUMMARY:Ann's first chore", with: "SUMMARY:Renamed on the phone")
            let put = try await client.execute(
                uri: href, method: .put, headers: d.h([.ifMatch: etag, .contentType: "text/calendar"]), body: ByteBuffer(string: body))
            #expect(put.status == .noContent)
            #expect(put.headers[.eTag] == nil)
            let t = try d.task(annTask)
            #expect(t.title == "Renamed on the phone")
            #expect(t.notes == "from the shell")
        }
    }

    @Test func theSameFieldFollowsTheLaterWriteAndLogsTheOther() async throws {
        let d = try DAV()
        let annTask = try d.f.taskID(titled: "Ann's first chore")
        let href = d.mine + annTask + ".ics"
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: href, method: .get, headers: d.h())
            let etag = try #require(got.headers[.eTag])
            var edit = TaskEdit()
            edit.title = "Shell title"
            _ = try d.f.household().edit(annTask, edit)
            let body = got.text.replacingOccurrences(of: "SUMMARY:Ann's first chore", with: "SUMMARY:Phone title")
            let put = try await client.execute(
                uri: href, method: .put, headers: d.h([.ifMatch: etag, .contentType: "text/calendar"]), body: ByteBuffer(string: body))
            #expect(put.status == .noContent)
            let t = try d.task(annTask)
            #expect(t.title == "Phone title")
            #expect(t.conflicts.count == 1)
            #expect(try d.f.git(["show", "main:" + t.id.path]).contains("Shell title"))
        }
    }

    /// vdirsyncer sends the current ETag it fetched while its body still holds its older data:
    /// the body's X-TODO-VERSION is the base, so the shell's newer title survives.
    @Test func theBodysVersionIsTheBaseEvenWithACurrentIfMatch() async throws {
        let d = try DAV()
        let annTask = try d.f.taskID(titled: "Ann's first chore")
        let href = d.mine + annTask + ".ics"
        try await d.f.application().test(.router) { client in
            let old = try await client.execute(uri: href, method: .get, headers: d.h())
            var edit = TaskEdit()
            edit.title = "Shell title"
            _ = try d.f.household().edit(annTask, edit)
            let now = try await client.execute(uri: href, method: .get, headers: d.h())
            let current = try #require(now.headers[.eTag])
            let body = old.text.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "PRIORITY:1\r\nSTATUS:NEEDS-ACTION")
            let put = try await client.execute(
                uri: href, method: .put, headers: d.h([.ifMatch: current, .contentType: "text/calendar"]), body: ByteBuffer(string: body))
            #expect(put.status == .noContent)
            let t = try d.task(annTask)
            #expect(t.title == "Shell title")
            #expect(t.priority == .high)
        }
    }

    @Test func anEventIsNotATodo() async throws {
        let d = try DAV()
        let before = try d.f.commitCount()
        try await d.f.application().test(.router) { client in
            let event = ByteBuffer(string: "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:e1\r\nSUMMARY:Party\r\nDTSTART:20261201T180000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
            let r = try await client.execute(uri: d.mine + "e1.ics", method: .put, headers: d.h(Self.calendarType), body: event)
            #expect(r.status == .forbidden)
            #expect(r.text.contains("supported-calendar-component"))
        }
        #expect(try d.f.commitCount() == before)
    }

    @Test func anUnknownBaseIsAPreconditionFailure() async throws {
        let d = try DAV()
        let annTask = try d.f.taskID(titled: "Ann's first chore")
        let before = try d.f.commitCount()
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: d.mine + annTask + ".ics", method: .get, headers: d.h())
            let put = try await client.execute(
                uri: d.mine + annTask + ".ics", method: .put,
                headers: d.h([.ifMatch: "\"" + String(repeating: "ab", count: 20) + ".00000000\"", .contentType: "text/calendar"]),
                body: ByteBuffer(string: got.text))
            #expect(put.status == .preconditionFailed)
        }
        #expect(try d.f.commitCount() == before)
    }

    @Test func deletingDoneOnlyHidesItAndDeletingOpenDeletes() async throws {
        let d = try DAV()
        let annTask = try d.f.taskID(titled: "Ann's first chore")
        try await d.f.application().test(.router) { client in
            _ = try d.f.household().set(.done, ids: [annTask])
            let hide = try await client.execute(uri: d.mine + annTask + ".ics", method: .delete, headers: d.h())
            #expect(hide.status == .noContent)
            let t = try d.task(annTask)
            #expect(!t.deleted && t.status == .done)
            #expect(CalDAVRecord(t).isHidden("", from: "Ann"))
            let gone = try await client.execute(uri: d.mine + annTask + ".ics", method: .get, headers: d.h())
            #expect(gone.status == .notFound)
            let benTask = try d.f.taskID(titled: "Ben's first chore")
            let del = try await client.execute(uri: d.household + benTask + ".ics", method: .delete, headers: d.h())
            #expect(del.status == .noContent)
            #expect(try d.task(benTask).deleted)
        }
    }

    @Test func checklistItemsTickAddRenameAndGo() async throws {
        let d = try DAV()
        let milk = d.list + "-" + Checklist.key("milk")
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: d.shopping + milk + ".ics", method: .get, headers: d.h())
            #expect(got.status == .ok)
            let ticked = got.text.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "STATUS:COMPLETED")
            let tick = try await client.execute(
                uri: d.shopping + milk + ".ics", method: .put, headers: d.h(Self.calendarType), body: ByteBuffer(string: ticked))
            #expect(tick.status == .noContent)
            #expect(try d.task(d.list).checklist.first { $0.text == "milk" }?.state == .checked)
            let add = try await client.execute(
                uri: d.shopping + "NEW-1.ics", method: .put, headers: d.h(Self.calendarType), body: Self.vtodo(uid: "NEW-1", summary: "bread"))
            #expect(add.status == .created)
            #expect(try d.task(d.list).visibleItems.map(\.text).contains("bread"))
            let renamed = Self.vtodo(uid: "NEW-1", summary: "rye bread")
            let rename = try await client.execute(uri: d.shopping + "NEW-1.ics", method: .put, headers: d.h(Self.calendarType), body: renamed)
            #expect(rename.status == .noContent)
            let texts = try d.task(d.list).visibleItems.map(\.text)
            #expect(texts.contains("rye bread") && !texts.contains("bread"))
            let still = try await client.execute(uri: d.shopping + "NEW-1.ics", method: .get, headers: d.h())
            #expect(still.text.contains("UID:NEW-1") && still.text.contains("SUMMARY:rye bread"))
            let remove = try await client.execute(uri: d.shopping + "NEW-1.ics", method: .delete, headers: d.h())
            #expect(remove.status == .noContent)
            #expect(!(try d.task(d.list).visibleItems.map(\.text).contains("rye bread")))
        }
    }

    // MARK: Reports

    @Test func syncCollectionGivesExactlyWhatChanged() async throws {
        let d = try DAV()
        let annTask = try d.f.taskID(titled: "Ann's first chore")
        try await d.f.application().test(.router) { client in
            func sync(_ token: String) async throws -> TestResponse {
                try await client.execute(
                    uri: d.mine, method: Self.report, headers: d.h(),
                    body: ByteBuffer(string: #"<d:sync-collection xmlns:d="DAV:"><d:sync-token>"# + token + "</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>"))
            }
            let first = try await sync("")
            #expect(first.status.code == 207)
            let token = try #require(first.text.components(separatedBy: "<d:sync-token>").last?.components(separatedBy: "<").first)
            let none = try await sync(token)
            #expect(Self.hrefs(none.text).isEmpty)
            var edit = TaskEdit()
            edit.title = "Changed in the shell"
            _ = try d.f.household().edit(annTask, edit)
            let changed = try await sync(token)
            #expect(Self.hrefs(changed.text) == [d.mine + annTask + ".ics"])
            let bad = try await sync("http://todo.invalid/sync/" + String(repeating: "0", count: 40) + "/20261126")
            #expect(bad.status == .forbidden)
            #expect(bad.text.contains("valid-sync-token"))
        }
    }

    @Test func calendarQueryFiltersOnStatus() async throws {
        let d = try DAV()
        let annTask = try d.f.taskID(titled: "Ann's first chore")
        _ = try d.f.household().set(.done, ids: [annTask])
        try await d.f.application().test(.router) { client in
            let q = #"<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"><c:prop-filter name="STATUS"><c:text-match negate-condition="yes">COMPLETED</c:text-match></c:prop-filter></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>"#
            let r = try await client.execute(uri: d.mine, method: Self.report, headers: d.h([HTTPField.Name("Depth")!: "1"]), body: ByteBuffer(string: q))
            #expect(r.status.code == 207)
            let hrefs = Self.hrefs(r.text)
            #expect(!hrefs.isEmpty)
            #expect(!hrefs.contains(d.mine + annTask + ".ics"))
        }
    }

    // MARK: Refused

    @Test func whatCannotBeMappedIsRefusedWhole() async throws {
        let d = try DAV()
        let today = try d.f.household().clock.today
        let before = try d.f.commitCount()
        try await d.f.application().test(.router) { client in
            // An occurrence's due date belongs to the chore.
            let href = d.mine + d.chore + "-" + ICalendarText.date(today) + ".ics"
            let got = try await client.execute(uri: href, method: .get, headers: d.h())
            let moved = got.text.replacingOccurrences(of: "DUE;VALUE=DATE:" + ICalendarText.date(today), with: "DUE;VALUE=DATE:" + ICalendarText.date(today.adding(days: 3)))
            let refused = try await client.execute(uri: href, method: .put, headers: d.h(Self.calendarType), body: ByteBuffer(string: moved))
            #expect(refused.status == .forbidden)
            #expect(refused.text.contains("valid-calendar-object-resource"))
            // A control character in a title.
            let hostile = try await client.execute(
                uri: d.mine + "X.ics", method: .put, headers: d.h(Self.calendarType), body: Self.vtodo(uid: "X", summary: "a\u{1}b"))
            #expect(hostile.status == .forbidden)
            // XXE.
            let xxe = try await client.execute(
                uri: d.mine, method: Self.propfind, headers: d.h(),
                body: ByteBuffer(string: #"<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><d:propfind xmlns:d="DAV:"><d:prop><d:displayname>&x;</d:displayname></d:prop></d:propfind>"#))
            #expect(xxe.status == .badRequest)
            #expect(!xxe.text.contains("root:"))
            let mk = try await client.execute(uri: d.home + "new/", method: HTTPRequest.Method("MKCALENDAR")!, headers: d.h())
            #expect(mk.status == .forbidden)
            let rrule = Self.vtodo(uid: d.chore, summary: "Dishes", extra: ["RRULE:FREQ=YEARLY"])
            let yearly = try await client.execute(uri: d.mine + "Y.ics", method: .put, headers: d.h(Self.calendarType), body: Self.vtodo(uid: "Y", summary: "Yearly", extra: ["RRULE:FREQ=YEARLY"]))
            #expect(yearly.status == .forbidden)
            _ = rrule
        }
        #expect(try d.f.commitCount() == before)
    }

    @Test func aRepeatingToDoBecomesAChore() async throws {
        let d = try DAV()
        try await d.f.application().test(.router) { client in
            let body = Self.vtodo(uid: "WEEKLY-1", summary: "Water plants", extra: ["DUE;VALUE=DATE:20261130", "RRULE:FREQ=WEEKLY;INTERVAL=2"])
            let r = try await client.execute(uri: d.mine + "WEEKLY-1.ics", method: .put, headers: d.h(Self.calendarType), body: body)
            #expect(r.status == .created)
            let t = try #require(try d.tasks().first { $0.title == "Water plants" })
            #expect(t.recurrence?.rule.description == "2w")
            #expect(CalDAVRecord(t).item.uid == "WEEKLY-1")
        }
    }

    @Test func theSamePutTwiceMakesOneChange() async throws {
        let d = try DAV()
        let annTask = try d.f.taskID(titled: "Ann's first chore")
        let href = d.mine + annTask + ".ics"
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: href, method: .get, headers: d.h())
            let body = ByteBuffer(string: got.text.replacingOccurrences(of: "SUMMARY:Ann's first chore", with: "SUMMARY:Once"))
            let before = try d.f.commitCount()
            _ = try await client.execute(uri: href, method: .put, headers: d.h(Self.calendarType), body: body)
            _ = try await client.execute(uri: href, method: .put, headers: d.h(Self.calendarType), body: body)
            #expect(try d.f.commitCount() == before + 1)
        }
    }
}
