import Foundation
import Glibc
import TestKit
import Testing
import TodoCore

/// This device's key (`todo key`) and the members' device keys (`member add --key`, `member key
/// remove`, the listing, `status`, `changes`, sync): docs/ENCRYPTION.md, "The household's keys".
@Suite(.timeLimit(.minutes(10)), .kit) struct KeyTests {
    func identityPath(_ sb: Sandbox) -> String { sb.home + "/.config/todo/identity" }

    func mode(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_mode & 0o777) : -1
    }

    /// A recipient of an identity `age-keygen` makes (stock age as the judge of what one is).
    func stockRecipient() throws -> String {
        let keygen = try #require(findProgram("age-keygen"), "age-keygen is not installed: the Debian package age installs it")
        let r = try runProcess(keygen, [])
        let line = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("# public key: ") }, "\(r)")
        return String(line.dropFirst("# public key: ".count))
    }

    /// Alice's household on a path remote, and Bob's clone of it.
    func aliceAndBob() throws -> (GitHost, Member, Member) {
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host)
        try alice.create(remote: host.url())
        try alice.sync()
        try bob.join(host.url())
        return (host, alice, bob)
    }

    func ok(_ r: Run, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.exitCode == 0, "\(r)", sourceLocation: sourceLocation)
    }

    @Test func theKeyIsMadeOnceInAPrivateFolderOutsideAnyHousehold() throws {
        let sb = try Sandbox()
        let first = try sb.todo("key")
        ok(first)
        let recipient = first.stdout.trimmingCharacters(in: .newlines)
        #expect(recipient.hasPrefix("age1") && recipient.count == 62 && first.lines.count == 1, "\(first)")
        #expect(first.stderr.contains(identityPath(sb)) && first.stderr.split(separator: "\n").count == 1, "\(first)")
        #expect(mode(identityPath(sb)) == 0o600)
        #expect(mode(sb.home + "/.config/todo") == 0o700)

        let second = try sb.todo("key")
        ok(second)
        #expect(second.stdout == first.stdout && second.stderr.isEmpty, "\(second)")
        let text = String(decoding: readBytes(identityPath(sb)) ?? [], as: UTF8.self)
        #expect(text.contains("# public key: \(recipient)\n") && text.contains("AGE-SECRET-KEY-1"))

        let j = try sb.todo("key", "--json")
        ok(j)
        guard case .object(let fields) = try json(j.stdout) else {
            Issue.record("not an object: \(j)")
            return
        }
        #expect(fields.map(\.0) == ["recipient", "identity"])
        #expect(try json(j.stdout)["recipient"]?.stringValue == recipient)
        #expect(try json(j.stdout)["identity"]?.stringValue == identityPath(sb))
    }

    @Test func stockAgeOpensWhatIsEncryptedToTheKey() throws {
        let age = try #require(findProgram("age"), "age is not installed: the Debian package age installs it")
        let sb = try Sandbox()
        let recipient = try sb.todo("key").stdout.trimmingCharacters(in: .newlines)
        let sealed = try runProcess(age, ["-e", "-r", recipient], stdin: .text("the spare key is under the mat\n"))
        #expect(sealed.succeeded, "\(sealed)")
        let opened = try runProcess(age, ["-d", "-i", identityPath(sb)], stdin: .bytes(sealed.stdoutBytes))
        #expect(opened.succeeded && opened.stdout == "the spare key is under the mat\n", "\(opened)")
    }

    @Test func anIdentityOthersMayReadIsRefused() throws {
        let sb = try Sandbox()
        ok(try sb.todo("key"))
        chmod(identityPath(sb), 0o644)
        let file = try sb.todo("key")
        #expect(file.exitCode == 78 && file.stdout.isEmpty, "\(file)")
        #expect(file.stderr.contains(identityPath(sb)) && file.stderr.contains("chmod 600"), "\(file)")
        chmod(identityPath(sb), 0o600)
        chmod(sb.home + "/.config/todo", 0o755)
        let folder = try sb.todo("key", "--json")
        #expect(folder.exitCode == 78 && folder.stdout.isEmpty, "\(folder)")
        #expect(folder.stderr.contains("chmod 700 \(sb.home)/.config/todo"), "\(folder)")
        chmod(sb.home + "/.config/todo", 0o700)
        ok(try sb.todo("key"))
    }

    @Test func keysAreGrantedListedAndRemoved() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let bobs = try stockRecipient()
        let mine = try sb.todo("key").stdout.trimmingCharacters(in: .newlines)
        let short = String(bobs.prefix(8)) + "…" + String(bobs.suffix(4))

        let added = try sb.todo("member", "add", "Bob", "--key", bobs)
        ok(added)
        #expect(added.stdout.contains("Added Bob to household") && added.stdout.contains("Granted device key \(short) to Bob."), "\(added)")
        #expect(try sb.subject() == "member: key for Bob")
        ok(try sb.todo("member", "add", "alice", "--key", mine))
        let count = try sb.commits().count
        let again = try sb.todo("member", "add", "Bob", "--key", bobs)
        #expect(again.exitCode == 0 && again.stdout.contains("nothing to add"), "\(again)")
        #expect(try sb.commits().count == count)

        let listing = try sb.todo("member")
        ok(listing)
        #expect(listing.lines.contains { $0.hasPrefix("Bob:") && $0.hasSuffix("; device key \(short)") }, "\(listing)")
        #expect(listing.lines.contains { $0.hasPrefix("Alice:") && $0.contains("device key age1") }, "\(listing)")

        let status = try json(try sb.todo("status", "--json").stdout)
        #expect(status["encrypted"] == .bool(false))
        #expect(status["recipients"]?["members"]?["Bob"] == .array([.string(bobs)]))
        #expect(status["recipients"]?["members"]?["Alice"] == .array([.string(mine)]))
        #expect(status["recipients"]?["recovery"] == .null)
        #expect(!(try sb.todo("status").stdout.contains("Encrypted:")))

        let removed = try sb.todo("member", "key", "remove", "bob", bobs)
        ok(removed)
        #expect(try sb.subject() == "member: key of Bob removed")
        let twice = try sb.todo("member", "key", "remove", "Bob", bobs)
        #expect(twice.exitCode == 66 && twice.stderr.contains("Bob has no device key \(bobs)"), "\(twice)")
        #expect(!(try sb.todo("member").stdout.contains(short)))
        #expect(try json(try sb.todo("status", "--json").stdout)["recipients"]?["members"]?["Bob"] == nil)
    }

    @Test func aBadRecipientIsRefusedAndNothingWritten() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let count = try sb.commits().count
        // A real recipient with its last character changed: bech32's checksum finds it.
        let real = try stockRecipient()
        let damaged = String(real.dropLast()) + (real.hasSuffix("q") ? "p" : "q")
        for bad in ["age1nope", "AGE-SECRET-KEY-1QQQQ", "", damaged] {
            let r = try sb.todo("member", "add", "Sam", "--key", bad)
            #expect(r.exitCode == 64 && r.stderr.contains("is not an age recipient"), "\(bad): \(r)")
            let remove = try sb.todo("member", "key", "remove", "Alice", bad)
            #expect(remove.exitCode == 64, "\(bad): \(remove)")
        }
        #expect(try sb.commits().count == count)
        #expect(!(try sb.todo("member").stdout.contains("Sam")))
    }

    @Test func aLeaverHasNoKeysAndAnEncryptedStatusCountsTheRest() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let (a, b, c) = (try stockRecipient(), try stockRecipient(), try stockRecipient())
        ok(try sb.todo("member", "add", "Alice", "--key", a))
        ok(try sb.todo("member", "add", "Alice", "--key", b))
        ok(try sb.todo("member", "add", "Bob", "--key", c))
        ok(try sb.todo("member", "leave", "Bob"))
        let status = try json(try sb.todo("status", "--json").stdout)
        #expect(status["recipients"]?["members"]?["Bob"] == nil)
        #expect(status["recipients"]?["members"]?["Alice"] == .array([a, b].sorted().map { .string($0) }))
        #expect(!(try sb.todo("member").lines.contains { $0.hasPrefix("Bob:") && $0.contains("device key") }))

        // The household's remote marked encrypted (as `remote set --encrypt` records it).
        ok(try sb.git("config", "todo.remote", sb.root + "/nowhere.git"))
        let encrypted = try sb.todo("status")
        #expect(encrypted.lines.contains("Encrypted: yes, to 2 devices of 1 member"), "\(encrypted)")
        #expect(try json(try sb.todo("status", "--json").stdout)["encrypted"] == .bool(true))
    }

    @Test func keysGrantedOnTwoReplicasBothSurviveAndChangesTellThem() throws {
        let (host, alice, bob) = try aliceAndBob()
        let (phone, laptop) = (try stockRecipient(), try stockRecipient())
        try alice.change("member", "add", "Bob", "--key", phone)
        try bob.change("member", "add", "Bob", "--key", laptop)
        try alice.sync()
        let told = try bob.sync()
        #expect(told.stdout.contains("Alice granted a device key to Bob"), "\(told)")
        try alice.sync()
        for m in [alice, bob] {
            let status = try json(try m.todo("status", "--json").stdout)
            #expect(status["recipients"]?["members"]?["Bob"] == .array([phone, laptop].sorted().map { .string($0) }), "\(m.name)")
        }
        try bob.change("member", "key", "remove", "Bob", phone)
        try bob.sync()
        let removal = try alice.sync()
        #expect(removal.stdout.contains("Bob removed a device key of Bob"), "\(removal)")
        let kinds = try json(try alice.todo("changes", "--json").stdout).items.compactMap { $0["kind"]?.stringValue }
        #expect(kinds == ["member-key-removed"], "\(kinds)")
        try expectConverged([alice, bob], host: host)
    }

    /// A grant and a removal of one key on two replicas: the later stamp's value counts on both.
    @Test(arguments: [true, false]) func aGrantAndARemovalEndWithTheLaterOne(grantLater: Bool) throws {
        let (host, alice, bob) = try aliceAndBob()
        let key = try stockRecipient()
        try alice.change("member", "add", "Bob", "--key", key)
        try alice.sync()
        try bob.sync()
        let base = fixedNow
        // Alice grants it anew (a removal then a grant on her replica); Bob removes it.
        alice.sb.now = base + (grantLater ? 7_200_000 : 3_600_000)
        bob.sb.now = base + (grantLater ? 3_600_000 : 7_200_000)
        try alice.change("member", "key", "remove", "Bob", key)
        try alice.change("member", "add", "Bob", "--key", key)
        try bob.change("member", "key", "remove", "Bob", key)
        try alice.sync()
        try bob.sync()
        try alice.sync()
        for m in [alice, bob] {
            let members = try json(try m.todo("status", "--json").stdout)["recipients"]?["members"]
            #expect(members?["Bob"] == (grantLater ? .array([.string(key)]) : nil), "\(m.name): \(String(describing: members))")
        }
        try expectConverged([alice, bob], host: host)
    }
}
