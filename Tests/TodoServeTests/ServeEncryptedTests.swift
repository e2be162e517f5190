import Foundation
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// The hub on an encrypted household's clone (docs/ENCRYPTION.md): the page works as on any
/// clone, its sync uses the device key of the account it runs as, and what it sends reaches the
/// remote encrypted, readable by a member with the recovery key.
@Suite(.kit, .timeLimit(.minutes(5)), .serialized) struct ServeEncryptedTests {
    @Test func aChangeOnThePageReachesTheEncryptedRemote() async throws {
        let f = try ServeFixture()
        let remote = f.tmp.path + "/remote.git"
        _ = try runProcess("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", remote])
        // The account's device key, where the server looks for it ($HOME/.config/todo/identity).
        let key = DeviceIdentity.defaultPath(home: f.tmp.path, configHome: nil)
        let (device, _) = try DeviceIdentity.loadOrCreate(path: key, now: 1_800_000_000)
        let recovery = try f.household().encryptRemote(remote, device: DeviceIdentity.recipient(of: device))
        let id = try f.taskID(titled: "Ann's first chore")
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            let page = try await client.get("/", device).text
            #expect(page.contains("Ann&#39;s first chore") || page.contains("Ann's first chore"))
            #expect(try await client.post("/t/\(id)/done", device).status == .seeOther)
            let r = try await client.post("/sync", device)
            #expect(r.headers[.location] == "/sync" && r.notice == "synced", "\(r.headers)")
        }
        // The remote holds ciphertext under anonymous commits only.
        let log = try runProcess("/usr/bin/git", ["-C", remote, "log", "--format=%an %s", "main"])
        #expect(!log.stdout.isEmpty && log.stdout.split(separator: "\n").allSatisfy { $0 == "todo todo" }, "\(log.stdout)")
        let tree = try runProcess("/usr/bin/git", ["-C", remote, "ls-tree", "--name-only", "main"])
        #expect(tree.stdout == "data.age\nkey.age\n", "\(tree.stdout)")
        // A member with the recovery key reads the page's change.
        let file = f.tmp.path + "/recovery.txt"
        try Data((recovery + "\n").utf8).write(to: URL(fileURLWithPath: file))
        var options = SyncOptions()
        options.identityFile = file
        options.identityIsDevice = false
        let other = try Household.clone(
            home: f.tmp.path + "/other", name: "home", url: remote, identity: Identity(name: "Rec", email: "rec@example.org"),
            driverCommand: "false", options: options)
        let done = try runProcess("/usr/bin/git", ["-C", other.path, "log", "--format=%an %s", "main"])
        #expect(done.stdout.contains("Ann done: Ann's first chore"), "\(done.stdout)")
    }
}
