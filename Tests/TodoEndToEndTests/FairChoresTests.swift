import Foundation
import Testing
import TodoCore

/// What a family trial found about chores, through real repositories, `todo sync` and plain
/// `git merge` (docs/FORMAT.md, "What is derived, never stored"): every completion is kept and
/// credited, a chore that fell behind follows the calendar, and turns can be swapped and passed.
/// The clock starts at Thursday 2025-11-20, 09:00 UTC.
@Suite(.timeLimit(.minutes(20)), .kit) struct FairChoresTests {
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000

    /// Sets the member's clock to `fixedNow` plus `offset`.
    func at(_ m: Member, _ offset: Int64) { m.env["TODO_NOW"] = String(fixedNow + offset) }

    func run(_ m: Member, _ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let r = try m.todo(args)
        #expect(r.exitCode == 0, "\(m.name): \(r)", sourceLocation: sourceLocation)
        return r
    }

    /// The task file on `main`, read by git.
    func committed(_ m: Member, _ t: TaskRef) throws -> Task {
        let r = try m.git("show", "main:" + t.path)
        try #require(r.exitCode == 0, "\(r)")
        return try TaskCodec.decode(Array(r.stdout.utf8))
    }

    /// Members' completion counts from `chores --json`: member → all.
    func counts(_ m: Member, _ t: TaskRef) throws -> [String: Int] {
        let chores = try json(try run(m, "chores", "--json").stdout).items
        let chore = try #require(chores.first { $0["id"] == .string(t.id) })
        guard case .object(let members)? = chore["completions"] else { return [:] }
        var out: [String: Int] = [:]
        for (name, c) in members { if case .number(let n)? = c["all"] { out[name] = Int(n) } }
        return out
    }

    /// Observation 1: Sam runs `done` at 19:00 and Kim at 19:05, both offline, then both sync.
    /// Both are credited, the chore advances once, and nothing is in the conflict log because
    /// nothing was lost. Plain `git merge` gives the same tree.
    @Test func twoMembersWhoDidTheSameOccurrenceAreBothCredited() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let dana = try Member("Dana", host: host)
        let sam = try Member("Sam", host: host)
        let kim = try Member("Kim", host: host)
        try dana.create(remote: host.url())
        let dishes = try dana.add("Dishes", "--every", "day", "--rotate", "Sam,Kim", "--from", "2025-11-20")
        try dana.sync()
        try sam.join(host.url())
        try kim.join(host.url())
        at(sam, 10 * Self.hour)
        at(kim, 10 * Self.hour + 300_000)
        try sam.change("done", dishes.short)
        try kim.change("done", dishes.short)
        try sam.sync()
        let kimsOwn = try kim.head()

        // Kim merges by hand first, then the same two commits by `todo sync`.
        #expect(try kim.git("fetch", "-q", host.url(), "main").exitCode == 0)
        let merge = try kim.git("merge", "-q", "--no-edit", "FETCH_HEAD")
        try #require(merge.exitCode == 0, "\(merge)")
        let byGit = try kim.tree()
        #expect(try kim.git("reset", "-q", "--hard", kimsOwn).exitCode == 0)
        try kim.sync()
        #expect(try kim.tree() == byGit, "plain git merge and todo sync give the same bytes")
        try syncUntilQuiet([sam, kim, dana])
        try expectConverged([sam, kim, dana], host: host)

        let t = try committed(dana, dishes)
        #expect(t.completions.filter { $0.state == .done }.map(\.member).sorted() == ["Kim", "Sam"], "both completions are in the file")
        let show = try run(dana, "show", dishes.short).stdout
        #expect(show.contains("Thu 20 Nov: done by Sam, Kim"), "\(show)")
        #expect(show.contains("Next:     Fri 21 Nov, Kim"), "the chore advanced once: \(show)")
        #expect(try counts(dana, dishes) == ["Sam": 1, "Kim": 1])
        #expect(try run(dana, "conflicts").stdout == "No conflicts.\n")
        // Each member's completion is in the history and told to the others.
        let log = try run(dana, "log", dishes.short).stdout
        #expect(log.contains("Sam") && log.contains("Kim") && log.contains("done"), "\(log)")
        let told = try run(dana, "changes").stdout
        #expect(told.contains("Sam did: Dishes") && told.contains("Kim did: Dishes"), "\(told)")
    }

    /// Observation 1, second part: Sam's replica, six days stale, records `done` against the
    /// occurrence it still shows; Kim had done that one. Sam's completion moves to the earliest
    /// occurrence nobody did up to the day he did it, and says so; Kim's credit stays.
    @Test func aStaleReplicasDoneCountsForTheOccurrenceItStoodFor() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let kim = try Member("Kim", host: host)
        let sam = try Member("Sam", host: host)
        try kim.create(remote: host.url())
        let bills = try kim.add("Water the plants", "--every", "day", "--from", "2025-11-20", "--catch-up")
        try kim.sync()
        try sam.join(host.url())
        // Kim waters them Thursday to Sunday, syncing each evening; Sam stays offline.
        for d in 0..<4 {
            at(kim, Int64(d) * Self.day + 11 * Self.hour)
            try kim.change("done", bills.short)
            try kim.sync()
        }
        // Wednesday 26 Nov: Sam's replica still shows Thursday 20 Nov.
        at(sam, 6 * Self.day + 9 * Self.hour)
        let done = try run(sam, "done", bills.short)
        #expect(done.stdout.hasPrefix("Done: Water the plants (") && done.stdout.contains("Thu 20 Nov"), "\(done)")
        at(sam, 6 * Self.day + 10 * Self.hour)
        at(kim, 6 * Self.day + 10 * Self.hour)
        try syncUntilQuiet([sam, kim])
        try expectConverged([sam, kim], host: host)

        let t = try committed(kim, bills)
        #expect(t.completions.count == 5, "nothing dropped")
        let s = try #require(t.schedule(today: CivilDate(year: 2025, month: 11, day: 26)!, context: .plain))
        #expect(s.credits(on: CivilDate(year: 2025, month: 11, day: 20)!).map(\.member) == ["Kim"])
        let moved = try #require(s.credits(on: CivilDate(year: 2025, month: 11, day: 24)!).first)
        #expect(moved.member == "Sam" && moved.moved && moved.day == CivilDate(year: 2025, month: 11, day: 26)!)
        let show = try run(kim, "show", bills.short).stdout
        #expect(show.contains("Mon 24 Nov: done by Sam (on Wed 26 Nov)"), "\(show)")
        #expect(show.contains("Thu 20 Nov: done by Kim\n"), "\(show)")
        #expect(try counts(kim, bills) == ["Kim": 4, "Sam": 1])
    }

    /// Observation 2: a daily rotating chore nobody did for days shows the occurrence due now
    /// under the member whose turn it is; the days missed are shown as missed, credited to
    /// nobody; a missed day caught up later with `--on` counts as what it is.
    @Test func aChoreThatFellBehindFollowsTheCalendar() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let dana = try Member("Dana", host: host)
        let lee = try Member("Lee", host: host)
        let kim = try Member("Kim", host: host)
        try dana.create(remote: host.url())
        // From Wed 12 Nov: Dana, Lee, Kim, Dana, ... Dana and Lee did their first days.
        let dishes = try dana.add("Dishes", "--every", "day", "--rotate", "Dana,Lee,Kim", "--from", "2025-11-12")
        at(dana, -8 * Self.day + 10 * Self.hour)
        try dana.change("done", dishes.short)
        try dana.sync()
        try lee.join(host.url())
        try kim.join(host.url())
        at(lee, -7 * Self.day + 10 * Self.hour)
        try lee.change("done", dishes.short)
        try lee.sync()
        for m in [dana, lee, kim] {
            at(m, 0)
            try m.sync()
        }

        // Thu 20 Nov is occurrence 8: Kim's. Kim sees it; Dana and Lee do not.
        let kims = try run(kim, "agenda", "--mine").stdout
        #expect(kims.contains("Dishes"), "\(kims)")
        for m in [dana, lee] { #expect(try !run(m, "agenda", "--mine").stdout.contains("Dishes"), "\(m.name)") }
        let listed = try json(try run(dana, "list", "--json").stdout).items.first { $0["id"] == .string(dishes.id) }
        #expect(listed?["current"] == .string("2025-11-20"), "\(String(describing: listed))")
        let show = try run(dana, "show", dishes.short).stdout
        #expect(show.contains("Next:     Thu 20 Nov, Kim"), "\(show)")
        #expect(show.contains("Wed 19 Nov: missed (Lee's turn)") && show.contains("Fri 14 Nov: missed (Kim's turn)"), "\(show)")
        let chores = try json(try run(dana, "chores", "--json").stdout).items.first { $0["id"] == .string(dishes.id) }
        guard case .array(let missed)? = chores?["missed"] else {
            Issue.record("no missed list: \(String(describing: chores))")
            return
        }
        #expect(missed.count == 6, "14 to 19 Nov: \(missed)")
        #expect(try counts(dana, dishes) == ["Dana": 1, "Lee": 1])

        // Kim does today's; Dana catches up Tuesday's, which was hers.
        try kim.change("done", dishes.short)
        try dana.change("done", dishes.short, "--on", "2025-11-18")
        try syncUntilQuiet([kim, dana, lee])
        try expectConverged([kim, dana, lee], host: host)
        #expect(try counts(lee, dishes) == ["Dana": 2, "Lee": 1, "Kim": 1])
        let after = try run(lee, "show", dishes.short).stdout
        #expect(after.contains("Tue 18 Nov: done by Dana (on Thu 20 Nov)"), "\(after)")
        #expect(after.contains("Next:     Fri 21 Nov, Dana"), "\(after)")
    }

    /// Swap, pass, `--on` and their refusals: a clear message, a documented exit code, and
    /// nothing committed.
    @Test func turnsAreSwappedAndPassedAndBadRequestsChangeNothing() throws {
        let sb = try Sandbox()
        try sb.initHousehold(member: "Ana", email: "ana@example.org")
        let trash = try sb.add("Take out the trash", "--every", "week", "--from", "2025-11-20", "--rotate", "Ana,Ben,Cy")
        let plain = try sb.add("Call the plumber")
        let anyone = try sb.add("Water the plants", "--every", "day")
        func next(_ n: Int) throws -> [String] {
            let r = try sb.todo("show", trash.short)
            let line = try #require(r.lines.first { $0.hasPrefix("Next:") }, "\(r)")
            return Array(line.dropFirst("Next:     ".count).components(separatedBy: "; ").prefix(n))
        }
        #expect(try next(3) == ["Thu 20 Nov, Ana", "Thu 27 Nov, Ben", "Thu 4 Dec, Cy"])
        let swap = try sb.todo("swap", trash.short, "--with", "Cy")
        #expect(swap.exitCode == 0, "\(swap)")
        #expect(try next(3) == ["Thu 20 Nov, Cy", "Thu 27 Nov, Ben", "Thu 4 Dec, Ana"])
        // Ana's next turn is now 4 Dec: she passes it to Ben; the rotation goes on from her.
        let pass = try sb.todo("pass", trash.short, "--to", "Ben")
        #expect(pass.exitCode == 0, "\(pass)")
        #expect(try next(3) == ["Thu 20 Nov, Cy", "Thu 27 Nov, Ben", "Thu 4 Dec, Ben"])
        // The rotation goes on from Ana as if she had taken 4 Dec: 11 Dec is Ben's again.
        for _ in 0..<2 { #expect(try sb.todo("done", trash.short).exitCode == 0) }
        #expect(try next(3) == ["Thu 4 Dec, Ben", "Thu 11 Dec, Ana", "Thu 18 Dec, Ben"])

        let head = try sb.git("rev-parse", "main").stdout
        for (args, code, words) in [
            (["swap", trash.short, "--with", "Zoe"], Int32(64), "not in"),
            (["swap", trash.short, "--with", "Ana"], 64, "themselves"),
            (["pass", plain.short, "--to", "Ben"], 64, "not a chore"),
            (["pass", anyone.short, "--to", "Ben"], 64, "rotation"),
            (["done", trash.short, "--on", "2025-11-21"], 64, "not an occurrence"),
            (["done", trash.short, "--on", "2025-12-11"], 64, "has not come yet"),
            (["done", trash.short, "--on", "someday"], 64, "not a date"),
            (["done", plain.short, "--on", "2025-11-20"], 64, "not a chore"),
        ] {
            let r = try sb.todo(args)
            #expect(r.exitCode == code, "\(args): \(r)")
            #expect(r.stderr.lowercased().contains(words), "\(args): \(r)")
            #expect(r.stderr.contains("Nothing was changed") || r.stderr.contains("todo"), "\(args): \(r)")
            #expect(try sb.git("rev-parse", "main").stdout == head, "\(args) committed something")
        }
    }

    /// Four members share two rotating chores for two weeks of dates, with skewed clocks and
    /// syncing now and then: they complete, skip, swap and pass concurrently. At the end every
    /// replica holds the same tree, every `done` is in the file, and `chores` counts for each
    /// member exactly the completions they made.
    @Test func fourMembersOverTwoWeeksConvergeAndEveryCompletionCounts() throws {
        var rng = SplitMix64(seed: propertySeed)
        let host = try GitHost(.path)
        try host.createRepository()
        let names = ["Ana", "Ben", "Cy", "Dee"]
        let members = try names.map { try Member($0, host: host) }
        // Clock skews: Ben's clock is three hours slow, Dee's ninety minutes fast.
        let skew: [Int64] = [0, -3 * Self.hour, 20 * 60_000, 90 * 60_000]
        try members[0].create(remote: host.url())
        let dishes = try members[0].add("Dishes", "--every", "day", "--rotate", names.joined(separator: ","), "--from", "2025-11-20")
        let trash = try members[0].add(
            "Take out the trash", "--every", "mon,thu", "--rotate", names.joined(separator: ","), "--turns", "fewest", "--from", "2025-11-20")
        try members[0].sync()
        for m in members.dropFirst() { try m.join(host.url()) }
        var dones: [String: [String: Int]] = [dishes.id: [:], trash.id: [:]]
        var log: [String] = []
        for day in 0..<14 {
            for i in Array(members.indices).shuffled(using: &rng) {
                let m = members[i]
                at(m, Int64(day) * Self.day + Int64(8 + rng.int(13)) * Self.hour + skew[i])
                let chore = rng.chance(60) ? dishes : trash
                let other = rng.pick(names.filter { $0 != m.name })
                var args: [String]
                switch rng.int(10) {
                case 0..<5: args = ["done", chore.short]
                case 5: args = ["skip", chore.short]
                case 6: args = ["swap", chore.short, "--with", other]
                case 7: args = ["pass", chore.short, "--to", other]
                default: args = []
                }
                if !args.isEmpty {
                    let r = try m.todo(args)
                    log.append("day \(day) \(m.name): \(args.joined(separator: " ")) -> \(r.exitCode) \(r.stdout)\(r.stderr)")
                    // A swap or pass may find no coming turn to give: refused, exit 64 or 65.
                    #expect([0, 64, 65].contains(r.exitCode) && (r.exitCode == 0 || args[0] == "swap" || args[0] == "pass"), "\(log.last!)")
                    if r.exitCode == 0 && args[0] == "done" && r.stdout.hasPrefix("Done:") { dones[chore.id]![m.name, default: 0] += 1 }
                }
                if rng.chance(50) {
                    let r = try m.todo("sync")
                    #expect(r.exitCode == 0, "\(m.name) day \(day): \(r)")
                }
            }
        }
        for m in members { at(m, 14 * Self.day + 12 * Self.hour) }
        try syncUntilQuiet(members)
        try expectConverged(members, host: host)
        for chore in [dishes, trash] {
            let t = try committed(members[0], chore)
            let expected = dones[chore.id]!
            #expect(t.completions.filter { $0.state == .done }.count == expected.values.reduce(0, +), "\(chore.short): \(log.joined(separator: "\n"))")
            for m in members {
                #expect(try counts(m, chore) == expected.filter { $0.value > 0 }, "\(m.name), \(chore.short): \(log.joined(separator: "\n"))")
            }
        }
    }
}
