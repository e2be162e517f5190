import Foundation
import Testing
import TodoCore

/// The release before the roster (commit c80d975): `$TODO_PREVIOUS_BINARY`, which `make test`
/// builds beside the older one (`$TODO_OLD_BINARY`, fb9737e).
let previousTodo = environment("TODO_PREVIOUS_BINARY")

/// Both older releases share a household with a member on this version, who records a roster
/// (a member added, one away, one leaving) and changes a rotation (docs/FORMAT.md, "Members" and
/// "Turns: decided once and kept", "Older versions"): the older `todo` reads every file without a
/// warning, merges concurrent changes of its own with them, keeps the roster keys and the
/// `rotations` map byte for byte, and its `done` is credited to its member here.
@Suite(
    .timeLimit(.minutes(20)), .kit,
    .enabled(
        if: olderTodo != nil && previousTodo != nil,
        "TODO_OLD_BINARY and TODO_PREVIOUS_BINARY are not both set: make test builds fb9737e and c80d975 with scripts/build-at.sh and names them"
    ))
struct OlderVersionRosterTests {
    static let settingsPath = "tasks/00/00000000000000000000000000000000.json"

    /// The roster keys of a settings file, with their values and stamps.
    func rosterKeys(_ settings: JSONValue) -> [String: [JSONValue?]] {
        guard case .object(let members) = settings else { return [:] }
        var out: [String: [JSONValue?]] = [:]
        for (k, v) in members where Roster.parse(k) != nil { out[k] = [v, settings["stamps"]?[k]] }
        return out
    }

    @Test(arguments: ["fb9737e", "c80d975"]) func anOlderMemberKeepsTheRosterAndIsCredited(release: String) throws {
        let old = try #require(release == "fb9737e" ? olderTodo : previousTodo)
        try #require(isExecutableFile(old), "\(old) is not an executable file")
        let host = try GitHost(.path)
        try host.createRepository()
        let url = host.url()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host, now: fixedNow + 60_000)
        bob.sb.binary = old
        try alice.create(remote: url)
        let trash = try alice.add("Trash", "--every", "day", "--rotate", "Alice,Bob,Kim", "--from", "2025-11-20")
        try alice.change("member", "add", "Sam")
        try alice.change("member", "away", "Kim", "--from", "2025-11-24", "--until", "2025-11-30")
        try alice.sync()
        try bob.join(url)
        try bob.older(["list"])
        try bob.older(["show", trash.short])
        try bob.older(["chores", "--json"])

        // Apart: Alice puts Sam in the rotation and Lee leaves; Bob does today's trash (and on
        // the release with member details, records Kim's email).
        try alice.change("edit", trash.short, "--rotate", "Alice,Bob,Sam,Kim")
        try alice.change("member", "add", "Lee")
        try alice.change("member", "leave", "Lee")
        try bob.older(["done", trash.short])
        if release == "c80d975" { try bob.older(["member", "set", "Kim", "--email", "kim@example.org"]) }
        try alice.sync()
        // The older release makes the merge.
        try bob.sync()
        try alice.sync()
        #expect(try alice.head() == bob.head())

        // The judge, git: every roster key and its stamp, and the rotation's history, as written.
        let mine = try alice.committedJSON(Self.settingsPath)
        let written = rosterKeys(mine)
        #expect(written.count == 3, "Sam joined, Kim away, Lee joined and left the same day: \(mine)")
        let theirs = try bob.committedJSON(Self.settingsPath)
        #expect(rosterKeys(theirs) == written, "\(theirs)")
        if release == "c80d975" { #expect(theirs["member:email:Kim"] == .string("kim@example.org")) }
        let chore = try bob.committedJSON(trash.path)
        #expect(chore["rotations"]?["2025-11-21"] != nil, "\(chore)")
        #expect(chore["rotation"] == .array(["Alice", "Bob", "Sam", "Kim"].map { .string($0) }))
        #expect(try alice.git("fsck", "--strict", "--no-progress").exitCode == 0)

        // This version credits Bob's done, and the turns already announced have not moved.
        let chores = try json(try alice.todo("chores", "--json").stdout).items
        let credits = chores.first { $0["id"]?.stringValue == trash.id }?["completions"]
        #expect(credits?["Bob"]?["all"] == .number("1"), "\(chores)")
        let shown = try alice.todo("show", trash.short).stdout
        #expect(shown.contains("Thu 20 Nov: done by Bob"), "\(shown)")
        let members = try alice.todo("member").stdout
        #expect(members.contains("Kim") && members.contains("away 2025-11-24 to 2025-11-30") && members.contains("Lee"), "\(members)")
    }
}
