import TestKit
import Testing

@testable import TodoCore

/// What a client's PUT changes (docs/CALDAV.md, "The base of a PUT" and "One device must not
/// break the others"), in the mapping's own terms.
@Suite(.timeLimit(.minutes(3))) struct VTodoPutRulesTests {
    static let utc = TimeZoneRules(fixed: "UTC", seconds: 0, abbreviation: "UTC")

    static func calendar(_ lines: [String]) throws -> ICalComponent {
        let text = (["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VTODO", "UID:u1", "SUMMARY:x"] + lines + ["END:VTODO", "END:VCALENDAR", ""])
            .joined(separator: "\r\n")
        return try ICalendarReader.parse(Array(text.utf8))
    }

    @Test func aStoredAlarmNoAppCanPlaceIsLeftOutWhenServed() throws {
        var v = VTodo(uid: "u1", summary: "x")
        v.kept = [
            "X-A:1", "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-P99999999W", "END:VALARM",
            "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT5M", "END:VALARM",
            "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER;VALUE=DATE-TIME:00010101T000000Z", "END:VALARM",
            "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:soon",
        ]
        let text = String(decoding: v.render(householdZone: Self.utc, dtstamp: 0, etagVersion: nil, turnLine: nil), as: UTF8.self)
        #expect(text.contains("X-A:1"))
        #expect(text.contains("TRIGGER:-PT5M"))
        #expect(!text.contains("P99999999W") && !text.contains("00010101") && !text.contains("soon"))
        #expect(text.components(separatedBy: "BEGIN:VALARM").count == 2)
        #expect(text.components(separatedBy: "END:VALARM").count == 2)
        // What is served reads back.
        _ = try VTodo.read(ICalendarReader.parse(Array(text.utf8)), householdZone: Self.utc, zoneNamed: { _ in nil }, generatedTurnLine: nil)
    }

    @Test func invisibleCharactersAreServedAsTheFeedWritesThemAndReadBackAsTheTasksOwn() throws {
        var v = VTodo(uid: "u1", summary: "Pay \u{202E}gnp.exe")
        v.notes = "a\u{200B}b"
        v.categories = ["c\u{2060}d", "plain"]
        let bytes = v.render(householdZone: Self.utc, dtstamp: 0, etagVersion: nil, turnLine: "Turn: A\u{200F}nn")
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.unicodeScalars.contains { DisplayText.isInvisible($0) })
        #expect(text.contains("SUMMARY:Pay \\\\u{202e}gnp.exe"))
        let back = try VTodo.read(
            ICalendarReader.parse(bytes), householdZone: Self.utc, zoneNamed: { _ in nil }, generatedTurnLine: "Turn: A\u{200F}nn")
        #expect(back.notes == "a\\u{200b}b")
        let own = back.unescapingServed(v)
        #expect(own.summary == v.summary)
        #expect(own.notes == v.notes)
        #expect(own.categories == v.categories)
        // Text the client typed itself is its own.
        var typed = back
        typed.summary = "Pay \\u{202e}later"
        #expect(typed.unescapingServed(v).summary == "Pay \\u{202e}later")
    }

    @Test func withoutABaseTheStatusFollowsTheTwoRules() throws {
        var done = VTodo(uid: "u1", summary: "x", status: .completed)
        done.completed = 1_800_000_000_000
        let open = VTodo(uid: "u1", summary: "y")
        // No STATUS, no COMPLETED: the status is left as it is.
        var s = try VTodo.statement(Self.calendar(["LAST-MODIFIED:21000101T000000Z"]), householdZone: Self.utc, zoneNamed: { _ in nil })
        #expect(!s.statesStatus)
        #expect(open.withoutBase(current: done, statesStatus: s.statesStatus, modified: s.modified).status == .completed)
        // A reopening older than the completion leaves it; a later one reopens.
        s = try VTodo.statement(Self.calendar(["STATUS:NEEDS-ACTION", "DTSTAMP:20200101T000000Z"]), householdZone: Self.utc, zoneNamed: { _ in nil })
        #expect(s.statesStatus && s.modified == 1_577_836_800_000)
        #expect(open.withoutBase(current: done, statesStatus: true, modified: s.modified).status == .completed)
        s = try VTodo.statement(
            Self.calendar(["STATUS:IN-PROCESS", "DTSTAMP:20200101T000000Z", "LAST-MODIFIED:20300101T000000Z"]), householdZone: Self.utc,
            zoneNamed: { _ in nil })
        #expect(s.modified == 1_893_456_000_000)
        var inProcess = open
        inProcess.status = .inProcess
        #expect(inProcess.withoutBase(current: done, statesStatus: true, modified: s.modified).status == .inProcess)
        #expect(open.withoutBase(current: done, statesStatus: true, modified: nil).status == .completed)
        // Completing is always a change.
        var completing = open
        completing.status = .completed
        #expect(completing.withoutBase(current: open, statesStatus: true, modified: nil).status == .completed)
    }
}
