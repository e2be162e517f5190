import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// docs/CALDAV.md, "The mapping": one case per row, both ways where the row has two. (a) a task
/// as the store writes it (what `todo` does) and the exact property lines of the VTODO a client
/// GETs; (b) a client's PUT of that property and the task the store then holds, with
/// `git show main:tasks/…` as the independent judge for some rows. Then the rows of "Changes
/// from a client" that `CalDAVRouteTests` leaves out.
@Suite(.timeLimit(.minutes(4)))
struct CalDAVMappingTests {
    /// A household in Europe/Paris with Ann and Ben, a daily chore whose turns go Ann, Ben from
    /// today, and app passwords for both.
    final class Home: @unchecked Sendable {
        let f: ServeFixture
        let chore: String
        let auth: String
        let benAuth: String

        init() throws {
            f = try ServeFixture()
            try f.household().setZone("Europe/Paris")
            chore = try f.addChore("Dishes", rotation: ["Ann", "Ben"])
            let ann = try f.site.tokens.appPassword(member: "Ann", label: "phone", now: f.site.now())
            auth = "Basic " + Data("\(ann.user):\(ann.password)".utf8).base64EncodedString()
            let ben = try f.site.tokens.appPassword(member: "Ben", label: "phone", now: f.site.now())
            benAuth = "Basic " + Data("\(ben.user):\(ben.password)".utf8).base64EncodedString()
        }

        var home: String { "/dav/" + DAVKey.of("Ann") + "/" }
        var mine: String { home + "mine/" }
        var household: String { home + "household/" }
        var today: CivilDate { (try? f.household().clock.today) ?? CivilDate(daysSinceEpoch: 0) }

        func headers(_ extra: HTTPFields = [:]) -> HTTPFields {
            var out: HTTPFields = [.authorization: auth]
            for x in extra { out.append(x) }
            return out
        }

        func task(_ id: String) throws -> Task {
            let taskID = try #require(TaskID(id))
            return try #require(try f.household().snapshot().task(taskID))
        }

        func tasks() throws -> [Task] { try f.household().snapshot().loadAll().tasks }

        func titled(_ title: String) throws -> Task { try #require(try tasks().first { $0.title == title }) }

        /// The task file as committed on `main`, read by git.
        func file(_ id: String) throws -> String {
            try f.git(["show", "main:" + (try #require(TaskID(id))).path])
        }

        /// Adds a task through the store (as `todo add`); its id.
        func add(_ title: String, assignee: String? = "Ann", _ set: (inout NewTask) -> Void = { _ in }) throws -> String {
            var t = NewTask(title: title)
            t.assignee = assignee
            set(&t)
            return try #require(try f.household().add(t).tasks.first).task.id.hex
        }

        func edit(_ id: String, _ set: (inout TaskEdit) -> Void) throws {
            var e = TaskEdit()
            set(&e)
            _ = try f.household().edit(id, e)
        }

        func schedule(_ id: String) throws -> ChoreSchedule {
            try #require(ChoreSchedule(try task(id), today: today, context: .plain))
        }

        func occurrence(_ date: CivilDate, of id: String? = nil) -> String {
            mine + (id ?? chore) + "-" + ICalendarText.date(date) + ".ics"
        }

        /// Milliseconds since the epoch of a household wall time.
        func utcMillis(_ date: CivilDate, minutes: Int) throws -> Int64 {
            let zone = try #require(HouseholdZone.load("Europe/Paris"))
            let local = Int64(date.daysSinceEpoch) * 86_400 + Int64(minutes) * 60
            return (local - Int64(zone.offset(atUTC: local - 3600).seconds)) * 1000
        }
    }

    static let calendarType: HTTPFields = [.contentType: "text/calendar; charset=utf-8"]

    /// A client's VCALENDAR with one VTODO.
    static func ics(_ uid: String, _ summary: String, _ extra: [String] = []) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//phone//EN", "BEGIN:VTODO", "UID:\(uid)", "DTSTAMP:20261126T100000Z", "SUMMARY:\(summary)"]
            + extra + ["END:VTODO", "END:VCALENDAR", ""]).joined(separator: "\r\n")
    }

    /// The content lines of an iCalendar text, unfolded.
    static func lines(_ text: String) -> [String] {
        var out: [String] = []
        for raw in text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false) {
            if let first = raw.first, first == " " || first == "\t", !out.isEmpty {
                out[out.count - 1] += raw.dropFirst()
            } else {
                out.append(String(raw))
            }
        }
        return out
    }

    /// The VTODO's own lines (BEGIN:VTODO through END:VTODO), unfolded.
    static func todo(_ text: String) -> [String] {
        let all = lines(text)
        guard let start = all.firstIndex(of: "BEGIN:VTODO"), let end = all.lastIndex(of: "END:VTODO"), start < end else { return [] }
        return Array(all[start...end])
    }

    /// `text` with `old` (which must be there) replaced by `new`.
    static func swap(_ text: String, _ old: String, _ new: String) throws -> String {
        try #require(text.contains(old), "\(old) in \(text)")
        return text.replacingOccurrences(of: old, with: new)
    }

    /// `text` with `lines` added at the end of the VTODO.
    static func adding(_ text: String, _ lines: [String]) throws -> String {
        try swap(text, "END:VTODO\r\n", lines.map { $0 + "\r\n" }.joined() + "END:VTODO\r\n")
    }

    static func get(_ c: some TestClientProtocol, _ h: Home, _ href: String) async throws -> TestResponse {
        try await c.execute(uri: href, method: .get, headers: h.headers())
    }

    static func put(_ c: some TestClientProtocol, _ h: Home, _ href: String, _ body: String, _ extra: HTTPFields = [:])
        async throws -> TestResponse
    {
        var headers = h.headers(calendarType)
        for x in extra { headers.append(x) }
        return try await c.execute(uri: href, method: .put, headers: headers, body: ByteBuffer(string: body))
    }

    /// GETs `href`, changes its text with `change`, PUTs it back; the PUT's answer.
    static func change(_ c: some TestClientProtocol, _ h: Home, _ href: String, _ change: (String) throws -> String)
        async throws -> TestResponse
    {
        let got = try await get(c, h, href)
        try #require(got.status == .ok, "GET \(href): \(got.status) \(got.text)")
        return try await put(c, h, href, try change(got.text))
    }

    // MARK: UID

