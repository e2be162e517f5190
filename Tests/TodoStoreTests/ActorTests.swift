import Foundation
import Testing
import TodoCore

@testable import TodoStore

/// A member acting through another front end: their name, email and replica id on what they
/// write, whatever the clone's git config says; and the names a household knows.
@Suite(.timeLimit(.minutes(10)), .kit)
struct ActorTests {
    static let kim = Actor(name: "Kim", email: "kim@example.org", replica: "0123456789abcdef")

    /// A household whose clone belongs to Alice (`owner`), opened again acting as someone.
    struct Fixture {
        let base: StoreTransactionTests.Fixture
        var dir: TempDir { base.dir }
        var owner: Household { base.household }

        init() throws { base = try StoreTransactionTests.Fixture() }

        func acting(_ actor: Actor?) throws -> Household {
            try Household.open(home: dir.path, name: "home", clock: .fixed(1_700_000_100_000), acting: actor)
        }

        func authors() throws -> String { try git("log", "-1", "--format=%an%ae %cn%ce", "main", in: owner.path) }
        func stored(_ id: TaskID) throws -> Task {
            try TaskCodec.decode(Array(try git("show", "main:\(id.path)", in: owner.path).utf8), expectedID: id)
        }
    }

    @Test func anActorsChangesCarryTheirNameEmailAndReplica() throws {
        let f = try Fixture()
        let h = try f.acting(Self.kim)
        let added = try #require(try h.add(NewTask(title: "Water plants")).tasks.first)
        #expect(try f.authors() == "Kimkim@example.org Kimkim@example.org\n")
        var task = try f.stored(added.task.id)
        #expect(task.createdBy == "Kim")
        #expect(!task.stamps.isEmpty && task.stamps.values.allSatisfy { $0.member == "Kim" && $0.stamp.replica == Self.kim.replica })

        var edit = TaskEdit()
        edit.title = "Water the plants"
        try h.edit(added.task.id.hex, edit)
        #expect(try f.authors() == "Kimkim@example.org Kimkim@example.org\n")
        task = try f.stored(added.task.id)
        #expect(task.stamps["title"]?.member == "Kim" && task.stamps["title"]?.stamp.replica == Self.kim.replica)

        // The clone's own member and replica are untouched.
        let again = try f.acting(nil)
        #expect(try again.identity() == Identity(name: "Alice", email: "alice@example.org"))
        #expect(try again.replicaID() != Self.kim.replica)
        try again.edit(added.task.id.hex, { var e = TaskEdit(); e.notes = "twice a week"; return e }())
        #expect(try f.authors() == "Alicealice@example.org Alicealice@example.org\n")
        #expect(try f.stored(added.task.id).stamps["notes"]?.member == "Alice")
    }

    @Test func aMalformedReplicaIsRefusedBeforeAnythingIsWritten() throws {
        let f = try Fixture()
        let before = try git("rev-parse", "main", in: f.owner.path)
        for bad in ["", "0123456789ABCDEF", "0123456789abcde", "0123456789abcdef0", "../../etc/passwd"] {
            #expect(throws: StoreError.self) { try f.acting(Actor(name: "Kim", email: "k@x", replica: bad)) }
        }
        #expect(try git("rev-parse", "main", in: f.owner.path) == before)
    }

    @Test func placeholderEmailsAreLowercasedAndSafe() {
        #expect(Actor.placeholderEmail(member: "Kim", household: "home") == "kim@home.todo.invalid")
        #expect(Actor.placeholderEmail(member: "Anne Marie", household: "Our_Flat.2") == "anne-marie@our_flat.2.todo.invalid")
        #expect(Actor.placeholderEmail(member: "Zoë <x>", household: "home") == "zo---x-@home.todo.invalid")
    }

    @Test func knownMembersAreSpelledAsTheHouseholdSpellsThem() throws {
        let f = try Fixture()
        var chore = NewTask(title: "Bins")
        chore.assignee = "Bob"
        chore.recurrence = Recurrence(rule: try #require(RepeatRule("weekly")), from: try #require(CivilDate(year: 2023, month: 11, day: 14)))
        chore.rotation = ["Bob", "Carla"]
        try f.owner.add(chore)
        try f.owner.setMember("Dana", MemberChange(email: "dana@example.org"))
        try f.acting(Self.kim).add(NewTask(title: "Call the plumber"))

        let h = try f.acting(nil)
        #expect(try h.knownMember("bob") == "Bob")
        #expect(try h.knownMember("CARLA") == "Carla")
        #expect(try h.knownMember("dana") == "Dana")
        #expect(try h.knownMember("kim") == "Kim")
        #expect(try h.knownMember("alice") == "Alice")
        #expect(try h.knownMember("Mallory") == nil)
        #expect(try h.memberEmail("DANA") == "dana@example.org")
        #expect(try h.memberEmail("Bob") == nil)
        #expect(try h.memberEmail("Mallory") == nil)
    }
}
