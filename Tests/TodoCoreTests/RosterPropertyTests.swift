import TestKit
import Testing

@testable import TodoCore

/// A year of a household whose people change (docs/FORMAT.md, "Turns: decided once and kept"):
/// two replicas with skewed clocks make random done, skip, swap, pass, rotation, join, leave and
/// away changes every day and merge every evening. After each merge both replicas agree; no
/// occurrence goes to a member away or gone on its day; a turn never changes after its day; and
/// in stretches where nothing interferes, each run of n occurrences has n different members.
@Suite(.timeLimit(.minutes(10))) struct RosterPropertyTests {
    static let choreID = TaskID("7c1a9c0e5b7d41e8a6c2d9f0b1e4c7a5")!
    static let settingsID = TaskID("00000000000000000000000000000000")!
    /// Mon 5 Jan 2026, 09:00 UTC.
    static let t0: Int64 = 1_767_603_600_000
    static let day: Int64 = 86_400_000
    static let start = CivilDate(year: 2026, month: 1, day: 5)!

    struct Replica {
        var chore: Task
        var settings: Task
        var replica: String
        var skew: Int64
        var counter: UInt32 = 0

        mutating func stamp(_ wall: Int64, _ member: String) -> FieldStamp {
            counter += 1
            return FieldStamp(Stamp(wall: wall + skew, counter: counter, replica: replica), by: member)
        }
    }

    static func merge(_ base: Task, _ a: Task, _ b: Task, path: String) throws -> Task {
        let out = TaskMerge.merge(base: TaskCodec.encode(base), ours: TaskCodec.encode(a), theirs: TaskCodec.encode(b), path: path)
        return try TaskCodec.decode(try #require(out.bytes))
    }

    @Test(arguments: Array(1...5)) func aYearOfComingsAndGoings(seed: Int) throws {
        var rng = SplitMix64(seed: UInt64(seed) &* 0x9E37_79B9)
        let pool = ["Ann", "Ben", "Cy", "Dee", "Eve", "Flo"]
        let size = Int.random(in: 3...6, using: &rng)
        let everyone = Array(pool.prefix(size))
        let weekly = seed % 3 == 0
        let rotate: RotateMode = seed % 4 == 1 ? .fewest : .order
        var chore = Task(id: Self.choreID, title: "Dishes", createdAt: "2026-01-05T09:00:00.000Z", createdBy: "Ann")
        let s0 = FieldStamp(Stamp(wall: Self.t0, counter: 0, replica: "0000000000000000"), by: "Ann")
        for f in Task.stampedFields { chore.stamps[f] = s0 }
        chore.setRecurrence(Recurrence(rule: RepeatRule(weekly ? "week" : "day")!, from: Self.start), stamp: s0)
        chore.setRotation(Array(everyone.prefix(3)), stamp: s0)
        if rotate == .fewest { chore.setRotateMode(.fewest, stamp: s0) }
        var settings = Task(id: Self.settingsID, title: "Household settings (kept by todo; do not restore)", createdAt: "", createdBy: "Ann")
        for f in Task.stampedFields { settings.stamps[f] = s0 }
        var replicas = [
            Replica(chore: chore, settings: settings, replica: "aaaaaaaaaaaaaaaa", skew: Int64.random(in: -6...6, using: &rng) * 3_600_000),
            Replica(chore: chore, settings: settings, replica: "bbbbbbbbbbbbbbbb", skew: Int64.random(in: -6...6, using: &rng) * 3_600_000),
        ]
        var base = (chore, settings)
        var announced: [CivilDate: String] = [:]
        func context(_ r: Replica) -> TurnContext { TurnContext(roster: Roster(settings: r.settings), day: TurnContext.plain.day) }

        for n in 0..<364 {
            let today = Self.start.adding(days: n)
            for i in replicas.indices where Int.random(in: 0..<10, using: &rng) < 6 {
                var r = replicas[i]
                let wall = Self.t0 + Int64(n) * Self.day + Int64.random(in: 0...36_000_000, using: &rng)
                let day = TurnContext.plain.day(wall + r.skew)
                let ctx = context(r)
                let roster = ctx.roster
                let schedule = r.chore.schedule(today: day, context: ctx)!
                let present = everyone.filter { roster.isPresent($0, on: day) }
                guard let actor = present.randomElement(using: &rng) else { continue }
                let tomorrow = day.adding(days: 1)
                switch Int.random(in: 0..<100, using: &rng) {
                case 0..<45:
                    if let c = schedule.current, c <= day {
                        let who = schedule.turn(on: c) ?? actor
                        r.chore.complete(c, member: who, day: day, stamp: r.stamp(wall, who))
                    }
                case 45..<55:
                    if let c = schedule.current { r.chore.setOccurrence(c, .skipped, stamp: r.stamp(wall, actor)) }
                case 55..<67:
                    // A swap or a pass to someone present on that day, never for a day already begun.
                    let ahead = schedule.upcoming(6).filter { $0 > day }
                    if let d = ahead.randomElement(using: &rng), let other = present.randomElement(using: &rng),
                        roster.isPresent(other, on: d)
                    {
                        r.chore.setTurn(d, other, stamp: r.stamp(wall, actor))
                    }
                case 67..<77:
                    var names = r.chore.rotation
                    let candidates = everyone.filter { !roster.hasLeft($0, on: tomorrow) }
                    if Bool.random(using: &rng), let add = candidates.filter({ !names.contains($0) }).randomElement(using: &rng) {
                        names.insert(add, at: Int.random(in: 0...names.count, using: &rng))
                    } else if names.count > 1 {
                        names.remove(at: Int.random(in: 0..<names.count, using: &rng))
                    }
                    if names != r.chore.rotation { r.chore.changeRotation(names, from: tomorrow, stamp: r.stamp(wall, actor)) }
                case 77..<85:
                    let who = everyone.randomElement(using: &rng)!
                    let from = tomorrow.adding(days: Int.random(in: 0...10, using: &rng))
                    let until = from.adding(days: Int.random(in: 0...9, using: &rng))
                    try r.settings.write(Roster.key(Roster.awayField, from, who), .string(until.description), stamp: r.stamp(wall, actor))
                case 85..<92:
                    // Someone leaves (never the last two present) or comes back.
                    let who = everyone.randomElement(using: &rng)!
                    if roster.hasLeft(who, on: tomorrow) {
                        try r.settings.write(Roster.key(Roster.rosterField, tomorrow, who), .string("member"), stamp: r.stamp(wall, actor))
                    } else if everyone.filter({ !roster.hasLeft($0, on: tomorrow) }).count > 2 {
                        let stamp = r.stamp(wall, actor)
                        try r.settings.write(Roster.key(Roster.rosterField, tomorrow, who), .string("left"), stamp: stamp)
                        if r.chore.rotation.contains(who), r.chore.rotation.count > 1 {
                            r.chore.changeRotation(r.chore.rotation.filter { $0 != who }, from: tomorrow, stamp: stamp)
                        }
                    }
                default:
                    break
                }
                replicas[i] = r
            }
            // Evening: both replicas sync.
            let chores = try Self.merge(base.0, replicas[0].chore, replicas[1].chore, path: Self.choreID.path)
            let sets = try Self.merge(base.1, replicas[0].settings, replicas[1].settings, path: Self.settingsID.path)
            let other = try Self.merge(base.1, replicas[1].settings, replicas[0].settings, path: Self.settingsID.path)
            #expect(TaskCodec.encode(sets) == TaskCodec.encode(other), "seed \(seed): the merge does not depend on the side")
            for i in replicas.indices {
                replicas[i].chore = chores
                replicas[i].settings = sets
            }
            base = (chores, sets)
            let ctx = context(replicas[0])
            let s = chores.schedule(today: today, context: ctx)!
            // Today's turn as announced tonight; nobody away or gone is given a turn.
            var d: CivilDate? = s.recurrence.first(onOrAfter: today)
            var steps = 0
            while let x = d, x <= today.adding(days: 14), steps < 20 {
                if let who = s.turn(on: x) {
                    #expect(ctx.roster.isPresent(who, on: x), "seed \(seed): \(x) went to \(who), who is not there")
                }
                d = s.recurrence.next(after: x)
                steps += 1
            }
            if s.recurrence.isOccurrence(today) { announced[today] = s.turn(on: today) ?? "-" }
        }
        // No turn moved after its day.
        let final = replicas[0].chore.schedule(today: Self.start.adding(days: 364), context: context(replicas[0]))!
        var moved: [String] = []
        for (d, who) in announced where (final.turn(on: d) ?? "-") != who { moved.append("\(d): \(who) → \(final.turn(on: d) ?? "-")") }
        #expect(moved.isEmpty, "seed \(seed): turns moved after their day: \(moved.sorted().prefix(5))")

        // In order: where nothing interferes for twice a rotation's length, n in a row differ.
        guard rotate == .order else { return }
        let roster = context(replicas[0]).roster
        var run: [(CivilDate, String)] = []
        var names: [String] = []
        let turns = replicas[0].chore.turnEntries
        var d: CivilDate? = Self.start
        while let x = d, x < Self.start.adding(days: 364) {
            let rot = final.rotation(on: x)
            let quiet = turns[x.description] == nil && final.status(of: x) != .skipped && rot == names
                && rot.allSatisfy { roster.isPresent($0, on: x) }
            if !quiet { run = [] }
            names = rot
            if let who = final.turn(on: x) { run.append((x, who)) }
            if quiet, !rot.isEmpty, run.count >= 2 * rot.count {
                let window = run.suffix(rot.count).map(\.1)
                #expect(Set(window).count == rot.count, "seed \(seed): \(run.suffix(rot.count).map { "\($0.0) \($0.1)" })")
            }
            d = final.recurrence.next(after: x)
        }
    }
}
