import TestKit
import Testing

@testable import TodoCore

/// Reading iCalendar objects: unfolding, content lines, nesting, the bounds on untrusted bytes,
/// and DATE / DATE-TIME values converted to household time.
@Suite(.timeLimit(.minutes(3))) struct ICalendarReaderTests {
    static let paris = zone("Europe/Paris")
    static let newYork = zone("America/New_York")

    static func zone(_ name: String) -> TimeZoneRules {
        TimeZoneRules(name: name, tzif: readFile("/usr/share/zoneinfo/" + name) ?? [])
            ?? TimeZoneRules(fixed: "UTC", seconds: 0, abbreviation: "UTC")
    }

    static func zoneNamed(_ name: String) -> TimeZoneRules? {
        switch name {
        case "Europe/Paris": paris
        case "America/New_York": newYork
        default: nil
        }
    }

    /// `text` with CRLF line ends.
    static func crlf(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        for b in text.utf8 {
            if b == 0x0A { out.append(0x0D) }
            out.append(b)
        }
        return out
    }

    static func calendar(_ body: String) -> String {
        "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VTODO\n" + body + "\nEND:VTODO\nEND:VCALENDAR\n"
    }

    func reason(_ bytes: [UInt8], maxBytes: Int = 256 * 1024) -> String? {
        do {
            _ = try ICalendarReader.parse(bytes, maxBytes: maxBytes)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func requiresTheZoneFiles() {
        #expect(Self.paris.name == "Europe/Paris", "install tzdata")
        #expect(Self.newYork.name == "America/New_York", "install tzdata")
    }

    @Test func unfoldsSplitsAndNests() throws {
        let text = """
            BEGIN:vcalendar
            VERSION:2.0
            BEGIN:VTODO
            summary;LANGUAGE=fr:Appeler le plom
             bier\\, vite\\; merci
            X-A;X-P="a:b;c,d";Y=1,"2,3":value:with:colons
            CATEGORIES:Home,Out\\,side, Garden\\\\
            DESCRIPTION:line one\\nline two\\Nthree\\:x
            BEGIN:VALARM
            ACTION:DISPLAY
            END:valarm
            END:VTODO
            END:VCALENDAR

            """
        let cal = try ICalendarReader.parse(Self.crlf(text))
        #expect(cal.name == "VCALENDAR")
        #expect(cal.properties.map(\.name) == ["VERSION"])
        let todo = try #require(cal.components.first)
        #expect(todo.name == "VTODO")
        #expect(todo.properties.map(\.name) == ["SUMMARY", "X-A", "CATEGORIES", "DESCRIPTION"])
        let summary = todo.properties[0]
        #expect(summary.params.map(\.name) == ["LANGUAGE"])
        #expect(summary.value == "Appeler le plombier\\, vite\\; merci")
        #expect(summary.line == "summary;LANGUAGE=fr:Appeler le plombier\\, vite\\; merci")
        #expect(summary.textValue == "Appeler le plombier, vite; merci")
        let x = todo.properties[1]
        #expect(x.param("X-P") == "a:b;c,d")
        #expect(x.param("Y") == "1,2,3")
        #expect(x.value == "value:with:colons")
        #expect(todo.properties[2].textList == ["Home", "Out,side", " Garden\\"])
        #expect(todo.properties[3].textValue == "line one\nline two\nthree\\:x")
        #expect(todo.components.map(\.name) == ["VALARM"])
        #expect(todo.components[0].lines == ["BEGIN:VALARM", "ACTION:DISPLAY", "END:VALARM"])
    }

    @Test func acceptsLineFeedsAloneAndTabFolds() throws {
        let text = "BEGIN:VCALENDAR\nBEGIN:VTODO\nSUMMARY:a\n\tb\n c\nUID:1\nEND:VTODO\nEND:VCALENDAR"
        let cal = try ICalendarReader.parse(Array(text.utf8))
        #expect(cal.components[0].first("SUMMARY")?.value == "abc")
        // A byte order mark before the object is skipped.
        #expect(try ICalendarReader.parse([0xEF, 0xBB, 0xBF] + Array(text.utf8)).components.count == 1)
    }

    @Test func refusesHostileInput() {
        func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
        let cases: [([UInt8], String)] = [
            (bytes(Self.calendar("SUMMARY:a\rb")), "control character"),
            (bytes(Self.calendar("SUMMARY:a\u{0}b")), "control character"),
            (bytes(Self.calendar("SUMMARY:a\u{7F}b")), "control character"),
            (bytes(Self.calendar("SUMMARY:" + String(repeating: "x", count: 300 * 1024))), "larger than"),
            (bytes(Self.calendar((0..<10).map { "BEGIN:X\($0)" }.joined(separator: "\n")
                + "\n" + (0..<10).reversed().map { "END:X\($0)" }.joined(separator: "\n"))), "deeper"),
            (bytes("BEGIN:VCALENDAR\nEND:VTODO\nEND:VCALENDAR\n"), "END:VTODO where END:VCALENDAR"),
            (bytes("BEGIN:VCALENDAR\nEND:VCALENDAR\nEND:VCALENDAR\n"), "after END:VCALENDAR"),
            (bytes("END:VCALENDAR\n"), "without BEGIN"),
            (bytes("BEGIN:VCALENDAR\nBEGIN:VTODO\nEND:VTODO\n"), "END:VCALENDAR is missing"),
            (bytes("BEGIN:VTODO\nEND:VTODO\n"), "not an iCalendar object"),
            (bytes("SUMMARY:x\nBEGIN:VCALENDAR\nEND:VCALENDAR\n"), "not an iCalendar object"),
            (bytes(""), "not an iCalendar object"),
            (bytes(Self.calendar("SUMMARY:" + String(repeating: "y", count: 70 * 1024))), "longer than"),
            (bytes(Self.calendar("SUMMARY:" + String(repeating: "y\n ", count: 70 * 1024))), "longer than"),
            (Array(Self.calendar("SUMMARY:café").utf8).map { $0 == 0xA9 ? 0xFF : $0 }, "not UTF-8"),
            (Array(Self.calendar("SUMMARY:x").utf8) + [0xC3], "not UTF-8"),
            (bytes(Self.calendar(String(repeating: "X-A:1\n", count: 2_001))), "more than 2000 properties"),
            (bytes(" folded\nBEGIN:VCALENDAR\nEND:VCALENDAR\n"), "continuation"),
            (bytes(Self.calendar("SUMMARY;X=\"open:value")), "quotes are not closed"),
            (bytes(Self.calendar("SUMMARY value")), "has no value"),
            (bytes(Self.calendar(";X=1:value")), "no property name"),
            (bytes(Self.calendar("SUMMARY;=1:value")), "malformed parameter"),
            (bytes(Self.calendar("BEGIN:\nEND:")), "BEGIN names no component"),
        ]
        for (input, expected) in cases {
            let r = reason(input)
            #expect(r?.contains(expected) == true, "\(String(decoding: input.prefix(120), as: UTF8.self)): \(r ?? "accepted")")
        }
        // 2,000 properties and 8 levels are allowed.
        #expect(reason(Array(Self.calendar(String(repeating: "X-A:1\n", count: 1_998) + "UID:1").utf8)) == nil)
        let six = (0..<6).map { "BEGIN:X\($0)" }.joined(separator: "\n") + "\n"
            + (0..<6).reversed().map { "END:X\($0)" }.joined(separator: "\n")
        #expect(reason(Array(Self.calendar(six).utf8)) == nil)
        #expect(reason(Array(Self.calendar("SUMMARY:x").utf8), maxBytes: 40)?.contains("larger than 40 bytes") == true)
    }

    @Test func neverTrapsOnMangledObjects() {
        var rng = SplitMix64(seed: 7)
        let base = Array(Self.calendar("SUMMARY;X=\"a:b\":Hello\\, world\nDUE;TZID=Europe/Paris:20261124T180000\n"
            + "BEGIN:VALARM\nTRIGGER:-PT5M\nACTION:DISPLAY\nEND:VALARM").utf8)
        let alphabet: [UInt8] = Array(":;,\"\\\r\n \tBEGINEND=ZT0123456789".utf8) + [0x00, 0xC3, 0xA9, 0xFF]
        for _ in 0..<2_000 {
            var b = base
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let i = Int.random(in: 0..<b.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: b[i] = alphabet.randomElement(using: &rng)!
                case 1: b.remove(at: i)
                default: b.insert(alphabet.randomElement(using: &rng)!, at: i)
                }
            }
            if let cal = try? ICalendarReader.parse(b) {
                _ = try? VTodo.read(cal, householdZone: Self.paris, zoneNamed: Self.zoneNamed, generatedTurnLine: nil)
            }
        }
    }

    // MARK: Dates and times

    func property(_ line: String) throws -> ICalProperty {
        try ICalendarReader.parseLine(ArraySlice(line.utf8), number: 1)
    }

    func due(_ line: String, in zone: TimeZoneRules = paris) throws -> String {
        try property(line).due(householdZone: zone, zoneNamed: Self.zoneNamed).description
    }

    @Test func duesInHouseholdTime() throws {
        #expect(try due("DUE;VALUE=DATE:20261124") == "2026-11-24")
        #expect(try due("DUE:20261124") == "2026-11-24")
        #expect(try due("DUE:20261124T180000") == "2026-11-24T18:00")
        #expect(try due("DUE:20261124T180059") == "2026-11-24T18:00")
        #expect(try due("DUE:20261124T235960") == "2026-11-24T23:59")
        #expect(try due("DUE:20261124T170000Z") == "2026-11-24T18:00")
        #expect(try due("DUE:20260624T160000Z") == "2026-06-24T18:00")
        #expect(try due("DUE;TZID=Europe/Paris:20261124T180000") == "2026-11-24T18:00")
        #expect(try due("DUE;TZID=\"America/New_York\":20261124T180000") == "2026-11-25T00:00")
        #expect(try due("DUE;TZID=America/New_York:20261124T180000", in: Self.newYork) == "2026-11-24T18:00")
        #expect(try due("DUE;TZID=Europe/Paris:20261124T180000", in: Self.newYork) == "2026-11-24T12:00")
        // A TZID the tz database does not name is household time.
        #expect(try due("DUE;TZID=W. Europe Standard Time:20261124T180000", in: Self.newYork) == "2026-11-24T18:00")
        // The hour a spring change skips is kept as written when it is household time.
        #expect(try due("DUE;TZID=Europe/Paris:20260329T023000") == "2026-03-29T02:30")
        #expect(try due("DUE:20261231T233000Z", in: Self.paris) == "2027-01-01T00:30")
        for bad in [
            "DUE:20260230", "DUE:20261124T250000", "DUE:20261124T186000", "DUE:2026112", "DUE:20261124T1800",
            "DUE:20261124X180000", "DUE:20261124T180000z", "DUE:00001124", "DUE:", "DUE:2026-11-24",
            "DUE:20261124T18000Z",
        ] {
            #expect(throws: ICalendarError.self, "\(bad)") { try due(bad) }
        }
        #expect(throws: ICalendarError("DUE: the date is out of range")) {
            try due("DUE:99991231T233000Z")
        }
    }

    @Test func completedTimesInUTC() throws {
        func millis(_ line: String) throws -> Int64 {
            try property(line).utcMillis(householdZone: Self.paris, zoneNamed: Self.zoneNamed)
        }
        #expect(try millis("COMPLETED:20261125T081500Z") == 1_795_594_500_000)
        #expect(try millis("COMPLETED:20261125T091500") == 1_795_594_500_000)
        #expect(try millis("COMPLETED;TZID=Europe/Paris:20261125T091500") == 1_795_594_500_000)
        #expect(try millis("COMPLETED;TZID=America/New_York:20261125T031500") == 1_795_594_500_000)
        #expect(try millis("COMPLETED;TZID=Mars/Olympus:20261125T091500") == 1_795_594_500_000)
        #expect(try millis("COMPLETED;VALUE=DATE:20261125") == 1_795_561_200_000)
    }

    @Test func wallTimesToUTC() {
        func local(_ y: Int, _ m: Int, _ d: Int, _ h: Int, _ mi: Int) -> Int64 {
            Int64(CivilDate(year: y, month: m, day: d)!.daysSinceEpoch) * 86_400 + Int64(h * 3600 + mi * 60)
        }
        let p = Self.paris
        #expect(p.utc(fromLocal: local(2026, 11, 24, 18, 0)) == local(2026, 11, 24, 17, 0))
        #expect(p.utc(fromLocal: local(2026, 6, 24, 18, 0)) == local(2026, 6, 24, 16, 0))
        // Skipped by the spring change: read with the winter offset (02:30 is 03:30 summer time).
        #expect(p.utc(fromLocal: local(2026, 3, 29, 2, 30)) == local(2026, 3, 29, 1, 30))
        // Repeated by the autumn change: the first of the two.
        #expect(p.utc(fromLocal: local(2026, 10, 25, 2, 30)) == local(2026, 10, 25, 0, 30))
        #expect(p.utc(fromLocal: local(2026, 10, 25, 3, 30)) == local(2026, 10, 25, 2, 30))
        let fixed = TimeZoneRules(fixed: "UTC", seconds: 0, abbreviation: "UTC")
        #expect(fixed.isFixedOffset)
        #expect(!p.isFixedOffset)
        #expect(fixed.utc(fromLocal: 1000) == 1000)
    }

    @Test func durations() {
        #expect(VTodo.duration("-PT30M") == -1800)
        #expect(VTodo.duration("PT0S") == 0)
        #expect(VTodo.duration("-P1D") == -86_400)
        #expect(VTodo.duration("+P1DT2H3M4S") == 93_784)
        #expect(VTodo.duration("-P2W") == -1_209_600)
        for bad in ["", "P", "-PT", "PT30", "PT1D", "P1H", "PT1M1H", "P1DT", "-PT99999999M", "30M", "P-1D"] {
            #expect(VTodo.duration(bad) == nil, "\(bad)")
        }
    }
}
