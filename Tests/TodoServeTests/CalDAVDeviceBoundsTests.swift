import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// docs/CALDAV.md, "Changes from a client": what one device writes cannot break what the
/// others are served (alarms that cannot be placed in time, names clients resolve to the
/// collection, a UID another item holds, invisible characters).
@Suite(.timeLimit(.minutes(5)))
struct CalDAVDeviceBoundsTests {
    typealias DAV = CalDAVRouteTests.DAV
    static let calendarType = CalDAVRouteTests.calendarType

    static func alarm(_ trigger: String) -> [String] {
        ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", trigger, "END:VALARM"]
    }

    @Test(arguments: [
        "TRIGGER:-P99999999W", "TRIGGER:-P367D", "TRIGGER;RELATED=END:P53W", "TRIGGER;VALUE=DATE-TIME:22000101T000000Z",
        "TRIGGER;VALUE=DATE-TIME:19691231T235900Z", "TRIGGER:soon",
    ])
    func anAlarmThatCannotBePlacedInTimeIsRefused(trigger: String) async throws {
        let d = try DAV()
        let before = try d.f.commitCount()
        try await d.f.application().test(.router) { client in
            let body = CalDAVRouteTests.vtodo(uid: "A-1", summary: "Alarmed", extra: Self.alarm(trigger))
            let r = try await client.execute(uri: d.mine + "A-1.ics", method: .put, headers: d.h(Self.calendarType), body: body)
            #expect(r.status == .forbidden)
            #expect(r.text.contains("valid-calendar-data"))
            #expect(r.text.contains("alarm 1"))
        }
        #expect(try d.f.commitCount() == before)
    }

    @Test func alarmsWithinAYearAndTheDateRangeAreKept() async throws {
        let d = try DAV()
        try await d.f.application().test(.router) { client in
            let body = CalDAVRouteTests.vtodo(
                uid: "A-2", summary: "Alarmed",
                extra: Self.alarm("TRIGGER:-P52W") + Self.alarm("TRIGGER;VALUE=DATE-TIME:21991231T120000Z"))
            let r = try await client.execute(uri: d.mine + "A-2.ics", method: .put, headers: d.h(Self.calendarType), body: body)
            #expect(r.status == .created)
            let got = try await client.execute(uri: d.mine + "A-2.ics", method: .get, headers: d.h())
            #expect(got.text.contains("TRIGGER:-P52W"))
            #expect(got.text.contains("TRIGGER;VALUE=DATE-TIME:21991231T120000Z"))
        }
    }

    /// An alarm stored before (an older version, a hand edit) is served without that VALARM.
    @Test func aStoredAlarmThatCannotBePlacedIsLeftOutWhenServed() async throws {
        let d = try DAV()
        var record = CalDAVRecord()
        record.item = CalDAVRecord.Entry(
            uid: "OLD-1", href: "OLD-1.ics", kept: ["X-KEEP:1"] + Self.alarm("TRIGGER:-P99999999W") + Self.alarm("TRIGGER:-PT15M"))
        var new = NewTask(title: "Old alarm")
        new.assignee = "Ann"
        new.caldav = record.json
        _ = try d.f.household().add(new)
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: d.mine + "OLD-1.ics", method: .get, headers: d.h())
            #expect(got.status == .ok)
            #expect(!got.text.contains("P99999999W"))
            #expect(got.text.contains("TRIGGER:-PT15M"))
            #expect(got.text.contains("X-KEEP:1"))
            #expect(got.text.components(separatedBy: "BEGIN:VALARM").count == 2)
        }
    }

    @Test(arguments: [".", "..", "%2e", "%2E%2e", "a%2Fb.ics", "x.ics/", "%2F"])
    func aNameClientsResolveElsewhereIsRefused(name: String) async throws {
        let d = try DAV()
        let before = try d.f.commitCount()
        try await d.f.application().test(.router) { client in
            let body = CalDAVRouteTests.vtodo(uid: "N-1", summary: "Named oddly")
            let r = try await client.execute(uri: d.household + name, method: .put, headers: d.h(Self.calendarType), body: body)
            #expect(r.status == .forbidden)
            #expect(r.text.contains("address"))
        }
        #expect(try d.f.commitCount() == before)
    }

    /// A new to-do cannot take the UID of a chore's occurrence, served or not, nor of an item.
    @Test func aUIDAnotherItemHoldsIsRefusedNamingIt() async throws {
        let d = try DAV()
        let today = try d.f.household().clock.today
        let before = try d.f.commitCount()
        try await d.f.application().test(.router) { client in
            let served = d.chore + "-" + ICalendarText.date(today)
            let r = try await client.execute(
                uri: d.household + "new.ics", method: .put, headers: d.h(Self.calendarType),
                body: CalDAVRouteTests.vtodo(uid: served, summary: "Copy"))
            #expect(r.status == .forbidden)
            #expect(r.text.contains("no-uid-conflict"))
            #expect(r.text.contains(d.mine + served + ".ics"))
            let later = d.chore + "-" + ICalendarText.date(today.adding(days: 40))
            let r2 = try await client.execute(
                uri: d.household + "new2.ics", method: .put, headers: d.h(Self.calendarType),
                body: CalDAVRouteTests.vtodo(uid: later, summary: "Copy"))
            #expect(r2.status == .forbidden)
            #expect(r2.text.contains("no-uid-conflict"))
            let milk = d.list + "-" + Checklist.key("milk")
            let r3 = try await client.execute(
                uri: d.mine + "new3.ics", method: .put, headers: d.h(Self.calendarType),
                body: CalDAVRouteTests.vtodo(uid: milk, summary: "Copy"))
            #expect(r3.status == .forbidden)
            #expect(r3.text.contains(d.shopping + milk + ".ics"))
        }
        #expect(try d.f.commitCount() == before)
    }

    /// Bidirectional and zero-width characters are served visibly, as the feed writes them;
    /// the escaped text sent back is the task's own, so no escape is ever stored.
    @Test func invisibleCharactersAreServedVisiblyAndNeverStoredEscaped() async throws {
        let d = try DAV()
        var new = NewTask(title: "Pay \u{202E}gnp.exe")
        new.assignee = "Ann"
        new.notes = "zero\u{200B}width"
        new.tags = ["a\u{200B}b"]
        let id = try #require(try d.f.household().add(new).tasks.first).task.id.hex
        try await d.f.application().test(.router) { client in
            let got = try await client.execute(uri: d.mine + id + ".ics", method: .get, headers: d.h())
            #expect(got.text.contains("SUMMARY:Pay \\\\u{202e}gnp.exe"))
            #expect(got.text.contains("DESCRIPTION:zero\\\\u{200b}width"))
            #expect(got.text.contains("CATEGORIES:a\\\\u{200b}b"))
            #expect(!got.text.unicodeScalars.contains { DisplayText.isInvisible($0) })
            let body = got.text.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "PRIORITY:1\r\nSTATUS:NEEDS-ACTION")
            for headers in [d.h(Self.calendarType), d.h([.contentType: "text/calendar", .ifMatch: try #require(got.headers[.eTag])])] {
                let r = try await client.execute(uri: d.mine + id + ".ics", method: .put, headers: headers, body: ByteBuffer(string: body))
                #expect(r.status == .noContent)
            }
            let t = try d.task(id)
            #expect(t.priority == .high)
            #expect(t.title == "Pay \u{202E}gnp.exe")
            #expect(t.notes == "zero\u{200B}width")
            #expect(t.tags == ["a\u{200B}b"])
        }
    }
}
