import Glibc
import Foundation
import Testing
import TodoCore

/// `todo maintenance` and the automatic housekeeping (docs/FORMAT.md, "Housekeeping"), judged by
/// the git CLI: `git fsck --full`, `git count-objects -v`, `git ls-tree`, `git verify-pack`.
@Suite(.timeLimit(.minutes(20)), .kit) struct HousekeepingTests {
    /// Keeps the automatic trigger quiet while a test builds its history.
    static let quiet = ["TODO_MAINTENANCE_THRESHOLD": "off"]

    @Test func maintenancePacksEverythingWithDeltasAndKeepsEveryTask() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let seeded = try sb.todo(
            "import", "-", stdin: jsonArray((0..<80).map { jsonObject(["title": "Imported \($0)", "notes": "a note"]) }), env: Self.quiet)
        try #require(seeded.exitCode == 0, "\(seeded)")
        try makeHistory(sb, changes: 60)
        let before = try objectCounts(sb)
        #expect(before["count"]! > 200 && before["packs"]! >= 1, "\(before)")
        let tree = try sb.git("ls-tree", "-r", "refs/heads/main").stdout
        let listed = try sb.todo("list", "--all", "--json").stdout

        let run = try sb.todo("maintenance")
        #expect(run.exitCode == 0 && run.stderr.isEmpty, "\(run)")
        #expect(run.stdout.hasPrefix("Household home: packed "), "\(run)")

        let after = try objectCounts(sb)
        #expect(after["count"] == 0 && after["packs"] == 1, "\(after)")
        #expect(after["size-pack"]! < before["size"]! + before["size-pack"]!, "before \(before), after \(after)")
        let fsck = try sb.git("fsck", "--full", "--strict", "--no-progress")
        #expect(fsck.exitCode == 0 && fsck.stderr.isEmpty, "\(fsck)")
        #expect(try sb.git("ls-tree", "-r", "refs/heads/main").stdout == tree)
        #expect(try sb.todo("list", "--all", "--json").stdout == listed)
        // Deltas: git lists delta chains for the objects stored as deltas.
        let pack = try #require(listDirectory(sb.repo() + "/.git/objects/pack").first { $0.hasSuffix(".idx") })
        let verify = try sb.git("verify-pack", "-v", ".git/objects/pack/" + pack)
        #expect(verify.exitCode == 0 && verify.stdout.contains("chain length = 1:"), "\(verify)")
        // Again: nothing lost, still one pack; the doctor reports it.
        #expect(try sb.todo("maintenance").exitCode == 0)
        #expect(try objectCounts(sb)["packs"] == 1)
        let doctor = try sb.todo("doctor", "--offline")
        #expect(doctor.stdout.contains("ok: storage: objects: 0 loose objects and 1 pack"), "\(doctor)")
        try sb.expectClean()
    }

    @Test func gitGcAndMaintenanceTakeTurns() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        var titles: [String] = []
        for round in 0..<6 {
            for i in 0..<8 {
                let title = "Round \(round) task \(i)"
                #expect(try sb.todo(["add", title], env: Self.quiet).exitCode == 0)
                titles.append(title)
            }
            let step: Run
            switch round % 3 {
            case 0: step = try sb.git("gc", "-q")
            case 1: step = try sb.todo("maintenance")
            default: step = try sb.git("repack", "-a", "-d", "-f", "-q")
            }
            #expect(step.exitCode == 0, "round \(round): \(step)")
            let fsck = try sb.git("fsck", "--full", "--strict", "--no-progress")
            #expect(fsck.exitCode == 0, "round \(round): \(fsck)")
        }
        #expect(try sb.todo("maintenance").exitCode == 0)
        let gc = try sb.git("gc", "-q", "--prune=now")
        #expect(gc.exitCode == 0, "\(gc)")
        #expect(try sb.todo("maintenance").exitCode == 0)
        let present = try json(try sb.todo("list", "--all", "--json").stdout).items.compactMap { $0["title"]?.stringValue }
        #expect(Set(present) == Set(titles))
        let counts = try objectCounts(sb)
        #expect(counts["count"] == 0 && counts["packs"] == 1, "\(counts)")
        try sb.expectClean()
    }

    /// SIGKILL at random moments of `todo maintenance`. The delay only picks where the kill
    /// lands, spread over the time an unkilled run took; nothing waits on time to synchronise.
    @Test func killedMaintenanceLosesNothing() throws {
        let seed = PropertySeed.run
        print("housekeeping crash seed: \(seed) (\(PropertySeed.replay))")
        var rng = SeededRandom(seed: seed)
        let sb = try Sandbox()
        try sb.initHousehold()
        try makeHistory(sb, changes: 40)
        // One run unkilled, to learn how long a run takes here.
        let started = ContinuousClock.now
        try #require(try sb.todo("maintenance").exitCode == 0)
        // Delays up to about a run's length: shorter after a run that finished first, longer
        // after a kill, so that kills land at every point whatever the machine's load.
        var span = max(20_000, (ContinuousClock.now - started) / .microseconds(1))

        var kills = 0
        var rounds = 0
        while (kills < 10 || rounds < 30) && rounds < 90 {
            let round = rounds
            rounds += 1
            try makeHistory(sb, changes: 3, prefix: "r\(round)")
            if round % 5 == 0 { #expect(try sb.git("gc", "-q").exitCode == 0) }
            let tree = try sb.git("ls-tree", "-r", "refs/heads/main").stdout
            let delay = UInt32.random(in: 0...UInt32(span), using: &rng)
            let ended = try sb.start(["maintenance"]).kill(after: delay)
            if ended.signal == SIGKILL {
                kills += 1
                span = min(span * 1.1, 5_000_000)
            } else {
                #expect(ended.exitCode == 0, "\(ended)")
                span = max(span * 0.8, 5_000)
            }
            let context = "seed \(seed), round \(round), killed after \(delay) µs"
            let fsck = try sb.git("fsck", "--full", "--strict", "--no-progress")
            #expect(fsck.exitCode == 0, "\(context): \(fsck)")
            #expect(try sb.git("ls-tree", "-r", "refs/heads/main").stdout == tree, "\(context)")
            let add = try sb.todo(["add", "After round \(round)"], env: Self.quiet)
            #expect(add.exitCode == 0, "\(context): \(add)")
            if fsck.exitCode != 0 || add.exitCode != 0 { break }
        }
        print("housekeeping crash seed \(seed): \(kills) of \(rounds) runs killed while running")
        #expect(kills >= 10, "seed \(seed): only \(kills) kills landed")
        let final = try sb.todo("maintenance")
        #expect(final.exitCode == 0, "\(final)")
        let countRun = try sb.git("count-objects", "-v")
        let counts = try self.counts(countRun)
        // git names each file it counts as garbage on standard error.
        #expect(counts["count"] == 0 && counts["packs"] == 1 && counts["garbage"] == 0, "\(counts) \(countRun.stderr)")
        let titles = try json(try sb.todo("list", "--all", "--json").stdout).items.compactMap { $0["title"]?.stringValue }
        #expect((0..<rounds).allSatisfy { titles.contains("After round \($0)") })
        try sb.expectClean()
    }

    /// A writer killed while it wrote an object leaves a temporary file (GitKit's `tmp_obj_*`
    /// in `objects/xx`, libgit2's `tmp_object_git2_*` in `objects/`), which git counts as
    /// garbage: the next housekeeping removes them.
    @Test func temporaryObjectFilesAKilledWriterLeftAreRemoved() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        try makeHistory(sb, changes: 5)
        let objects = sb.repo() + "/.git/objects"
        mkdir(objects + "/ab", 0o777)
        for path in [objects + "/ab/tmp_obj_Xy12Zq", objects + "/tmp_object_git2_a1b2c3d4"] {
            try Data("x\u{01}half an object".utf8).write(to: URL(fileURLWithPath: path))
        }
        #expect(try objectCounts(sb)["garbage"] == 1, "git counts the file in objects/ab as garbage")
        let run = try sb.todo("maintenance")
        #expect(run.exitCode == 0, "\(run)")
        let after = try objectCounts(sb)
        #expect(after["garbage"] == 0 && after["count"] == 0, "\(after)")
        #expect(access(objects + "/ab", F_OK) != 0 && access(objects + "/tmp_object_git2_a1b2c3d4", F_OK) != 0)
        #expect(try sb.git("fsck", "--full", "--strict", "--no-progress").exitCode == 0)
    }

    /// Two members change and sync through a path remote, and plain `git push` writes another
    /// branch there, while maintenance packs the household and the remote over and over:
    /// nothing is lost anywhere.
    @Test func changesAndPushesDuringMaintenanceLoseNothing() throws {
        let (host, alice) = try aliceSyncedWithAPathRemote(first: "First")
        let bob = try Member("Bob", host: host)
        try bob.join(host.url())
        let remote = host.repositories + "/household.git"
        // Each writer leaves a marker when it ends; maintenance runs again and again until all have.
        let finished = alice.sb.root + "/io/finished-"
        func writer(_ m: Member, _ name: String) throws -> Spawned {
            try m.sb.shell(
                """
                trap 'touch "\(finished)\(name)"' EXIT
                for i in $(seq 1 24); do
                  "$TODO" add "\(name) $i" >/dev/null || exit 1
                  if [ $((i % 6)) = 0 ]; then "$TODO" sync >/dev/null || exit 2; fi
                done
                """, env: m.env.merging(Self.quiet) { _, new in new })
        }
        let aliceWrites = try writer(alice, "Alice")
        let bobWrites = try writer(bob, "Bob")
        // And plain git pushing to another branch of the same remote. Cloned through git's
        // transport: a local clone copies the object files one by one, and fails, as beside
        // `git gc`, when maintenance packs one away meanwhile (seen once in CI).
        let plainPushes = try bob.sb.shell(
            """
            trap 'touch "\(finished)git"' EXIT
            git clone -q --no-local "\(remote)" "\(bob.sb.root)/plain" || exit 1
            cd "\(bob.sb.root)/plain" || exit 1
            for i in $(seq 1 12); do
              echo "plain $i" > "plain-$i.txt"
              git add "plain-$i.txt" && git -c user.name=Carol -c user.email=carol@example.org commit -q -m "plain $i" || exit 2
              git push -q origin HEAD:refs/heads/side || exit 3
            done
            """)
        let packing = try alice.sb.shell(
            """
            n=0
            while [ ! -e "\(finished)Alice" ] || [ ! -e "\(finished)Bob" ] || [ ! -e "\(finished)git" ]; do
              "$TODO" maintenance >/dev/null || exit 1
              n=$((n + 1))
            done
            echo "$n"
            """, env: alice.env)
        let packed = packing.wait()
        for (who, run) in [("alice", aliceWrites.wait()), ("bob", bobWrites.wait()), ("git push", plainPushes.wait()), ("maintenance", packed)] {
            #expect(run.exitCode == 0, "\(who): \(run)")
        }
        print("maintenance ran \(packed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) times while the others wrote")
        let side = try alice.sb.gitRun(["-C", remote, "log", "--format=%s", "refs/heads/side"])
        #expect(side.lines.filter { $0.hasPrefix("plain ") }.count == 12, "\(side)")
        _ = try syncUntilQuiet([alice, bob, alice])
        let expected = Set(["First"] + (1...24).flatMap { ["Alice \($0)", "Bob \($0)"] })
        #expect(Set(try alice.allTitles()) == expected)
        #expect(Set(try bob.allTitles()) == expected)
        for (who, run) in [
            ("alice", try alice.git("fsck", "--full", "--strict", "--no-progress")),
            ("bob", try bob.git("fsck", "--full", "--strict", "--no-progress")),
            ("remote", try alice.sb.gitRun(["-C", remote, "fsck", "--full", "--strict", "--no-progress"])),
        ] {
            #expect(run.exitCode == 0, "\(who): \(run)")
        }
        #expect(try alice.todo("maintenance").exitCode == 0)
        let remoteCounts = try counts(try alice.sb.gitRun(["-C", remote, "count-objects", "-v"]))
        #expect(remoteCounts["count"] == 0 && remoteCounts["packs"] == 1, "\(remoteCounts)")
        try alice.expectClean()
        try bob.expectClean()
    }

    /// Above the threshold, a command that wrote starts `todo maintenance --auto` detached; a
    /// command that only reads never does.
    @Test func automaticMaintenanceRunsDetachedAfterWritesOnly() throws {
        let (host, alice) = try aliceSyncedWithAPathRemote(first: "First")
        let remote = host.repositories + "/household.git"
        try makeHistory(alice.sb, changes: 12, env: alice.env)
        let loose = try objectCounts(alice.sb)["count"]!
        #expect(loose > 40)
        let trigger = alice.env.merging(["TODO_MAINTENANCE_THRESHOLD": "10"]) { _, new in new }
        let id = try #require(try alice.todo("list", "--json").stdout.split(separator: "\"").first { $0.count == 32 })
        for args in [["list"], ["show", String(id)], ["agenda"], ["log"], ["status"], ["undo", "--list"], ["doctor", "--offline"], ["chores"]] {
            let r = try alice.sb.todo(args, env: trigger)
            #expect(r.exitCode == 0, "\(r)")
        }
        #expect(maintenanceProcesses(alice.sb).isEmpty)
        #expect(try objectCounts(alice.sb)["count"] == loose, "a read-only command started maintenance")

        // A write: the command returns, maintenance finishes on its own.
        let add = try alice.sb.todo(["add", "Trigger"], env: trigger)
        #expect(add.exitCode == 0, "\(add)")
        try waitUntil("the household is packed") { try objectCounts(alice.sb)["count"] == 0 }
        #expect(try objectCounts(alice.sb)["packs"] == 1)

        // A sync that pushed to the path remote checks the remote too (its few loose objects
        // from the first push are above this threshold).
        try makeHistory(alice.sb, changes: 12, env: alice.env)
        let sync = try alice.sb.todo(["sync"], env: alice.env.merging(["TODO_MAINTENANCE_THRESHOLD": "2"]) { _, new in new })
        #expect(sync.exitCode == 0, "\(sync)")
        try waitUntil("the remote is packed") {
            try counts(try alice.sb.gitRun(["-C", remote, "count-objects", "-v"]))["count"] == 0
                && maintenanceProcesses(alice.sb).isEmpty
        }
        let fsck = try alice.sb.gitRun(["-C", remote, "fsck", "--full", "--strict", "--no-progress"])
        #expect(fsck.exitCode == 0, "\(fsck)")
        try alice.expectClean()
    }

    // MARK: - Helpers

    /// `changes` adds, each followed by an edit, and every other one by a done: loose objects.
    func makeHistory(_ sb: Sandbox, changes: Int, prefix: String = "t", env: [String: String] = [:]) throws {
        let script = """
            for i in $(seq 1 \(changes)); do
              id=$("$TODO" add "\(prefix) $i") || exit 1
              "$TODO" edit "$id" --note "note $i" >/dev/null || exit 2
              if [ $((i % 2)) = 0 ]; then "$TODO" done "$id" >/dev/null || exit 3; fi
            done
            """
        let run = try sb.shell(script, env: env.merging(Self.quiet) { _, new in new }).wait()
        try #require(run.exitCode == 0, "\(run)")
    }

    func objectCounts(_ sb: Sandbox) throws -> [String: Int] {
        try counts(try sb.git("count-objects", "-v"))
    }

    func counts(_ run: Run) throws -> [String: Int] {
        try #require(run.exitCode == 0, "\(run)")
        var out: [String: Int] = [:]
        for line in run.lines {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, let n = Int(parts[1].trimmingCharacters(in: .whitespaces)) { out[String(parts[0])] = n }
        }
        return out
    }

    /// The `todo maintenance` processes running for this sandbox (its TODO_HOME in their
    /// environment).
    func maintenanceProcesses(_ sb: Sandbox) -> [String] {
        listDirectory("/proc").filter { Int($0) != nil }.filter { pid in
            guard let cmd = readBytes("/proc/\(pid)/cmdline"), let env = readBytes("/proc/\(pid)/environ") else { return false }
            let words = cmd.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            let vars = env.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return words.contains("maintenance") && vars.contains("TODO_HOME=" + sb.todoHome)
        }
    }

    /// Polls `condition` until it holds, for at most a minute (a detached process's work has
    /// no other signal to wait on).
    func waitUntil(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try !condition() {
            try #require(ContinuousClock.now < deadline, "\(what): not within a minute")
            usleep(20_000)
        }
    }

    func listDirectory(_ path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }
}