    @Test func uidIsTheTaskIDOrTheClientsOwnKept() async throws {
        let h = try Home()
        let id = try h.add("Pay the rent")
        try await h.f.application().test(.router) { c in
            // (a) A task made with todo: its id.
            let got = try await Self.get(c, h, h.mine + id + ".ics")
            #expect(got.status == .ok)
            #expect(Self.todo(got.text).contains("UID:" + id))
            // (b) A client's own UID and href are kept, and given back after a CLI edit.
            let created = try await Self.put(c, h, h.mine + "phone-item-1.ics", Self.ics("A1B2-C3@phone", "Call Grandma"), [.ifNoneMatch: "*"])
            #expect(created.status == .created)
            let t = try h.titled("Call Grandma")
            #expect(t.id.hex != "A1B2-C3@phone")
            #expect(CalDAVRecord(t).item.uid == "A1B2-C3@phone")
            #expect(try h.file(t.id.hex).contains(#""uid": "A1B2-C3@phone""#))
            try h.edit(t.id.hex) { $0.notes = "from the shell" }
            let back = try await Self.get(c, h, h.mine + "phone-item-1.ics")
            #expect(back.status == .ok)
            #expect(Self.todo(back.text).contains("UID:A1B2-C3@phone"))
            #expect(!Self.todo(back.text).contains("UID:" + t.id.hex))
        }
    }

    // MARK: SUMMARY

