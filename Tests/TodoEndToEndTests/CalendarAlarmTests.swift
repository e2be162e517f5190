import Foundation
import Testing
import TodoCore

/// A task's own alarm (`todo add/edit --alarm`, the `alarm` field): the feed gives the task's
/// events that alarm, whatever `todo calendar --alarm` says, judged by Python's `icalendar`.
@Suite(.timeLimit(.minutes(20)), .kit) struct CalendarAlarmTests {
    let feed = CalendarFeedTests()

    func trigger(_ s: JSONValue, _ uid: String) -> String? {
        feed.event(s, uid: uid)?["alarms"]?.items.first?["trigger"]?.stringValue
    }

    func file(_ sb: Sandbox, _ t: TaskRef) throws -> JSONValue {
        try json(String(decoding: try sb.committedBytes(t.path), as: UTF8.self))
    }

    @Test func aTasksOwnAlarmComesBeforeTheFeeds() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        // 2025-11-20 is a Thursday: the chore's next occurrence is Tuesday 25 November.
        let dentist = try sb.add("Dentist", "--due", "2025-11-24 10:30", "--alarm", "90m")
        let bins = try sb.add("Bins", "--every", "tue", "--alarm", "07:00")
        let call = try sb.add("Call the bank", "--due", "2025-11-24 09:00")
        let binsUID = "\(bins.id)-20251125@todo"

        // Without --alarm only the tasks with their own alarm ring.
        var s = try feed.summary(sb)
        #expect(trigger(s, "\(dentist.id)@todo") == "-PT1H30M", "\(s)")
        #expect(trigger(s, binsUID) == "PT7H", "an all-day chore rings at its time of day: \(s)")
        #expect(trigger(s, "\(call.id)@todo") == nil)
        // With --alarm the others get the feed's; the tasks' own stay.
        s = try feed.summary(sb, "--alarm", "30m", "--alarm-time", "06:00")
        #expect(trigger(s, "\(dentist.id)@todo") == "-PT1H30M")
        #expect(trigger(s, binsUID) == "PT7H")
        #expect(trigger(s, "\(call.id)@todo") == "-PT30M")

        // The field: canonical text, stamped like any other field.
        var f = try file(sb, dentist)
        #expect(f["alarm"] == .string("90m") && f["stamps"]?["alarm"]?.stringValue?.hasSuffix(" Alice") == true, "\(f)")
        #expect(try file(sb, bins)["alarm"] == .string("07:00"))
        #expect(try sb.todo("show", dentist.short).stdout.contains("Alarm:    90m before (todo calendar)"))
        #expect(try sb.todo("show", bins.short).stdout.contains("Alarm:    at 07:00 on its day (todo calendar)"))

        // A duration before an all-day event counts back from its midnight; a time of day on a
        // timed event is that time on its day.
        var r = try sb.todo("edit", bins.short, "--alarm", "1d")
        #expect(r.exitCode == 0 && r.stdout.hasPrefix("Changed alarm: Bins"), "\(r)")
        r = try sb.todo("edit", dentist.short, "--alarm", "08:00")
        #expect(r.exitCode == 0, "\(r)")
        s = try feed.summary(sb)
        #expect(trigger(s, binsUID) == "-P1D")
        #expect(trigger(s, "\(dentist.id)@todo") == "-PT2H30M")

        // --no-alarm takes it away: the feed's applies again.
        r = try sb.todo("edit", dentist.short, "--no-alarm")
        #expect(r.exitCode == 0 && r.stdout.hasPrefix("Changed alarm"), "\(r)")
        f = try file(sb, dentist)
        #expect(f["alarm"] == .null && f["stamps"]?["alarm"] != nil, "\(f)")
        #expect(trigger(try feed.summary(sb), "\(dentist.id)@todo") == nil)
        #expect(trigger(try feed.summary(sb, "--alarm", "15m"), "\(dentist.id)@todo") == "-PT15M")
        r = try sb.todo("edit", dentist.short, "--no-alarm")
        #expect(r.exitCode == 0 && r.stdout.hasPrefix("Nothing changed"), "\(r)")

        // Done: no alarm.
        #expect(try sb.todo("done", call.short).exitCode == 0)
        #expect(trigger(try feed.summary(sb, "--alarm", "30m"), "\(call.id)@todo") == nil)
        try sb.expectClean()
    }

    @Test func badAlarmsAreRefusedAndNothingIsWritten() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let t = try sb.add("Dentist", "--due", "2025-11-24 10:30")
        let before = try sb.commits()
        let cases: [[String]] = [
            ["add", "X", "--alarm", "soon"], ["add", "X", "--alarm", "0"], ["add", "X", "--alarm", "8d"],
            ["add", "X", "--alarm", "30s"], ["add", "X", "--alarm", "24:00"], ["add", "X", "--alarm", "8:00"],
            ["edit", t.short, "--alarm", ""], ["edit", t.short, "--alarm", "5"],
        ]
        for args in cases {
            let r = try sb.todo(args)
            #expect(r.exitCode == 64 && r.stderr.contains("--alarm must be a duration from 1m to 7d"), "\(args): \(r)")
        }
        let both = try sb.todo("edit", t.short, "--alarm", "1h", "--no-alarm")
        #expect(both.exitCode == 64 && both.stderr.contains("either --alarm or --no-alarm"), "\(both)")
        #expect(try sb.commits() == before)
    }

    /// Two members set a chore's alarm while apart: the later stamp wins on both clones, and the
    /// other value is in the conflict log, as for a title.
    @Test func alarmsSetWhileApartMergeByTheirStamps() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let url = host.url()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host, now: fixedNow + 60_000)
        try alice.create(remote: url)
        let bins = try alice.add("Bins", "--every", "tue")
        try alice.sync()
        try bob.join(url)
        try alice.change("edit", bins.short, "--alarm", "30m")
        try bob.change("edit", bins.short, "--alarm", "07:45")
        try alice.sync()
        try bob.sync()
        try alice.sync()
        for m in [alice, bob] {
            let f = try json(try m.git("show", "refs/heads/main:" + bins.path).stdout)
            #expect(f["alarm"] == .string("07:45") && f["stamps"]?["alarm"]?.stringValue?.hasSuffix(" Bob") == true, "\(f)")
            #expect(try m.todo("conflicts").stdout.contains("alarm"), "\(m.name)")
            #expect(trigger(try feed.summary(m.sb, env: m.env), "\(bins.id)-20251125@todo") == "PT7H45M")
        }
    }

    /// An older `todo` (fb9737e) edits a task with an alarm: the field and its stamp come back
    /// byte for byte, and the feed still rings.
    @Test(.enabled(if: olderTodo != nil, "TODO_OLD_BINARY is not set (make test builds and sets it)"))
    func anOlderMemberKeepsTheAlarm() throws {
        let old = try #require(olderTodo)
        let host = try GitHost(.path)
        try host.createRepository()
        let url = host.url()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host, now: fixedNow + 60_000)
        bob.sb.binary = old
        try alice.create(remote: url)
        let bins = try alice.add("Bins", "--every", "tue", "--alarm", "07:30")
        try alice.sync()
        let written = try json(try alice.git("show", "refs/heads/main:" + bins.path).stdout)

        try bob.join(url)
        try bob.change("edit", bins.short, "--title", "Bins out")
        try bob.sync()
        try alice.sync()
        let merged = try json(try alice.git("show", "refs/heads/main:" + bins.path).stdout)
        #expect(merged["title"] == .string("Bins out"), "\(merged)")
        #expect(merged["alarm"] == .string("07:30") && merged["stamps"]?["alarm"] == written["stamps"]?["alarm"], "\(merged)")
        let s = try feed.summary(alice.sb, env: alice.env)
        #expect(trigger(s, "\(bins.id)-20251125@todo") == "PT7H30M", "\(s)")
    }
}