extension HousekeepingTests {
    /// Leftovers of interrupted changes (loose objects nothing refers to) go once older than the
    /// grace period; younger ones, and everything the history needs, stay.
    @Test(needsTestHook("TODO_MAINTENANCE_GRACE")) func unreachableObjectsGoOnlyAfterTheGracePeriod() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        try makeHistory(sb, changes: 5)
        func leftover(_ name: String, _ text: String) throws -> String {
            let r = try sb.git("hash-object", "-w", try sb.file(name, text))
            try #require(r.exitCode == 0, "\(r)")
            return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let old = try leftover("old", "an interrupted change, long ago\n")
        let young = try leftover("young", "an interrupted change, just now\n")
        let oldPath = sb.repo() + "/.git/objects/\(old.prefix(2))/\(old.dropFirst(2))"
        var times = [timespec(tv_sec: time(nil) - 3_600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3_600, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, oldPath, &times, 0) == 0)

        let run = try sb.todo(["maintenance"], env: ["TODO_MAINTENANCE_GRACE": "600"])
        #expect(run.exitCode == 0, "\(run)")
        #expect(run.stdout.contains("1 removed, 1 kept"), "\(run)")
        #expect(try sb.git("cat-file", "-e", old).exitCode != 0)
        #expect(try sb.git("cat-file", "-e", young).exitCode == 0)
        let counts = try objectCounts(sb)
        #expect(counts["count"] == 1 && counts["packs"] == 1, "\(counts)")
        // With the default grace (14 days) even the hour-old one would have stayed.
        try sb.expectClean()
    }
}

