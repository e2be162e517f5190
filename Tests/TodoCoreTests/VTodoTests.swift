import TestKit
import Testing

@testable import TodoCore

/// The VTODO mapping both ways (docs/CALDAV.md, "The mapping"): what real clients send, what is
/// refused, what the server writes, and that what it writes reads back the same.
@Suite(.timeLimit(.minutes(3))) struct VTodoTests {
    static let paris = ICalendarReaderTests.paris
    static let newYork = ICalendarReaderTests.newYork
    static let utc = TimeZoneRules(fixed: "UTC", seconds: 0, abbreviation: "UTC")

    static func date(_ s: String) -> CivilDate { CivilDate(iso: Substring(s))! }

    func read(
        _ text: String, zone: TimeZoneRules = paris, turn: String? = nil, crlf: Bool = true
    ) throws(ICalendarError) -> VTodo {
        let bytes = crlf ? ICalendarReaderTests.crlf(text) : Array(text.utf8)
        return try VTodo.read(
            ICalendarReader.parse(bytes), householdZone: zone, zoneNamed: ICalendarReaderTests.zoneNamed,
            generatedTurnLine: turn)
    }

    func readBody(_ body: String, zone: TimeZoneRules = paris, turn: String? = nil) throws(ICalendarError) -> VTodo {
        try read("BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VTODO\nUID:u1\n" + body + "\nEND:VTODO\nEND:VCALENDAR\n", zone: zone, turn: turn)
    }

    func refusal(_ body: String) -> String? {
        do {
            _ = try readBody(body)
            return nil
        } catch {
            return error.reason
        }
    }

    // MARK: Real clients

    static let appleReminders = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:-//Apple Inc.//iOS 17.1//EN
        CALSCALE:GREGORIAN
        BEGIN:VTIMEZONE
        TZID:Europe/Paris
        BEGIN:DAYLIGHT
        TZOFFSETFROM:+0100
        RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
        DTSTART:19810329T020000
        TZNAME:UTC+2
        TZOFFSETTO:+0200
        END:DAYLIGHT
        BEGIN:STANDARD
        TZOFFSETFROM:+0200
        RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
        DTSTART:19961027T030000
        TZNAME:UTC+1
        TZOFFSETTO:+0100
        END:STANDARD
        END:VTIMEZONE
        BEGIN:VTODO
        CREATED:20261120T091500Z
        DTSTAMP:20261120T091612Z
        DTSTART;TZID=Europe/Paris:20261124T180000
        DUE;TZID=Europe/Paris:20261124T180000
        LAST-MODIFIED:20261120T091612Z
        PRIORITY:1
        SEQUENCE:0
        STATUS:NEEDS-ACTION
        SUMMARY:Call the plumber
        DESCRIPTION:Ask about the boiler\\, and the tap
        UID:7A1D3B36-2C6E-4B7B-9E5C-3D6E1F0A2B4C
        X-APPLE-SORT-ORDER:753786972
        BEGIN:VALARM
        ACTION:DISPLAY
        DESCRIPTION:Reminder
        TRIGGER;VALUE=DATE-TIME:20261124T170000Z
        UID:0F6B6C1E-8E7D-4E36-9C2A-0B1C2D3E4F50
        X-WR-ALARMUID:0F6B6C1E-8E7D-4E36-9C2A-0B1C2D3E4F50
        END:VALARM
        END:VTODO
        END:VCALENDAR
        """

    @Test func appleReminders() throws {
        let v = try read(Self.appleReminders)
        #expect(v.uid == "7A1D3B36-2C6E-4B7B-9E5C-3D6E1F0A2B4C")
        #expect(v.summary == "Call the plumber")
        #expect(v.notes == "Ask about the boiler, and the tap")
        #expect(v.due == Due(stored: "2026-11-24T18:00"))
        #expect(v.priority == .high)
        #expect(v.status == .needsAction)
        #expect(v.alarm == .timeOfDay(minutes: 18 * 60))
        #expect(v.kept == ["DTSTART;TZID=Europe/Paris:20261124T180000", "X-APPLE-SORT-ORDER:753786972"])
        // The same reminder in a household in New York: 18:00 in Paris is noon there.
        let ny = try read(Self.appleReminders, zone: Self.newYork)
        #expect(ny.due == Due(stored: "2026-11-24T12:00"))
        #expect(ny.alarm == .timeOfDay(minutes: 12 * 60))
    }

    static let tasksOrg = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:+//IDN tasks.org//android-130904//EN
        BEGIN:VTODO
        DTSTAMP:20261120T101010Z
        UID:6235347112474574870
        CREATED:20261120T101000Z
        LAST-MODIFIED:20261120T101005Z
        SUMMARY:Water the plants
        CATEGORIES:Home,Garden
        CATEGORIES:garden,Home, ,Balcony
        PRIORITY:9
        X-TASKS-ORG-ORDER:12
        RELATED-TO:2891637262523
        DTSTART;VALUE=DATE:20261123
        DUE;VALUE=DATE:20261125
        RRULE:FREQ=WEEKLY;BYDAY=MO,TH
        STATUS:COMPLETED
        COMPLETED:20261125T081500Z
        PERCENT-COMPLETE:100
        BEGIN:VALARM
        TRIGGER;RELATED=END:PT0S
        ACTION:DISPLAY
        DESCRIPTION:Default Tasks.org description
        END:VALARM
        END:VTODO
        END:VCALENDAR
        """

    @Test func tasksOrgThroughDAVx5() throws {
        let v = try read(Self.tasksOrg)
        #expect(v.uid == "6235347112474574870")
        #expect(v.summary == "Water the plants")
        #expect(v.notes == "")
        #expect(v.categories == ["Home", "Garden", "garden", "Balcony"])
        #expect(v.priority == .low)
        #expect(v.due == Due(date: Self.date("2026-11-25")))
        #expect(v.rrule == "mon,thu")
        #expect(v.rruleText == nil)
        #expect(v.status == .completed)
        #expect(v.completed == 1_795_594_500_000)
        // An alarm at the due time (PT0S) is not one the mapping holds: kept whole.
        #expect(v.alarm == nil)
        #expect(v.kept == [
            "X-TASKS-ORG-ORDER:12", "RELATED-TO:2891637262523", "DTSTART;VALUE=DATE:20261123",
            "BEGIN:VALARM", "TRIGGER;RELATED=END:PT0S", "ACTION:DISPLAY", "DESCRIPTION:Default Tasks.org description",
            "END:VALARM",
        ])
    }

    static let thunderbird = """
        BEGIN:VCALENDAR
        PRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN
        VERSION:2.0
        BEGIN:VTIMEZONE
        TZID:America/New_York
        BEGIN:STANDARD
        TZOFFSETFROM:-0400
        TZOFFSETTO:-0500
        TZNAME:EST
        DTSTART:19701101T020000
        RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU
        END:STANDARD
        END:VTIMEZONE
        BEGIN:VTODO
        CREATED:20261120T120000Z
        LAST-MODIFIED:20261120T120500Z
        DTSTAMP:20261120T120500Z
        UID:a3f5c2d1-6b7e-4c8d-9e0f-1a2b3c4d5e6f
        SUMMARY:  File the taxes 
        STATUS:IN-PROCESS
        PRIORITY:5
        CLASS:PRIVATE
        X-MOZ-GENERATION:3
        X-MOZ-LASTACK:20261120T120500Z
        DUE;TZID=America/New_York:20261201T090000
        DESCRIPTION:Forms are in the\\nblue folder.
        PERCENT-COMPLETE:40
        BEGIN:VALARM
        ACTION:DISPLAY
        TRIGGER;VALUE=DURATION;RELATED=END:-PT15M
        DESCRIPTION:Default Mozilla Description
        END:VALARM
        BEGIN:VALARM
        ACTION:DISPLAY
        TRIGGER;VALUE=DURATION;RELATED=END:-P1D
        DESCRIPTION:Default Mozilla Description
        END:VALARM
        END:VTODO
        END:VCALENDAR
        """

    @Test func thunderbird() throws {
        let v = try read(Self.thunderbird)
        #expect(v.uid == "a3f5c2d1-6b7e-4c8d-9e0f-1a2b3c4d5e6f")
        #expect(v.summary == "File the taxes")
        #expect(v.status == .inProcess)
        #expect(v.priority == .normal)
        // 09:00 in New York (EST) is 15:00 in Paris.
        #expect(v.due == Due(stored: "2026-12-01T15:00"))
        #expect(v.notes == "Forms are in the\nblue folder.")
        #expect(v.alarm == .before(minutes: 15))
        #expect(v.kept == [
            "CLASS:PRIVATE", "X-MOZ-GENERATION:3", "X-MOZ-LASTACK:20261120T120500Z",
            "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER;VALUE=DURATION;RELATED=END:-P1D",
            "DESCRIPTION:Default Mozilla Description", "END:VALARM",
        ])
    }

    /// todoman (python-caldav and the icalendar library): the fewest properties, LF line ends.
    static let todoman = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:-//todoman//EN
        BEGIN:VTODO
        UID:2f1e0c6a8b9d4e7f@laptop
        SUMMARY:Buy bread
        DTSTAMP:20261120T130000Z
        CREATED:20261120T130000Z
        LAST-MODIFIED:20261120T130000Z
        SEQUENCE:1
        END:VTODO
        END:VCALENDAR

        """

    @Test func todoman() throws {
        let v = try read(Self.todoman, crlf: false)
        #expect(v == VTodo(uid: "2f1e0c6a8b9d4e7f@laptop", summary: "Buy bread"))
    }

    @Test func clientObjectsSurviveARoundTrip() throws {
        for (text, zone) in [
            (Self.appleReminders, Self.paris), (Self.tasksOrg, Self.paris), (Self.thunderbird, Self.paris),
            (Self.todoman, Self.newYork), (Self.appleReminders, Self.utc),
        ] {
            let v = try read(text, zone: zone)
            let bytes = v.render(householdZone: zone, dtstamp: 1_795_594_500_000, etagVersion: nil, turnLine: nil)
            let again = try VTodo.read(
                ICalendarReader.parse(bytes), householdZone: zone, zoneNamed: ICalendarReaderTests.zoneNamed,
                generatedTurnLine: nil)
            #expect(again == v, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    // MARK: The mapping, property by property

    @Test func turnLineIsTakenOff() throws {
        let turn = "Turn: Bob"
        #expect(try readBody("SUMMARY:x\nDESCRIPTION:Turn: Bob\\n\\nBuy the big bag", turn: turn).notes == "Buy the big bag")
        #expect(try readBody("SUMMARY:x\nDESCRIPTION:Turn: Bob\\nBuy", turn: turn).notes == "Buy")
        #expect(try readBody("SUMMARY:x\nDESCRIPTION:Turn: Bob\\n\\n\\nBuy", turn: turn).notes == "\nBuy")
        #expect(try readBody("SUMMARY:x\nDESCRIPTION:Turn: Bob", turn: turn).notes == "")
        #expect(try readBody("SUMMARY:x\nDESCRIPTION:Turn: Ana\\n\\nBuy", turn: turn).notes == "Turn: Ana\n\nBuy")
        #expect(try readBody("SUMMARY:x\nDESCRIPTION:Turn: Bobby\\nBuy", turn: turn).notes == "Turn: Bobby\nBuy")
        #expect(try readBody("SUMMARY:x\nDESCRIPTION:Turn: Bob\\n\\nBuy", turn: nil).notes == "Turn: Bob\n\nBuy")
    }

    @Test func priorities() throws {
        let table: [(String?, Priority)] = [
            (nil, .normal), ("0", .normal), ("1", .high), ("4", .high), ("5", .normal), ("6", .low), ("9", .low),
            (" 3", .high), ("07", .low),
        ]
        for (value, expected) in table {
            let body = "SUMMARY:x" + (value.map { "\nPRIORITY:" + $0 } ?? "")
            #expect(try readBody(body).priority == expected, "\(value ?? "none")")
        }
        for bad in ["42", "10", "-1", "high", "", "1.5", "999"] {
            #expect(refusal("SUMMARY:x\nPRIORITY:" + bad) == "PRIORITY must be a number from 0 to 9", "\(bad)")
        }
    }

    @Test func statuses() throws {
        #expect(try readBody("SUMMARY:x").status == .needsAction)
        #expect(try readBody("SUMMARY:x\nSTATUS:in-process").status == .inProcess)
        #expect(try readBody("SUMMARY:x\nSTATUS:CANCELLED").status == .cancelled)
        let done = try readBody("SUMMARY:x\nCOMPLETED:20261125T081500Z")
        #expect(done.status == .completed)
        #expect(done.completed == 1_795_594_500_000)
        // A COMPLETED time beside another status is not kept.
        let reopened = try readBody("SUMMARY:x\nSTATUS:NEEDS-ACTION\nCOMPLETED:20261125T081500Z")
        #expect(reopened.status == .needsAction)
        #expect(reopened.completed == nil)
        #expect(try readBody("SUMMARY:x\nSTATUS:COMPLETED").completed == nil)
        #expect(refusal("SUMMARY:x\nSTATUS:DRAFT") == "STATUS must be NEEDS-ACTION, IN-PROCESS, COMPLETED or CANCELLED")
        #expect(refusal("SUMMARY:x\nCOMPLETED:20261131T081500Z")?.hasPrefix("COMPLETED:") == true)
    }

    @Test func repeatRules() throws {
        let accepted: [(String, String)] = [
            ("FREQ=DAILY", "day"), ("FREQ=DAILY;INTERVAL=3", "3d"), ("freq=daily;interval=1", "day"),
            ("FREQ=WEEKLY", "week"), ("INTERVAL=2;FREQ=WEEKLY", "2w"), ("FREQ=WEEKLY;BYDAY=MO,TH", "mon,thu"),
            ("FREQ=WEEKLY;BYDAY=TH,MO;WKST=MO", "mon,thu"), ("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "weekday"),
            ("FREQ=WEEKLY;BYDAY=SA,SU", "weekend"), ("FREQ=WEEKLY;INTERVAL=1;BYDAY=SU", "sun"),
            ("FREQ=MONTHLY", "month"), ("FREQ=MONTHLY;INTERVAL=2", "2months"), ("FREQ=DAILY;INTERVAL=999", "999d"),
            ("FREQ=DAILY;", "day"),
        ]
        for (rule, canonical) in accepted {
            let v = try readBody("SUMMARY:x\nRRULE:" + rule)
            #expect(v.rrule == canonical, "\(rule)")
            #expect(v.rruleText == nil)
            #expect(VTodo.repeatRule(VTodo.rrule(canonical) ?? "") == canonical)
        }
        let refused = [
            "FREQ=DAILY;COUNT=5", "FREQ=DAILY;UNTIL=20261231T000000Z", "FREQ=MONTHLY;BYMONTHDAY=15", "FREQ=YEARLY",
            "FREQ=HOURLY", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO", "FREQ=WEEKLY;BYDAY=1MO", "FREQ=MONTHLY;BYDAY=-1FR",
            "FREQ=DAILY;INTERVAL=0", "FREQ=DAILY;INTERVAL=1000", "FREQ=DAILY;INTERVAL=x", "FREQ=DAILY;FREQ=WEEKLY",
            "INTERVAL=2", "FREQ=DAILY;BYDAY=MO", "FREQ=WEEKLY;BYDAY=", "FREQ", "FREQ=WEEKLY;BYSETPOS=1",
        ]
        for rule in refused {
            let v = try readBody("SUMMARY:x\nRRULE:" + rule)
            #expect(v.rrule == nil, "\(rule)")
            #expect(v.rruleText == rule)
        }
        // Exceptions or added dates beside a rule the mapping could hold: not held either.
        let withExdate = try readBody("SUMMARY:x\nRRULE:FREQ=DAILY\nEXDATE;VALUE=DATE:20261126")
        #expect(withExdate.rrule == nil)
        #expect(withExdate.rruleText == "FREQ=DAILY")
        #expect(withExdate.kept == ["EXDATE;VALUE=DATE:20261126"])
        let two = try readBody("SUMMARY:x\nRRULE:FREQ=DAILY\nRRULE:FREQ=WEEKLY")
        #expect(two.rrule == nil)
        #expect(two.rruleText == "FREQ=DAILY\nFREQ=WEEKLY")
        #expect(VTodo.rrule("15th") == nil)
        #expect(VTodo.rrule("nonsense") == nil)
    }

    @Test func alarms() throws {
        func alarm(_ valarm: String, due: String = "DUE;TZID=Europe/Paris:20261124T180000", extra: String = "")
            throws -> (TaskAlarm?, [String])
        {
            let v = try readBody("SUMMARY:x\n" + due + extra + "\nBEGIN:VALARM\n" + valarm + "\nEND:VALARM")
            return (v.alarm, v.kept)
        }
        #expect(try alarm("ACTION:DISPLAY\nTRIGGER;RELATED=END:-PT30M").0 == .before(minutes: 30))
        #expect(try alarm("ACTION:AUDIO\nTRIGGER:-PT2H").0 == .before(minutes: 120))
        #expect(try alarm("ACTION:DISPLAY\nTRIGGER:-P7D").0 == .before(minutes: 7 * 1440))
        #expect(try alarm("ACTION:DISPLAY\nTRIGGER:-PT1M").0 == .before(minutes: 1))
        #expect(try alarm("ACTION:DISPLAY\nTRIGGER;VALUE=DATE-TIME:20261124T070000Z").0 == .timeOfDay(minutes: 8 * 60))
        #expect(try alarm("ACTION:DISPLAY\nTRIGGER;VALUE=DATE-TIME:20261124T093000", due: "DUE;VALUE=DATE:20261124").0
            == .timeOfDay(minutes: 9 * 60 + 30))
        // A relative alarm maps without a due date too (it applies once there is one).
        #expect(try alarm("ACTION:DISPLAY\nTRIGGER;RELATED=END:-PT30M", due: "").0 == .before(minutes: 30))
        let kept: [(String, String, String)] = [
            ("ACTION:DISPLAY\nTRIGGER:-PT30S", "DUE;VALUE=DATE:20261124", ""),
            ("ACTION:DISPLAY\nTRIGGER:-PT90S", "DUE;VALUE=DATE:20261124", ""),
            ("ACTION:DISPLAY\nTRIGGER:-P7DT1M", "DUE;VALUE=DATE:20261124", ""),
            ("ACTION:DISPLAY\nTRIGGER:PT5M", "DUE;VALUE=DATE:20261124", ""),
            ("ACTION:DISPLAY\nTRIGGER:PT0S", "DUE;VALUE=DATE:20261124", ""),
            ("ACTION:EMAIL\nTRIGGER:-PT30M", "DUE;VALUE=DATE:20261124", ""),
            ("TRIGGER:-PT30M", "DUE;VALUE=DATE:20261124", ""),
            ("ACTION:DISPLAY", "DUE;VALUE=DATE:20261124", ""),
            ("ACTION:DISPLAY\nTRIGGER:-PT30M", "DUE;VALUE=DATE:20261124", "\nDTSTART;VALUE=DATE:20261120"),
            ("ACTION:DISPLAY\nTRIGGER;RELATED=START:-PT30M", "DUE;VALUE=DATE:20261124", "\nDTSTART;VALUE=DATE:20261120"),
            ("ACTION:DISPLAY\nTRIGGER;VALUE=DATE-TIME:20261125T070000Z", "DUE;VALUE=DATE:20261124", ""),
            ("ACTION:DISPLAY\nTRIGGER;VALUE=DATE-TIME:20261124T070000Z", "", ""),
            ("ACTION:DISPLAY\nTRIGGER:-P52W", "DUE;VALUE=DATE:20261124", ""),
            ("ACTION:DISPLAY\nTRIGGER;VALUE=DATE-TIME:21991231T235900Z", "DUE;VALUE=DATE:20261124", ""),
        ]
        for (valarm, due, extra) in kept {
            let (a, k) = try alarm(valarm, due: due, extra: extra)
            #expect(a == nil, "\(valarm)")
            #expect(Array(k.suffix(valarm.split(separator: "\n").count + 2))
                == ["BEGIN:VALARM"] + valarm.split(separator: "\n").map(String.init) + ["END:VALARM"])
        }
        // A trigger no app can place in time refuses the to-do, naming the alarm.
        for trigger in [
            "TRIGGER;VALUE=DATE-TIME:20261131T070000Z", "TRIGGER:soon", "TRIGGER:-P99999999W", "TRIGGER:-P367D", "TRIGGER:P53W",
            "TRIGGER;VALUE=DATE-TIME:22000101T000000Z", "TRIGGER;VALUE=DATE-TIME:19691231T235959Z",
        ] {
            #expect(throws: ICalendarError.self, "\(trigger)") { try alarm("ACTION:DISPLAY\n" + trigger, due: "DUE;VALUE=DATE:20261124") }
            do {
                _ = try alarm("ACTION:DISPLAY\n" + trigger, due: "DUE;VALUE=DATE:20261124")
            } catch let error as ICalendarError {
                #expect(error.reason.contains("alarm 1") && error.reason.contains(trigger))
            }
        }
        // With DTSTART, RELATED=END still counts from DUE.
        #expect(try alarm("ACTION:DISPLAY\nTRIGGER;RELATED=END:-PT10M", extra: "\nDTSTART;VALUE=DATE:20261120").0
            == .before(minutes: 10))
        // The first alarm that maps is the task's; the others are kept.
        let v = try readBody("""
            SUMMARY:x
            DUE;VALUE=DATE:20261124
            BEGIN:VALARM
            ACTION:EMAIL
            TRIGGER:-PT1H
            END:VALARM
            BEGIN:VALARM
            ACTION:DISPLAY
            TRIGGER:-PT10M
            END:VALARM
            BEGIN:VALARM
            ACTION:DISPLAY
            TRIGGER:-PT20M
            END:VALARM
            """)
        #expect(v.alarm == .before(minutes: 10))
        #expect(v.kept == [
            "BEGIN:VALARM", "ACTION:EMAIL", "TRIGGER:-PT1H", "END:VALARM",
            "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT20M", "END:VALARM",
        ])
    }

    @Test func keptAndDroppedProperties() throws {
        let v = try readBody("""
            SUMMARY:x
            x-apple-sort-order:3
            DTSTAMP:20261120T101010Z
            URL;VALUE=URI:https://example.com/a;b
            SEQUENCE:4
            X-TODO-VERSION:0123456789abcdef0123456789abcdef01234567
            X-TODO-OTHER:1
            X-TODO-VERSION:ignored
            SUMMARY:second summary dropped
            GEO:48.85;2.35
            BEGIN:X-CUSTOM
            X-P:1
            END:X-CUSTOM
            """)
        #expect(v.summary == "x")
        #expect(v.version == "0123456789abcdef0123456789abcdef01234567")
        #expect(v.kept == [
            "x-apple-sort-order:3", "URL;VALUE=URI:https://example.com/a;b", "GEO:48.85;2.35",
            "BEGIN:X-CUSTOM", "X-P:1", "END:X-CUSTOM",
        ])
    }

    @Test func refusals() {
        let vcal = "BEGIN:VCALENDAR\nVERSION:2.0\n"
        let todo = "BEGIN:VTODO\nUID:1\nSUMMARY:x\nEND:VTODO\n"
        let whole: [(String, String)] = [
            (vcal + todo + todo + "END:VCALENDAR\n", "one to-do per item: the object holds a second VTODO"),
            (vcal + "BEGIN:VEVENT\nUID:1\nEND:VEVENT\n" + todo + "END:VCALENDAR\n", "one to-do per item: the object holds a VEVENT"),
            (vcal + "END:VCALENDAR\n", "the object holds no VTODO"),
            (vcal + "BEGIN:VTIMEZONE\nTZID:X\nEND:VTIMEZONE\nEND:VCALENDAR\n", "the object holds no VTODO"),
        ]
        for (text, expected) in whole {
            #expect(throws: ICalendarError(expected)) { try read(text) }
        }
        let bodies: [(String, String)] = [
            ("SUMMARY:a\\nb", "SUMMARY holds a line break or a control character"),
            ("SUMMARY:a\\Nb", "SUMMARY holds a line break or a control character"),
            ("SUMMARY:a\tb", "SUMMARY holds a line break or a control character"),
            ("SUMMARY:a\u{85}b", "SUMMARY holds a line break or a control character"),
            ("SUMMARY:x\nCATEGORIES:a,b\\nc", "CATEGORIES holds a line break or a control character"),
            ("SUMMARY:   ", "the VTODO has no SUMMARY (a to-do needs a title)"),
            ("DESCRIPTION:only notes", "the VTODO has no SUMMARY (a to-do needs a title)"),
            ("SUMMARY:x\nDUE;VALUE=DATE:20260230", "DUE: \"20260230\" is not a valid date or date-time"),
            ("SUMMARY:x\nDUE:20261124T250000", "DUE: \"20261124T250000\" is not a valid date or date-time"),
        ]
        for (body, expected) in bodies {
            #expect(refusal(body) == expected, "\(body)")
        }
        #expect(throws: ICalendarError("the VTODO has no UID")) {
            try read(vcal + "BEGIN:VTODO\nSUMMARY:x\nEND:VTODO\nEND:VCALENDAR\n")
        }
        #expect(throws: ICalendarError("UID holds a line break or a control character")) {
            try read(vcal + "BEGIN:VTODO\nUID:a\\nb\nSUMMARY:x\nEND:VTODO\nEND:VCALENDAR\n")
        }
        // A line break in the notes is what they are for.
        #expect(refusal("SUMMARY:x\nDESCRIPTION:a\\nb\tc") == nil)
    }

    // MARK: Writing

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func rendersAllDayToDo() {
        var v = VTodo(uid: "3f2a9c0e5b7d41e8a6c2d9f0b1e4c7a5", summary: "Buy milk; 2, \\ bottles")
        v.notes = "semi-skimmed\nfrom the market"
        v.due = Due(date: Self.date("2026-11-24"))
        v.priority = .low
        v.categories = ["shop", "a,b"]
        v.status = .completed
        v.completed = 1_795_594_500_000
        v.alarm = .before(minutes: 90)
        v.kept = ["X-APPLE-SORT-ORDER:7", "BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER:PT5M", "END:VALARM"]
        let bytes = v.render(
            householdZone: Self.paris, dtstamp: 1_795_594_500_000, etagVersion: "0123456789abcdef0123456789abcdef01234567",
            turnLine: "Turn: Bob")
        let expected = """
            BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:-//todo//caldav//EN
            BEGIN:VTODO
            UID:3f2a9c0e5b7d41e8a6c2d9f0b1e4c7a5
            DTSTAMP:20261125T081500Z
            SUMMARY:Buy milk\\; 2\\, \\\\ bottles
            DESCRIPTION:Turn: Bob\\n\\nsemi-skimmed\\nfrom the market
            DUE;VALUE=DATE:20261124
            PRIORITY:9
            CATEGORIES:shop,a\\,b
            STATUS:COMPLETED
            COMPLETED:20261125T081500Z
            PERCENT-COMPLETE:100
            X-TODO-VERSION:0123456789abcdef0123456789abcdef01234567
            X-APPLE-SORT-ORDER:7
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:Buy milk\\; 2\\, \\\\ bottles
            TRIGGER;RELATED=END:-PT1H30M
            END:VALARM
            BEGIN:VALARM
            ACTION:AUDIO
            TRIGGER:PT5M
            END:VALARM
            END:VTODO
            END:VCALENDAR

            """
        #expect(Self.text(bytes) == Self.text(ICalendarReaderTests.crlf(expected)))
        // Deterministic.
        #expect(bytes == v.render(
            householdZone: Self.paris, dtstamp: 1_795_594_500_000, etagVersion: "0123456789abcdef0123456789abcdef01234567",
            turnLine: "Turn: Bob"))
    }

    @Test func rendersTimedToDoWithItsZone() throws {
        var v = VTodo(uid: "u", summary: "Call")
        v.due = Due(stored: "2026-11-24T18:00")
        v.alarm = .timeOfDay(minutes: 8 * 60)
        let text = Self.text(v.render(householdZone: Self.paris, dtstamp: 0, etagVersion: nil, turnLine: "Turn: Bob"))
        #expect(text.contains("\r\nBEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\n"))
        #expect(text.contains("\r\nDUE;TZID=Europe/Paris:20261124T180000\r\n"))
        #expect(text.contains("\r\nDESCRIPTION:Turn: Bob\r\n"))
        #expect(text.contains("\r\nSTATUS:NEEDS-ACTION\r\n"))
        #expect(text.contains("\r\nTRIGGER;VALUE=DATE-TIME:20261124T070000Z\r\n"))
        #expect(!text.contains("PRIORITY"))
        #expect(!text.contains("X-TODO-VERSION"))
        #expect(text.range(of: "END:VTIMEZONE")!.lowerBound < text.range(of: "BEGIN:VTODO")!.lowerBound)
        // A zone with one fixed offset: UTC, no VTIMEZONE.
        let utc = Self.text(v.render(householdZone: Self.utc, dtstamp: 0, etagVersion: nil, turnLine: nil))
        #expect(utc.contains("\r\nDUE:20261124T180000Z\r\n"))
        #expect(!utc.contains("VTIMEZONE"))
        #expect(!utc.contains("Turn:"))
        // A time of day needs a due date.
        v.due = nil
        let none = Self.text(v.render(householdZone: Self.paris, dtstamp: 0, etagVersion: nil, turnLine: nil))
        #expect(!none.contains("VALARM"))
        #expect(!none.contains("VTIMEZONE"))
        // A kept line in the household zone brings its VTIMEZONE.
        v.kept = ["DTSTART;TZID=Europe/Paris:20261120T090000"]
        #expect(Self.text(v.render(householdZone: Self.paris, dtstamp: 0, etagVersion: nil, turnLine: nil))
            .contains("TZID:Europe/Paris\r\n"))
    }

    @Test func rendersOnlyWellFormedKeptLines() throws {
        var v = VTodo(uid: "u\nv", summary: "a\nb\tc")
        v.due = Due(date: Self.date("2026-11-24"))
        v.categories = ["x\ny"]
        v.kept = [
            "X-OK:1", "X-BAD:a\r\nUID:evil", "no colon", "UID:other", "SUMMARY:other", "X-TODO-VERSION:old", "DURATION:PT1H",
            "END:VTODO", "BEGIN:VTODO", "X-INSIDE-SKIPPED:1", "END:VTODO", "BEGIN:VALARM", "ACTION:DISPLAY",
            "BEGIN:X-NESTED", "X-N:1", "END:VALARM", String(repeating: "X", count: 70_000) + ":1", "X-TAB:a\tb",
        ]
        let bytes = v.render(householdZone: Self.paris, dtstamp: 0, etagVersion: "e\r\nUID:x", turnLine: nil)
        let again = try VTodo.read(
            ICalendarReader.parse(bytes), householdZone: Self.paris, zoneNamed: ICalendarReaderTests.zoneNamed,
            generatedTurnLine: nil)
        #expect(again.uid == "u v")
        #expect(again.summary == "a b c")
        #expect(again.categories == ["x y"])
        #expect(again.version == "e UID:x")
        #expect(again.kept == [
            "X-OK:1", "BEGIN:VALARM", "ACTION:DISPLAY", "BEGIN:X-NESTED", "X-N:1", "X-TAB:a\tb", "END:X-NESTED",
            "END:VALARM",
        ])
        // Without a due date, DURATION is kept.
        v.due = nil
        v.kept = ["DTSTART:20261124T090000Z", "DURATION:PT1H"]
        #expect(try VTodo.read(
            ICalendarReader.parse(v.render(householdZone: Self.paris, dtstamp: 0, etagVersion: nil, turnLine: nil)),
            householdZone: Self.paris, zoneNamed: ICalendarReaderTests.zoneNamed, generatedTurnLine: nil
        ).kept == v.kept)
    }

    // MARK: Round trip

    /// Random to-dos the renderer can express read back equal, for each kind of household zone.
    @Test(arguments: [0, 1, 2]) func renderThenReadIsIdentity(_ zoneIndex: Int) throws {
        let zone = [Self.paris, Self.newYork, Self.utc][zoneIndex]
        var rng = SplitMix64(seed: 0xCA1DA7 + UInt64(zoneIndex))
        let words = ["milk", "Café", "naïve", "日本語", "a;b", "c,d", "e\\f", "\"q\"", "x:y", "🧹", "tab\there", "ok"]
        func phrase(_ n: Int) -> String {
            (0..<Int.random(in: 1...n, using: &rng)).map { _ in words.randomElement(using: &rng)! }.joined(separator: " ")
        }
        let rules = ["day", "3d", "week", "2w", "mon,thu", "weekday", "weekend", "sun", "month", "2months", "999d"]
        let keptChoices: [[String]] = [
            ["X-APPLE-SORT-ORDER:753786972"], ["RELATED-TO;RELTYPE=PARENT:abc"], ["DTSTART;VALUE=DATE:20200101"],
            ["X-LONG:" + String(repeating: "é", count: 200)], ["CLASS:PRIVATE", "URL:https://x.example/a?b=c;d"],
            ["BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER:PT5M", "END:VALARM"],
            ["BEGIN:VALARM", "ACTION:EMAIL", "TRIGGER:-PT5M", "ATTENDEE:mailto:a@b.example", "END:VALARM"],
        ]
        for round in 0..<400 {
            var v = VTodo(
                uid: Bool.random(using: &rng) ? hex64(rng.next()) + hex64(rng.next()) : phrase(2).replacingTabs(),
                summary: phrase(4).replacingTabs())
            if Bool.random(using: &rng) {
                v.notes = (0..<Int.random(in: 1...3, using: &rng)).map { _ in Bool.random(using: &rng) ? "" : phrase(5) }
                    .joined(separator: "\n")
            }
            if Int.random(in: 0..<4, using: &rng) > 0 {
                let day = CivilDate(daysSinceEpoch: Int.random(in: 18_000...24_000, using: &rng))
                var minutes: Int? = Bool.random(using: &rng) ? Int.random(in: 0..<1440, using: &rng) : nil
                // Wall times a spring change skips do not exist: avoid 02:00–03:00 in spring.
                if let m = minutes, (120..<180).contains(m), [3, 4].contains(day.month) { minutes = m - 120 }
                v.due = Due(date: day, minutes: minutes)
            }
            v.priority = Priority.allCases.randomElement(using: &rng)!
            v.categories = Array(Set((0..<Int.random(in: 0...3, using: &rng)).map { _ in words.randomElement(using: &rng)! }
                .filter { !$0.contains("\t") })).sorted()
            v.status = VTodoStatus.allCases.randomElement(using: &rng)!
            if v.status == .completed, Bool.random(using: &rng) { v.completed = Int64.random(in: 0...4_000_000_000, using: &rng) * 1000 }
            if Int.random(in: 0..<3, using: &rng) == 0 { v.rrule = rules.randomElement(using: &rng)! }
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: v.alarm = .before(minutes: Int.random(in: 1...TaskAlarm.maximumMinutes, using: &rng))
            case 1 where v.due != nil:
                var m = Int.random(in: 0..<1440, using: &rng)
                if (120..<180).contains(m), [3, 4].contains(v.due!.date.month) { m -= 120 }
                v.alarm = .timeOfDay(minutes: m)
            default: break
            }
            if Bool.random(using: &rng) { v.version = hex64(rng.next()) }
            let keptParts = (0..<Int.random(in: 0...3, using: &rng)).map { _ in keptChoices.randomElement(using: &rng)! }
            v.kept = keptParts.filter { $0.first != "BEGIN:VALARM" }.flatMap { $0 }
                + keptParts.filter { $0.first == "BEGIN:VALARM" }.flatMap { $0 }
            let turn: String? = Bool.random(using: &rng) ? "Turn: " + phrase(1) : nil
            let bytes = v.render(
                householdZone: zone, dtstamp: Int64(round) * 86_400_000, etagVersion: v.version, turnLine: turn)
            let again = try VTodo.read(
                ICalendarReader.parse(bytes), householdZone: zone, zoneNamed: ICalendarReaderTests.zoneNamed,
                generatedTurnLine: turn)
            #expect(again == v, "\(Self.text(bytes))")
            if again != v { break }
        }
    }
}

extension String {
    fileprivate func replacingTabs() -> String { String(map { $0 == "\t" ? " " : $0 }) }
}
