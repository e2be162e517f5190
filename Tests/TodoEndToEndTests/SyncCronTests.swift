import Glibc
import Foundation
import Testing

/// What cron mails a person: nothing while the remote is briefly out of reach, one message once
/// syncs have failed for longer than `--quiet-for`, nothing for an overlapping run; and advice
/// that cannot split the household when a path remote goes missing.
@Suite(.timeLimit(.minutes(20)), .kit)
struct SyncCronTests {
    static let hour: Int64 = 3_600_000

    /// A member whose remote was reachable once and now refuses connections (a laptop away
    /// from home): a git:// URL on a loopback port nobody listens on.
    /// The host is returned to keep its sandbox (and the remote) alive.
    func memberAwayFromHome() throws -> (Member, String, GitHost) {
        let host = try GitHost(.path)
        let path = try host.createRepository()
        let alice = try Member("Alice", host: host)
        try alice.create(remote: path)
        _ = try alice.add("Buy milk")
        try alice.sync()
        _ = try alice.add("Call the plumber")
        let port = try freeLoopbackPort()
        try alice.change("remote", "set", "git://127.0.0.1:\(port)/household.git")
        return (alice, path, host)
    }

    @Test func aQuietSyncStaysSilentUntilFailuresLastLongerThanADay() throws {
        let (alice, _, host) = try memberAwayFromHome()
        defer { withExtendedLifetime(host) {} }
        let first = try alice.todo("sync", "--quiet", "--timeout", "2")
        #expect(first.exitCode == 75, "\(first)")
        #expect(first.stdout.isEmpty && first.stderr.isEmpty, "cron mails nothing yet: \(first)")

        alice.sb.now = fixedNow + 23 * Self.hour
        let later = try alice.todo("sync", "--quiet", "--timeout", "2")
        #expect(later.exitCode == 75 && later.stdout.isEmpty && later.stderr.isEmpty, "\(later)")

        alice.sb.now = fixedNow + 25 * Self.hour
        let told = try alice.todo("sync", "--quiet", "--timeout", "2")
        #expect(told.exitCode == 75, "\(told)")
        #expect(told.stdout.isEmpty)
        #expect(told.stderr.contains("has failed since 2025-11-20 09:00"), "\(told)")
        #expect(told.stderr.contains("Your 1 change is saved"), "\(told)")

        // Once told, the next runs of the same day are quiet again; a day later, one more message.
        alice.sb.now = fixedNow + 26 * Self.hour
        let quietAgain = try alice.todo("sync", "--quiet", "--timeout", "2")
        #expect(quietAgain.exitCode == 75 && quietAgain.stderr.isEmpty, "\(quietAgain)")
        alice.sb.now = fixedNow + 50 * Self.hour
        let toldAgain = try alice.todo("sync", "--quiet", "--timeout", "2")
        #expect(toldAgain.stderr.contains("has failed since 2025-11-20 09:00"), "\(toldAgain)")

        // Every run is in the sync log, quiet or not.
        #expect(alice.syncLog.components(separatedBy: "outcome=error").count - 1 == 5, "\(alice.syncLog)")
        // Without --quiet a person at a terminal hears of every failure.
        let loud = try alice.todo("sync", "--timeout", "2")
        #expect(loud.exitCode == 75 && loud.stderr.contains("household remote"), "\(loud)")
    }

    @Test func aSuccessStartsTheQuietPeriodAfresh() throws {
        let (alice, path, host) = try memberAwayFromHome()
        defer { withExtendedLifetime(host) {} }
        let away = try alice.todo("sync", "--quiet", "--timeout", "2")
        #expect(away.exitCode == 75 && away.stderr.isEmpty, "\(away)")
        try alice.change("remote", "set", path)
        alice.sb.now = fixedNow + 30 * Self.hour
        let home = try alice.todo("sync", "--quiet")
        #expect(home.exitCode == 0 && home.stderr.isEmpty, "\(home)")
        try alice.change("remote", "set", "git://127.0.0.1:\(try freeLoopbackPort())/household.git")
        alice.sb.now = fixedNow + 40 * Self.hour
        let awayAgain = try alice.todo("sync", "--quiet", "--timeout", "2")
        #expect(awayAgain.exitCode == 75 && awayAgain.stderr.isEmpty, "failing for 0 h since the last success: \(awayAgain)")
    }

    @Test func quietForAndTheHouseholdSettingChooseThePeriod() throws {
        let (alice, _, host) = try memberAwayFromHome()
        defer { withExtendedLifetime(host) {} }
        let zero = try alice.todo("sync", "--quiet", "--quiet-for", "0", "--timeout", "2")
        #expect(zero.exitCode == 75 && zero.stderr.contains("has failed since"), "\(zero)")

        let (bob, _, bobsHost) = try memberAwayFromHome()
        defer { withExtendedLifetime(bobsHost) {} }
        _ = try bob.git("config", "todo.quietFor", "1h")
        let first = try bob.todo("sync", "--quiet", "--timeout", "2")
        #expect(first.exitCode == 75 && first.stderr.isEmpty, "\(first)")
        bob.sb.now = fixedNow + 2 * Self.hour
        let told = try bob.todo("sync", "--quiet", "--timeout", "2")
        #expect(told.stderr.contains("has failed since"), "\(told)")

        let bad = try bob.todo("sync", "--quiet", "--quiet-for", "soon")
        #expect(bad.exitCode == 64 && bad.stderr.contains("--quiet-for"), "\(bad)")
        _ = try bob.git("config", "todo.quietFor", "forever")
        let badSetting = try bob.todo("sync", "--quiet", "--timeout", "2")
        #expect(badSetting.exitCode == 78 && badSetting.stderr.contains("todo.quietFor"), "\(badSetting)")
    }

    /// Failures that need a person are mailed at once, quiet or not.
    @Test func aQuietSyncReportsConfigurationFailuresAtOnce() throws {
        let sb = try Sandbox()
        #expect(try sb.todo("init", "--name", "Alice", "--email", "a@example.org").exitCode == 0)
        let r = try sb.todo("sync", "--quiet")
        #expect(r.exitCode == 78 && r.stderr.contains("no remote"), "\(r)")
    }

    @Test func aPathRemoteThatWentMissingIsNotSomethingToCreate() throws {
        let host = try GitHost(.path)
        let path = try host.createRepository()
        let alice = try Member("Alice", host: host)
        try alice.create(remote: path)
        _ = try alice.add("Buy milk")
        try alice.sync()
        // The drive is unmounted: the repository is no longer there.
        #expect(rename(path, path + ".unmounted") == 0)
        let r = try alice.todo("sync", "--timeout", "5")
        #expect(r.exitCode == 75, "\(r)")
        #expect(r.stderr.contains("is missing, though earlier syncs found it there"), "\(r)")
        #expect(r.stderr.contains("mounted"), "\(r)")
        #expect(!r.stderr.contains("git init --bare"), "never advise creating it: \(r)")

        // A remote never synced with may still be one to create.
        let bob = try Member("Bob", host: host)
        try bob.create(remote: host.repositories + "/never-made.git")
        let first = try bob.todo("sync", "--timeout", "5")
        #expect(first.exitCode == 78 && first.stderr.contains("git init --bare"), "\(first)")
    }
}
