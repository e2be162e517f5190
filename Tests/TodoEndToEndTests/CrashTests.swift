import Glibc
import Foundation
import Testing
import TodoCore

/// SIGKILL at random moments. The random delay only picks where the kill lands; nothing waits
/// on time to synchronise. The seed is printed, and `TODO_PROPERTY_SEED` replays a run.
@Suite(.timeLimit(.minutes(30)), .kit) struct CrashTests {
    static let minimumKills = 60

    /// Also with `core.splitIndex` set, with fewer kills: git's own commands between the kills
    /// (`git status`) then leave the index split, and a kill can land while `todo` replaces
    /// it by a whole one.
    @Test(arguments: [false, true]) func killedCommandsNeverCorruptTheHousehold(splitIndex: Bool) throws {
        let minimumKills = splitIndex ? Self.minimumKills / 2 : Self.minimumKills
        let seed = PropertySeed.run
        print("crash test seed: \(seed) (\(PropertySeed.replay))")
        var rng = SeededRandom(seed: seed)
        let sb = try Sandbox(now: nil)
        try sb.initHousehold()
        if splitIndex { try #require(try sb.git("config", "core.splitIndex", "true").exitCode == 0) }

        // A few hundred tasks, so that a change has real work to do, with ids known for `done`.
        let ids = (0..<300).map { _ in hex64(rng.next()) + hex64(rng.next()) }
        let seedDoc = jsonArray(ids.enumerated().map { i, id in
            jsonObject(["id": id, "title": "Chore \(i)", "notes": String(repeating: "note ", count: 20)])
        })
        let seeded = try sb.todo("import", "-", stdin: seedDoc)
        try #require(seeded.exitCode == 0, "\(seeded)")
        // Enough tasks without ids that an import goes through the bulk (pack) path.
        let batch = try sb.file("batch.json", jsonArray((0..<80).map { jsonObject(["title": "Imported \($0)"]) }))

        let operations = ["add", "done", "add", "import", "done"]
        var attempts = 0
        var kills = 0
        var nextDone = 0
        var followUps: [String] = []
        while (kills < minimumKills || attempts < minimumKills) && attempts < 4 * minimumKills {
            let operation = operations[attempts % operations.count]
            var args: [String]
            switch operation {
            case "add":
                args = ["add", "Killed add \(attempts)", "--tag", "crash", "--due", "friday"]
            case "done":
                let n = attempts % 2 == 0 ? 1 : 3
                args = ["done"] + ids[nextDone..<(nextDone + n)]
                nextDone += n
            default:
                args = ["import", batch]
            }
            let delay = UInt32.random(in: 0...30_000, using: &rng)
            let context = "seed \(seed), attempt \(attempts): \(args.prefix(2).joined(separator: " ")) killed after \(delay) µs"

            let ended = try sb.start(args).kill(after: delay)
            if ended.signal == SIGKILL {
                kills += 1
            } else if ended.exitCode != 0 {
                Issue.record("\(context): finished with a failure\n\(ended)")
                break
            }

            let fsck = try sb.git("fsck", "--strict", "--no-progress")
            let list = try sb.todo("list")
            let title = "After kill \(attempts)"
            let add = try sb.todo("add", title)
            let status = try sb.git("status", "--porcelain", "--untracked-files=all")
            followUps.append(title)
            attempts += 1
            var failures: [String] = []
            if fsck.exitCode != 0 { failures.append("git fsck --strict failed:\n\(fsck)") }
            if list.exitCode != 0 { failures.append("the next list failed:\n\(list)") }
            if add.exitCode != 0 { failures.append("the next add failed:\n\(add)") }
            if status.exitCode != 0 || !status.stdout.isEmpty { failures.append("the work tree is not clean:\n\(status)") }
            let gitFiles = (try? FileManager.default.contentsOfDirectory(atPath: sb.repo() + "/.git")) ?? []
            let shared = gitFiles.filter { $0.hasPrefix("sharedindex.") }
            if shared.count > (splitIndex ? 1 : 0) { failures.append("shared indexes left: \(shared)") }
            if !failures.isEmpty {
                Issue.record(Comment(rawValue: "\(context)\n" + failures.joined(separator: "\n")))
                break
            }
        }
        print("crash test seed \(seed): \(attempts) kill points, \(kills) processes killed while running")
        #expect(kills >= minimumKills, "seed \(seed): only \(kills) of \(attempts) kills landed while todo ran")

        // Nothing acknowledged was lost, nothing appears twice, and history is one plain line.
        let titles = try json(try sb.todo("list", "--all", "--json").stdout).items.compactMap { $0["title"]?.stringValue }
        let present = Set(titles)
        #expect(followUps.allSatisfy(present.contains), "seed \(seed): an acknowledged add is missing")
        #expect(titles.filter { $0.hasPrefix("After kill ") || $0.hasPrefix("Killed add ") }.count
            == present.filter { $0.hasPrefix("After kill ") || $0.hasPrefix("Killed add ") }.count, "seed \(seed): duplicates")
        #expect(try sb.git("rev-list", "--min-parents=2", "refs/heads/main").stdout.isEmpty)
        let subjects = try sb.git("log", "--format=%s", "refs/heads/main").lines
        #expect(subjects.allSatisfy { s in ["add: ", "done: ", "import: ", "init: "].contains { s.hasPrefix($0) } }, "seed \(seed)")
        try sb.expectClean()
    }
}
