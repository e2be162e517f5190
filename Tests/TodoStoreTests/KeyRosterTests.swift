import Foundation
import Testing
import TodoCore

@testable import TodoStore

/// The household's keys in the settings file (docs/ENCRYPTION.md, "The household's keys";
/// docs/FORMAT.md, "Members"), in process: what is granted, removed, left, and the recovery
/// recipient.
@Suite(.timeLimit(.minutes(5)), .kit)
struct KeyRosterTests {
    static let now: Int64 = 1_763_640_000_000

    func household(_ dir: TempDir) throws -> Household {
        try Household.create(
            home: dir.path + "/data", name: "home", identity: Identity(name: "Alice", email: "alice@example.org"),
            clock: .fixed(Self.now), driverCommand: "true")
    }

    /// A new device recipient, from an identity made as `todo key` makes it.
    func recipient(_ dir: TempDir, _ name: String) throws -> String {
        let (identity, created) = try DeviceIdentity.loadOrCreate(path: dir.path + "/keys/\(name)/identity", now: Self.now / 1000)
        #expect(created)
        return DeviceIdentity.recipient(of: identity)
    }

    @Test func grantedKeysOfMembersStillInAndTheRecoveryKeyAreTheRecipients() throws {
        let dir = TempDir()
        let h = try household(dir)
        let (phone, laptop, bobs, recovery) = (try recipient(dir, "phone"), try recipient(dir, "laptop"), try recipient(dir, "bob"), try recipient(dir, "recovery"))
        #expect(try h.keyRoster() == .empty)

        #expect(try h.grantKey(phone, to: "alice") == "Alice")
        #expect(try h.grantKey(laptop, to: "Alice") == "Alice")
        #expect(try h.grantKey(bobs, to: "Bob") == "Bob")
        try h.setRecoveryRecipient(recovery)
        var keys = try h.keyRoster()
        #expect(keys.members == [MemberKeys(name: "Alice", recipients: [laptop, phone].sorted()), MemberKeys(name: "Bob", recipients: [bobs])])
        #expect(keys.recovery == recovery)
        #expect(keys.recipients == [phone, laptop, bobs, recovery].sorted())
        // Bob was not a member: the grant made him one, in the same commit.
        #expect(try h.roster().member("Bob")?.events.last?.member == true)

        // Granting again writes nothing; removing a key not granted is refused.
        let before = try h.headCommit()
        #expect(try h.grantKey(bobs, to: "bob") == "Bob")
        #expect(try h.headCommit() == before)
        #expect(throws: StoreError.self) { try h.removeKey(phone, of: "Bob") }
        #expect(throws: StoreError.self) { try h.grantKey("age1notakey", to: "Bob") }
        #expect(throws: StoreError.self) { try h.setRecoveryRecipient("AGE-SECRET-KEY-1") }
        #expect(try h.headCommit() == before)

        try h.removeKey(phone, of: "Alice")
        keys = try h.keyRoster()
        #expect(keys.members.first?.recipients == [laptop])
        #expect(!keys.recipients.contains(phone))

        // A member who left has no recipients, whatever the keys say.
        _ = try h.leaveMember("Bob", to: nil)
        keys = try h.keyRoster()
        #expect(keys.members.map(\.name) == ["Alice"])
        #expect(keys.recipients == [laptop, recovery].sorted())
    }

    @Test func valuesThatAreNotKeysAreIgnored() throws {
        let dir = TempDir()
        let h = try household(dir)
        let good = try recipient(dir, "good")
        _ = try h.grantKey(good, to: "Kim")
        _ = try h.writeSettings(message: "hand-made") { (task: inout Task, stamp: FieldStamp) throws -> Bool in
            try task.write(KeyRoster.key("age1bad", "Kim"), .string("granted"), stamp: stamp)
            try task.write(KeyRoster.key(good, "Lee"), .string("maybe"), stamp: stamp)
            try task.write(KeyRoster.recoveryField, .string("not a key"), stamp: stamp)
            return true
        }
        let keys = try h.keyRoster()
        #expect(keys.members == [MemberKeys(name: "Kim", recipients: [good])])
        #expect(keys.recovery == nil && keys.recipients == [good])
    }

    @Test func keysThatAreNotKeysDoNotParse() {
        let good = "age1" + String(repeating: "q", count: 58)
        #expect(KeyRoster.parse("member:key@\(good):Kim")?.name == "Kim")
        #expect(KeyRoster.parse("member:key@\(good):Kim:2")?.name == "Kim:2", "a name may hold ':'")
        for key in ["member:key@:Kim", "member:key@\(good):", "member:key@\(good)", "member:email:Kim", "member:keys@\(good):Kim", "recovery"] {
            #expect(KeyRoster.parse(key) == nil, "\(key)")
        }
        #expect(KeyRoster.recipient(good) == nil, "a recipient whose checksum is wrong")
        #expect(KeyRoster.recipient(String(repeating: "age1", count: 100)) == nil)
    }

    /// `changes` reads a grant, a removal and the recovery key written by another member.
    @Test func changesTellKeysByName() throws {
        let dir = TempDir()
        let h = try household(dir)
        let (phone, recovery) = (try recipient(dir, "phone"), try recipient(dir, "recovery"))
        _ = try h.grantKey(phone, to: "Bob")
        let before = try #require(try h.snapshot().task(HouseholdSettings.id))
        try h.removeKey(phone, of: "Bob")
        try h.setRecoveryRecipient(recovery)
        let after = try #require(try h.snapshot().task(HouseholdSettings.id))
        let told = Household.describeSettings(before: before, after: after, me: ["bob"], foreign: { _ in true }).map(\.change)
        #expect(told.count == 2, "\(told)")
        #expect(told.contains { c in
            if case .keyRemoved("Bob", phone) = c.what { return c.member == "Alice" && c.touchesMe }
            return false
        }, "\(told)")
        #expect(told.contains { c in
            if case .recoveryKey(recovery) = c.what { return !c.touchesMe }
            return false
        }, "\(told)")
    }

    @Test func anIdentityIsMadeOnceAndRefusedWhenOthersMayReadIt() throws {
        let dir = TempDir()
        let path = dir.path + "/config/todo/identity"
        let (first, created) = try DeviceIdentity.loadOrCreate(path: path, now: Self.now / 1000)
        #expect(created)
        let (again, createdAgain) = try DeviceIdentity.loadOrCreate(path: path, now: Self.now / 1000)
        #expect(!createdAgain && DeviceIdentity.recipient(of: again) == DeviceIdentity.recipient(of: first))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: dir.path + "/config/todo")
        #expect((folder[.posixPermissions] as? Int) == 0o700)

        chmod(path, 0o640)
        #expect {
            try DeviceIdentity.load(path: path)
        } throws: { error in
            guard case StoreError.identityExposed(let p, false) = error else { return false }
            return p == path
        }
        chmod(path, 0o600)
        chmod(dir.path + "/config/todo", 0o750)
        #expect {
            try DeviceIdentity.load(path: path)
        } throws: { error in
            guard case StoreError.identityExposed(_, true) = error else { return false }
            return true
        }
        chmod(dir.path + "/config/todo", 0o700)
        try Data("# nothing here\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            try DeviceIdentity.load(path: path)
        } throws: { error in
            guard case StoreError.identityUnreadable(_, .malformed) = error else {
                if case StoreError.identityUnreadable(_, .noIdentity) = error { return true }
                return false
            }
            return true
        }
    }
}
