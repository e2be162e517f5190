import Foundation
import Testing
import TodoCore

/// `todo calendar` and `todo timezone`, judged by independent readers: Python's `icalendar`
/// (scripts/feed-summary.py, which also places local times with Python's own tz database) and
/// the calendar client khal. Both come from `sh scripts/deps.sh --test` (make test runs it); a
/// missing one fails the test with that instruction, never skips it.
@Suite(.timeLimit(.minutes(20)), .kit) struct CalendarFeedTests {
    static let summaryScript = packageRoot + "/scripts/feed-summary.py"
    static let depsHint = "run `sh scripts/deps.sh --test` (as root it installs khal and python3-icalendar)"

    /// The feed `todo calendar ARGS` prints, as feed-summary.py reads it.
    func summary(_ sb: Sandbox, _ args: String..., env: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation)
        throws -> JSONValue
    {
        let r = try sb.todo(["calendar"] + args, env: env)
        try #require(r.exitCode == 0 && r.stderr.isEmpty, "\(r)", sourceLocation: sourceLocation)
        let path = try sb.file("feed-\(UUID().uuidString).ics", "")
        try writeBytes(path, r.stdoutBytes)
        return try summarize(sb, path, sourceLocation: sourceLocation)
    }

    func summarize(_ sb: Sandbox, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        let python = try requireProgram("python3", sourceLocation: sourceLocation)
        let r = try runProgram(python, [Self.summaryScript, path], in: sb)
        try #require(r.exitCode != 3, "Python's icalendar package is missing: \(Self.depsHint). \(r.stderr)", sourceLocation: sourceLocation)
        try #require(r.exitCode == 0, "icalendar could not read the feed: \(r)", sourceLocation: sourceLocation)
        let s = try json(r.stdout)
        #expect(s["endsWithCRLF"] == .bool(true) && s["bareNewlines"] == .number("0"), "\(s)", sourceLocation: sourceLocation)
        #expect(Int(s["longestLine"]?.numberText ?? "999")! <= 75, "\(s)", sourceLocation: sourceLocation)
        for tz in s["timezones"]?.items ?? [] {
            #expect(tz["agrees"] == .bool(true), "VTIMEZONE observance disagrees with the tz database: \(tz)", sourceLocation: sourceLocation)
        }
        return s
    }

    func events(_ s: JSONValue) -> [JSONValue] { s["events"]?.items ?? [] }

    func event(_ s: JSONValue, uid: String) -> JSONValue? { events(s).first { $0["uid"]?.stringValue == uid } }

    func sequence(_ e: JSONValue?) -> Int { Int(e?["sequence"]?.numberText ?? "-1") ?? -1 }

    // MARK: The household time zone

    @Test func theHouseholdZoneDecidesTodayForEveryMachine() throws {
        // 2025-11-20 12:00 UTC is already 21 November 02:00 on Kiritimati (UTC+14).
        let sb = try Sandbox(now: fixedNow + 3 * 3_600_000)
        try sb.initHousehold()
        let t = try sb.add("Renew the permit", "--due", "2025-11-20")
        var r = try sb.todo("timezone")
        #expect(r.exitCode == 0 && r.stdout.contains("none recorded; this machine's zone (UTC) is used"), "\(r)")
        #expect(try sb.todo("agenda").stdout.hasPrefix("Due today:"))

        r = try sb.todo("timezone", "Pacific/Kiritimati")
        #expect(r.exitCode == 0 && r.stdout.contains("set to Pacific/Kiritimati"), "\(r)")
        #expect(try sb.subject() == "timezone: Pacific/Kiritimati")
        // The machine is still on UTC; the household's day has moved on.
        let agenda = try sb.todo("agenda")
        #expect(agenda.stdout.hasPrefix("Overdue:") && agenda.stdout.contains(t.short), "\(agenda)")
        #expect(try sb.todo("timezone").stdout == "Household time zone: Pacific/Kiritimati\n")
        // Setting it again changes nothing and makes no commit.
        let before = try sb.commits().count
        #expect(try sb.todo("timezone", "Pacific/Kiritimati").stdout.contains("unchanged"))
        #expect(try sb.commits().count == before)

        // The setting is a deleted task file with a stamped field: what older versions keep.
        let file = try json(String(decoding: try sb.committedBytes("tasks/00/00000000000000000000000000000000.json"), as: UTF8.self))
        #expect(file["deleted"] == .bool(true) && file["timeZone"] == .string("Pacific/Kiritimati"), "\(file)")
        #expect(file["stamps"]?["timeZone"]?.stringValue?.hasSuffix(" Alice") == true, "\(file)")
        #expect(!(try sb.todo("list").stdout.contains("Household settings")))
        try sb.expectClean()
    }

    /// `todo init` records the creating member's zone, unless it is UTC or has no name.
    @Test func initRecordsTheMembersZone() throws {
        let sb = try Sandbox()
        let cases: [(String, String?)] = [
            ("Europe/Paris", "Europe/Paris"), (":America/New_York", "America/New_York"),
            ("/usr/share/zoneinfo/Asia/Tokyo", "Asia/Tokyo"), ("UTC", nil), ("Etc/UTC", nil), ("CET-1CEST", nil),
        ]
        for (n, (tz, recorded)) in cases.enumerated() {
            let r = try sb.todo(["init", "-H", "h\(n)", "--name", "Ana"], env: ["TZ": tz])
            #expect(r.exitCode == 0, "\(tz): \(r)")
            let shown = try sb.todo("timezone", "-H", "h\(n)").stdout
            if let recorded {
                #expect(r.stdout.contains("Household time zone: \(recorded) (for every member"), "\(tz): \(r)")
                #expect(shown == "Household time zone: \(recorded)\n", "\(tz): \(shown)")
                #expect(try sb.subject(household: "h\(n)") == "timezone: \(recorded)")
            } else {
                #expect(r.lines.count == 1 && shown.contains("none recorded"), "\(tz): \(r) \(shown)")
                #expect(try sb.commits("h\(n)").count == 1)
            }
        }
    }

    @Test func unknownZonesAreRefused() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        for bad in ["Mars/Olympus", "../../etc/passwd", "", "Europe/Paris/x", "/usr/share/zoneinfo/UTC"] {
            let r = try sb.todo("timezone", bad)
            #expect(r.exitCode == 64 && r.stderr.contains("is not a time zone of the tz database"), "\(bad): \(r)")
        }
        let r = try sb.todo("init", "-H", "other", "--name", "Ana", "--timezone", "Nowhere/Town")
        #expect(r.exitCode == 64 && !FileManager.default.fileExists(atPath: sb.repo("other")), "\(r)")
        let ok = try sb.todo("init", "-H", "paris", "--name", "Ana", "--timezone", "Europe/Paris")
        #expect(ok.exitCode == 0, "\(ok)")
        #expect(try sb.todo("timezone", "-H", "paris").stdout == "Household time zone: Europe/Paris\n")
    }

    // MARK: The feed

    @Test func anEmptyHouseholdGivesAValidEmptyCalendar() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        _ = try sb.add("No date")
        let s = try summary(sb)
        #expect(s["version"] == .string("2.0") && events(s).isEmpty && s["name"] == .string("home"), "\(s)")
    }

    @Test func datedTasksAndChoreTurnsWithStableUIDs() throws {
        let sb = try Sandbox()  // Thursday 2025-11-20 09:00 UTC, as Alice
        try sb.initHousehold()
        try #require(try sb.todo("timezone", "Europe/Paris").exitCode == 0)
        let dentist = try sb.add("Dentist", "--due", "2025-11-24 10:30", "--assign", "Bob")
        let permit = try sb.add("Renew the permit", "--due", "2025-11-18")
        let party = try sb.add("Party", "--due", "2026-02-01")  // beyond 8 weeks
        let trash = try sb.add("Take out the trash", "--every", "tue", "--rotate", "Bob,Alice", "--from", "2025-11-18")
        let s = try summary(sb)
        let uids = events(s).compactMap { $0["uid"]?.stringValue }
        #expect(uids.contains("\(dentist.id)@todo") && uids.contains("\(permit.id)@todo") && !uids.contains("\(party.id)@todo"))
        // The trash: Tuesdays from 18 November (due now, overdue) for eight weeks.
        let tuesdays = ["20251118", "20251125", "20251202", "20251209", "20251216", "20251223", "20251230", "20260106", "20260113"]
        #expect(uids.filter { $0.hasPrefix(trash.id) } == tuesdays.map { "\(trash.id)-\($0)@todo" }, "\(uids)")

        let d = try #require(event(s, uid: "\(dentist.id)@todo"))
        #expect(d["summary"] == .string("Dentist (Bob)"))
        #expect(d["start"]?["tzid"] == .string("Europe/Paris") && d["start"]?["utc"] == .string("2025-11-24T09:30:00+00:00"), "\(d)")
        let p = try #require(event(s, uid: "\(permit.id)@todo"))
        #expect(p["summary"] == .string("Overdue since 2025-11-18: Renew the permit"), "\(p)")
        #expect(p["start"]?["kind"] == .string("date") && p["start"]?["local"] == .string("2025-11-20"), "\(p)")
        // The 18th is the chore's current occurrence, not done: overdue, shown today.
        let current = try #require(event(s, uid: "\(trash.id)-20251118@todo"))
        #expect(current["summary"] == .string("Overdue since 2025-11-18: Take out the trash (Bob)"))
        #expect(current["start"]?["local"] == .string("2025-11-20"))
        #expect(event(s, uid: "\(trash.id)-20251125@todo")?["summary"] == .string("Take out the trash (Alice)"))
        #expect(event(s, uid: "\(trash.id)-20251202@todo")?["summary"] == .string("Take out the trash (Bob)"))

        // Made again later the same day: the same events, the same UIDs and SEQUENCEs.
        let again = try summary(sb, env: ["TODO_NOW": String(fixedNow + 3_600_000)])
        #expect(events(again).map { [$0["uid"], $0["sequence"], $0["summary"], $0["start"]] } == events(s).map { [$0["uid"], $0["sequence"], $0["summary"], $0["start"]] })

        // Bob's feed: his turns and his task, nobody else's.
        let bob = try summary(sb, "--member", "Bob")
        #expect(events(bob).allSatisfy { $0["summary"]?.stringValue?.hasSuffix("(Bob)") == true }, "\(bob)")
        #expect(events(bob).count == 1 + 5, "\(bob)")
        #expect(try summary(sb, "--mine").events.count == 4)
        #expect(try summary(sb, "--weeks", "1").events.count == 2 + 2)
    }

    @Test func aSkipASwapADoneAndADeleteUpdateTheFeed() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let trash = try sb.add("Take out the trash", "--every", "thu", "--rotate", "Alice,Bob", "--from", "2025-11-20")
        let milk = try sb.add("Milk", "--due", "2025-11-22")
        let first = try summary(sb)
        let uid20 = "\(trash.id)-20251120@todo"
        let uid27 = "\(trash.id)-20251127@todo"
        #expect(event(first, uid: uid27)?["summary"] == .string("Take out the trash (Bob)"))

        // A swap: Alice's turn on the 20th becomes Bob's; same UIDs, higher SEQUENCE.
        var later = fixedNow + 60_000
        try #require(try sb.todo(["swap", trash.short, "--with", "Bob"], env: ["TODO_NOW": String(later)]).exitCode == 0)
        let swapped = try summary(sb, env: ["TODO_NOW": String(later)])
        #expect(event(swapped, uid: uid20)?["summary"] == .string("Take out the trash (Bob)"), "\(swapped)")
        #expect(event(swapped, uid: uid27)?["summary"] == .string("Take out the trash (Alice)"), "\(swapped)")
        #expect(sequence(event(swapped, uid: uid20)) > sequence(event(first, uid: uid20)))

        // A skip: the occurrence stays, cancelled, with a higher SEQUENCE.
        later += 60_000
        try #require(try sb.todo(["skip", trash.short], env: ["TODO_NOW": String(later)]).exitCode == 0)
        let skipped = try summary(sb, env: ["TODO_NOW": String(later)])
        let e = try #require(event(skipped, uid: uid20))
        #expect(e["status"] == .string("CANCELLED") && e["summary"]?.stringValue?.hasPrefix("Skipped: ") == true, "\(e)")
        #expect(sequence(e) > sequence(event(swapped, uid: uid20)))

        // Done: stays on its day, marked done, for two weeks; then drops out.
        later += 60_000
        try #require(try sb.todo(["done", milk.short], env: ["TODO_NOW": String(later)]).exitCode == 0)
        let done = try summary(sb, env: ["TODO_NOW": String(later)])
        #expect(event(done, uid: "\(milk.id)@todo")?["summary"] == .string("Done: Milk"))
        #expect(event(done, uid: "\(milk.id)@todo")?["start"]?["local"] == .string("2025-11-22"))
        let afterTwoWeeks = try summary(sb, env: ["TODO_NOW": String(fixedNow + 17 * 86_400_000)])
        #expect(event(afterTwoWeeks, uid: "\(milk.id)@todo") == nil)

        // Deleted: its events are gone.
        try #require(try sb.todo(["rm", trash.short], env: ["TODO_NOW": String(later)]).exitCode == 0)
        let removed = try summary(sb, env: ["TODO_NOW": String(later)])
        #expect(!events(removed).contains { $0["uid"]?.stringValue?.hasPrefix(trash.id) == true }, "\(removed)")
    }

    /// A done occurrence is told as whose turn it was and everyone credited on it, not as the
    /// turn of whoever wrote last; a chore without rotation or assignee is anyone's. Each
    /// member's own feed keeps the occurrences that are their turn.
    @Test func aDoneOccurrenceNamesTheTurnAndEveryoneWhoDidIt() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host, now: fixedNow + 60_000)
        try alice.create(remote: host.url())
        let trash = try alice.add("Take out the trash", "--every", "thu", "--rotate", "Alice,Bob", "--from", "2025-11-20")
        let plants = try alice.add("Water the plants", "--every", "thu", "--from", "2025-11-20")
        try alice.sync()
        try bob.join(host.url())
        // Thursday 20 November is Alice's turn; both take the trash out, Bob after Alice.
        try alice.change("done", trash.short)
        try alice.sync()
        try bob.change("done", trash.short, "--on", "2025-11-20")
        try bob.change("done", plants.short)
        try bob.sync()
        try alice.sync()

        let s = try summary(alice.sb)
        let done = try #require(event(s, uid: "\(trash.id)-20251120@todo"), "\(s)")
        #expect(done["summary"] == .string("Done: Take out the trash (Alice's turn, done by Alice, Bob)"), "\(done)")
        #expect(done["description"]?.stringValue?.hasPrefix("Occurrence of 2025-11-20, Alice's turn; done by Alice, Bob") == true, "\(done)")
        #expect(event(s, uid: "\(trash.id)-20251127@todo")?["summary"] == .string("Take out the trash (Bob)"), "\(s)")
        #expect(event(s, uid: "\(plants.id)-20251120@todo")?["summary"] == .string("Done: Water the plants (anyone's turn, done by Bob)"), "\(s)")
        let next = try #require(event(s, uid: "\(plants.id)-20251127@todo"), "\(s)")
        #expect(next["summary"] == .string("Water the plants (anyone's)"), "\(next)")
        #expect(next["description"]?.stringValue?.hasPrefix("Occurrence of 2025-11-27, anyone's turn") == true, "\(next)")

        // By turn: the 20th is in Alice's feed though Bob did it too, and not in Bob's.
        let alices = events(try summary(alice.sb, "--member", "Alice")).compactMap { $0["uid"]?.stringValue }
        let bobs = events(try summary(alice.sb, "--member", "Bob")).compactMap { $0["uid"]?.stringValue }
        #expect(alices.contains("\(trash.id)-20251120@todo") && !alices.contains("\(trash.id)-20251127@todo"), "\(alices)")
        #expect(!bobs.contains("\(trash.id)-20251120@todo") && bobs.contains("\(trash.id)-20251127@todo"), "\(bobs)")
        #expect(!(alices + bobs).contains { $0.hasPrefix(plants.id) }, "\(alices) \(bobs)")
    }

    @Test func hostileTitlesRoundTrip() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let titles = [
            "Semi;colon, comma\\backslash",
            "Two\nlines\r\nand CRLF",
            "SUMMARY:fake\nEND:VEVENT\nBEGIN:VEVENT\nUID:evil",
            String(repeating: "🧹", count: 200),
            "é" + String(repeating: "ü€🧹a", count: 60),
        ]
        var ids: [String] = []
        for (i, title) in titles.enumerated() { ids.append(try sb.add(title, "--due", "2025-11-2\(i + 1)").id) }
        let control = try sb.add("Bell\u{07}and\u{1B}[31mescape", "--due", "2025-11-27")
        let s = try summary(sb, "--todos")
        #expect(events(s).count == titles.count + 1 && (s["todos"]?.items.count ?? 0) == titles.count + 1, "\(s)")
        for (title, id) in zip(titles, ids) {
            // Line breaks are one `\n` each in TEXT; everything else comes back as it was.
            let expected = title.replacingOccurrences(of: "\r\n", with: "\n")
            #expect(event(s, uid: "\(id)@todo")?["summary"] == .string(expected), "\(title.debugDescription)")
        }
        #expect(event(s, uid: "\(control.id)@todo")?["summary"] == .string("Belland[31mescape"))
        #expect(!events(s).contains { $0["uid"]?.stringValue == "evil" })
    }

    @Test func daylightSavingDaysHaveTheirLocalTimes() throws {
        // 2026-03-20 09:00 UTC; the household is in Paris, this machine on UTC.
        let sb = try Sandbox(now: 1_773_997_200_000)
        try sb.initHousehold()
        try #require(try sb.todo("timezone", "Europe/Paris").exitCode == 0)
        let before = try sb.add("Before", "--due", "2026-03-28 09:00")
        let spring = try sb.add("Spring", "--due", "2026-03-29 09:00")
        let gap = try sb.add("In the gap", "--due", "2026-03-29 02:30")
        let s = try summary(sb, "--weeks", "4")
        #expect(event(s, uid: "\(before.id)@todo")?["start"]?["utc"] == .string("2026-03-28T08:00:00+00:00"))
        #expect(event(s, uid: "\(spring.id)@todo")?["start"]?["utc"] == .string("2026-03-29T07:00:00+00:00"))
        // 02:30 does not exist that night: read with the offset before the change (RFC 5545 3.3.5).
        #expect(event(s, uid: "\(gap.id)@todo")?["start"]?["utc"] == .string("2026-03-29T01:30:00+00:00"))
        let zones = s["timezones"]?.items ?? []
        #expect(zones.contains { $0["kind"] == .string("DAYLIGHT") && $0["start"] == .string("2026-03-29T02:00:00") }, "\(zones)")

        // October: the household's feed seven months on.
        let autumn = try sb.add("Autumn", "--due", "2026-10-25 09:00")
        let fall = try summary(sb, env: ["TODO_NOW": String(1_792_400_000_000)])  // 2026-10-20
        #expect(event(fall, uid: "\(autumn.id)@todo")?["start"]?["utc"] == .string("2026-10-25T08:00:00+00:00"))
        #expect((fall["timezones"]?.items ?? []).contains { $0["kind"] == .string("STANDARD") && $0["start"] == .string("2026-10-25T03:00:00") })
    }

    @Test func alarms() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let timed = try sb.add("Dentist", "--due", "2025-11-24 10:30")
        let allDay = try sb.add("Bins", "--due", "2025-11-25")
        var s = try summary(sb, "--alarm", "30m")
        #expect(event(s, uid: "\(timed.id)@todo")?["alarms"]?.items.first?["trigger"] == .string("-PT30M"))
        #expect(event(s, uid: "\(allDay.id)@todo")?["alarms"]?.items.first?["trigger"] == .string("PT8H"))
        s = try summary(sb, "--alarm", "2h", "--alarm-time", "07:15")
        #expect(event(s, uid: "\(timed.id)@todo")?["alarms"]?.items.first?["trigger"] == .string("-PT2H"))
        #expect(event(s, uid: "\(allDay.id)@todo")?["alarms"]?.items.first?["trigger"] == .string("PT7H15M"))
        #expect(events(try summary(sb)).allSatisfy { $0["alarms"]?.items.isEmpty == true })
    }

    @Test func badInputIsRefusedAndNothingIsWritten() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        _ = try sb.add("Dentist", "--due", "2025-11-24", "--assign", "Bob")
        let cases: [([String], Int32, String)] = [
            (["--member", "Zed"], 66, "No member \"Zed\" in household \"home\""),
            (["--weeks", "0"], 64, "--weeks must be from 1 to 104"),
            (["--weeks", "105"], 64, "--weeks must be from 1 to 104"),
            (["--alarm", "soon"], 64, "--alarm must be a duration"),
            (["--alarm", "0"], 64, "--alarm must be a duration"),
            (["--alarm-time", "25:00"], 64, "--alarm-time must be a time of day"),
            (["--member", "Bob", "--mine"], 64, "cannot be used together"),
            (["--out", sb.root + "/missing/feed.ics"], 73, "does not exist"),
            // /proc refuses a new file with ENOENT, which is neither permissions nor a full
            // disk: exit 70, the file and the system's words (README "Exit codes").
            (["--out", "/proc/todo-feed.ics"], 70, "Cannot write the feed to /proc/todo-feed.ics (open: No such file or directory)"),
            (["--out", sb.root], 73, "it is a folder"),
        ]
        for (args, code, message) in cases {
            let r = try sb.todo(["calendar"] + args)
            #expect(r.exitCode == code && r.stderr.contains(message) && r.stdout.isEmpty, "\(args): \(r)")
        }
        #expect(!FileManager.default.fileExists(atPath: sb.root + "/missing"))
        // Any name the household uses is a member: an assignee, the member writing here.
        #expect(try sb.todo("calendar", "--member", "Bob").exitCode == 0)
        #expect(try sb.todo("calendar", "--member", "Alice").exitCode == 0)
    }

    @Test func outReplacesTheFileAtOnce() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        _ = try sb.add("Dentist", "--due", "2025-11-24")
        let dir = sb.root + "/www"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let out = dir + "/kim.ics"
        try writeBytes(out, Array("old feed".utf8))
        let r = try sb.todo("calendar", "--out", out)
        #expect(r.exitCode == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "\(r)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["kim.ics"])
        #expect(try summarize(sb, out).events.count == 1)
        #expect(readBytes(out) == (try sb.todo("calendar").stdoutBytes))
    }

    /// khal, a real calendar client, imports a feed and lists the events on their days.
    @Test func khalListsTheEventsOnTheirDays() throws {
        let khal = try #require(findProgram("khal"), "khal is not installed: \(Self.depsHint)")
        let sb = try Sandbox()
        try sb.initHousehold()
        try #require(try sb.todo("timezone", "Europe/Paris").exitCode == 0)
        _ = try sb.add("Dentist; 2nd, visit", "--due", "2025-11-24 10:30")
        _ = try sb.add("Take out the trash", "--every", "tue", "--rotate", "Bob,Alice", "--from", "2025-11-25")
        _ = try sb.add("Renew the permit", "--due", "2025-11-18")
        let feed = sb.root + "/feed.ics"
        try #require(try sb.todo("calendar", "--weeks", "2", "--out", feed).exitCode == 0)
        let dir = sb.root + "/khal"
        try FileManager.default.createDirectory(atPath: dir + "/cal", withIntermediateDirectories: true)
        let config = try sb.file("khal.conf", """
            [calendars]
            [[home]]
            path = \(dir)/cal
            type = calendar
            [locale]
            timeformat = %H:%M
            dateformat = %Y-%m-%d
            longdateformat = %Y-%m-%d
            datetimeformat = %Y-%m-%d %H:%M
            longdatetimeformat = %Y-%m-%d %H:%M
            local_timezone = Europe/Paris
            default_timezone = Europe/Paris

            """)
        let env = ["XDG_DATA_HOME": dir + "/data", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"]
        let imported = try runProgram(khal, ["-c", config, "import", "--batch", "-a", "home", feed], env: env, in: sb)
        try #require(imported.exitCode == 0, "\(imported)")
        let listed = try runProgram(
            khal, ["-c", config, "list", "--format", "{start-date} {start-time} {title}", "--day-format", "", "2025-11-18", "16d"],
            env: env, in: sb)
        try #require(listed.exitCode == 0, "\(listed)")
        let lines = listed.lines.filter { !$0.isEmpty }
        #expect(lines == [
            "2025-11-20  Overdue since 2025-11-18: Renew the permit",
            "2025-11-24 10:30 Dentist; 2nd, visit",
            "2025-11-25  Take out the trash (Bob)",
            "2025-12-02  Take out the trash (Alice)",
        ], "\(listed)")
    }

    /// Two members set the zone while apart: the later write wins on both, the other is logged.
    @Test func zonesSetWhileApartMergeByTheirStamps() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let url = host.url()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host, now: fixedNow + 60_000)
        try alice.create(remote: url)
        try alice.sync()
        try bob.join(url)
        try alice.change("timezone", "Asia/Tokyo")
        try bob.change("timezone", "America/New_York")
        try alice.sync()
        try bob.sync()
        try alice.sync()
        for m in [alice, bob] {
            #expect(try m.todo("timezone").stdout == "Household time zone: America/New_York\n", "\(m.name)")
        }
        let conflicts = try alice.todo("conflicts")
        #expect(conflicts.stdout.contains("Asia/Tokyo"), "\(conflicts)")
        #expect(try alice.git("rev-parse", "refs/heads/main^{tree}").stdout == (try bob.git("rev-parse", "refs/heads/main^{tree}").stdout))
    }

    /// An older `todo` (fb9737e) syncs with a household whose zone is recorded: it neither
    /// refuses nor lists the settings file, and its own changes keep it byte for byte.
    @Test(.enabled(if: olderTodo != nil, "TODO_OLD_BINARY is not set (make test builds and sets it)"))
    func anOlderMemberKeepsTheZone() throws {
        let old = try #require(olderTodo)
        let host = try GitHost(.path)
        try host.createRepository()
        let url = host.url()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host, now: fixedNow + 60_000)
        bob.sb.binary = old
        try alice.create(remote: url)
        try alice.change("timezone", "Europe/Paris")
        let milk = try alice.add("Milk", "--due", "2025-11-22")
        try alice.sync()
        let path = "tasks/00/00000000000000000000000000000000.json"
        let written = try alice.git("show", "refs/heads/main:" + path).stdout

        try bob.join(url)
        let list = try bob.todo("list")
        #expect(list.exitCode == 0 && list.stderr.isEmpty && list.lines.count == 1 && list.stdout.contains("Milk"), "\(list)")
        try bob.change("edit", milk.short, "--title", "Oat milk")
        try bob.change("add", "Bread")
        try bob.sync()
        try alice.sync()
        #expect(try alice.git("show", "refs/heads/main:" + path).stdout == written)
        #expect(try alice.todo("timezone").stdout == "Household time zone: Europe/Paris\n")
        #expect(try bob.git("show", "refs/heads/main:" + path).stdout == written)
    }
}

extension JSONValue {
    /// A number's text as written.
    var numberText: String? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// The `events` of a feed summary.
    var events: [JSONValue] { self["events"]?.items ?? [] }
}
