import Foundation
import Testing
import TodoCore

/// A household on an encrypted remote (docs/ENCRYPTION.md): members sync as usual, the remote
/// holds only age files under anonymous commits, stock `age` and git read it with a member's
/// key, a member who left reads nothing sent after, and whatever the remote's host changes is
/// refused with nothing local touched.
@Suite(.timeLimit(.minutes(20)), .kit) struct EncryptedRemoteTests {
    /// What must appear nowhere on the remote: every text the household wrote.
    static let secrets = [
        "Call the plumber", "boiler", "Water the ferns", "groceries", "Alice", "Bob", "alice@example.org", "bob@example.org",
        "home", "tasks/", "Europe/Paris", "+0100", "+0200",
    ]

    /// This member's device recipient, from `todo key`.
    static func key(_ m: Member, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let r = try m.todo("key")
        try #require(r.exitCode == 0, "\(r)", sourceLocation: sourceLocation)
        let line = r.stdout.trimmingCharacters(in: .newlines)
        try #require(line.hasPrefix("age1") && !line.contains("\n"), "\(r)", sourceLocation: sourceLocation)
        return line
    }

    static func identityFile(_ m: Member) -> String { m.sb.home + "/.config/todo/identity" }

    /// Alice's encrypted household on a new path remote with one task synced, and Bob granted
    /// and joined. Returns the recovery identity `init --encrypt` printed.
    static func household(_ host: GitHost) throws -> (alice: Member, bob: Member, recovery: String) {
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let created = try alice.todo(
            "init", "--name", "Alice", "--email", alice.email, "--remote", host.url(), "--encrypt", "--timezone", "Europe/Paris")
        try #require(created.exitCode == 0, "\(created)")
        let recovery = try #require(created.stdout.split(separator: "\n").map(String.init).first { $0.hasPrefix("AGE-SECRET-KEY-1") })
        _ = try alice.add("Call the plumber about the boiler", "--tag", "groceries")
        try alice.sync()
        let bob = try Member("Bob", host: host)
        try alice.change("member", "add", "Bob", "--key", try key(bob))
        try alice.sync()
        try bob.join(host.url())
        return (alice, bob, recovery)
    }

    /// Every object on the remote, as `git cat-file --batch` prints them.
    static func remoteBytes(_ host: GitHost) throws -> [UInt8] {
        let r = try host.git("household.git", "cat-file", "--batch-all-objects", "--batch")
        try #require(r.exitCode == 0, "\(r)")
        return r.stdoutBytes
    }

    @Test func theRemoteHoldsNothingReadableAndMembersConverge() throws {
        let host = try GitHost(.path)
        let (alice, bob, _) = try Self.household(host)
        #expect(try bob.allTitles() == ["Call the plumber about the boiler"])
        // Different fields of one task, offline on each side, then synced in turn.
        let task = try #require(try json(try bob.todo("list", "--json").stdout).items.first?["id"]?.stringValue)
        try alice.change("edit", task, "--note", "the boiler in the cellar")
        try bob.change("edit", task, "--due", "2025-12-01")
        _ = try bob.add("Water the ferns")
        try alice.sync()
        try bob.sync()
        try syncUntilQuiet([alice, bob])
        let trees = try [alice.tree(), bob.tree()]
        #expect(trees[0] == trees[1])
        let shown = try alice.show(task)
        #expect(shown["notes"] == .string("the boiler in the cellar") && shown["due"] == .string("2025-12-01"), "\(shown)")

        // The remote, judged by git: one branch, anonymous commits at +0000, each a tree of
        // age files only.
        let refs = try host.git("household.git", "for-each-ref", "--format=%(refname)").stdout
        #expect(refs == "refs/heads/main\n", "\(refs)")
        let log = try host.git("household.git", "log", "--format=%an <%ae>|%cn <%ce>|%ad|%cd|%B", "--date=raw", "main").stdout
        for line in log.split(separator: "\n") where !line.isEmpty {
            let parts = line.split(separator: "|", omittingEmptySubsequences: false)
            #expect(parts.count == 5 && parts[0] == "todo <todo@todo.invalid>" && parts[1] == parts[0], "\(line)")
            #expect(parts.count == 5 && parts[2].hasSuffix(" +0000") && parts[3].hasSuffix(" +0000") && parts[4] == "todo", "\(line)")
        }
        let merges = try host.git("household.git", "rev-list", "--min-parents=2", "main").stdout
        #expect(merges.isEmpty, "merge commits on the remote: \(merges)")
        let files = try host.git("household.git", "log", "--format=", "--name-only", "main").stdout.split(separator: "\n")
        #expect(Set(files).isSubset(of: ["data.age", "key.age"]), "\(files)")
        let blobs = try host.git("household.git", "rev-list", "--objects", "main").stdout.split(separator: "\n")
        for line in blobs where line.hasSuffix(".age") {
            let id = String(line.prefix(40))
            let head = try host.git("household.git", "cat-file", "blob", id).stdoutBytes.prefix(22)
            #expect(Array(head) == Array("age-encryption.org/v1\n".utf8), "\(line)")
        }
        let everything = try Self.remoteBytes(host)
        for secret in Self.secrets + [task, String(task.prefix(8))] {
            #expect(!everything.contains(Array(secret.utf8)), "the remote holds \"\(secret)\"")
        }
        let fsck = try host.git("household.git", "fsck", "--strict", "--no-progress")
        #expect(fsck.exitCode == 0, "\(fsck)")
        // A plain git clone works and yields only ciphertext.
        let plain = alice.sb.root + "/plain"
        #expect(try alice.sb.gitRun(["clone", "-q", host.url(), plain]).exitCode == 0)
        let checkedOut = Set(try FileManager.default.contentsOfDirectory(atPath: plain)).subtracting([".git"])
        #expect(checkedOut.contains("data.age") && checkedOut.isSubset(of: ["data.age", "key.age"]), "\(checkedOut)")
        // Plain git in a member's clone finds no remote: ciphertext never mixes in.
        #expect(try alice.git("config", "--get", "remote.origin.url").exitCode != 0)
        #expect(try alice.git("remote").stdout.isEmpty)
        let pull = try alice.git("pull", "-q")
        #expect(pull.exitCode != 0, "\(pull)")
        try alice.expectClean()
        try bob.expectClean()
    }

    /// Stock `age` and git read the remote with a member's identity: the key file gives the
    /// epoch's identity, which opens the data file, a git bundle of the household.
    @Test func stockAgeAndGitReadTheRemote() throws {
        let age = try requireProgram("age")
        let host = try GitHost(.path)
        let (alice, _, _) = try Self.household(host)
        let plain = alice.sb.root + "/plain"
        #expect(try alice.sb.gitRun(["clone", "-q", host.url(), plain]).exitCode == 0)
        let keys = try runProcess(age, ["-d", "-i", Self.identityFile(alice), plain + "/key.age"])
        try #require(keys.exitCode == 0, "\(keys)")
        let lines = keys.stdout.split(separator: "\n")
        #expect(lines.first == "todo-keys 1", "\(keys.stdout.prefix(40))")
        let epoch = try #require(lines.first { $0.hasPrefix("epoch ") }.map { String($0.dropFirst(6)) })
        let secret = try #require(lines.first { $0.hasPrefix("identity \(epoch) ") }.map { String($0.split(separator: " ")[2]) })
        let epochFile = alice.sb.root + "/epoch.txt"
        try writeBytes(epochFile, Array((secret + "\n").utf8))
        let bundle = alice.sb.root + "/last.bundle"
        let opened = try runProcess(age, ["-d", "-i", epochFile, "-o", bundle, plain + "/data.age"])
        try #require(opened.exitCode == 0, "\(opened)")
        // The newest push rests on what the remote carried before it: the household's clone has that.
        let verify = try alice.git("bundle", "verify", "-q", bundle)
        #expect(verify.exitCode == 0, "\(verify)")
        let heads = try alice.git("bundle", "list-heads", bundle)
        #expect(heads.stdout == (try alice.head()) + " refs/heads/main\n", "\(heads)")
    }

    /// The other way: a push made with stock tools alone (`git bundle create`, `age -e` to the
    /// epoch's recipient, `git commit-tree` on the remote) is taken by a member's sync like any
    /// other.
    @Test func aPushMadeWithStockAgeAndGitIsRead() throws {
        let age = try requireProgram("age")
        let host = try GitHost(.path)
        let (alice, bob, _) = try Self.household(host)
        let remote = host.repositories + "/household.git"
        let tip = try host.git("household.git", "rev-parse", "main").stdout.trimmingCharacters(in: .newlines)
        let plain = alice.sb.root + "/plain"
        #expect(try alice.sb.gitRun(["clone", "-q", host.url(), plain]).exitCode == 0)
        let keys = try runProcess(age, ["-d", "-i", Self.identityFile(alice), plain + "/key.age"]).stdout.split(separator: "\n")
        let epoch = try #require(keys.first { $0.hasPrefix("epoch ") }.map { String($0.dropFirst(6)) })
        let secret = try #require(keys.first { $0.hasPrefix("identity \(epoch) ") }.map { String($0.split(separator: " ")[2]) })
        let epochFile = alice.sb.root + "/epoch.txt"
        try writeBytes(epochFile, Array((secret + "\n").utf8))
        let recipient = try runProcess(try requireProgram("age-keygen"), ["-y", epochFile]).stdout.trimmingCharacters(in: .newlines)

        // Alice's new task, committed but not synced: what the remote carries is her tracking ref.
        _ = try alice.add("Water the ferns")
        let bundle = alice.sb.root + "/new.bundle"
        let made = try alice.git("bundle", "create", "-q", bundle, "refs/remotes/origin/main..main")
        try #require(made.exitCode == 0, "\(made)")
        // git names the ref as given: the remote's bundles name refs/heads/main.
        let named = try alice.git("bundle", "list-heads", bundle)
        try #require(named.stdout.hasSuffix(" refs/heads/main\n"), "\(named)")
        let data = alice.sb.root + "/data.age"
        #expect(try runProcess(age, ["-r", recipient, "-o", data, bundle]).exitCode == 0)
        let blob = try host.git("household.git", "hash-object", "-w", data).stdout.trimmingCharacters(in: .newlines)
        let tree = try runProcess(gitBinary, ["--git-dir", remote, "mktree"], stdin: .text("100644 blob \(blob)\tdata.age\n"))
            .stdout.trimmingCharacters(in: .newlines)
        let commit = try runProcess(
            gitBinary, ["--git-dir", remote, "commit-tree", tree, "-p", tip, "-m", "todo"],
            environment: ["GIT_AUTHOR_NAME": "todo", "GIT_AUTHOR_EMAIL": "todo@todo.invalid", "GIT_COMMITTER_NAME": "todo",
                "GIT_COMMITTER_EMAIL": "todo@todo.invalid"]
        ).stdout.trimmingCharacters(in: .newlines)
        #expect(try host.git("household.git", "update-ref", "refs/heads/main", commit, tip).exitCode == 0)
        let r = try bob.sync()
        #expect(r.stdout.contains("received 1"), "\(r)")
        #expect(Set(try bob.allTitles()) == ["Call the plumber about the boiler", "Water the ferns"])
        // Alice reads her own commit back and has nothing more to send.
        try alice.sync()
        #expect(try alice.tree() == (try bob.tree()))
    }

    /// A sync killed while it wrote a reference of the scratch repository leaves its lock file;
    /// the next sync clears it instead of failing on it forever.
    @Test func aLockLeftByAKilledSyncIsCleared() throws {
        let host = try GitHost(.path)
        let (alice, _, _) = try Self.household(host)
        let refs = alice.repo + "/.git/todo/crypt.git/refs/todo"
        try FileManager.default.createDirectory(atPath: refs, withIntermediateDirectories: true)
        try writeBytes(refs + "/fetched.lock", Array("left by a killed sync\n".utf8))
        _ = try alice.add("After the kill")
        try alice.sync()
        #expect(!FileManager.default.fileExists(atPath: refs + "/fetched.lock"))
        #expect(try alice.todo("status").stdout.contains("Not sent:  0 tasks"))
    }

    /// The merge is the merge: the same household (the same ids, replicas and clocks) on a
    /// plaintext and on an encrypted remote, the same offline edits (different fields of one
    /// task, the same field of another, a conflict), synced in the same order, end with
    /// byte-identical task files (with their conflict logs), in either order.
    @Test(arguments: [true, false]) func theMergeIsTheSameAsOnAPlaintextRemote(aliceFirst: Bool) throws {
        func scenario(encrypted: Bool) throws -> (alice: String, bob: String, conflicts: String) {
            let host = try GitHost(.path)
            try host.createRepository()
            let alice = try Member("Alice", host: host)
            let bob = try Member("Bob", host: host)
            alice.env["TODO_ID_SEED"] = "4201"
            bob.env["TODO_ID_SEED"] = "4202"
            let created = try alice.todo("init", "--name", "Alice", "--email", alice.email, "--timezone", "Europe/Paris")
            try #require(created.exitCode == 0, "\(created)")
            let fix = try alice.add("Fix the boiler")
            let ferns = try alice.add("Water the ferns")
            let moved = try alice.todo(["remote", "set", host.url()] + (encrypted ? ["--encrypt"] : []))
            try #require(moved.exitCode == 0, "\(moved)")
            try alice.sync()
            if encrypted {
                try alice.change("member", "add", "Bob", "--key", try Self.key(bob))
                try alice.sync()
            }
            try bob.join(host.url())
            // Later than anything before, so that every stamp below is the clock's, whatever
            // the setup wrote.
            alice.env["TODO_NOW"] = String(fixedNow + 3_600_000)
            bob.env["TODO_NOW"] = String(fixedNow + 3_600_000)
            try alice.change("edit", fix.id, "--note", "the valve in the cellar")
            try bob.change("edit", fix.id, "--due", "2025-12-01")
            try alice.change("edit", ferns.id, "--title", "Water the ferns today")
            bob.env["TODO_NOW"] = String(fixedNow + 7_200_000)
            try bob.change("edit", ferns.id, "--title", "Water the ferns tomorrow")
            for m in aliceFirst ? [alice, bob, alice] : [bob, alice, bob] { try m.sync() }
            // Every task file but the settings file (`tasks/00/000…`), which holds the keys
            // only the encrypted household has.
            let tasks = { (m: Member) in
                try m.git("ls-tree", "-r", "main", "tasks").stdout.split(separator: "\n").filter { !$0.hasSuffix("/" + String(repeating: "0", count: 32) + ".json") }
                    .joined(separator: "\n")
            }
            return (try tasks(alice), try tasks(bob), try alice.todo("conflicts").stdout)
        }
        let plain = try scenario(encrypted: false)
        let encrypted = try scenario(encrypted: true)
        #expect(plain.alice == plain.bob && encrypted.alice == encrypted.bob)
        #expect(plain.alice.split(separator: "\n").count == 2, "\(plain.alice)")
        #expect(encrypted.alice == plain.alice, "the encrypted remote's merge differs from the plaintext one's")
        #expect(encrypted.conflicts == plain.conflicts && plain.conflicts.contains("Water the ferns today"), "\(plain.conflicts)")
    }

    /// A household on a plaintext remote moves to a new, empty one with `remote set --encrypt`:
    /// the recovery key alone on its line, nothing of the household readable there; Bob, once
    /// granted, runs `remote set` with the new URL and his first sync reads it as encrypted, so
    /// his clone keeps it outside `remote.origin`. The old remote gets nothing after the move.
    @Test func aHouseholdMovesToAnEncryptedRemote() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        try host.createRepository("encrypted.git")
        let alice = try Member("Alice", host: host)
        try alice.create(remote: host.url())
        _ = try alice.add("Call the plumber about the boiler", "--tag", "groceries")
        try alice.sync()
        let bob = try Member("Bob", host: host)
        try bob.join(host.url())
        let oldTip = try Self.remoteTip(host)

        let moved = try alice.todo("remote", "set", host.url("encrypted.git"), "--encrypt")
        #expect(moved.exitCode == 0, "\(moved)")
        let lines = moved.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("AGE-SECRET-KEY-1") }.count == 1 && lines.contains { $0.hasPrefix("AGE-SECRET-KEY-1") && !$0.contains(" ") })
        #expect(moved.stdout.contains("offline"), "\(moved)")
        try alice.sync()
        try alice.change("member", "add", "Bob", "--key", try Self.key(bob))
        try alice.sync()

        let switched = try bob.todo("remote", "set", host.url("encrypted.git"))
        #expect(switched.exitCode == 0, "\(switched)")
        _ = try bob.add("Water the ferns")
        try bob.sync()
        try alice.sync()
        #expect(try alice.tree() == (try bob.tree()))
        #expect(Set(try alice.allTitles()) == ["Call the plumber about the boiler", "Water the ferns"])
        #expect(try bob.git("config", "remote.origin.url").exitCode != 0, "no remote.origin in an encrypted clone")
        #expect(try bob.git("config", "todo.remote").stdout.trimmingCharacters(in: .newlines) == host.url("encrypted.git"))
        #expect(try json(try bob.todo("status", "--json").stdout)["encrypted"] == .bool(true))

        let all = try host.git("encrypted.git", "cat-file", "--batch-all-objects", "--batch")
        try #require(all.exitCode == 0, "\(all)")
        let text = String(decoding: all.stdoutBytes, as: UTF8.self)
        for secret in Self.secrets where secret != "+0100" && secret != "+0200" {
            #expect(!text.contains(secret), "\(secret) is readable on the new remote")
        }
        #expect(try Self.remoteTip(host) == oldTip, "the old remote got nothing after the move")
    }

    /// A recovery key that was lost is replaced as docs/THREAT-MODEL.md says: `remote set` with
    /// the same URL and `--encrypt` prints a new one, and the next sync opens an epoch that the
    /// old one cannot open with stock `age`, while the new one and the members read on.
    @Test func aLostRecoveryKeyIsReplaced() throws {
        let age = try requireProgram("age")
        let host = try GitHost(.path)
        let (alice, bob, recovery) = try Self.household(host)
        let old = alice.sb.root + "/old-recovery.txt"
        try writeBytes(old, Array((recovery + "\n").utf8))
        let again = try alice.todo("remote", "set", host.url(), "--encrypt")
        #expect(again.exitCode == 0, "\(again)")
        let fresh = try #require(again.stdout.split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") }.map(String.init))
        #expect(fresh != recovery)
        let new = alice.sb.root + "/new-recovery.txt"
        try writeBytes(new, Array((fresh + "\n").utf8))
        _ = try alice.add("Water the ferns")
        try alice.sync()
        let plain = alice.sb.root + "/remote"
        #expect(try alice.sb.gitRun(["clone", "-q", host.url(), plain]).exitCode == 0)
        for name in ["key.age", "data.age"] {
            #expect(try runProcess(age, ["-d", "-i", old, plain + "/" + name]).exitCode != 0, "the lost recovery key opened \(name)")
        }
        #expect(try runProcess(age, ["-d", "-i", new, plain + "/key.age"]).exitCode == 0)
        try bob.sync()
        #expect(try bob.allTitles().contains("Water the ferns"))
    }

    /// `member key remove` takes one device away (a lost phone): the next sync opens an epoch
    /// without it, which that device's identity cannot open with stock `age`, while the
    /// member's other device reads on.
    @Test func removingADeviceKeyRotates() throws {
        let age = try requireProgram("age")
        let host = try GitHost(.path)
        let (alice, bob, _) = try Self.household(host)
        let phone = bob.sb.root + "/phone-identity.txt"
        let made = try runProcess(try requireProgram("age-keygen"), ["-o", phone])
        try #require(made.exitCode == 0, "\(made)")
        let phoneKey = try runProcess(try requireProgram("age-keygen"), ["-y", phone]).stdout.trimmingCharacters(in: .newlines)
        try alice.change("member", "add", "Bob", "--key", phoneKey)
        try alice.sync()
        let granted = bob.sb.root + "/granted"
        #expect(try bob.sb.gitRun(["clone", "-q", host.url(), granted]).exitCode == 0)
        #expect(try runProcess(age, ["-d", "-i", phone, granted + "/key.age"]).exitCode == 0, "the phone was granted")

        try alice.change("member", "key", "remove", "Bob", phoneKey)
        _ = try alice.add("Water the ferns")
        try alice.sync()
        let after = bob.sb.root + "/after"
        #expect(try bob.sb.gitRun(["clone", "-q", host.url(), after]).exitCode == 0)
        for name in ["key.age", "data.age"] {
            #expect(try runProcess(age, ["-d", "-i", phone, after + "/" + name]).exitCode != 0, "the removed phone opened \(name)")
        }
        try bob.sync()
        #expect(try bob.allTitles().contains("Water the ferns"))
    }

    /// The remote's `main`, as the host's git sees it.
    static func remoteTip(_ host: GitHost) throws -> String {
        let r = try host.git("household.git", "rev-parse", "refs/heads/main")
        try #require(r.exitCode == 0, "\(r)")
        return r.stdout.trimmingCharacters(in: .newlines)
    }

    /// Over every kind of remote a household uses, the encrypted remote's `main` only ever
    /// moves forward, through ordinary syncs, syncs that race (one push loses and is made
    /// again on top) and a rotation; it keeps one branch and no tag; members converge.
    @Test(arguments: [Transport.path, .git, .ssh, .http])
    func everyUpdateIsAFastForward(transport: Transport) throws {
        let host = try GitHost(transport)
        let (alice, bob, _) = try Self.household(host)
        var tips = [try Self.remoteTip(host)]
        for round in 0..<2 {
            _ = try alice.add("Alice's errand \(round)")
            _ = try bob.add("Bob's errand \(round)")
            try alice.sync()
            tips.append(try Self.remoteTip(host))
            try bob.sync()
            tips.append(try Self.remoteTip(host))
        }
        // Both at once: whichever pushes second finds main moved, reads and pushes again.
        _ = try alice.add("Raced by Alice")
        _ = try bob.add("Raced by Bob")
        let running = try [alice, bob].map { try $0.start("sync") }
        for r in running {
            let ended = try r.wait(within: .seconds(120))
            #expect(ended.exitCode == 0, "\(ended)")
        }
        tips.append(try Self.remoteTip(host))
        try alice.sync()
        try bob.sync()
        try alice.sync()
        tips.append(try Self.remoteTip(host))
        #expect(try alice.tree() == (try bob.tree()))
        #expect(try bob.allTitles().contains("Raced by Alice") && (try alice.allTitles().contains("Raced by Bob")))
        try alice.change("member", "leave", "Bob")
        try alice.sync()
        tips.append(try Self.remoteTip(host))

        for (older, newer) in zip(tips, tips.dropFirst()) {
            let r = try host.git("household.git", "merge-base", "--is-ancestor", older, newer)
            #expect(r.exitCode == 0, "\(transport): \(newer) does not follow \(older)")
        }
        let refs = try host.git("household.git", "for-each-ref", "--format=%(refname)")
        #expect(refs.stdout == "refs/heads/main\n", "\(refs)")
        let parents = try host.git("household.git", "rev-list", "--min-parents=2", "refs/heads/main")
        #expect(parents.exitCode == 0 && parents.stdout.isEmpty, "no merge commit: \(parents)")
    }

    /// A remote put back to an older state (a restored backup) loses nothing local: the sync
    /// reads the chain from its start, says the remote went back, exits 0 and sends again what
    /// it lost, on top of what the remote now holds (a fast-forward); another member reads it.
    @Test func aRemoteThatWentBackGetsWhatItLost() throws {
        let host = try GitHost(.path)
        let (alice, bob, _) = try Self.household(host)
        let older = try Self.remoteTip(host)
        _ = try alice.add("Water the ferns")
        try alice.sync()
        #expect(try host.git("household.git", "update-ref", "refs/heads/main", older).exitCode == 0)

        let r = try alice.todo("sync", "--json")
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stderr.contains("the remote went back to an older state") && r.stderr.contains("nothing local was lost"), "\(r)")
        let report = try syncReport(r.stdout)
        #expect(report["remoteWentBack"] == .bool(true) && report["remoteRewritten"] == .bool(false), "\(r.stdout)")
        let now = try Self.remoteTip(host)
        #expect(try host.git("household.git", "merge-base", "--is-ancestor", older, now).exitCode == 0)
        try bob.sync()
        #expect(Set(try bob.allTitles()) == ["Call the plumber about the boiler", "Water the ferns"])
        #expect(try alice.tree() == (try bob.tree()))
    }

    /// A clone reads the remote's chain from its start: its bundles go in as one pack, not one
    /// per push (which would make housekeeping due at once, inline, on the first clone of any
    /// household that has synced a few dozen times), and git judges the result whole.
    @Test func aCloneTakesTheWholeChainAsOnePack() throws {
        let host = try GitHost(.path)
        let (alice, _, _) = try Self.household(host)
        for i in 0..<10 {
            _ = try alice.add("Errand \(i)")
            try alice.sync()
        }
        let commits = try host.git("household.git", "rev-list", "--count", "refs/heads/main")
        #expect(Int(commits.stdout.trimmingCharacters(in: .newlines)) ?? 0 >= 12, "\(commits)")
        let carol = try Member("Carol", host: host)
        try alice.change("member", "add", "Carol", "--key", try Self.key(carol))
        try alice.sync()
        try carol.join(host.url())
        let packs = try FileManager.default.contentsOfDirectory(atPath: carol.repo + "/.git/objects/pack").filter { $0.hasSuffix(".pack") }
        #expect(packs.count == 1, "\(packs)")
        #expect(try carol.git("fsck", "--strict").exitCode == 0)
        #expect(try carol.tree() == (try alice.tree()))
    }

    /// The scratch repository does not grow loose objects and packs without end: once it is
    /// due by the household's thresholds, a sync packs it into one pack, and the objects no
    /// reference reaches (pushes that lost their race, planted here) go. git judges it whole,
    /// and later syncs read on from it.
    @Test func theScratchRepositoryIsKeptPacked() throws {
        let host = try GitHost(.path)
        let (alice, bob, _) = try Self.household(host)
        let crypt = alice.repo + "/.git/todo/crypt.git"
        // Deterministic contents, so the same ids every run; enough that housekeeping's sample
        // of two fan-out folders sees them.
        let planted = alice.sb.root + "/planted"
        try FileManager.default.createDirectory(atPath: planted, withIntermediateDirectories: true)
        var paths: [String] = []
        for i in 0..<1500 {
            let file = planted + "/\(i)"
            try writeBytes(file, Array("a push that lost its race \(i)\n".utf8))
            paths.append(file)
        }
        let written = try alice.sb.gitRun(["-C", crypt, "hash-object", "-w"] + paths)
        try #require(written.exitCode == 0, "\(written)")
        let ids = written.stdout.split(separator: "\n").map(String.init)
        try #require(ids.filter { $0.hasPrefix("17") || $0.hasPrefix("e4") }.count >= 3, "the sample sees them")

        _ = try alice.add("Water the ferns")
        try alice.sync()
        let counted = try alice.sb.gitRun(["-C", crypt, "count-objects", "-v"])
        #expect(counted.stdout.contains("\ncount: 0\n") || counted.stdout.hasPrefix("count: 0\n"), "\(counted)")
        #expect(counted.stdout.contains("\npacks: 1\n"), "\(counted)")
        #expect(try alice.sb.gitRun(["-C", crypt, "cat-file", "-e", ids[0]]).exitCode != 0, "an unreachable object went")
        let fsck = try alice.sb.gitRun(["-C", crypt, "fsck", "--strict"])
        #expect(fsck.exitCode == 0, "\(fsck)")

        _ = try bob.add("Buy stamps")
        try bob.sync()
        try alice.sync()
        #expect(Set(try alice.allTitles()) == ["Call the plumber about the boiler", "Water the ferns", "Buy stamps"])
        #expect(try alice.tree() == (try bob.tree()))
    }

    /// Two members change the roster offline, each a change that opens an epoch (Alice removes
    /// Carol, Bob grants Dave). The second to sync merges both rosters and rotates again, to the
    /// merged roster's recipients: Carol, whom Bob never removed, reads nothing of his push with
    /// stock age; Dave clones; everyone converges.
    @Test func twoRosterChangesMergedRotateToTheMergedRoster() throws {
        let age = try requireProgram("age")
        let host = try GitHost(.path)
        let (alice, bob, _) = try Self.household(host)
        let carol = try Member("Carol", host: host)
        try alice.change("member", "add", "Carol", "--key", try Self.key(carol))
        try alice.sync()
        try bob.sync()
        let dave = try Member("Dave", host: host)
        let daveKey = try Self.key(dave)

        try alice.change("member", "leave", "Carol")
        try bob.change("member", "add", "Dave", "--key", daveKey)
        _ = try bob.add("Bob's errand after the grant")
        try alice.sync()
        try bob.sync()

        let plain = carol.sb.root + "/remote"
        #expect(try carol.sb.gitRun(["clone", "-q", host.url(), plain]).exitCode == 0)
        let lastKeys = try carol.sb.gitRun(["-C", plain, "log", "-1", "--format=%H", "--", "key.age"])
        let tip = try carol.sb.gitRun(["-C", plain, "rev-parse", "HEAD"])
        #expect(lastKeys.stdout == tip.stdout, "Bob's push, after the merge, opened an epoch: \(lastKeys) \(tip)")
        for name in ["key.age", "data.age"] {
            let r = try runProcess(age, ["-d", "-i", Self.identityFile(carol), plain + "/" + name])
            #expect(r.exitCode != 0, "Carol's identity opened \(name)")
        }
        let keys = try runProcess(age, ["-d", "-i", Self.identityFile(dave), plain + "/key.age"])
        #expect(keys.exitCode == 0, "\(keys)")
        #expect(!keys.stdout.contains(try Self.key(carol)), "Carol is no recipient of the merged epoch")

        try dave.join(host.url())
        try alice.sync()
        #expect(try alice.allTitles().contains("Bob's errand after the grant"))
        #expect(try alice.tree() == (try bob.tree()))
        #expect(try dave.tree() == (try alice.tree()))
    }

    /// The releases before encryption meet an encrypted remote without harm: their clone finds
    /// no household there (65, nothing created), and in an encrypted household's clone their sync
    /// finds no remote (78).
    @Test(
        .enabled(if: olderTodo != nil && previousTodo != nil, "TODO_OLD_BINARY and TODO_PREVIOUS_BINARY are not both set (make test builds them)"),
        arguments: ["fb9737e", "c80d975"])
    func olderReleasesChangeNothing(release: String) throws {
        let old = try #require(release == "fb9737e" ? olderTodo : previousTodo)
        let host = try GitHost(.path)
        let (alice, _, _) = try Self.household(host)
        let carol = try Member("Carol", host: host)
        carol.sb.binary = old
        let cloned = try carol.todo("clone", host.url(), "--name", "Carol", "--email", carol.email)
        #expect(cloned.exitCode == 65, "\(cloned)")
        #expect(!FileManager.default.fileExists(atPath: carol.repo))
        let before = try alice.head()
        alice.sb.binary = old
        let synced = try alice.todo("sync")
        alice.sb.binary = todoBinary
        #expect(synced.exitCode == 78, "\(synced)")
        #expect(try alice.head() == before)
        try alice.expectClean()
    }

    /// Bob runs `todo key`, clones before he is granted (77, his recipient named, nothing left
    /// behind), then after; a clone with the recovery identity restores everything.
    @Test func joiningNeedsAGrantAndTheRecoveryKeyRestores() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let created = try alice.todo("init", "--name", "Alice", "--email", alice.email, "--remote", host.url(), "--encrypt")
        try #require(created.exitCode == 0, "\(created)")
        let recovery = try #require(created.stdout.split(separator: "\n").map(String.init).first { $0.hasPrefix("AGE-SECRET-KEY-1") })
        _ = try alice.add("Call the plumber")
        try alice.sync()

        let bob = try Member("Bob", host: host)
        let mine = try Self.key(bob)
        let early = try bob.todo("clone", host.url(), "--name", "Bob", "--email", bob.email)
        #expect(early.exitCode == 77, "\(early)")
        #expect(early.stderr.contains(mine) && early.stderr.contains("todo member add"), "\(early)")
        #expect(!FileManager.default.fileExists(atPath: bob.repo), "a failed clone leaves nothing behind")

        try alice.change("member", "add", "Bob", "--key", mine)
        try alice.sync()
        try bob.join(host.url())
        #expect(try bob.allTitles() == ["Call the plumber"])

        // A new machine with only the recovery key.
        let carol = try Member("Carol", host: host)
        let file = carol.sb.root + "/recovery.txt"
        try writeBytes(file, Array((recovery + "\n").utf8))
        let restored = try carol.todo("clone", host.url(), "--name", "Carol", "--email", carol.email, "--identity", file)
        #expect(restored.exitCode == 0, "\(restored)")
        #expect(try carol.tree() == (try alice.tree()))
    }

    /// After `member leave Bob` and a sync, nothing pushed later opens with Bob's identity, by
    /// todo or by stock age with any identity Bob ever had; Bob's sync exits 77 and keeps his
    /// unsent change; Alice and the recovery key read on.
    @Test func aMemberWhoLeftReadsNothingSentAfter() throws {
        let age = try requireProgram("age")
        let host = try GitHost(.path)
        let (alice, bob, recovery) = try Self.household(host)
        // Every identity Bob holds: his device's, and each epoch identity his key files gave.
        let plainBefore = bob.sb.root + "/before"
        #expect(try bob.sb.gitRun(["clone", "-q", host.url(), plainBefore]).exitCode == 0)
        let bobKeys = try runProcess(age, ["-d", "-i", Self.identityFile(bob), plainBefore + "/key.age"])
        try #require(bobKeys.exitCode == 0, "\(bobKeys)")
        var bobIdentities = [try String(contentsOfFile: Self.identityFile(bob), encoding: .utf8)]
        for line in bobKeys.stdout.split(separator: "\n") where line.hasPrefix("identity ") {
            bobIdentities.append(String(line.split(separator: " ")[2]) + "\n")
        }

        try alice.change("member", "leave", "Bob")
        _ = try alice.add("Water the ferns")
        try alice.sync()
        _ = try bob.add("Bob's own errand")
        let refused = try bob.todo("sync")
        #expect(refused.exitCode == 77, "\(refused)")
        #expect(refused.stderr.contains("no longer include this device"), "\(refused)")
        #expect(try bob.allTitles().contains("Bob's own errand"), "Bob's unsent change stays")

        // Stock age, every file of the remote's newest commit, every identity Bob had.
        let plainAfter = bob.sb.root + "/after"
        #expect(try bob.sb.gitRun(["clone", "-q", host.url(), plainAfter]).exitCode == 0)
        #expect(FileManager.default.fileExists(atPath: plainAfter + "/key.age"), "the leave's push opens a new epoch")
        for (i, text) in bobIdentities.enumerated() {
            let file = bob.sb.root + "/id-\(i).txt"
            try writeBytes(file, Array(text.utf8))
            for name in ["key.age", "data.age"] {
                let r = try runProcess(age, ["-d", "-i", file, plainAfter + "/" + name])
                #expect(r.exitCode != 0, "identity \(i) opened \(name)")
            }
        }
        // Alice and the recovery key still read everything.
        let recoveryFile = alice.sb.root + "/recovery.txt"
        try writeBytes(recoveryFile, Array((recovery + "\n").utf8))
        #expect(try runProcess(age, ["-d", "-i", recoveryFile, plainAfter + "/key.age"]).exitCode == 0)
        #expect(try runProcess(age, ["-d", "-i", Self.identityFile(alice), plainAfter + "/key.age"]).exitCode == 0)
        let carol = try Member("Carol", host: host)
        let restored = try carol.todo("clone", host.url(), "--name", "Carol", "--email", carol.email, "--identity", recoveryFile)
        #expect(restored.exitCode == 0, "\(restored)")
        #expect(Set(try carol.allTitles()) == ["Call the plumber about the boiler", "Water the ferns"])
    }

    /// What the remote's host can change, each refused with 65 and nothing local touched:
    /// a damaged data file, one under a key the household never had, one under a retired key,
    /// a file todo does not write, a merge commit.
    @Test func whatTheHostChangesIsRefused() throws {
        let age = try requireProgram("age")
        let host = try GitHost(.path)
        let (alice, _, _) = try Self.household(host)
        try alice.change("member", "leave", "Bob")
        try alice.sync()
        let remote = host.repositories + "/household.git"
        let tip = try host.git("household.git", "rev-parse", "main").stdout.trimmingCharacters(in: .newlines)
        let plain = alice.sb.root + "/plain"
        #expect(try alice.sb.gitRun(["clone", "-q", host.url(), plain]).exitCode == 0)
        let keys = try runProcess(age, ["-d", "-i", Self.identityFile(alice), plain + "/key.age"]).stdout
        let retired = try #require(keys.split(separator: "\n").first { $0.hasPrefix("identity 1 ") }.map { String($0.split(separator: " ")[2]) })
        let retiredFile = alice.sb.root + "/retired.txt"
        try writeBytes(retiredFile, Array((retired + "\n").utf8))
        let retiredRecipient = try runProcess(age, ["-d", "-i", retiredFile, plain + "/data.age"])
        #expect(retiredRecipient.exitCode != 0, "the newest data file is not under the retired key")
        let recipientOfRetired = try runProcess(try requireProgram("age-keygen"), ["-y", retiredFile]).stdout.trimmingCharacters(in: .newlines)
        let stranger = try runProcess(try requireProgram("age-keygen"), []).stdout
        let strangerRecipient = try #require(stranger.split(separator: "\n").first { $0.hasPrefix("# public key: ") }.map { String($0.dropFirst(14)) })

        func commit(_ files: [(String, [UInt8])], parents: [String] = [tip]) throws -> String {
            var entries = ""
            for (name, bytes) in files {
                let blob = alice.sb.root + "/blob"
                try writeBytes(blob, bytes)
                let id = try host.git("household.git", "hash-object", "-w", blob).stdout.trimmingCharacters(in: .newlines)
                entries += "100644 blob \(id)\t\(name)\n"
            }
            let tree = try runProcess(gitBinary, ["--git-dir", remote, "mktree"], stdin: .text(entries)).stdout.trimmingCharacters(in: .newlines)
            let c = try runProcess(
                gitBinary, ["--git-dir", remote, "commit-tree", tree] + parents.flatMap { ["-p", $0] } + ["-m", "todo"],
                environment: ["GIT_AUTHOR_NAME": "todo", "GIT_AUTHOR_EMAIL": "todo@todo.invalid", "GIT_COMMITTER_NAME": "todo",
                    "GIT_COMMITTER_EMAIL": "todo@todo.invalid"])
            return c.stdout.trimmingCharacters(in: .newlines)
        }
        func encrypted(to recipient: String) throws -> [UInt8] {
            try runProcess(age, ["-r", recipient], stdin: .text("# v2 git bundle\n\nPACK")).stdoutBytes
        }
        // A well-made bundle under the epoch in force that does not follow the remote's history.
        let epoch = try #require(keys.split(separator: "\n").first { $0.hasPrefix("epoch ") }.map { String($0.dropFirst(6)) })
        let current = try #require(keys.split(separator: "\n").first { $0.hasPrefix("identity \(epoch) ") }.map { String($0.split(separator: " ")[2]) })
        let currentFile = alice.sb.root + "/current.txt"
        try writeBytes(currentFile, Array((current + "\n").utf8))
        let currentRecipient = try runProcess(try requireProgram("age-keygen"), ["-y", currentFile]).stdout.trimmingCharacters(in: .newlines)
        let stray = alice.sb.root + "/stray"
        #expect(try alice.sb.gitRun(["init", "-q", "-b", "main", stray]).exitCode == 0)
        #expect(try alice.sb.gitRun(["-C", stray, "-c", "user.name=Stray", "-c", "user.email=stray@example.org", "commit", "-q", "--allow-empty", "-m", "stray"]).exitCode == 0)
        #expect(try alice.sb.gitRun(["-C", stray, "bundle", "create", "-q", stray + "/x.bundle", "main"]).exitCode == 0)
        let strayData = try runProcess(age, ["-r", currentRecipient, stray + "/x.bundle"]).stdoutBytes
        let data = try host.git("household.git", "cat-file", "blob", "main:data.age").stdoutBytes
        var damaged = data
        damaged[damaged.count - 5] ^= 0x01
        let cases: [(String, String)] = [
            ("damaged", try commit([("data.age", damaged)])),
            ("never the household's", try commit([("data.age", try encrypted(to: strangerRecipient))])),
            ("retired", try commit([("data.age", try encrypted(to: recipientOfRetired))])),
            ("another file", try commit([("data.age", data), ("notes.txt", Array("hi".utf8))])),
            ("a merge", try commit([("data.age", data)], parents: [tip, tip + "^"])),
            ("a bundle that does not follow", try commit([("data.age", strayData)])),
        ]
        _ = try alice.add("Local change")
        let before = try LocalState(alice)
        for (what, bad) in cases {
            #expect(try host.git("household.git", "update-ref", "refs/heads/main", bad).exitCode == 0)
            let r = try alice.todo("sync")
            #expect(r.exitCode == 65, "\(what): \(r)")
            #expect(r.stderr.contains("The encrypted remote has"), "\(what): \(r)")
            if what == "a bundle that does not follow" { #expect(r.stderr.contains("not the household's next history"), "\(r)") }
            try expectUntouched(alice, since: before, pending: ["Local change"])
            #expect(try alice.git("fsck", "--no-dangling").exitCode == 0)
        }
        #expect(try host.git("household.git", "update-ref", "refs/heads/main", tip).exitCode == 0)
        try alice.sync()
    }
}
