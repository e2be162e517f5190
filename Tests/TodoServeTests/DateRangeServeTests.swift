import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// Every date the page or a phone writes lies from 1970-01-01 through 2199-12-31 (docs/FORMAT.md,
/// "Dates"; docs/CALDAV.md, "Limits"): the store refuses any other, the page answers 422 and
/// CalDAV 403 `valid-calendar-data`, each giving the range, and nothing is committed. A chore
/// already stored from the year 1 is still served.
@Suite(.timeLimit(.minutes(4)))
struct DateRangeServeTests {
    typealias M = CalDAVMappingTests
    static let range = "1970-01-01 through 2199-12-31"

    @Test func thePageRefusesADueDateOutsideTheRange() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            let before = try f.commitCount()
            for (n, fields) in [[("due", "0001-01-01")], [("due-date", "2200-01-01")], [("due", "1969-12-31 18:00")]].enumerated() {
                let r = try await client.post("/add", ann, [("title", "Old"), ("form", String(repeating: "\(n + 1)", count: 32))] + fields)
                #expect(r.status == .unprocessableContent, "\(fields): \(r.status)")
                #expect(r.text.contains(Self.range), "\(fields): \(r.text)")
            }
            #expect(try f.commitCount() == before)
        }
    }

    @Test func aPhoneCannotWriteADateOutsideTheRange() async throws {
        let h = try M.Home()
        let plain = try h.add("Pay the rent") { $0.due = Due(date: h.today) }
        try await h.f.application().test(.router) { c in
            let before = try h.f.commitCount()
            var refused: [(String, TestResponse)] = []
            // A new to-do due in the year 1, and a new daily chore from then.
            refused.append(("DUE", try await M.put(c, h, h.mine + "old-1.ics", M.ics("old-1@phone", "Old", ["DUE;VALUE=DATE:00010101"]))))
            refused.append((
                "DTSTART",
                try await M.put(
                    c, h, h.household + "old-2.ics",
                    M.ics("old-2@phone", "Old chore", ["DTSTART;VALUE=DATE:00010101", "DUE;VALUE=DATE:00010101", "RRULE:FREQ=DAILY"]))
            ))
            // An existing to-do moved to 2200.
            refused.append((
                "edit",
                try await M.change(c, h, h.mine + plain + ".ics") { text in
                    let due = M.todo(text).first { $0.hasPrefix("DUE") } ?? ""
                    return try M.swap(text, due, "DUE;VALUE=DATE:22000101")
                }
            ))
            // An occurrence completed in the year 1.
            refused.append((
                "COMPLETED",
                try await M.change(c, h, h.occurrence(h.today)) { text in
                    let status = M.todo(text).first { $0.hasPrefix("STATUS:") } ?? ""
                    return try M.swap(text, status, "STATUS:COMPLETED\r\nCOMPLETED:00010101T100000Z")
                }
            ))
            for (what, r) in refused {
                #expect(r.status == .forbidden, "\(what): \(r.status) \(r.text)")
                #expect(r.text.contains("valid-calendar-data"), "\(what): \(r.text)")
                #expect(r.text.contains(Self.range), "\(what): \(r.text)")
            }
            #expect(try h.f.commitCount() == before)
        }
    }

    /// A chore whose file says it started in the year 1 (an older version, a hand edit) is
    /// still listed and served.
    @Test func aChoreFromTheYearOneIsStillServed() async throws {
        let h = try M.Home()
        let path = try #require(TaskID(h.chore)).path
        let text = try h.file(h.chore)
        let edited = text.replacingOccurrences(of: "\"from\": \"\(h.today)\"", with: "\"from\": \"0001-01-01\"")
        try #require(edited != text, "\(text)")
        try Data(edited.utf8).write(to: URL(fileURLWithPath: h.f.repo + "/" + path))
        _ = try h.f.git(["add", path])
        _ = try h.f.git(["commit", "-q", "-m", "by hand: from the year 1"])
        #expect(try h.task(h.chore).recurrence?.from == CivilDate(iso: "0001-01-01"))
        try await h.f.application().test(.router) { c in
            let got = try await M.get(c, h, h.occurrence(h.today))
            #expect(got.status == .ok, "\(got.status) \(got.text)")
            let list = try await c.execute(
                uri: h.household, method: HTTPRequest.Method("PROPFIND")!, headers: h.headers([HTTPField.Name("Depth")!: "1"]))
            #expect(list.status.code == 207, "\(list.status)")
        }
    }
}
