import TestKit
import Testing

@testable import TodoCore

/// What a chore's merged file says (docs/FORMAT.md, "What is derived, never stored"): credits,
/// missed occurrences, the current occurrence and turns, the same whichever way it merged.
@Suite(.timeLimit(.minutes(5))) struct ChoreScheduleTests {
    static let id = TaskID("3f2a9c0e5b7d41e8a6c2d9f0b1e4c7a5")!
    /// Tue 1 Dec 2026, 09:00 UTC.
    static let t0: Int64 = 1_796_115_600_000
    static let day: Int64 = 86_400_000

    static func date(_ s: String) -> CivilDate { CivilDate(iso: Substring(s))! }

    static func stamp(_ wall: Int64, _ member: String, replica: String) -> FieldStamp {
        FieldStamp(Stamp(wall: wall, counter: 0, replica: replica), by: member)
    }

    /// A daily chore from 1 Dec, its fields stamped at t0.
    static func chore(_ every: String = "day", rotation: [String] = []) -> Task {
        var t = Task(id: id, title: "Dishes", createdAt: "2026-12-01T09:00:00.000Z", createdBy: "Kim")
        let s = stamp(t0, "Kim", replica: "a1")
        for field in Task.stampedFields { t.stamps[field] = s }
        t.setRecurrence(Recurrence(rule: RepeatRule(every)!, from: date("2026-12-01")), stamp: s)
        if !rotation.isEmpty { t.setRotation(rotation, stamp: s) }
        return t
    }

    /// Merges `a` and `b` both ways. With `quiet`, the merge must log nothing: two members'
    /// completions are never a conflict. (The property test merges against the first version
    /// rather than the common ancestor, so there a done against an undo is a logged conflict.)
    static func merged(_ base: Task, _ a: Task, _ b: Task, quiet: Bool = true) throws -> Task {
        let out = TaskMerge.merge(
            base: TaskCodec.encode(base), ours: TaskCodec.encode(a), theirs: TaskCodec.encode(b), path: id.path)
        let bytes = try #require(out.bytes)
        let flipped = TaskMerge.merge(
            base: TaskCodec.encode(base), ours: TaskCodec.encode(b), theirs: TaskCodec.encode(a), path: id.path)
        #expect(flipped.bytes == bytes, "the merge is commutative")
        if quiet, case .merged(_, let entries, _) = out { #expect(entries.isEmpty, "completions are never a conflict: \(entries)") }
        return try TaskCodec.decode(bytes)
    }

    @Test func twoMembersWhoDidOneOccurrenceAreBothCreditedAndItAdvancesOnce() throws {
        let base = Self.chore(rotation: ["Sam", "Kim"])
        var sam = base
        var kim = base
        // Thu 3 Dec, both offline: Sam at 19:00, Kim at 19:05.
        let thu = Self.date("2026-12-03")
        for d in ["2026-12-01", "2026-12-02"] { sam.complete(Self.date(d), member: "Sam", day: Self.date(d), stamp: Self.stamp(Self.t0, "Sam", replica: "b2")) }
        kim = sam
        let before = sam
        sam.complete(thu, member: "Sam", day: thu, stamp: Self.stamp(Self.t0 + 2 * Self.day + 36_000_000, "Sam", replica: "b2"))
        kim.complete(thu, member: "Kim", day: thu, stamp: Self.stamp(Self.t0 + 2 * Self.day + 36_300_000, "Kim", replica: "c3"))
        let t = try Self.merged(before, sam, kim)
        let s = try #require(t.schedule(today: thu, context: .plain))
        #expect(s.credits(on: thu).map(\.member) == ["Sam", "Kim"])
        #expect(s.status(of: thu) == .done)
        #expect(s.current == Self.date("2026-12-04"), "the chore advances once")
        #expect(s.tally().map { "\($0.member) \($0.all)" } == ["Kim 1", "Sam 3"])
        #expect(t.completions.count == 4)
    }

    @Test func aCompletionFromAStaleReplicaMovesToTheOccurrenceItStoodFor() throws {
        let base = Self.chore()
        var kim = base
        var sam = base
        // Kim did Thu 3 Dec on the day; Sam's replica, six days stale, named 3 Dec on Wed 9 Dec.
        for d in 1...3 {
            let date = Self.date("2026-12-0\(d)")
            kim.complete(date, member: "Kim", day: date, stamp: Self.stamp(Self.t0 + Int64(d - 1) * Self.day, "Kim", replica: "a1"))
        }
        sam.complete(Self.date("2026-12-01"), member: "Sam", day: Self.date("2026-12-01"), stamp: Self.stamp(Self.t0, "Sam", replica: "b2"))
        sam.complete(Self.date("2026-12-02"), member: "Sam", day: Self.date("2026-12-02"), stamp: Self.stamp(Self.t0 + Self.day, "Sam", replica: "b2"))
        let stale = sam
        sam.complete(Self.date("2026-12-03"), member: "Sam", day: Self.date("2026-12-09"), stamp: Self.stamp(Self.t0 + 8 * Self.day, "Sam", replica: "b2"))
        _ = stale
        let t = try Self.merged(base, kim, sam)
        let s = try #require(t.schedule(today: Self.date("2026-12-09"), context: .plain))
        // Kim keeps 3 Dec; Sam's completion counts for 4 Dec, the earliest open occurrence
        // before the day he did it, and says so.
        #expect(s.credits(on: Self.date("2026-12-03")).map(\.member) == ["Kim"])
        let moved = try #require(s.credits(on: Self.date("2026-12-04")).first)
        #expect(moved.member == "Sam" && moved.named == Self.date("2026-12-03") && moved.day == Self.date("2026-12-09") && moved.moved)
        #expect(s.status(of: Self.date("2026-12-05")) == .missed)
        #expect(s.current == Self.date("2026-12-09"))
        #expect(s.tally().map { "\($0.member) \($0.all)" } == ["Kim 3", "Sam 3"])
    }

    @Test func aCompletionWithNoOpenOccurrenceBeforeItsDayStaysAsASecondCredit() throws {
        var t = Self.chore()
        let d = Self.date("2026-12-01")
        t.complete(d, member: "Kim", day: d, stamp: Self.stamp(Self.t0, "Kim", replica: "a1"))
        t.complete(d, member: "Sam", day: d, stamp: Self.stamp(Self.t0 + 1, "Sam", replica: "b2"))
        let s = try #require(t.schedule(today: d, context: .plain))
        #expect(s.credits(on: d).map(\.member) == ["Kim", "Sam"])
        #expect(s.credits.allSatisfy { !$0.moved })
    }

    @Test func aChoreThatFellBehindShowsTheOccurrenceDueNowAndTheMissedOnesForNobody() throws {
        var t = Self.chore(rotation: ["Dana", "Lee", "Kim"])
        // Done on 1 to 4 Dec; nobody did the weekend.
        for d in 1...4 {
            let date = Self.date("2026-12-0\(d)")
            t.complete(date, member: "Dana", day: date, stamp: Self.stamp(Self.t0 + Int64(d - 1) * Self.day, "Dana", replica: "a1"))
        }
        let monday = Self.date("2026-12-07")
        let s = try #require(t.schedule(today: monday, context: .plain))
        #expect(s.current == monday)
        #expect(s.status(of: Self.date("2026-12-05")) == .missed && s.status(of: Self.date("2026-12-06")) == .missed)
        #expect(s.status(of: monday) == .open)
        // Occurrence k is rotation[k mod 3]'s: 5 Dec was Lee's, 6 Dec Kim's, Monday is Dana's.
        #expect(s.turn(on: Self.date("2026-12-05")) == "Lee")
        #expect(s.turn(on: Self.date("2026-12-06")) == "Kim")
        #expect(s.turn(on: monday) == "Dana")
        #expect(s.missed(since: Self.date("2026-12-01")) == [Self.date("2026-12-05"), Self.date("2026-12-06")])
        #expect(s.history(3).map { "\($0.date) \($0.status)" } == ["2026-12-06 missed", "2026-12-05 missed", "2026-12-04 done"])
        // The same file as a catch-up chore shows the oldest open occurrence, never missed.
        t.setScheduleMode(.catchUp, stamp: Self.stamp(Self.t0 + 6 * Self.day, "Dana", replica: "a1"))
        let c = try #require(t.schedule(today: monday, context: .plain))
        #expect(c.current == Self.date("2026-12-05") && c.status(of: Self.date("2026-12-05")) == .open)
        // A chore done ahead of time shows its next date.
        var ahead = Self.chore()
        ahead.complete(Self.date("2026-12-01"), member: "Kim", day: Self.date("2026-12-01"), stamp: Self.stamp(Self.t0, "Kim", replica: "a1"))
        #expect(ahead.schedule(today: Self.date("2026-12-01"), context: .plain)?.current == Self.date("2026-12-02"))
    }

    @Test func aCompletionAnOlderVersionWroteCountsForItsMember() throws {
        var t = Self.chore()
        t.setOccurrence(Self.date("2026-12-01"), .done, stamp: Self.stamp(Self.t0, "Lee", replica: "d4"))
        t.complete(Self.date("2026-12-02"), member: "Kim", day: Self.date("2026-12-02"), stamp: Self.stamp(Self.t0 + Self.day, "Kim", replica: "a1"))
        // Kim's `done` wrote an occurrence entry too: it is not a second credit. A restore of it
        // by Kim (a new stamp) is not one either.
        t.setOccurrence(Self.date("2026-12-02"), .done, stamp: Self.stamp(Self.t0 + Self.day + 5, "Kim", replica: "a1"))
        let s = try #require(t.schedule(today: Self.date("2026-12-02"), context: .plain))
        #expect(s.credits.map { "\($0.member) \($0.occurrence) \($0.key == nil)" } == ["Lee 2026-12-01 true", "Kim 2026-12-02 false"])
    }

    @Test func aSkipPassesTheTurnOnAndReopenUndoesTheCredits() throws {
        var t = Self.chore("week", rotation: ["Ana", "Ben", "Cy"])
        let s0 = try #require(t.schedule(today: Self.date("2026-12-01"), context: .plain))
        #expect([1, 8, 15, 22].map { s0.turn(on: Self.date("2026-12-\($0 < 10 ? "0" : "")\($0)")) } == ["Ana", "Ben", "Cy", "Ana"])
        t.setOccurrence(Self.date("2026-12-08"), .skipped, stamp: Self.stamp(Self.t0, "Ben", replica: "b2"))
        let s = try #require(t.schedule(today: Self.date("2026-12-01"), context: .plain))
        // Ben's turn was skipped (a holiday): Ben has the next one, everyone after moves one on.
        #expect([8, 15, 22, 29].map { s.turn(on: Self.date("2026-12-\($0 < 10 ? "0" : "")\($0)")) } == ["Ben", "Ben", "Cy", "Ana"])
        #expect(s.tally().isEmpty)
    }

    @Test func fewestCompletionsPicksWhoseTurnItIs() throws {
        var t = Self.chore(rotation: ["Ana", "Ben", "Cy"])
        t.setRotateMode(.fewest, stamp: Self.stamp(Self.t0, "Ana", replica: "a1"))
        // Ana did 1 and 2 Dec, Ben 3 Dec; Cy nothing.
        for (d, who) in [(1, "Ana"), (2, "Ana"), (3, "Ben")] {
            let date = Self.date("2026-12-0\(d)")
            t.complete(date, member: who, day: date, stamp: Self.stamp(Self.t0 + Int64(d - 1) * Self.day, who, replica: "a1"))
        }
        let s = try #require(t.schedule(today: Self.date("2026-12-04"), context: .plain))
        #expect(s.turn(on: Self.date("2026-12-04")) == "Cy")
        // Ahead, each open occurrence counts as done by its own turn's member: Cy, then Ben, then
        // (ties in rotation order) Ben and Cy have one each, Ana two.
        #expect(s.upcoming(3).map { s.turn(on: $0) } == ["Cy", "Ben", "Cy"])
        // On 1 Dec nobody had done anything: the first in the rotation.
        #expect(s.turn(on: Self.date("2026-12-01")) == "Ana")
    }

    @Test func nextTurnsForSwapAndPass() throws {
        let t = Self.chore(rotation: ["Ana", "Ben"])
        let s = try #require(t.schedule(today: Self.date("2026-12-02"), context: .plain))
        #expect(s.current == Self.date("2026-12-02"))
        #expect(s.nextTurn(of: "Ben") == Self.date("2026-12-02"))
        #expect(s.nextTurn(of: "Ana") == Self.date("2026-12-03"))
        #expect(s.nextTurn(of: "Zoe") == nil)
    }

    @Test func hostileCompletionEntriesAreRefusedOrBounded() throws {
        var t = Self.chore()
        // A completion done "in 9999" named in 2026 moves at most a year of occurrences on.
        t.complete(Self.date("2026-12-01"), member: "Kim", day: Self.date("2026-12-01"), stamp: Self.stamp(Self.t0, "Kim", replica: "a1"))
        t.complete(Self.date("2026-12-01"), member: "Eve", day: Self.date("9999-12-31"), stamp: Self.stamp(Self.t0 + 1, "Eve", replica: "e5"))
        let s = try #require(t.schedule(today: Self.date("2026-12-01"), context: .plain))
        #expect(s.credits.map(\.occurrence) == [Self.date("2026-12-01"), Self.date("2026-12-02")])
        // Malformed entries make the file malformed, as for any known field.
        for bad in [
            #"["done", "Kim", "2026-12-01"]"#, #"["maybe", "Kim", "2026-12-01", "1796115600000.0.a1 Kim"]"#,
            #"["done", "Kim", "2026-13-01", "1796115600000.0.a1 Kim"]"#, #"["done", 3, "2026-12-01", "1796115600000.0.a1 Kim"]"#,
        ] {
            var bytes = String(decoding: TaskCodec.encode(Self.chore()), as: UTF8.self)
            bytes = bytes.replacingFirst(
                "  \"repeat\"", with: "  \"completions\": {\"2026-12-01/1796115600000.0.a1\": \(bad)},\n  \"repeat\"")
            #expect(throws: TaskFormatError.self) { try TaskCodec.decode(Array(bytes.utf8)) }
        }
        for badKey in ["2026-12-01", "2026-12-01/x", "2026-12-01/1796115600000.0.a1 Kim", "1796115600000.0.a1/2026-12-01"] {
            var bytes = String(decoding: TaskCodec.encode(Self.chore()), as: UTF8.self)
            bytes = bytes.replacingFirst(
                "  \"repeat\"",
                with: "  \"completions\": {\"\(badKey)\": [\"done\", \"Kim\", \"2026-12-01\", \"1796115600000.0.a1 Kim\"]},\n  \"repeat\"")
            #expect(throws: TaskFormatError.self, "\(badKey)") { try TaskCodec.decode(Array(bytes.utf8)) }
        }
    }

    /// Random completions, undos, skips and reopens by four replicas with skewed clocks, merged
    /// in random orders: every replica ends with the same bytes and the same credits, and every
    /// live completion is credited exactly once.
    @Test func everyMergeOrderGivesTheSameCreditsAndLosesNone() throws {
        var rng = SplitMix64(seed: propertySeed)
        for round in 0..<300 {
            let base = Self.chore(rotation: ["Ana", "Ben", "Cy", "Dee"])
            let members = ["Ana", "Ben", "Cy", "Dee"]
            var replicas = Array(repeating: base, count: 4)
            var live = Set<String>()
            for step in 0..<rng.int(12) {
                let r = rng.int(4)
                let skew = Int64(rng.int(3) - 1) * Self.day
                let wall = Self.t0 + Int64(step) * 3_600_000 + skew
                var stamp = Self.stamp(wall, members[r], replica: "f\(r)")
                // A write after what the replica has seen sorts after it (the clock rule).
                if let maxStamp = replicas[r].allStamps.max(by: { $0.stamp < $1.stamp }), !(maxStamp.stamp < stamp.stamp) {
                    stamp.stamp = Stamp(wall: maxStamp.stamp.wall, counter: maxStamp.stamp.counter + 1, replica: "f\(r)")
                }
                let date = Self.date("2026-12-0\(1 + rng.int(5))")
                switch rng.int(5) {
                case 0, 1, 2:
                    replicas[r].complete(date, member: members[r], day: date.adding(days: rng.int(4)), stamp: stamp)
                    live.insert(Completion.key(date, stamp.stamp))
                case 3:
                    replicas[r].setOccurrence(date, .skipped, stamp: stamp)
                default:
                    if let c = replicas[r].completions.filter({ $0.state == .done }).first {
                        replicas[r].setCompletion(c.key, .undone, stamp: stamp)
                    }
                }
                // Sometimes two replicas sync.
                if rng.int(3) == 0 {
                    let o = rng.int(4)
                    let m = try Self.merged(base, replicas[r], replicas[o], quiet: false)
                    replicas[r] = m
                    replicas[o] = m
                }
            }
            // Two different orders of merging everything.
            var one = replicas[0]
            for r in replicas.dropFirst() { one = try Self.merged(base, one, r, quiet: false) }
            var two = replicas[3]
            for r in replicas.dropLast().reversed() { two = try Self.merged(base, two, r, quiet: false) }
            // The conflict log holds what each pairwise merge found, which depends on who met
            // whom (here against a stale base); the task's state must not.
            var a = one, b = two
            a.conflicts = []
            b.conflicts = []
            #expect(TaskCodec.encode(a) == TaskCodec.encode(b), "round \(round)")
            let today = Self.date("2026-12-09")
            let s1 = try #require(one.schedule(today: today, context: .plain))
            let s2 = try #require(two.schedule(today: today, context: .plain))
            #expect(s1.credits == s2.credits, "round \(round)")
            let credited = s1.credits.compactMap(\.key)
            #expect(Set(credited).count == credited.count, "round \(round): a completion counted twice")
            let stillLive = Set(one.completions.filter { $0.state == .done }.map(\.key))
            #expect(Set(credited) == stillLive, "round \(round)")
            #expect(stillLive.isSubset(of: live), "round \(round)")
        }
    }
}

extension Task {
    /// Every stamp the task holds, for the clock rule in the property test.
    fileprivate var allStamps: [FieldStamp] { Array(stamps.values) + ChoreFields.stamps(in: self) }
}
