import Foundation
import Testing
import TodoCore

@testable import TodoStore

/// The automatic housekeeping packs geometrically while the packs stay within 1.5 times the
/// last full repack's bytes plus a slack, and packs everything past that, or when no full
/// repack is recorded (docs/FORMAT.md, "Geometric packing"). Judged by git's count of packs.
@Suite(.timeLimit(.minutes(5)), .kit)
struct FullRepackBoundTests {
    let fixture: StoreTransactionTests.Fixture
    var household: Household { fixture.household }

    init() throws { fixture = try StoreTransactionTests.Fixture() }

    var record: String { household.path + "/.git/todo/full-repack" }

    func packs() throws -> Int {
        let lines = try git("count-objects", "-v", in: household.path).split(separator: "\n")
        return lines.first { $0.hasPrefix("packs: ") }.flatMap { Int($0.dropFirst(7)) } ?? -1
    }

    func addSome(_ prefix: String, _ count: Int = 20) throws {
        for i in 0..<count { _ = try household.add(NewTask(title: "\(prefix) \(i)")) }
    }

    func auto(slack: Int = Household.fullRepackSlack) throws {
        var options = MaintenanceOptions()
        options.auto = true
        options.exactThreshold = 0
        options.includeRemote = false
        options.fullRepackSlack = slack
        _ = try household.maintain(options)
    }

    @Test func withoutARecordTheAutomaticRunPacksEverythingAndRecordsIt() throws {
        try addSome("a")
        try auto()
        #expect(try packs() == 1)
        let recorded = try #require(Int(try String(contentsOfFile: record, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(recorded > 0)
        // Within the bound: the next run packs only what is new (a few objects against the
        // first pack's hundred), beside the first pack.
        try addSome("b", 1)
        try auto()
        #expect(try packs() == 2)
    }

    @Test func packsPastTheBoundArePackedWhole() throws {
        try addSome("a")
        var byHand = MaintenanceOptions()
        byHand.includeRemote = false
        _ = try household.maintain(byHand)
        #expect(try packs() == 1)
        // A record far smaller than the packs now weigh, no slack: past the bound.
        try "1\n".write(toFile: record, atomically: true, encoding: .utf8)
        try addSome("b")
        try auto(slack: 0)
        #expect(try packs() == 1)
        let recorded = try #require(Int(try String(contentsOfFile: record, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(recorded > 1)
    }
}