    @Test func summaryIsTheTitle() async throws {
        let h = try Home()
        let id = try h.add("Buy milk, eggs; bread")
        try await h.f.application().test(.router) { c in
            let href = h.mine + id + ".ics"
            // (a) Escaped as TEXT.
            let got = try await Self.get(c, h, href)
            #expect(Self.todo(got.text).contains(#"SUMMARY:Buy milk\, eggs\; bread"#))
            // (b) Trimmed, unescaped.
            let put = try await Self.change(c, h, href) { try Self.swap($0, #"SUMMARY:Buy milk\, eggs\; bread"#, #"SUMMARY:  Buy oat milk\, rye bread  "#) }
            #expect(put.status == .noContent)
            #expect(try h.task(id).title == "Buy oat milk, rye bread")
            #expect(try h.file(id).contains(#""title": "Buy oat milk, rye bread""#))
            // On an occurrence it renames the chore.
            let occ = try await Self.change(c, h, h.occurrence(h.today)) { try Self.swap($0, "SUMMARY:Dishes", "SUMMARY:Wash up") }
            #expect(occ.status == .noContent)
            #expect(try h.task(h.chore).title == "Wash up")
            #expect(try h.file(h.chore).contains(#""title": "Wash up""#))
        }
    }

    // MARK: DESCRIPTION

    @Test func descriptionIsTheNotes() async throws {
        let h = try Home()
        let id = try h.add("Plan the trip") { $0.notes = "Line one\nLine two; with, commas" }
        let bare = try h.add("No notes")
        try await h.f.application().test(.router) { c in
            let href = h.mine + id + ".ics"
            let got = try await Self.get(c, h, href)
            #expect(Self.todo(got.text).contains(#"DESCRIPTION:Line one\nLine two\; with\, commas"#))
            let none = try await Self.get(c, h, h.mine + bare + ".ics")
            #expect(!Self.todo(none.text).contains { $0.hasPrefix("DESCRIPTION") })
            let put = try await Self.change(c, h, href) {
                try Self.swap($0, #"DESCRIPTION:Line one\nLine two\; with\, commas"#, #"DESCRIPTION:Tickets booked\nHotel: none yet"#)
            }
            #expect(put.status == .noContent)
            #expect(try h.task(id).notes == "Tickets booked\nHotel: none yet")
            #expect(try h.file(id).contains(#""notes": "Tickets booked\nHotel: none yet""#))
        }
    }

    @Test func householdsTurnLineIsTheServersAndNeverReachesTheNotes() async throws {
        let h = try Home()
        var bins = NewTask(title: "Bins")
        bins.notes = "Use the blue bin"
        bins.recurrence = Recurrence(rule: try #require(RepeatRule("daily")), from: h.today)
        bins.rotation = ["Ben", "Ann"]
        let id = try #require(try h.f.household().add(bins).tasks.first).task.id.hex
        try await h.f.application().test(.router) { c in
            // (a) Today is Ben's turn: Ann sees it in Household, the turn above the notes.
            let href = h.household + id + "-" + ICalendarText.date(h.today) + ".ics"
            let got = try await Self.get(c, h, href)
            #expect(got.status == .ok)
            #expect(Self.todo(got.text).contains(#"DESCRIPTION:Turn: Ben\n\nUse the blue bin"#))
            #expect(Self.todo(got.text).contains("SUMMARY:Bins"))
            // (b) The DESCRIPTION sent back as served: the line is taken off, the notes unchanged.
            let put = try await Self.put(c, h, href, try Self.swap(got.text, "SUMMARY:Bins", "SUMMARY:Bins out"))
            #expect(put.status == .noContent)
            let t = try h.task(id)
            #expect(t.title == "Bins out")
            #expect(t.notes == "Use the blue bin")
            #expect(!(try h.file(id).contains("Turn: Ben")))
        }
    }

    // MARK: DUE

    @Test func dueDateIsADate() async throws {
        let h = try Home()
        let id = try h.add("Renew passport") { $0.due = Due(stored: "2026-11-24") }
        try await h.f.application().test(.router) { c in
            let href = h.mine + id + ".ics"
            let got = try await Self.get(c, h, href)
            #expect(Self.todo(got.text).contains("DUE;VALUE=DATE:20261124"))
            #expect(!Self.lines(got.text).contains("BEGIN:VTIMEZONE"))
            let put = try await Self.put(c, h, href, try Self.swap(got.text, "DUE;VALUE=DATE:20261124", "DUE;VALUE=DATE:20261130"))
            #expect(put.status == .noContent)
            #expect(try h.task(id).due == Due(stored: "2026-11-30"))
            #expect(try h.file(id).contains(#""due": "2026-11-30""#))
            // No DUE: no due date.
            let cleared = try await Self.change(c, h, href) { try Self.swap($0, "DUE;VALUE=DATE:20261130\r\n", "") }
            #expect(cleared.status == .noContent)
            #expect(try h.task(id).due == nil)
        }
    }

    @Test func dueTimeIsHouseholdTime() async throws {
        let h = try Home()
        let id = try h.add("Dentist") { $0.due = Due(stored: "2026-11-24T18:00") }
        try await h.f.application().test(.router) { c in
            // (a) In the household zone, with its VTIMEZONE.
            let got = try await Self.get(c, h, h.mine + id + ".ics")
            #expect(Self.todo(got.text).contains("DUE;TZID=Europe/Paris:20261124T180000"))
            let all = Self.lines(got.text)
            #expect(all.contains("BEGIN:VTIMEZONE") && all.contains("TZID:Europe/Paris"))
            // (b) From the household's TZID, UTC, another zone, floating, with seconds, and a
            // zone this machine does not know.
            let cases: [(String, String)] = [
                ("DUE;TZID=Europe/Paris:20261124T193000", "2026-11-24T19:30"),
                ("DUE:20261124T170000Z", "2026-11-24T18:00"),
                ("DUE;TZID=America/New_York:20261124T120000", "2026-11-24T18:00"),
                ("DUE;TZID=Asia/Tokyo:20261125T000000", "2026-11-24T16:00"),
                ("DUE:20261124T081500", "2026-11-24T08:15"),
                ("DUE;TZID=Europe/Paris:20261124T183045", "2026-11-24T18:30"),
                ("DUE;TZID=Mars/Olympus_Mons:20261124T070000", "2026-11-24T07:00"),
            ]
            for (n, (line, stored)) in cases.enumerated() {
                let uid = "DUE-\(n)"
                let r = try await Self.put(c, h, h.mine + uid + ".ics", Self.ics(uid, "Due case \(n)", [line]))
                #expect(r.status == .created, "\(line)")
                let t = try h.titled("Due case \(n)")
                #expect(t.due == Due(stored: stored), "\(line)")
                if n == 2 { #expect(try h.file(t.id.hex).contains(#""due": "2026-11-24T18:00""#)) }
                // Given back in the household zone.
                let back = try await Self.get(c, h, h.mine + uid + ".ics")
                let wall = stored.replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "") + "00"
                #expect(Self.todo(back.text).contains("DUE;TZID=Europe/Paris:" + wall), "\(line)")
            }
        }
    }

    // MARK: PRIORITY

    @Test func priorityBothWays() async throws {
        let h = try Home()
        let high = try h.add("Urgent") { $0.priority = .high }
        let low = try h.add("Someday") { $0.priority = .low }
        let normal = try h.add("Ordinary")
        try await h.f.application().test(.router) { c in
            // (a) Written 1, none, 9.
            #expect(Self.todo(try await Self.get(c, h, h.mine + high + ".ics").text).contains("PRIORITY:1"))
            #expect(Self.todo(try await Self.get(c, h, h.mine + low + ".ics").text).contains("PRIORITY:9"))
            #expect(!Self.todo(try await Self.get(c, h, h.mine + normal + ".ics").text).contains { $0.hasPrefix("PRIORITY") })
            // (b) 1–4 high, 5 and 0 normal, 6–9 low, none normal.
            let href = h.mine + normal + ".ics"
            var r = try await Self.change(c, h, href) { try Self.adding($0, ["PRIORITY:1"]) }
            #expect(r.status == .noContent)
            #expect(try h.task(normal).priority == .high)
            #expect(try h.file(normal).contains(#""priority": "high""#))
            r = try await Self.change(c, h, href) { try Self.swap($0, "PRIORITY:1", "PRIORITY:5") }
            #expect(try h.task(normal).priority == .normal)
            r = try await Self.change(c, h, href) { try Self.adding($0, ["PRIORITY:9"]) }
            #expect(try h.task(normal).priority == .low)
            #expect(try h.file(normal).contains(#""priority": "low""#))
            r = try await Self.change(c, h, href) { try Self.swap($0, "PRIORITY:9", "PRIORITY:0") }
            #expect(try h.task(normal).priority == .normal)
            r = try await Self.change(c, h, href) { try Self.adding($0, ["PRIORITY:3"]) }
            #expect(try h.task(normal).priority == .high)
            r = try await Self.change(c, h, href) { try Self.swap($0, "PRIORITY:1\r\n", "") }
            #expect(r.status == .noContent)
            #expect(try h.task(normal).priority == .normal)
            r = try await Self.change(c, h, href) { try Self.adding($0, ["PRIORITY:6"]) }
            #expect(try h.task(normal).priority == .low)
        }
    }

    // MARK: CATEGORIES

    @Test func categoriesAreTags() async throws {
        let h = try Home()
        let id = try h.add("Mow the lawn") { $0.tags = ["garden", "weekend"] }
        try await h.f.application().test(.router) { c in
            let href = h.mine + id + ".ics"
            let got = try await Self.get(c, h, href)
            #expect(Self.todo(got.text).filter { $0.hasPrefix("CATEGORIES") } == ["CATEGORIES:garden,weekend"])
            // (b) Every CATEGORIES line read; a space inside one becomes `-`; a category gone is a tag gone.
            let r = try await Self.put(c, h, href, try Self.swap(got.text, "CATEGORIES:garden,weekend", "CATEGORIES:garden\r\nCATEGORIES:Front yard,tools"))
            #expect(r.status == .noContent)
            #expect(r.headers[.eTag] == nil)
            #expect(Set(try h.task(id).tags) == ["garden", "Front-yard", "tools"])
            let file = try h.file(id)
            #expect(file.contains("Front-yard") && !file.contains("Front yard"))
            let back = try await Self.get(c, h, href)
            #expect(Self.todo(back.text).filter { $0.hasPrefix("CATEGORIES") }.count == 1)
            let category = try #require(Self.todo(back.text).first { $0.hasPrefix("CATEGORIES:") })
            #expect(Set(category.dropFirst("CATEGORIES:".count).split(separator: ",").map(String.init)) == ["garden", "Front-yard", "tools"])
        }
    }

    // MARK: STATUS

    @Test func completedTaskBothWays() async throws {
        let h = try Home()
        let done = try h.add("Already done")
        _ = try h.f.household().set(.done, ids: [done])
        let open = try h.add("Still open")
        let byTime = try h.add("Done by its time")
        try await h.f.application().test(.router) { c in
            // (a) COMPLETED at the completion's time (UTC) and PERCENT-COMPLETE:100.
            let got = Self.todo(try await Self.get(c, h, h.mine + done + ".ics").text)
            let at = try #require(try h.task(done).stamps["status"]?.stamp.wall)
            #expect(got.contains("STATUS:COMPLETED"))
            #expect(got.contains("COMPLETED:" + ICalendarText.utc(at)))
            #expect(got.contains("PERCENT-COMPLETE:100"))
            let openLines = Self.todo(try await Self.get(c, h, h.mine + open + ".ics").text)
            #expect(openLines.contains("STATUS:NEEDS-ACTION"))
            #expect(!openLines.contains { $0.hasPrefix("COMPLETED") || $0.hasPrefix("PERCENT-COMPLETE") })
            // (b) STATUS:COMPLETED is done; NEEDS-ACTION after completed is open again.
            var r = try await Self.change(c, h, h.mine + open + ".ics") { try Self.swap($0, "STATUS:NEEDS-ACTION", "STATUS:COMPLETED") }
            #expect(r.status == .noContent)
            #expect(try h.task(open).status == .done)
            #expect(try h.file(open).contains(#""status": "done""#))
            r = try await Self.change(c, h, h.mine + open + ".ics") { try Self.swap($0, "STATUS:COMPLETED", "STATUS:NEEDS-ACTION") }
            #expect(r.status == .noContent)
            #expect(try h.task(open).status == .open)
            #expect(try h.file(open).contains(#""status": "open""#))
            // A COMPLETED time alone is done; IN-PROCESS after completed is open again.
            r = try await Self.change(c, h, h.mine + byTime + ".ics") { try Self.swap($0, "STATUS:NEEDS-ACTION", "COMPLETED:20261126T080000Z") }
            #expect(r.status == .noContent)
            #expect(try h.task(byTime).status == .done)
            r = try await Self.change(c, h, h.mine + byTime + ".ics") { try Self.swap($0, "STATUS:COMPLETED", "STATUS:IN-PROCESS") }
            #expect(r.status == .noContent)
            #expect(try h.task(byTime).status == .open)
        }
    }

    /// A done task stays in Mine for 14 days, and an item nothing changed stays as it was,
    /// whatever else the household commits meanwhile.
    @Test func aDoneTaskStaysInMineAfterAnotherCommit() async throws {
        let h = try Home()
        let done = try h.add("Done with todo")
        _ = try h.f.household().set(.done, ids: [done])
        let other = try h.add("Something else")
        let untouched = try h.add("Left alone")
        try await h.f.application().test(.router) { c in
            let first = try await Self.get(c, h, h.mine + done + ".ics")
            #expect(first.status == .ok)
            let alone = try await Self.get(c, h, h.mine + untouched + ".ics")
            let ticked = try await Self.change(c, h, h.occurrence(h.today)) { try Self.swap($0, "STATUS:NEEDS-ACTION", "STATUS:COMPLETED") }
            #expect(ticked.status == .noContent)
            let occurrence = try await Self.get(c, h, h.occurrence(h.today))
            try h.edit(other) { $0.notes = "an unrelated change" }
            // A done occurrence stays too, as it was.
            let occurrenceLater = try await Self.get(c, h, h.occurrence(h.today))
            #expect(occurrenceLater.status == .ok)
            #expect(Self.todo(occurrenceLater.text).contains("STATUS:COMPLETED"))
            #expect(Self.todo(occurrenceLater.text).filter { $0.hasPrefix("COMPLETED:") } == Self.todo(occurrence.text).filter { $0.hasPrefix("COMPLETED:") })
            let aloneLater = try await Self.get(c, h, h.mine + untouched + ".ics")
            let at = try #require(try h.task(done).stamps["status"]?.stamp.wall)
            let later = try await Self.get(c, h, h.mine + done + ".ics")
            #expect(later.status == .ok)
            #expect(Self.todo(later.text).contains("COMPLETED:" + ICalendarText.utc(at)))
            // An item nothing changed keeps its ETag and DTSTAMP.
            #expect(aloneLater.headers[.eTag] == alone.headers[.eTag])
            #expect(Self.todo(aloneLater.text).filter { $0.hasPrefix("DTSTAMP") } == Self.todo(alone.text).filter { $0.hasPrefix("DTSTAMP") })
        }
    }

    @Test func completedOccurrenceIsCreditedForTheDayOfItsCompletedTime() async throws {
        let h = try Home()
        let today = h.today
        let yesterday = today.adding(days: -1)
        try await h.f.application().test(.router) { c in
            // (b) Today's turn ticked on the phone yesterday evening (it went out offline): the
            // credit is for yesterday, as `done --on` would give it.
            let evening = try h.utcMillis(yesterday, minutes: 21 * 60 + 30)
            let r = try await Self.change(c, h, h.occurrence(today)) {
                try Self.swap($0, "STATUS:NEEDS-ACTION", "STATUS:COMPLETED\r\nCOMPLETED:" + ICalendarText.utc(evening))
            }
            #expect(r.status == .noContent)
            let credits = try h.schedule(h.chore).credits(on: today)
            #expect(credits.map(\.member) == ["Ann"])
            #expect(credits.first?.day == yesterday)
            #expect(try h.schedule(h.chore).status(of: today) == .done)
            // (a) Given back completed, at the credit's time.
            let back = Self.todo(try await Self.get(c, h, h.occurrence(today)).text)
            let at = try #require(credits.first?.stamp.stamp.wall)
            #expect(back.contains("STATUS:COMPLETED"))
            #expect(back.contains("COMPLETED:" + ICalendarText.utc(at)))
            #expect(back.contains("PERCENT-COMPLETE:100"))
        }
    }

    @Test func occurrenceCompletedWithTodoShowsCompleted() async throws {
        let h = try Home()
        _ = try h.f.site.openForChange(member: "Ann").complete([h.chore], .done)
        try await h.f.application().test(.router) { c in
            let lines = Self.todo(try await Self.get(c, h, h.occurrence(h.today)).text)
            let credit = try #require(try h.schedule(h.chore).credits(on: h.today).first)
            #expect(lines.contains("UID:\(h.chore)-" + ICalendarText.date(h.today)))
            #expect(lines.contains("STATUS:COMPLETED"))
            #expect(lines.contains("COMPLETED:" + ICalendarText.utc(credit.stamp.stamp.wall)))
            #expect(lines.contains("PERCENT-COMPLETE:100"))
        }
    }

    @Test func untickTakesBackOnlyMyOwnCredit() async throws {
        let h = try Home()
        let today = h.today
        try await h.f.application().test(.router) { c in
            // Ann ticks today's; Ben also does it with todo.
            var r = try await Self.change(c, h, h.occurrence(today)) { try Self.swap($0, "STATUS:NEEDS-ACTION", "STATUS:COMPLETED") }
            #expect(r.status == .noContent)
            _ = try h.f.site.openForChange(member: "Ben").complete([h.chore], .done, on: today)
            #expect(Set(try h.schedule(h.chore).credits(on: today).map(\.member)) == ["Ann", "Ben"])
            // Ann unticks: her credit goes, Ben's stays, the occurrence stays done.
            r = try await Self.change(c, h, h.occurrence(today)) { try Self.swap($0, "STATUS:COMPLETED", "STATUS:NEEDS-ACTION") }
            #expect(r.status == .noContent)
            #expect(try h.schedule(h.chore).credits(on: today).map(\.member) == ["Ben"])
            #expect(try h.schedule(h.chore).status(of: today) == .done)
        }
    }

    @Test func untickWhenOnlyMineOpensTheOccurrenceAgain() async throws {
        let h = try Home()
        let today = h.today
        try await h.f.application().test(.router) { c in
            var r = try await Self.change(c, h, h.occurrence(today)) { try Self.swap($0, "STATUS:NEEDS-ACTION", "STATUS:COMPLETED") }
            #expect(r.status == .noContent)
            r = try await Self.change(c, h, h.occurrence(today)) { try Self.swap($0, "STATUS:COMPLETED", "STATUS:NEEDS-ACTION") }
            #expect(r.status == .noContent)
            #expect(try h.schedule(h.chore).credits(on: today).isEmpty)
            #expect(try h.schedule(h.chore).status(of: today) == .open)
            #expect(Self.todo(try await Self.get(c, h, h.occurrence(today)).text).contains("STATUS:NEEDS-ACTION"))
        }
    }

    @Test func cancelledOccurrenceIsASkip() async throws {
        let h = try Home()
        let two = h.today.adding(days: 2)
        try await h.f.application().test(.router) { c in
            let r = try await Self.change(c, h, h.occurrence(two)) { try Self.swap($0, "STATUS:NEEDS-ACTION", "STATUS:CANCELLED") }
            #expect(r.status == .noContent)
            #expect(try h.schedule(h.chore).status(of: two) == .skipped)
            #expect(try h.schedule(h.chore).credits(on: two).isEmpty)
            #expect(!(try h.task(h.chore).deleted))
            #expect(try h.f.git(["log", "-1", "--format=%s"]).contains("skip"))
        }
    }

    @Test func cancelledTaskIsDeletedAndRestorable() async throws {
        let h = try Home()
        let id = try h.add("Never mind")
        try await h.f.application().test(.router) { c in
            let r = try await Self.change(c, h, h.mine + id + ".ics") { try Self.swap($0, "STATUS:NEEDS-ACTION", "STATUS:CANCELLED") }
            #expect(r.status == .noContent)
            #expect(try h.task(id).deleted)
            #expect(try h.file(id).contains(#""deleted": true"#))
            #expect(try await Self.get(c, h, h.mine + id + ".ics").status == .notFound)
            _ = try h.f.household().set(.restore, ids: [id])
            #expect(!(try h.task(id).deleted))
            #expect(try await Self.get(c, h, h.mine + id + ".ics").status == .ok)
        }
    }

    // MARK: VALARM

    @Test func alarmBeforeDueBothWays() async throws {
        let h = try Home()
        let id = try h.add("Call the bank") {
            $0.due = Due(stored: "2026-11-24T18:00")
            $0.alarm = TaskAlarm("30m")
        }
        try await h.f.application().test(.router) { c in
            let href = h.mine + id + ".ics"
            let got = try await Self.get(c, h, href)
            let lines = Self.todo(got.text)
            let begin = try #require(lines.firstIndex(of: "BEGIN:VALARM"))
            #expect(Array(lines[begin..<min(begin + 5, lines.count)]) == [
                "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Call the bank", "TRIGGER;RELATED=END:-PT30M", "END:VALARM",
            ])
            // (b) A duration before DUE, with RELATED=END or (no DTSTART) none.
            var r = try await Self.put(c, h, href, try Self.swap(got.text, "TRIGGER;RELATED=END:-PT30M", "TRIGGER;RELATED=END:-PT2H"))
            #expect(r.status == .noContent)
            #expect(try h.task(id).alarm == .before(minutes: 120))
            #expect(try h.file(id).contains(#""alarm": "2h""#))
            r = try await Self.change(c, h, href) { try Self.swap($0, "TRIGGER;RELATED=END:-PT2H", "TRIGGER:-PT45M") }
            #expect(r.status == .noContent)
            #expect(try h.task(id).alarm == .before(minutes: 45))
            // A new to-do with an alarm.
            let new = Self.ics("ALARM-1", "Take the cake out", [
                "DUE;TZID=Europe/Paris:20261124T160000", "BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER;RELATED=END:-PT30M", "END:VALARM",
            ])
            r = try await Self.put(c, h, h.mine + "ALARM-1.ics", new)
            #expect(r.status == .created)
            let t = try h.titled("Take the cake out")
            #expect(t.alarm == .before(minutes: 30))
            #expect(try h.file(t.id.hex).contains(#""alarm": "30m""#))
            #expect(CalDAVRecord(t).item.kept.isEmpty)
            // The VALARM taken away: no alarm.
            r = try await Self.change(c, h, href) {
                try Self.swap($0, "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Call the bank\r\nTRIGGER;RELATED=END:-PT45M\r\nEND:VALARM\r\n", "")
            }
            #expect(r.status == .noContent)
            #expect(try h.task(id).alarm == nil)
        }
    }

    @Test func alarmAtATimeOnTheDueDayBothWays() async throws {
        let h = try Home()
        let id = try h.add("Bake for the party") {
            $0.due = Due(stored: "2026-11-24")
            $0.alarm = TaskAlarm("08:00")
        }
        try await h.f.application().test(.router) { c in
            let href = h.mine + id + ".ics"
            let got = try await Self.get(c, h, href)
            // 08:00 in Paris in November is 07:00 UTC.
            #expect(Self.todo(got.text).contains("TRIGGER;VALUE=DATE-TIME:20261124T070000Z"))
            let r = try await Self.put(
                c, h, href, try Self.swap(got.text, "TRIGGER;VALUE=DATE-TIME:20261124T070000Z", "TRIGGER;VALUE=DATE-TIME:20261124T063000Z"))
            #expect(r.status == .noContent)
            #expect(try h.task(id).alarm == .timeOfDay(minutes: 7 * 60 + 30))
            #expect(try h.file(id).contains(#""alarm": "07:30""#))
            let back = try await Self.get(c, h, href)
            #expect(Self.todo(back.text).contains("TRIGGER;VALUE=DATE-TIME:20261124T063000Z"))
        }
    }

    // MARK: RRULE

    @Test func aRepeatingNewToDoBecomesAChore() async throws {
        let h = try Home()
        let today = h.today
        let start = today.adding(days: 1)
        let cases: [(String, [String], String, CivilDate)] = [
            ("Daily", ["RRULE:FREQ=DAILY"], "day", today),
            ("Every third day", ["DUE;VALUE=DATE:" + ICalendarText.date(start), "RRULE:FREQ=DAILY;INTERVAL=3"], "3d", start),
            ("Fortnightly", ["DUE;VALUE=DATE:" + ICalendarText.date(start), "RRULE:FREQ=WEEKLY;INTERVAL=2;WKST=MO"], "2w", start),
            ("Mondays and Thursdays", ["RRULE:FREQ=WEEKLY;BYDAY=MO,TH"], "mon,thu", today),
            ("Weekdays", ["RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"], "weekday", today),
            ("Every other month", ["DUE;VALUE=DATE:" + ICalendarText.date(start), "RRULE:FREQ=MONTHLY;INTERVAL=2"], "2months", start),
        ]
        try await h.f.application().test(.router) { c in
            for (n, (title, extra, rule, from)) in cases.enumerated() {
                let uid = "RULE-\(n)"
                let r = try await Self.put(c, h, h.mine + uid + ".ics", Self.ics(uid, title, extra), [.ifNoneMatch: "*"])
                #expect(r.status == .created, "\(title): \(r.text)")
                let t = try h.titled(title)
                #expect(t.recurrence?.rule.description == rule, "\(title)")
                #expect(t.recurrence?.from == from, "\(title)")
                #expect(CalDAVRecord(t).item.uid == uid)
                if n == 2 { #expect(try h.file(t.id.hex).contains(#""every": "2w""#)) }
            }
            // Its occurrences carry the client's UID as their base.
            #expect(try await Self.get(c, h, h.mine + "RULE-0-" + ICalendarText.date(today) + ".ics").status == .ok)
        }
    }

    @Test func aRuleTheMappingCannotHoldOrOnAnExistingItemIsRefused() async throws {
        let h = try Home()
        let id = try h.add("Plain")
        let before = try h.f.commitCount()
        try await h.f.application().test(.router) { c in
            for rule in ["RRULE:FREQ=MONTHLY;BYMONTHDAY=15", "RRULE:FREQ=DAILY;COUNT=3", "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO"] {
                let r = try await Self.put(c, h, h.mine + "R.ics", Self.ics("R", "Refused", [rule]))
                #expect(r.status == .forbidden, "\(rule)")
                #expect(r.text.contains("valid-calendar-object-resource"), "\(rule)")
                #expect(r.text.contains(String(rule.dropFirst("RRULE:".count))), "\(rule): \(r.text)")
            }
            let r = try await Self.change(c, h, h.mine + id + ".ics") { try Self.adding($0, ["RRULE:FREQ=DAILY"]) }
            #expect(r.status == .forbidden)
            #expect(r.text.contains("valid-calendar-object-resource"))
        }
        #expect(try h.f.commitCount() == before)
        #expect(try h.task(id).recurrence == nil)
    }

    // MARK: The collection a new VTODO is PUT into

    @Test func theCollectionOfANewToDoSaysWhoseItIs() async throws {
        let h = try Home()
        try await h.f.application().test(.router) { c in
            #expect(try await Self.put(c, h, h.mine + "M.ics", Self.ics("M", "Into Mine")).status == .created)
            #expect(try await Self.put(c, h, h.household + "H.ics", Self.ics("H", "Into Household")).status == .created)
            let mine = try h.titled("Into Mine")
            let household = try h.titled("Into Household")
            #expect(mine.assignee == "Ann")
            #expect(household.assignee == nil)
            #expect(try h.file(mine.id.hex).contains(#""assignee": "Ann""#))
            #expect(try await Self.get(c, h, h.household + "H.ics").status == .ok)
            #expect(try await Self.get(c, h, h.mine + "H.ics").status == .notFound)
        }
    }

    // MARK: Written by the server, ignored when read

    @Test func serverWrittenPropertiesAreIgnoredWhenRead() async throws {
        let h = try Home()
        let id = try h.add("Stamped")
        try await h.f.application().test(.router) { c in
            let href = h.mine + id + ".ics"
            let got = try await Self.get(c, h, href)
            let stampLine = try #require(Self.todo(got.text).first { $0.hasPrefix("DTSTAMP:") })
            let before = try h.f.commitCount()
            let body = try Self.adding(
                try Self.swap(got.text, stampLine, "DTSTAMP:20300101T000000Z"),
                ["LAST-MODIFIED:20300101T000000Z", "CREATED:20200101T000000Z", "SEQUENCE:7", "PERCENT-COMPLETE:40", "X-TODO-SOMETHING:else"])
            let r = try await Self.put(c, h, href, body)
            #expect(r.status == .noContent)
            #expect(try h.f.commitCount() == before)
            #expect(CalDAVRecord(try h.task(id)).item.kept.isEmpty)
            let back = Self.todo(try await Self.get(c, h, href).text)
            #expect(!back.contains { $0.hasPrefix("SEQUENCE") || $0.hasPrefix("LAST-MODIFIED") || $0.hasPrefix("CREATED") || $0.hasPrefix("PERCENT-COMPLETE") || $0.hasPrefix("X-TODO-SOMETHING") })
            #expect(back.contains { $0.hasPrefix("X-TODO-VERSION:") })
        }
    }

    // MARK: Everything else is kept

    @Test func keptPropertiesComeBackUnchangedAfterACLIEdit() async throws {
        let h = try Home()
        let keptProperties = [
            "X-APPLE-SORT-ORDER:7", "RELATED-TO;RELTYPE=PARENT:PARENT-UID-1", "DTSTART;VALUE=DATE:20261120", "CLASS:PRIVATE",
            "URL:https://example.org/list", "X-TASKS-ORG-ORDER:3", "X-MOZ-GENERATION:2",
        ]
        let secondAlarm = [
            "BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER;VALUE=DATE-TIME:20261123T090000Z", "X-WR-ALARMUID:SECOND-1", "END:VALARM",
        ]
        let body = Self.ics(
            "KEPT-1", "Sort the photos",
            ["DUE;VALUE=DATE:20261124"] + keptProperties
                + ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER;RELATED=END:-PT30M", "X-WR-ALARMUID:FIRST-1", "END:VALARM"]
                + secondAlarm)
        try await h.f.application().test(.router) { c in
            let r = try await Self.put(c, h, h.mine + "KEPT-1.ics", body)
            #expect(r.status == .created)
            let t = try h.titled("Sort the photos")
            #expect(t.alarm == .before(minutes: 30))
            #expect(CalDAVRecord(t).item.kept == keptProperties + secondAlarm)
            #expect(try h.file(t.id.hex).contains(#""X-APPLE-SORT-ORDER:7""#))
            // The CLI changes the same task.
            try h.edit(t.id.hex) {
                $0.title = "Sort the holiday photos"
                $0.priority = .high
            }
            let lines = Self.todo(try await Self.get(c, h, h.mine + "KEPT-1.ics").text)
            #expect(lines.contains("SUMMARY:Sort the holiday photos"))
            #expect(lines.contains("PRIORITY:1"))
            let first = try #require(lines.firstIndex(of: keptProperties[0]))
            #expect(Array(lines[first..<min(first + keptProperties.count, lines.count)]) == keptProperties)
            let afterKept = first + keptProperties.count
            #expect(Array(lines[afterKept..<min(afterKept + 5, lines.count)]) == [
                "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Sort the holiday photos", "TRIGGER;RELATED=END:-PT30M", "END:VALARM",
            ])
            #expect(Array(lines.suffix(secondAlarm.count + 1)) == secondAlarm + ["END:VTODO"])
            #expect(!lines.contains("X-WR-ALARMUID:FIRST-1"))
        }
    }

    // MARK: Changes from a client: moves

    @Test func aMoveDeleteThenPutKeepsTheTask() async throws {
        let h = try Home()
        let ben = try h.f.taskID(titled: "Ben's first chore")
        let count = try h.tasks().count
        try await h.f.application().test(.router) { c in
            // Apple moves an item from Household to Mine: DELETE, then PUT of the same UID.
            let got = try await Self.get(c, h, h.household + ben + ".ics")
            #expect(got.status == .ok)
            let del = try await c.execute(uri: h.household + ben + ".ics", method: .delete, headers: h.headers())
            #expect(del.status == .noContent)
            #expect(try h.task(ben).deleted)
            let put = try await Self.put(c, h, h.mine + ben + ".ics", got.text, [.ifNoneMatch: "*"])
            #expect(put.status == .created, "\(put.text)")
            let t = try h.task(ben)
            #expect(!t.deleted)
            #expect(t.assignee == "Ann")
            #expect(t.title == "Ben's first chore")
            #expect(try h.tasks().count == count)
            #expect(try h.file(ben).contains(#""assignee": "Ann""#))
            #expect(try await Self.get(c, h, h.mine + ben + ".ics").status == .ok)
            #expect(try await Self.get(c, h, h.household + ben + ".ics").status == .notFound)
        }
    }

    @Test func aMovePutThenDeleteKeepsTheTask() async throws {
        let h = try Home()
        let fence = try h.add("Fix the fence", assignee: nil)
        let count = try h.tasks().count
        try await h.f.application().test(.router) { c in
            let got = try await Self.get(c, h, h.household + fence + ".ics")
            #expect(got.status == .ok)
            let put = try await Self.put(c, h, h.mine + fence + ".ics", got.text, [.ifNoneMatch: "*"])
            #expect(put.status == .created, "\(put.text)")
            #expect(try h.task(fence).assignee == "Ann")
            let del = try await c.execute(uri: h.household + fence + ".ics", method: .delete, headers: h.headers())
            #expect(del.status == .notFound)
            let t = try h.task(fence)
            #expect(!t.deleted)
            #expect(t.assignee == "Ann")
            #expect(try h.tasks().count == count)
            #expect(try await Self.get(c, h, h.mine + fence + ".ics").status == .ok)
        }
    }

    @Test func aUIDAlreadyAtAnotherHrefOfTheSameListIsAConflict() async throws {
        let h = try Home()
        let ann = try h.f.taskID(titled: "Ann's first chore")
        let before = try h.f.commitCount()
        try await h.f.application().test(.router) { c in
            let r = try await Self.put(c, h, h.mine + "copy.ics", Self.ics(ann, "A copy"))
            #expect(r.status == .forbidden)
            #expect(r.text.contains("no-uid-conflict"))
        }
        #expect(try h.f.commitCount() == before)
    }

    // MARK: Changes from a client: DELETE

    @Test func deletingAnOpenOccurrenceSkipsIt() async throws {
        let h = try Home()
        let two = h.today.adding(days: 2)
        try await h.f.application().test(.router) { c in
            let r = try await c.execute(uri: h.occurrence(two), method: .delete, headers: h.headers())
            #expect(r.status == .noContent)
            #expect(try h.schedule(h.chore).status(of: two) == .skipped)
            #expect(!(try h.task(h.chore).deleted))
            #expect(try await Self.get(c, h, h.occurrence(two)).status == .notFound)
        }
    }

    @Test func clearingCompletedNeverDeletesATaskOrACredit() async throws {
        let h = try Home()
        let today = h.today
        let task = try h.add("Done on the phone")
        try await h.f.application().test(.router) { c in
            var r = try await Self.change(c, h, h.occurrence(today)) { try Self.swap($0, "STATUS:NEEDS-ACTION", "STATUS:COMPLETED") }
            #expect(r.status == .noContent)
            r = try await Self.change(c, h, h.mine + task + ".ics") { try Self.swap($0, "STATUS:NEEDS-ACTION", "STATUS:COMPLETED") }
            #expect(r.status == .noContent)
            // Apple's "Clear completed": a DELETE of each done item.
            r = try await c.execute(uri: h.occurrence(today), method: .delete, headers: h.headers())
            #expect(r.status == .noContent)
            r = try await c.execute(uri: h.mine + task + ".ics", method: .delete, headers: h.headers())
            #expect(r.status == .noContent)
            #expect(try h.schedule(h.chore).credits(on: today).map(\.member) == ["Ann"])
            #expect(!(try h.task(h.chore).deleted))
            let t = try h.task(task)
            #expect(!t.deleted && t.status == .done)
            let record = CalDAVRecord(try h.task(h.chore))
            #expect(record.isHidden(today.description, from: "Ann"))
            #expect(!record.isHidden(today.description, from: "Ben"))
            #expect(CalDAVRecord(t).isHidden("", from: "Ann"))
            #expect(try h.file(task).contains(#""status": "done""#))
            #expect(try await Self.get(c, h, h.occurrence(today)).status == .notFound)
            #expect(try await Self.get(c, h, h.mine + task + ".ics").status == .notFound)
        }
    }

    // MARK: Changes from a client: the base of a PUT

    @Test func anOldVersionInTheBodyMergesLikeIfMatch() async throws {
        let h = try Home()
        let id = try h.add("Read the contract")
        try await h.f.application().test(.router) { c in
            let href = h.mine + id + ".ics"
            let got = try await Self.get(c, h, href)
            #expect(Self.todo(got.text).contains { $0.hasPrefix("X-TODO-VERSION:") })
            // Meanwhile the shell changes the notes and the priority.
            try h.edit(id) {
                $0.notes = "from the shell"
                $0.priority = .low
            }
            // The phone renames it, with no If-Match: its X-TODO-VERSION names its base.
            let r = try await Self.put(c, h, href, try Self.swap(got.text, "SUMMARY:Read the contract", "SUMMARY:Sign the contract"))
            #expect(r.status == .noContent)
            #expect(r.headers[.eTag] == nil)
            let t = try h.task(id)
            #expect(t.title == "Sign the contract")
            #expect(t.notes == "from the shell")
            #expect(t.priority == .low)
            let file = try h.file(id)
            #expect(file.contains("Sign the contract") && file.contains("from the shell"))
            // A version that is no version of this task: a base it cannot know.
            let now = try await Self.get(c, h, href)
            let versionLine = try #require(Self.todo(now.text).first { $0.hasPrefix("X-TODO-VERSION:") })
            let before = try h.f.commitCount()
            let unknown = try await Self.put(
                c, h, href,
                try Self.swap(
                    try Self.swap(now.text, versionLine, "X-TODO-VERSION:" + String(repeating: "ab", count: 20)), "SUMMARY:Sign the contract",
                    "SUMMARY:Lost"))
            #expect(unknown.status == .preconditionFailed)
            #expect(try h.f.commitCount() == before)
        }
    }

    /// RFC 4791 §5.3.4: an ETag only for an item stored byte for byte as sent. A client's own
    /// body never is (the server writes its PRODID, DTSTAMP and X-TODO-VERSION), so the client
    /// fetches it; sent back exactly as served, it is, and it changes nothing.
    @Test func anExactPutAnswersTheETagAndTheSamePutTwiceToo() async throws {
        let h = try Home()
        try await h.f.application().test(.router) { c in
            let created = try await Self.put(c, h, h.mine + "E.ics", Self.ics("E", "Exact", ["DUE;VALUE=DATE:20261124", "PRIORITY:1"]))
            #expect(created.status == .created)
            #expect(created.headers[.eTag] == nil)
            let got = try await Self.get(c, h, h.mine + "E.ics")
            let tag = try #require(got.headers[.eTag])
            let before = try h.f.commitCount()
            let again = try await Self.put(c, h, h.mine + "E.ics", got.text)
            #expect(again.status == .noContent)
            #expect(again.headers[.eTag] == tag)
            #expect(try h.f.commitCount() == before)
        }
    }

    // MARK: Changes from a client: refused

    @Test func bodiesThatAreNotOneToDoAreRefused() async throws {
        let h = try Home()
        let before = try h.f.commitCount()
        try await h.f.application().test(.router) { c in
            let json = try await c.execute(
                uri: h.mine + "J.ics", method: .put, headers: h.headers([.contentType: "application/json"]), body: ByteBuffer(string: "{}"))
            #expect(json.status.code == 415)
            #expect(json.text.contains("supported-calendar-data"))
            let bodies = [
                "hello",
                Self.ics("TWO", "One") + "",
                (["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:EV", "DTSTART:20261124T100000Z", "END:VEVENT", "END:VCALENDAR", ""]).joined(separator: "\r\n"),
                Self.ics("CAT", "Categories", [#"CATEGORIES:home\nwork"#]),
                Self.ics("SUM", #"Two\nlines"#),
                Self.ics("PRI", "Priority", ["PRIORITY:high"]),
                Self.ics("STA", "Status", ["STATUS:DONE"]),
            ]
            let twoTodos = try Self.swap(bodies[1], "END:VCALENDAR", "BEGIN:VTODO\r\nUID:TWO-2\r\nSUMMARY:Two\r\nEND:VTODO\r\nEND:VCALENDAR")
            for (n, body) in ([bodies[0], twoTodos] + bodies[2...]).enumerated() {
                let r = try await Self.put(c, h, h.mine + "BAD-\(n).ics", body)
                #expect(r.status == .forbidden, "\(n): \(body)")
                // A VEVENT (the third body) has a precondition of its own (RFC 4791 §5.3.2.1).
                #expect(r.text.contains(n == 2 ? "supported-calendar-component" : "valid-calendar-data"), "\(n): \(r.text)")
            }
        }
        #expect(try h.f.commitCount() == before)
    }

    @Test func aBodyOver256KiBIsRefusedAsTooLarge() async throws {
        let h = try Home()
        let before = try h.f.commitCount()
        try await h.f.application().test(.router) { c in
            let big = Self.ics("BIG", "Big", ["DESCRIPTION:" + String(repeating: "x", count: 300 * 1024)])
            let r = try await Self.put(c, h, h.mine + "BIG.ics", big)
            #expect(r.text.contains("max-resource-size"))
            #expect(r.status == .contentTooLarge)
        }
        #expect(try h.f.commitCount() == before)
    }

    @Test func methodsThatMakeOrMoveCollectionsAreRefused() async throws {
        let h = try Home()
        let before = try h.f.commitCount()
        try await h.f.application().test(.router) { c in
            let del = try await c.execute(uri: h.mine, method: .delete, headers: h.headers())
            #expect(del.status == .forbidden)
            for name in ["MKCALENDAR", "MKCOL"] {
                // Over an address that is a collection already.
                let existing = try await c.execute(uri: h.mine, method: HTTPRequest.Method(name)!, headers: h.headers())
                #expect(existing.status == .forbidden, "\(name)")
                #expect(existing.text.contains("calendar-collection-location-ok"), "\(name): \(existing.text)")
                // At a new name, as clients make a calendar.
                let new = try await c.execute(uri: h.home + "new-list/", method: HTTPRequest.Method(name)!, headers: h.headers())
                #expect(new.status == .forbidden, "\(name): \(new.status)")
                #expect(new.text.contains("calendar-collection-location-ok"), "\(name): \(new.text)")
            }
            let ann = try h.f.taskID(titled: "Ann's first chore")
            for name in ["MOVE", "COPY", "ACL"] {
                var headers = h.headers()
                headers[HTTPField.Name("Destination")!] = h.household + ann + ".ics"
                let r = try await c.execute(uri: h.mine + ann + ".ics", method: HTTPRequest.Method(name)!, headers: headers)
                #expect(r.status == .forbidden, "\(name)")
            }
            let patch = try await c.execute(
                uri: h.mine, method: HTTPRequest.Method("PROPPATCH")!, headers: h.headers(),
                body: ByteBuffer(string: #"<d:propertyupdate xmlns:d="DAV:" xmlns:a="http://apple.com/ns/ical/"><d:set><d:prop><a:calendar-color>#FF0000</a:calendar-color></d:prop></d:set></d:propertyupdate>"#))
            #expect(patch.status.code == 207)
            #expect(patch.text.contains("HTTP/1.1 403"))
            for name in ["LOCK", "UNLOCK"] {
                let r = try await c.execute(uri: h.mine + ann + ".ics", method: HTTPRequest.Method(name)!, headers: h.headers())
                #expect(r.status == .methodNotAllowed, "\(name)")
                #expect(r.headers[.allow] != nil, "\(name)")
            }
        }
        #expect(try h.f.commitCount() == before)
    }
}
