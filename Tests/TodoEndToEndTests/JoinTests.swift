import Glibc
import Foundation
import Testing
import TodoCore

/// Joining a household: a clone of a remote that has no history yet waits for the household's
/// first history, never pushes its own, and brings what was added meanwhile onto that history
/// on the first sync that finds it. What is not a household, or not this one, is refused.
@Suite(.timeLimit(.minutes(20)), .kit) struct JoinTests {
    /// Whether the bare remote has a `main` at all.
    func remoteHasMain(_ host: GitHost) throws -> Bool {
        try host.git("household.git", "rev-parse", "--verify", "-q", "refs/heads/main").exitCode == 0
    }

    func status(_ m: Member) throws -> JSONValue {
        let r = try m.todo("status", "--json")
        try #require(r.exitCode == 0, "\(m.name): \(r)")
        return try json(r.stdout)
    }

    /// Dana creates the household with a remote; Lee clones it before Dana's first sync, adds
    /// two tasks and syncs (nothing is pushed); Dana adds and syncs; Lee's next sync joins
    /// Dana's history with his two tasks on top, and Dana's next sync has them.
    @Test(arguments: [Transport.path, .git])
    func joiningBeforeTheCreatorsFirstSync(over transport: Transport) throws {
        let host = try GitHost(transport)
        try host.createRepository()
        let url = host.url()
        let dana = try Member("Dana", host: host)
        let lee = try Member("Lee", host: host)
        let kim = try Member("Kim", host: host)
        try dana.create(remote: url)

        let joined = try lee.join(url)
        #expect(joined.stdout.contains("has no history yet"), "\(joined)")
        #expect(joined.stdout.contains("first sync after"), "\(joined)")
        try kim.join(url)
        #expect(try status(lee)["waiting"] == .bool(true))
        #expect(try status(dana)["waiting"] == .bool(false))
        let shown = try lee.todo("status")
        #expect(shown.lines.contains { $0.hasPrefix("Waiting:") }, "\(shown)")

        let bread = try lee.add("Buy bread", "--tag", "groceries")
        let tap = try lee.add("Fix the tap", "--due", "friday")
        try lee.change("edit", tap.short, "--priority", "high")
        let breadBytes = try lee.sb.committedBytes(bread.path)
        let tapBytes = try lee.sb.committedBytes(tap.path)

        // While the remote is empty, syncs wait and push nothing.
        let waiting = try lee.sync()
        #expect(waiting.stdout.contains("Waiting"), "\(waiting)")
        let quiet = try lee.sync("--quiet")
        #expect(quiet.stdout.isEmpty, "\(quiet)")
        let report = try syncReport(try lee.sync("--json").stdout)
        #expect(report["waiting"] == .bool(true) && report["sent"] == .number("0"), "\(report)")
        #expect(try !remoteHasMain(host), "a waiting sync pushed")
        #expect(try host.git("household.git", "log", "--all", "--oneline").stdout.isEmpty)
        let doctor = try lee.todo("doctor")
        #expect(doctor.exitCode == 0, "\(doctor)")
        #expect(doctor.lines.contains { $0.hasPrefix("ok: remote: ") && $0.contains("waits") }, "\(doctor)")
        let offline = try lee.todo("doctor", "--offline")
        #expect(offline.lines.contains { $0.hasPrefix("ok: remote: ") && $0.contains("waits") }, "\(offline)")

        _ = try dana.add("Water the plants")
        try dana.sync()
        let danaRoot = try dana.git("rev-list", "--max-parents=0", "refs/heads/main").stdout
        let leeBefore = try lee.head()
        let ready = try lee.todo("doctor")
        #expect(ready.exitCode == 0 && ready.lines.contains { $0.hasPrefix("ok: remote: ") && $0.contains("the next sync joins it") }, "\(ready)")

        let adopted = try lee.sync()
        #expect(adopted.stdout.contains("Synced with"), "\(adopted)")
        #expect(try status(lee)["waiting"] == .bool(false))
        #expect(try lee.git("config", "--get", "todo.waitingForRemote").stdout.isEmpty)
        #expect(Set(try lee.allTitles()) == ["Buy bread", "Fix the tap", "Water the plants"])
        // Lee's tasks came over byte for byte, on top of Dana's history; his old commits are kept.
        #expect(try lee.sb.committedBytes(bread.path) == breadBytes)
        #expect(try lee.sb.committedBytes(tap.path) == tapBytes)
        #expect(try lee.git("rev-list", "--max-parents=0", "refs/heads/main").stdout == danaRoot)
        let aside = try lee.git("for-each-ref", "--format=%(objectname)", "refs/todo/set-aside/").stdout
        #expect(aside.trimmingCharacters(in: .whitespacesAndNewlines) == leeBefore, "\(aside)")
        let mine = try lee.git("log", "--format=%s", "--author=Lee", "refs/heads/main").lines.map { $0.prefix { $0 != "(" } }
        #expect(mine == ["edit: Fix the tap ", "add: Fix the tap ", "add: Buy bread "], "each of Lee's changes is a commit of its own: \(mine)")
        #expect(try host.git("household.git", "rev-parse", "refs/heads/main").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == (try lee.head()))

        try dana.sync()
        #expect(Set(try dana.allTitles()) == ["Buy bread", "Fix the tap", "Water the plants"])
        #expect(try dana.show(tap.id)["priority"] == .string("high"))
        let kimReport = try syncReport(try kim.sync("--json").stdout)
        #expect(kimReport["joined"] == .bool(true) && kimReport["waiting"] == .bool(false) && kimReport["sent"] == .number("0"), "\(kimReport)")
        #expect(try kim.head() == (try dana.head()), "Kim, who added nothing, takes the household's history as it is")
        #expect(try status(kim)["waiting"] == .bool(false))
        try expectConverged([dana, lee, kim], host: host)
        let again = try syncUntilQuiet([dana, lee, kim])
        #expect(again == 1, "nothing was left to exchange")

        // What a join killed after moving main, before removing the mark, leaves: the next sync
        // finds main sharing the remote's history, removes the mark and syncs as usual.
        #expect(try lee.git("config", "todo.waitingForRemote", "true").exitCode == 0)
        let head = try lee.head()
        let resumed = try syncReport(try lee.sync("--json").stdout)
        #expect(resumed["joined"] == .bool(false) && resumed["sent"] == .number("0"), "\(resumed)")
        #expect(try lee.head() == head && (try status(lee))["waiting"] == .bool(false))
    }

    /// Tasks the remote has too (the creator's list imported while waiting, ids kept) are merged
    /// field by field when the history is joined, as a sync merges a task both sides added: no
    /// task twice, the later write wins, both sides end with the same tree.
    @Test func tasksTheRemoteHasTooAreMergedWhenJoining() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let url = host.url()
        let dana = try Member("Dana", host: host)
        let lee = try Member("Lee", host: host)
        try dana.create(remote: url)
        let milk = try dana.add("Buy milk")
        _ = try dana.add("Call the plumber")
        try lee.join(url)
        let list = try dana.todo("list", "--all", "--json")
        try #require(list.exitCode == 0, "\(list)")
        let imported = try lee.sb.todo("import", "-", stdin: list.stdout, env: lee.env)
        #expect(imported.exitCode == 0 && imported.stdout.contains("Imported 2 tasks"), "\(imported)")
        lee.sb.now = fixedNow + 60_000
        try lee.change("edit", milk.short, "--title", "Buy oat milk")
        _ = try lee.add("Fix the tap")
        try lee.sync()
        try dana.sync()

        try lee.sync()
        try dana.sync()
        for m in [dana, lee] {
            #expect(try m.allTitles().sorted() == ["Buy oat milk", "Call the plumber", "Fix the tap"], "\(m.name)")
        }
        try expectConverged([dana, lee], host: host)
    }

    /// A household created on its own, pointed at another household's remote: refused as before
    /// (exit 65, nothing merged or sent), with advice that names both ways out; doctor says the
    /// same. Following the second one works.
    @Test func aSeparateHouseholdIsRefusedWithTheWaysOut() throws {
        let (host, dana) = try aliceSyncedWithAPathRemote(first: "Water the plants")
        let url = host.url()
        let eve = try Member("Eve", host: host)
        try eve.create(remote: url)
        _ = try eve.add("Eve's own task")
        let before = try LocalState(eve)
        let remoteBefore = try host.git("household.git", "rev-parse", "refs/heads/main").stdout

        let r = try eve.todo("sync")
        #expect(r.exitCode == 65, "\(r)")
        #expect(r.stderr.contains("nothing in common") && r.stderr.contains("Nothing was merged"), "\(r)")
        #expect(r.stderr.contains("todo remote set URL"), "\(r)")
        #expect(r.stderr.contains("todo clone \(url) --household NEW"), "\(r)")
        #expect(r.stderr.contains("todo -H home list --all --json | todo -H NEW import -"), "\(r)")
        try expectUntouched(eve, since: before, pending: ["Eve's own task"])
        #expect(try host.git("household.git", "rev-parse", "refs/heads/main").stdout == remoteBefore)

        let doctor = try eve.todo("doctor")
        #expect(doctor.exitCode == 65, "\(doctor)")
        let line = doctor.lines.first { $0.hasPrefix("problem: remote: ") } ?? ""
        #expect(line.contains("todo remote set URL") && line.contains("todo clone \(url) --household NEW"), "\(doctor)")

        // The second way out, as the advice says.
        try eve.change("clone", url, "--household", "joined", "--name", "Eve", "--email", eve.email)
        let moved = try eve.sb.shell("\"$TODO\" -H home list --all --json | \"$TODO\" -H joined import -").wait(within: processTimeout)
        #expect(moved.exitCode == 0 && moved.stdout.contains("Imported 1 task"), "\(moved)")
        let synced = try eve.todo("sync", "-H", "joined")
        #expect(synced.exitCode == 0, "\(synced)")
        try dana.sync()
        #expect(Set(try dana.allTitles()) == ["Water the plants", "Eve's own task"])
    }

    /// `todo clone` of a URL with no repository, or of a repository that is not a household:
    /// a message saying what to do, a documented exit code, and no household left behind.
    @Test func cloningWhatIsNotAHouseholdLeavesNothing() throws {
        let host = try GitHost(.path)
        let lee = try Member("Lee", host: host)

        let missing = host.repositories + "/missing.git"
        let none = try lee.todo("clone", missing, "--name", "Lee")
        #expect(none.exitCode == 78, "\(none)")
        #expect(none.stderr.contains("There is no git repository at \(missing)"), "\(none)")
        #expect(none.stderr.contains("todo init --remote"), "\(none)")
        #expect(!none.stderr.contains("todo remote`"), "no household to run `todo remote` in: \(none)")
        #expect(!FileManager.default.fileExists(atPath: lee.repo), "a failed clone leaves no household")

        let plain = host.repositories + "/plain"
        try FileManager.default.createDirectory(atPath: plain, withIntermediateDirectories: true)
        let dir = try lee.todo("clone", plain, "--name", "Lee")
        #expect(dir.exitCode == 78 && dir.stderr.contains("There is no git repository at \(plain)"), "\(dir)")
        #expect(!FileManager.default.fileExists(atPath: lee.repo))

        // A project's repository, not a household.
        let project = host.repositories + "/project"
        let author = ["-c", "user.name=P", "-c", "user.email=p@example.org"]
        #expect(try host.box.gitRun(["init", "-q", "-b", "main", project]).exitCode == 0)
        try writeBytes(project + "/README.md", Array("hello\n".utf8))
        #expect(try host.box.gitRun(["-C", project, "add", "README.md"]).exitCode == 0)
        #expect(try host.box.gitRun(["-C", project] + author + ["commit", "-q", "-m", "readme"]).exitCode == 0)
        let notHousehold = try lee.todo("clone", project, "--name", "Lee")
        #expect(notHousehold.exitCode == 65, "\(notHousehold)")
        #expect(notHousehold.stderr.contains("is not a todo household"), "\(notHousehold)")
        #expect(notHousehold.stderr.contains("Nothing was created"), "\(notHousehold)")
        #expect(!FileManager.default.fileExists(atPath: lee.repo))
    }

    /// A sync that joins the household's history, killed at random moments: the next sync
    /// finishes the job and nothing Lee added is lost.
    /// What a join killed while writing the ref that keeps the old commits leaves (its lock
    /// file) does not stop the next one.
    @Test func aJoinFindsTheLockAKilledOneLeft() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let dana = try Member("Dana", host: host)
        let lee = try Member("Lee", host: host)
        try dana.create(remote: host.url())
        try lee.join(host.url())
        _ = try lee.add("Lee one")
        _ = try dana.add("Dana one")
        try dana.sync()
        let aside = lee.repo + "/.git/refs/todo/set-aside"
        try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
        try writeBytes(aside + "/" + (try lee.head()) + ".lock", [])
        try lee.sync()
        try dana.sync()
        #expect(Set(try dana.allTitles()) == ["Lee one", "Dana one"])
        try expectConverged([dana, lee], host: host)
    }

    static let killIterations = 10

    @Test func aKilledJoinLosesNothing() throws {
        let seed = PropertySeed.run
        print("join crash test seed: \(seed) (\(PropertySeed.replay))")
        var rng = SeededRandom(seed: seed)
        var kills = 0
        for i in 0..<Self.killIterations {
            let host = try GitHost(.path)
            try host.createRepository()
            let url = host.url()
            let dana = try Member("Dana", host: host)
            let lee = try Member("Lee", host: host)
            try dana.create(remote: url)
            try lee.join(url)
            _ = try lee.add("Lee one")
            _ = try lee.add("Lee two")
            try lee.sync()
            _ = try dana.add("Dana one")
            try dana.sync()

            let delay = UInt32.random(in: 0...60_000, using: &rng)
            let context = "seed \(seed), iteration \(i): sync killed after \(delay) µs"
            let ended = try lee.start("sync").kill(after: delay)
            if ended.signal == SIGKILL { kills += 1 } else { #expect(ended.exitCode == 0, "\(context): \(ended)") }
            let next = try lee.todo("sync")
            #expect(next.exitCode == 0, "\(context): \(next)")
            try dana.sync()
            #expect(Set(try lee.allTitles()) == ["Lee one", "Lee two", "Dana one"], "\(context)")
            #expect(Set(try dana.allTitles()) == ["Lee one", "Lee two", "Dana one"], "\(context)")
            #expect(try lee.git("config", "--get", "todo.waitingForRemote").stdout.isEmpty, "\(context)")
            try expectConverged([dana, lee], host: host)
        }
        print("join crash test seed \(seed): \(kills) of \(Self.killIterations) syncs killed while running")
    }
}
