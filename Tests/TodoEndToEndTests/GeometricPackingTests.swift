import Foundation
import Glibc
import Testing
import TodoCore

/// The automatic housekeeping packs geometrically (docs/FORMAT.md, "Geometric packing"): the
/// large pack stays as it is, only what is new is packed, and `todo maintenance` by hand still
/// packs everything. Judged by git: `git fsck --full --strict`, `git count-objects -v` (no
/// garbage, nothing loose), `git verify-pack`, `git ls-tree`.
@Suite(.timeLimit(.minutes(10)), .kit) struct GeometricPackingTests {
    static let quiet = ["TODO_MAINTENANCE_THRESHOLD": "off"]
    /// `todo maintenance --auto` due as soon as more than ten objects are loose.
    static let due = ["TODO_MAINTENANCE_THRESHOLD": "10"]

    @Test func automaticRunsKeepTheLargePackAndPackOnlyWhatIsNew() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        try importAndPack(sb, tasks: 2_000)
        let large = try #require(packs(sb).first)
        let inode = try inodeOf(sb, large)

        try history(sb, changes: 12, prefix: "a")
        let run = try sb.todo(["maintenance", "--auto"], env: Self.due)
        #expect(run.exitCode == 0, "\(run)")
        var now = packs(sb)
        #expect(now.count == 2 && now.contains(large), "\(now)")
        #expect(try inodeOf(sb, large) == inode, "the large pack was rewritten")
        let fresh = try #require(now.first { $0 != large })
        // About 12 × (2–3 commits, their trees and blobs): nothing of the 2,000 imported tasks.
        let objects = try packedObjects(sb, fresh)
        #expect(objects > 30 && objects < 200, "\(objects) objects in the new pack")
        try expectWhole(sb)

        // Again, with a second round: the small pack is rolled up with the new objects.
        try history(sb, changes: 30, prefix: "b")
        #expect(try sb.todo(["maintenance", "--auto"], env: Self.due).exitCode == 0)
        now = packs(sb)
        #expect(now.count == 2 && now.contains(large) && !now.contains(fresh), "\(now)")
        try expectWhole(sb)

        // By hand: one pack.
        #expect(try sb.todo("maintenance").exitCode == 0)
        #expect(packs(sb).count == 1 && !packs(sb).contains(large))
        try expectWhole(sb)
    }

    /// A pack git wrote of a few objects is rolled up with the loose ones; a run killed at each
    /// point loses nothing, and the next run leaves the store whole, without garbage.
    @Test(needsTestHook("TODO_MAINTENANCE_STOP_AT"), arguments: ["packed", "loose-half", "old-pack-index"])
    func aKilledGeometricRunLosesNothing(_ point: String) throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        try importAndPack(sb, tasks: 2_000)
        let large = try #require(packs(sb).first)
        try history(sb, changes: 3, prefix: "s")
        #expect(try sb.git("repack", "-q").exitCode == 0)  // loose objects only: a small pack
        #expect(packs(sb).count == 2)
        try history(sb, changes: 12, prefix: "t")
        let tree = try sb.git("ls-tree", "-r", "refs/heads/main").stdout
        let listed = try sb.todo("list", "--all", "--json").stdout

        let marker = sb.root + "/io/stopped-" + point
        let running = try sb.start(
            ["maintenance", "--auto"], env: Self.due.merging(["TODO_MAINTENANCE_STOP_AT": point + ":" + marker]) { _, new in new })
        let deadline = ContinuousClock.now + .seconds(60)
        while !FileManager.default.fileExists(atPath: marker) {
            try #require(ContinuousClock.now < deadline, "maintenance did not reach \(point) within a minute")
            usleep(20_000)
        }
        #expect(running.kill(after: 0).signal == SIGKILL)
        #expect(packs(sb).contains(large))
        let fsck = try sb.git("fsck", "--full", "--strict", "--no-progress")
        #expect(fsck.exitCode == 0, "killed at \(point): \(fsck)")
        #expect(try sb.git("ls-tree", "-r", "refs/heads/main").stdout == tree)
        #expect(try sb.todo("list", "--all", "--json").stdout == listed)

        try history(sb, changes: 12, prefix: "u")
        #expect(try sb.todo(["maintenance", "--auto"], env: Self.due).exitCode == 0)
        #expect(packs(sb).contains(large), "\(packs(sb))")
        try expectWhole(sb)
    }

    // MARK: - Helpers

    /// `tasks` imported and packed by hand into one pack with deltas.
    func importAndPack(_ sb: Sandbox, tasks: Int) throws {
        let rows = (0..<tasks).map { jsonObject(["title": "Imported \($0)", "notes": "a note to make the file longer"]) }
        let run = try sb.todo("import", "-", stdin: jsonArray(rows), env: Self.quiet)
        try #require(run.exitCode == 0, "\(run)")
        try #require(try sb.todo("maintenance").exitCode == 0)
        try #require(packs(sb).count == 1)
    }

    /// `changes` adds, each followed by an edit: loose objects.
    func history(_ sb: Sandbox, changes: Int, prefix: String) throws {
        let script = """
            for i in $(seq 1 \(changes)); do
              id=$("$TODO" add "\(prefix) $i") || exit 1
              "$TODO" edit "$id" --note "note $i" >/dev/null || exit 2
            done
            """
        let run = try sb.shell(script, env: Self.quiet).wait()
        try #require(run.exitCode == 0, "\(run)")
    }

    /// The packs' names (`pack-<sha1>`), sorted.
    func packs(_ sb: Sandbox) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sb.repo() + "/.git/objects/pack")) ?? []
        return names.filter { $0.hasSuffix(".pack") }.map { String($0.dropLast(5)) }.sorted()
    }

    func inodeOf(_ sb: Sandbox, _ pack: String) throws -> UInt64 {
        var st = stat()
        try #require(stat(sb.repo() + "/.git/objects/pack/" + pack + ".pack", &st) == 0)
        return UInt64(st.st_ino)
    }

    /// Objects in one pack, by `git verify-pack -v`.
    func packedObjects(_ sb: Sandbox, _ pack: String) throws -> Int {
        let run = try sb.git("verify-pack", "-v", ".git/objects/pack/" + pack + ".idx")
        try #require(run.exitCode == 0, "\(run)")
        return run.lines.filter { $0.split(separator: " ").count >= 5 && $0.count > 40 && $0.prefix(40).allSatisfy(\.isHexDigit) }.count
    }

    /// Nothing loose, no garbage, `git fsck --strict` clean, every pack with its index.
    func expectWhole(_ sb: Sandbox) throws {
        let counts = try sb.git("count-objects", "-v").stdout
        #expect(counts.contains("\ncount: 0\n") || counts.hasPrefix("count: 0\n"), "\(counts)")
        #expect(counts.contains("garbage: 0"), "\(counts)")
        let fsck = try sb.git("fsck", "--full", "--strict", "--no-progress")
        #expect(fsck.exitCode == 0 && fsck.stderr.isEmpty, "\(fsck)")
        try sb.expectClean()
    }
}