extension HousekeepingTests {
    /// SIGKILL at each point where maintenance has written or removed part of what it will:
    /// the new pack durable and nothing removed; half the loose objects removed; an old pack
    /// without its index. The process says where it is by creating a marker file, then waits to
    /// be killed (TODO_MAINTENANCE_STOP_AT, for tests only).
    @Test(needsTestHook("TODO_MAINTENANCE_STOP_AT"), arguments: ["packed", "loose-half", "old-pack-index"])
    func killedAtEachStepLosesNothing(_ point: String) throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let imported = try sb.todo(
            "import", "-", stdin: jsonArray((0..<80).map { jsonObject(["title": "Imported \($0)"]) }), env: Self.quiet)
        try #require(imported.exitCode == 0, "\(imported)")
        try makeHistory(sb, changes: 10)
        #expect(try sb.git("repack", "-q").exitCode == 0)
        try makeHistory(sb, changes: 10, prefix: "u")
        let before = try objectCounts(sb)
        #expect(before["count"]! > 0 && before["packs"]! >= 2, "\(before)")
        let tree = try sb.git("ls-tree", "-r", "refs/heads/main").stdout
        let listed = try sb.todo("list", "--all", "--json").stdout

        let marker = sb.root + "/io/stopped-" + point
        let running = try sb.start(["maintenance"], env: ["TODO_MAINTENANCE_STOP_AT": point + ":" + marker])
        try waitUntil("maintenance reaches \(point)") { FileManager.default.fileExists(atPath: marker) }
        let ended = running.kill(after: 0)
        #expect(ended.signal == SIGKILL, "\(ended)")

