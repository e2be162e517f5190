import Glibc
import Foundation
import TestKit
import Testing

@testable import TodoCore

/// The iCalendar text rules (escaping, folding, CRLF), the feed's UIDs, and the time zone rules
/// read from the system's tz database.
@Suite(.timeLimit(.minutes(10))) struct ICalendarTests {
    /// Unfolds content lines as RFC 5545 3.1 says: CRLF followed by one space or tab is removed.
    static func unfold(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x0D, i + 2 < bytes.count, bytes[i + 1] == 0x0A, bytes[i + 2] == 0x20 || bytes[i + 2] == 0x09 {
                i += 3
                continue
            }
            out.append(bytes[i])
            i += 1
        }
        return out
    }

    /// The physical lines, split at CRLF (the last, empty, dropped).
    static func physicalLines(_ bytes: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var current: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x0D, i + 1 < bytes.count, bytes[i + 1] == 0x0A {
                lines.append(current)
                current = []
                i += 2
                continue
            }
            current.append(bytes[i])
            i += 1
        }
        #expect(current.isEmpty, "the text does not end in CRLF")
        return lines
    }

    @Test(arguments: [
        ("plain", "plain"),
        ("a,b;c\\d", "a\\,b\\;c\\\\d"),
        ("two\nlines", "two\\nlines"),
        ("crlf\r\nline", "crlf\\nline"),
        ("cr\ronly", "cr\\nonly"),
        ("bell\u{07}nul\u{00}del\u{7F}c1\u{85}", "bellnuldelc1"),
        ("tab\tkept", "tab\tkept"),
        ("SUMMARY:x\r\nBEGIN:VALARM", "SUMMARY:x\\nBEGIN:VALARM"),
        ("émoji 🧹 ünïcode", "émoji 🧹 ünïcode"),
    ])
    func escapesText(_ input: String, _ expected: String) {
        #expect(ICalendarText.escape(input) == expected)
    }

    /// An escaped value holds no raw line break or control character, so it cannot end its
    /// property or start another.
    @Test func hostileTextStaysInItsProperty() {
        var rng = SplitMix64(seed: 21)
        let alphabet: [Character] = ["a", ",", ";", "\\", "\n", "\r", "\u{0B}", "\u{1B}", ":", "\"", "é", "🧹", "\u{2028}", "\u{9F}"]
        for _ in 0..<500 {
            let n = Int(rng.next() % 40)
            let text = String((0..<n).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            let escaped = ICalendarText.escape(text)
            #expect(!escaped.utf8.contains { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }, "\(escaped.debugDescription)")
            var out: [UInt8] = []
            ICalendarText.appendLine("SUMMARY:" + escaped, to: &out)
            #expect(Self.unfold(out) == Array(("SUMMARY:" + escaped).utf8) + [0x0D, 0x0A])
        }
    }

    /// Lines fold at 75 octets with CRLF and a space; a multi-byte character that straddles the
    /// boundary moves whole to the next line; unfolding gives back the line.
    @Test(arguments: [0, 1, 2, 3, 73, 74, 75, 76, 150, 151])
    func foldsWithoutSplittingCharacters(_ prefix: Int) {
        for filler in ["é", "🧹", "€", "a", "👨‍👩‍👧"] {
            let line = "SUMMARY:" + String(repeating: "x", count: prefix) + String(repeating: filler, count: 60)
            var out: [UInt8] = []
            ICalendarText.appendLine(line, to: &out)
            let lines = Self.physicalLines(out)
            for (i, l) in lines.enumerated() {
                #expect(l.count <= 75, "line \(i) is \(l.count) octets")
                #expect(i == 0 || l.first == 0x20)
                // Each physical line is valid UTF-8 on its own: nothing split.
                #expect(String(validating: l, as: UTF8.self) != nil, "line \(i) splits a character: \(l)")
            }
            #expect(Self.unfold(out) == Array(line.utf8) + [0x0D, 0x0A])
        }
    }

    @Test func shortLinesAreNotFolded() {
        var out: [UInt8] = []
        let line = "SUMMARY:" + String(repeating: "y", count: 67)
        ICalendarText.appendLine(line, to: &out)
        #expect(out == Array(line.utf8) + [0x0D, 0x0A])
    }

    @Test func datesTimesAndDurations() {
        #expect(ICalendarText.utc(1_763_629_200_000) == "20251120T090000Z")
        #expect(ICalendarText.utc(-1) == "19691231T235959Z")
        #expect(ICalendarText.offset(3600) == "+0100")
        #expect(ICalendarText.offset(-16200) == "-0430")
        #expect(ICalendarText.offset(19800) == "+0530")
        #expect(ICalendarText.offset(-2670) == "-004430")
        #expect(ICalendarText.duration(minutes: -30) == "-PT30M")
        #expect(ICalendarText.duration(minutes: 450) == "PT7H30M")
        #expect(ICalendarText.duration(minutes: 1440) == "P1D")
    }

    // MARK: The feed

    static let id = TaskID("3f2a9c0e5b7d41e8a6c2d9f0b1e4c7a5")!
    static let paris = TimeZoneRules(name: "Europe/Paris", tzif: readFile("/usr/share/zoneinfo/Europe/Paris") ?? [])
    static func date(_ s: String) -> CivilDate { CivilDate(iso: Substring(s))! }

    func task(_ title: String, due: String?, stampMillis: Int64 = 1_763_629_200_000) -> Task {
        var t = Task(id: Self.id, title: title, createdAt: "2025-11-20T09:00:00.000Z", createdBy: "Ana")
        t.due = due.flatMap { Due(stored: $0) }
        let stamp = FieldStamp(Stamp(wall: stampMillis, counter: 0, replica: "a1b2c3d4e5f60718"), by: "Ana")
        for f in Task.stampedFields { t.stamps[f] = stamp }
        return t
    }

    func feed(_ tasks: [Task], today: String = "2025-11-20", _ configure: (inout CalendarFeedOptions) -> Void = { _ in })
        throws -> String
    {
        let zone = try #require(Self.paris)
        var options = CalendarFeedOptions()
        configure(&options)
        let bytes = CalendarFeed.render(tasks, options: options, zone: zone, today: Self.date(today), nowMillis: 1_763_629_200_000, context: .plain)
        return String(decoding: Self.unfold(bytes), as: UTF8.self)
    }

    /// Bidirectional controls and zero-width characters in a title would reorder or hide what a
    /// calendar app shows: the feed writes them visibly, as the page does; the joiner that
    /// emoji need stays.
    @Test func bidiAndZeroWidthCharactersAreShownEscaped() throws {
        let family = "👨\u{200D}👩\u{200D}👧"
        let title = "Pay\u{202E}lanoitan\u{202C} bill\u{200B}\u{FEFF}\u{2066}x\u{2069}\u{200F} " + family
        let text = try feed([task(title, due: "2025-11-25")])
        let unfolded = String(decoding: Self.unfold(Array(text.utf8)), as: UTF8.self)
        for v: UInt32 in [0x202E, 0x202C, 0x200B, 0xFEFF, 0x2066, 0x2069, 0x200F] {
            #expect(!unfolded.unicodeScalars.contains { $0.value == v }, "U+\(String(v, radix: 16)) reached the feed raw")
        }
        let shown = #"Pay\\u{202e}lanoitan\\u{202c} bill\\u{200b}\\u{feff}\\u{2066}x\\u{2069}\\u{200f} "# + family
        #expect(unfolded.contains("SUMMARY:" + shown + "\r\n"), "\(unfolded)")
        #expect(unfolded.unicodeScalars.contains { $0.value == 0x200D })
    }

    @Test func emptyHouseholdGivesAnEmptyCalendar() throws {
        let text = try feed([])
        #expect(text.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n") && text.hasSuffix("END:VCALENDAR\r\n"))
        #expect(!text.contains("BEGIN:VEVENT") && !text.contains("BEGIN:VTIMEZONE"))
    }

    /// A task's UID is its id; it does not change with the title, the date or the day the feed
    /// is made; SEQUENCE and LAST-MODIFIED come from the stamps.
    @Test func uidsAreStableAndSequenceFollowsTheStamps() throws {
        let a = try feed([task("Milk", due: "2025-11-25")])
        let b = try feed([task("Oat milk", due: "2025-11-26", stampMillis: 1_763_629_260_000)], today: "2025-11-21")
        #expect(a.contains("UID:\(Self.id.hex)@todo\r\n") && b.contains("UID:\(Self.id.hex)@todo\r\n"))
        #expect(a.contains("SEQUENCE:\(1_763_629_200 - 1_577_836_800)\r\n"))
        #expect(b.contains("SEQUENCE:\(1_763_629_260 - 1_577_836_800)\r\n"))
        #expect(b.contains("LAST-MODIFIED:20251120T090100Z\r\n") && a.contains("DTSTAMP:20251120T090000Z\r\n"))
        #expect(a.contains("DTSTART;VALUE=DATE:20251125\r\nDTEND;VALUE=DATE:20251126\r\n"))
    }

    @Test func choreOccurrencesHaveAUIDEach() throws {
        var chore = task("Bins", due: "2025-11-20T19:00")
        chore.extra["repeat"] = .object([("every", .string("day")), ("from", .string("2025-11-18"))])
        chore.extra["rotation"] = .array([.string("Ana"), .string("Ben")])
        let text = try feed([chore]) { $0.weeks = 1 }
        for day in ["20251120", "20251121", "20251126"] {
            #expect(text.contains("UID:\(Self.id.hex)-\(day)@todo\r\n"), "\(day)")
        }
        #expect(!text.contains("-20251127@todo"))
        #expect(text.contains("DTSTART;TZID=Europe/Paris:20251121T190000\r\nDURATION:PT30M\r\n"))
        #expect(text.contains("SUMMARY:Bins (Ana)\r\n") && text.contains("SUMMARY:Bins (Ben)\r\n"))
        #expect(text.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\n"))
    }

    /// A catch-up chore a year behind: one overdue event for its current occurrence, and the
    /// open ones of the last two weeks, not one per day behind.
    @Test func aCatchUpChoreFarBehindIsBounded() throws {
        var chore = task("Water the plants", due: nil)
        chore.extra["repeat"] = .object([("every", .string("day")), ("from", .string("2024-11-20"))])
        chore.extra["schedule"] = .string("catch-up")
        let text = try feed([chore]) { $0.weeks = 1 }
        let overdue = text.components(separatedBy: "SUMMARY:Overdue since ").count - 1
        #expect(overdue == 1 + 14, "\(overdue)")
        #expect(text.contains("SUMMARY:Overdue since 2024-11-20: Water the plants (anyone's)\r\n"))
        #expect(text.components(separatedBy: "BEGIN:VEVENT").count - 1 == 1 + 14 + 7)
    }

    /// Credits in credit order, each name once whatever its case; the turn as the rotation
    /// says, whoever wrote last.
    @Test func aDoneOccurrenceListsEachCreditOnce() throws {
        var chore = task("Bins", due: nil)
        chore.extra["repeat"] = .object([("every", .string("day")), ("from", .string("2025-11-18"))])
        chore.extra["rotation"] = .array([.string("Ana"), .string("Ben")])
        let day = Self.date("2025-11-18")
        for (n, member) in ["Ben", "ana", "BEN", "Ana"].enumerated() {
            let stamp = FieldStamp(Stamp(wall: 1_763_629_300_000 + Int64(n), counter: 0, replica: "a1b2c3d4e5f6071\(n)"), by: member)
            chore.complete(day, member: member, day: day, stamp: stamp)
        }
        let text = try feed([chore]) { $0.weeks = 1 }
        #expect(text.contains("SUMMARY:Done: Bins (Ana's turn\\, done by Ben\\, ana)\r\n"), "\(text)")
        #expect(text.contains("SUMMARY:Missed: Bins (Ben)\r\n") && text.contains("SUMMARY:Bins (Ana)\r\n"), "\(text)")
    }

    @Test func overdueMovesToTodayAndMembersFilter() throws {
        var mine = task("Call the plumber", due: "2025-11-10")
        mine.assignee = "Ben"
        let text = try feed([mine]) { $0.member = "Ben" }
        #expect(text.contains("SUMMARY:Overdue since 2025-11-10: Call the plumber (Ben)\r\n"))
        #expect(text.contains("DTSTART;VALUE=DATE:20251120\r\n"))
        #expect(!(try feed([mine]) { $0.member = "Ana" }).contains("BEGIN:VEVENT"))
    }

    @Test func alarms() throws {
        let text = try feed([task("Dentist", due: "2025-11-24T10:00"), task("Bins", due: "2025-11-25")]) {
            $0.alarmBefore = 45
            $0.alarmTimeOfDay = 7 * 60 + 30
        }
        #expect(text.contains("TRIGGER;RELATED=START:-PT45M\r\n"))
        #expect(text.contains("TRIGGER;RELATED=START:PT7H30M\r\n"))
    }

    // MARK: Time zones

    func utc(_ s: String) -> Int64 {
        // `YYYY-MM-DDTHH:MM` in UTC.
        let d = Self.date(String(s.prefix(10)))
        let h = Int64(s.dropFirst(11).prefix(2))!
        let m = Int64(s.dropFirst(14).prefix(2))!
        return Int64(d.daysSinceEpoch) * 86_400 + h * 3600 + m * 60
    }

    func rules(_ name: String) throws -> TimeZoneRules {
        let bytes = try #require(readFile("/usr/share/zoneinfo/\(name)"), "no /usr/share/zoneinfo/\(name): install tzdata")
        return try #require(TimeZoneRules(name: name, tzif: bytes))
    }

    @Test(arguments: [
        ("Europe/Paris", "2026-03-29T00:59", 3600), ("Europe/Paris", "2026-03-29T01:00", 7200),
        ("Europe/Paris", "2026-10-25T00:59", 7200), ("Europe/Paris", "2026-10-25T01:00", 3600),
        // Past the last transition the file lists: the footer's rule.
        ("Europe/Paris", "2090-03-26T00:59", 3600), ("Europe/Paris", "2090-03-26T01:00", 7200),
        ("America/New_York", "2026-03-08T06:59", -18000), ("America/New_York", "2026-03-08T07:00", -14400),
        ("America/New_York", "2026-11-01T06:00", -18000),
        ("Australia/Sydney", "2026-01-10T00:00", 39600), ("Australia/Sydney", "2026-07-10T00:00", 36000),
        ("Australia/Sydney", "2090-01-10T00:00", 39600), ("Australia/Sydney", "2090-07-10T00:00", 36000),
        ("Asia/Kolkata", "2026-06-01T00:00", 19800), ("UTC", "2026-06-01T00:00", 0),
        ("Pacific/Kiritimati", "2026-06-01T00:00", 50400),
    ])
    func offsetsFromTheTzDatabase(_ zone: String, _ at: String, _ seconds: Int) throws {
        #expect(try rules(zone).offset(atUTC: utc(at)).seconds == seconds)
    }

    @Test func transitionsOfAYear() throws {
        let t = try rules("Europe/Paris").transitions(from: utc("2026-01-01T00:00"), to: utc("2027-01-01T00:00"))
        #expect(t.map(\.utc) == [utc("2026-03-29T01:00"), utc("2026-10-25T01:00")])
        #expect(t.map(\.to.abbreviation) == ["CEST", "CET"])
        let far = try rules("Europe/Paris").transitions(from: utc("2090-01-01T00:00"), to: utc("2091-01-01T00:00"))
        #expect(far.map(\.utc) == [utc("2090-03-26T01:00"), utc("2090-10-29T01:00")])
    }

    /// A damaged zone file is refused, never a crash: every truncation, and flipped bytes.
    @Test func damagedZoneFilesAreRefused() throws {
        let bytes = try #require(readFile("/usr/share/zoneinfo/Europe/Paris"))
        for n in 0..<bytes.count {
            _ = TimeZoneRules(name: "x", tzif: Array(bytes[0..<n]))?.offset(atUTC: 0)
        }
        var rng = SplitMix64(seed: 5)
        for _ in 0..<300 {
            var b = bytes
            b[Int(rng.next() % UInt64(b.count))] = UInt8(truncatingIfNeeded: rng.next())
            if let r = TimeZoneRules(name: "x", tzif: b) {
                _ = r.offset(atUTC: utc("2026-06-01T00:00"))
                _ = r.transitions(from: 0, to: utc("2100-01-01T00:00"))
            }
        }
        #expect(TimeZoneRules(name: "x", tzif: Array("TZif2 nonsense".utf8)) == nil)
    }

    @Test(arguments: [
        ("<+0330>-3:30", 12600), ("EST5EDT,M3.2.0,M11.1.0", -18000), ("<-03>3", -10800),
        ("IST-1GMT0,M10.5.0,M3.5.0/1", 3600),
    ])
    func posixStrings(_ text: String, _ standardOrFirst: Int) throws {
        let z = try #require(PosixZone(text))
        #expect(z.offset(atUTC: utc("2026-01-15T00:00")).seconds == (text.hasPrefix("IST") ? 0 : standardOrFirst))
    }
}

/// The bytes of a file, nil when it cannot be read.
func readFile(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        if n <= 0 { break }
        out.append(contentsOf: buffer[0..<n])
    }
    return out
}
