import Foundation
import Testing
import TodoCore

@testable import TodoStore

/// What commands read from the store comes typed: who did what and when as a member and a
/// time, dates as dates; the store alone knows stamps, git and its own small files.
@Suite(.timeLimit(.minutes(5)), .kit)
struct TypedQueryTests {
    static let now: Int64 = 1_700_000_000_000

    func household(_ dir: TempDir) throws -> Household {
        try Household.create(
            home: dir.path, name: "home", identity: Identity(name: "Alice", email: "alice@example.org"),
            clock: .fixed(Self.now), driverCommand: "true")
    }

    @Test func doneAndDeletedSayWhoAndWhen() throws {
        let dir = TempDir()
        let h = try household(dir)
        let added = try #require(try h.add(NewTask(title: "Buy milk")).tasks.first)
        #expect(added.task.completion == nil && added.task.deletion == nil)

        let done = try #require(try h.set(.done, ids: [added.short]).tasks.first?.task)
        let completion = try #require(done.completion)
        #expect(completion.member == "Alice" && completion.millis == Self.now)
        #expect(done.deletion == nil)

        let gone = try #require(try h.set(.rm, ids: [added.short]).tasks.first?.task)
        #expect(gone.deletion?.member == "Alice" && gone.deletion?.millis == Self.now)
        let reopened = try #require(try h.set(.reopen, ids: [added.short]).tasks.first?.task)
        #expect(reopened.completion == nil, "an open task has no completion, whatever its stamps say")
    }

    @Test func logSinceTakesALocalDate() throws {
        let dir = TempDir()
        let h = try household(dir)
        _ = try h.add(NewTask(title: "Buy milk"))
        let day = CivilDate(daysSinceEpoch: Int(Self.now / 86_400_000))
        let before = Due(date: CivilDate(daysSinceEpoch: day.daysSinceEpoch - 2))
        let after = Due(date: CivilDate(daysSinceEpoch: day.daysSinceEpoch + 2))
        let all = try h.log(of: nil, limit: nil, withShortIDs: false).entries
        #expect(!all.isEmpty)
        #expect(try h.log(of: nil, limit: nil, since: before, withShortIDs: false).entries.map(\.commit) == all.map(\.commit))
        #expect(try h.log(of: nil, limit: nil, since: after, withShortIDs: false).entries.isEmpty)
    }

    @Test func aLocalTimeIsMovedByTheZoneOffset() {
        let east = WallClock(nowMillis: { 0 }, offsetMinutes: { _ in 60 })
        let day2 = CivilDate(daysSinceEpoch: 1)
        #expect(east.millis(atLocal: Due(date: day2)) == 86_400_000 - 3_600_000)
        #expect(east.millis(atLocal: Due(date: day2, minutes: 90)) == 86_400_000 + 1_800_000)
    }

    @Test func keyValueLinesSplitAtTheFirstEqualsSign() {
        let parsed = KeyValueText.parse("url=https://h/x?a=b\nno equals here\n\nuser=a\nuser=b\nempty=\n")
        #expect(parsed == ["url": "https://h/x?a=b", "user": "b", "empty": ""])
        let pairs = [(key: "lastError", value: "refused (a=b)"), (key: "lastSuccess", value: "12")]
        #expect(KeyValueText.render(pairs) == "lastError=refused (a=b)\nlastSuccess=12\n")
        #expect(KeyValueText.parse(KeyValueText.render(pairs)) == ["lastError": "refused (a=b)", "lastSuccess": "12"])
    }

    @Test func syncStateIsReadBackAsWritten() throws {
        let dir = TempDir()
        let h = try household(dir)
        var state = SyncState()
        state.lastSuccess = 1
        state.lastAttempt = 2
        state.lastError = "Could not reach x=y"
        state.lastErrorClass = "transient"
        state.failingSince = 3
        state.notifiedAt = 4
        state.lastRemote = "/srv/family.git"
        h.writeSyncState(state)
        let back = h.syncState()
        #expect(back.lastSuccess == 1 && back.lastAttempt == 2 && back.failingSince == 3 && back.notifiedAt == 4)
        #expect(back.lastError == state.lastError && back.lastErrorClass == "transient" && back.lastRemote == state.lastRemote)
    }
}