        let fsck = try sb.git("fsck", "--full", "--strict", "--no-progress")
        #expect(fsck.exitCode == 0, "killed at \(point): \(fsck)")
        #expect(try sb.git("ls-tree", "-r", "refs/heads/main").stdout == tree)
        #expect(try sb.todo("list", "--all", "--json").stdout == listed)
        let add = try sb.todo(["add", "After the kill"], env: Self.quiet)
        #expect(add.exitCode == 0, "\(add)")
        let again = try sb.todo("maintenance")
        #expect(again.exitCode == 0, "\(again)")
        let after = try objectCounts(sb)
        #expect(after["count"] == 0, "\(after)")
        let fsckAgain = try sb.git("fsck", "--full", "--strict", "--no-progress")
        #expect(fsckAgain.exitCode == 0, "\(fsckAgain)")
        try sb.expectClean()
    }
}

extension HousekeepingTests {
    /// An import writes its objects whole, in one pack (quick, and it appears whole or not at
    /// all); the housekeeping at the end of the import recognises that pack and repacks it with
    /// deltas. The sync that sends the import leaves a pack like it in the path remote, which
    /// the housekeeping after the sync repacks too. Judged by git: each object store within
    /// 1.5 times `git repack -a -d -f` of a copy (plus 64 KiB; written whole it is 4 to 6
    /// times), deltas in `git verify-pack`, `git fsck --strict`, no garbage.
    @Test func anImportAndTheSyncThatSendsItEndAsSmallAsGitsRepack() throws {
        let (host, alice) = try aliceSyncedWithAPathRemote(first: "First")
        let remote = host.repositories + "/household.git"
        let bob = try Member("Bob", host: host)
        try bob.join(host.url())
        let words = ["milk", "bike", "garden", "taxes", "dentist", "kitchen", "boiler"]
        // Over 1 MB written whole, under the 4 MB that makes housekeeping run detached.
        let tasks = (0..<2_500).map { i in
            jsonObject(["title": "Fix the \(words[i % 7]) (\(i))", "notes": "Remember the \(words[i % 5]) and the \(words[i % 3])"])
        }
        // The automatic check as shipped (the sandbox turns it off).
        let shipped = alice.env.merging(["TODO_MAINTENANCE_THRESHOLD": ""]) { _, new in new }
        let imported = try alice.sb.todo(["import", "-"], stdin: jsonArray(tasks), env: shipped)
        #expect(imported.exitCode == 0, "\(imported)")
        let household = alice.repo + "/.git"
        try expectRepackedLikeGit(alice.sb, household, "the household after the import")

        let sync = try alice.sb.todo(["sync"], env: shipped)
        #expect(sync.exitCode == 0, "\(sync)")
        try expectRepackedLikeGit(alice.sb, remote, "the path remote after the sync")
        try expectRepackedLikeGit(alice.sb, household, "the household after the sync")
        #expect(try alice.todo("list", "--json").lines.count == 2_500 + 1 + 2)
        try alice.expectClean()

        // A member who joined before receives the import as one pack written whole (the
        // path remote's objects copied into the fetch's quarantine); the housekeeping after
        // that sync repacks it.
        let received = try bob.sb.todo(["sync"], env: bob.env.merging(["TODO_MAINTENANCE_THRESHOLD": ""]) { _, new in new })
        #expect(received.exitCode == 0, "\(received)")
        try expectRepackedLikeGit(bob.sb, bob.repo + "/.git", "Bob's household after receiving the import")
        #expect(try bob.todo("list", "--json").lines.count == 2_500 + 1 + 2)
        try bob.expectClean()
    }

