import Foundation
import Testing
import TodoCore

/// What people type follows the household's zone, and the settings file it is kept in is never
/// a task to show, change or restore.
@Suite(.timeLimit(.minutes(10)), .kit) struct HouseholdZoneInputTests {
    /// At 09:00 UTC on 20 November 2025 it is 23:00 on Kiritimati (UTC+14): the machine runs
    /// on UTC, the household on Kiritimati, and `now` is the household's date and time.
    @Test func nowAndTimesOfDayFollowTheHouseholdZone() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        #expect(try sb.todo("timezone", "Pacific/Kiritimati").exitCode == 0)
        for (input, due) in [("now", "2025-11-20T23:00"), ("today", "2025-11-20"), ("tomorrow 07:00", "2025-11-21T07:00")] {
            let r = try sb.todo(["add", "X", "--due", input, "--json"], env: ["TZ": "UTC"])
            #expect(r.exitCode == 0 && (try? json(r.stdout))?["due"] == .string(due), "\(input): \(r)")
        }
        // Two hours later the household's day has moved on, the machine's has not.
        let later = try sb.todo(["add", "Y", "--due", "now", "--json"], env: ["TZ": "UTC", "TODO_NOW": String(fixedNow + 2 * 3_600_000)])
        #expect((try? json(later.stdout))?["due"] == .string("2025-11-21T01:00"), "\(later)")
    }

    @Test func theSettingsFileIsNotATask() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        #expect(try sb.todo("timezone", "Europe/Paris").exitCode == 0)
        let gone = try sb.add("Old chore")
        #expect(try sb.todo("rm", gone.short).exitCode == 0)
        let settings = String(repeating: "0", count: 32)

        for json in [false, true] {
            let r = try sb.todo(["list", "--deleted"] + (json ? ["--json"] : []))
            #expect(r.exitCode == 0 && r.stdout.contains("Old chore"), "\(r)")
            #expect(!r.stdout.contains("Household settings") && !r.stdout.contains(settings), "\(r)")
        }
        let before = try sb.commits()
        let file = try sb.committedBytes("tasks/00/\(settings).json")
        for args in [["restore", "0000"], ["show", settings], ["edit", "000000", "--title", "Mine"], ["rm", "00000"], ["done", "0000"]] {
            let r = try sb.todo(args)
            #expect(r.exitCode == 66 && r.stderr.contains("names the household settings file, not a task"), "\(args): \(r)")
        }
        #expect(try sb.commits() == before)
        #expect(try sb.committedBytes("tasks/00/\(settings).json") == file)
        #expect(try sb.todo("timezone").stdout == "Household time zone: Europe/Paris\n")
        #expect(try sb.todo("restore", gone.short).exitCode == 0)
    }
}
