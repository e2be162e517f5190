import Foundation
import Testing
import TodoCore

@testable import TodoStore

/// The household's time zone, in process: recorded in the settings file, followed by the clock
/// of every household opened afterwards, and the feed's members.
@Suite(.timeLimit(.minutes(5)), .kit)
struct HouseholdZoneTests {
    /// 2025-11-20 12:00 UTC: already 21 November on Kiritimati (UTC+14).
    static let now: Int64 = 1_763_640_000_000

    func household(_ dir: TempDir) throws -> Household {
        try Household.create(
            home: dir.path, name: "home", identity: Identity(name: "Alice", email: "alice@example.org"),
            clock: .fixed(Self.now), driverCommand: "true")
    }

    func reopened(_ dir: TempDir) throws -> Household {
        try Household.open(home: dir.path, name: "home", clock: WallClock(nowMillis: { Self.now }, offsetMinutes: { _ in 0 }))
    }

    @Test func aRecordedZoneMovesTheDayOfEveryHouseholdOpenedAfter() throws {
        let dir = TempDir()
        let h = try household(dir)
        #expect(try reopened(dir).clock.today.description == "2025-11-20")
        #expect(try h.zone().source == .machine)

        #expect(try h.setZone("Pacific/Kiritimati") != nil)
        #expect(try h.setZone("Pacific/Kiritimati") == nil, "the same zone again writes nothing")
        let again = try reopened(dir)
        #expect(again.clock.today.description == "2025-11-21" && again.clock.minuteOfDay == 2 * 60)
        let zone = try again.zone()
        #expect(zone.source == .recorded && zone.rules.name == "Pacific/Kiritimati")

        let file = try #require(try again.snapshot().task(HouseholdSettings.id))
        #expect(file.deleted && file.extra["timeZone"] == .string("Pacific/Kiritimati") && file.stamps["timeZone"] != nil)
    }

    @Test func aZoneThisMachineLacksIsIgnored() throws {
        let dir = TempDir()
        let h = try household(dir)
        try h.setZone("Mars/Olympus_Mons")
        let again = try reopened(dir)
        #expect(again.clock.today.description == "2025-11-20")
        #expect(try again.zone().source == .unknownRecorded("Mars/Olympus_Mons"))
        // Never silently: doctor says which zone this machine lacks and which it follows.
        let found = try again.checkZone()
        #expect(found.count == 1 && found[0].check == "timezone" && found[0].status == .problem)
        guard case .zoneUnknown(let name, _)? = found.first?.fact, case .installZoneData(let advised)? = found.first?.advice else {
            Issue.record("\(found)")
            return
        }
        #expect(name == "Mars/Olympus_Mons" && advised == name)
        try h.setZone("Europe/Paris")
        let known = try reopened(dir).checkZone()
        #expect(known.first?.status == .ok)
        guard case .zoneFollowed("Europe/Paris")? = known.first?.fact else {
            Issue.record("\(known)")
            return
        }
    }

    @Test func unsafeZoneNamesAreNotRead() {
        for name in ["../../../etc/passwd", "/etc/localtime", "Europe/../UTC", "", "Europe//Paris", "UTC\u{0}x"] {
            #expect(HouseholdZone.load(name) == nil, "\(name)")
        }
        #expect(HouseholdZone.load("Europe/Paris")?.name == "Europe/Paris")
    }

    @Test func feedMembersAreTheNamesTheHouseholdUses() throws {
        let dir = TempDir()
        let h = try household(dir)
        var new = NewTask(title: "Dentist")
        new.assignee = "Bob"
        new.due = Due(date: CivilDate(year: 2025, month: 11, day: 24)!)
        _ = try h.add(new)
        var options = CalendarFeedOptions()
        for member in ["Bob", "Alice"] {
            options.member = member
            guard case .success = try h.calendar(options) else {
                Issue.record("\(member) is a member")
                continue
            }
        }
        options.member = "Zed"
        guard case .failure(.unknownMember("Zed", let known)) = try h.calendar(options) else {
            Issue.record("Zed is no member")
            return
        }
        #expect(known == ["Alice", "Bob"])
    }
}