    /// One pack with deltas, nothing loose, no garbage, `git fsck --strict` clean, and no larger
    /// than 1.5 times what `git repack -a -d -f` makes of a copy, plus 64 KiB.
    func expectRepackedLikeGit(_ sb: Sandbox, _ gitDir: String, _ what: String) throws {
        let run = try sb.gitRun(["--git-dir", gitDir, "count-objects", "-v"])
        let ours = try counts(run)
        #expect(ours["count"] == 0 && ours["packs"] == 1 && ours["garbage"] == 0, "\(what): \(ours) \(run.stderr)")
        let copy = sb.root + "/repacked-copy.git"
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: gitDir, toPath: copy)
        let repack = try sb.gitRun(["--git-dir", copy, "repack", "-a", "-d", "-f", "-q"])
        try #require(repack.exitCode == 0, "\(repack)")
        let git = try counts(try sb.gitRun(["--git-dir", copy, "count-objects", "-v"]))
        let (size, gitSize) = (ours["size-pack"]!, git["size-pack"]!)
        #expect(Double(size) <= 1.5 * Double(gitSize) + 64, "\(what): \(size) KiB against git's \(gitSize) KiB")
        let pack = try #require(listDirectory(gitDir + "/objects/pack").first { $0.hasSuffix(".idx") })
        let verify = try sb.gitRun(["--git-dir", gitDir, "verify-pack", "-v", gitDir + "/objects/pack/" + pack])
        #expect(verify.exitCode == 0 && verify.stdout.contains("chain length = 1:"), "\(what): no deltas")
        let fsck = try sb.gitRun(["--git-dir", gitDir, "fsck", "--full", "--strict", "--no-progress"])
        #expect(fsck.exitCode == 0 && fsck.stderr.isEmpty, "\(what): \(fsck)")
    }
}
