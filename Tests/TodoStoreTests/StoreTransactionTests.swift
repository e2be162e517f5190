import Foundation
import Testing
import TodoCore

@testable import TodoStore

/// The store's transactions, called in process; the git CLI judges what they committed.
@Suite(.timeLimit(.minutes(20)), .kit)
struct StoreTransactionTests {
    /// A new household in a temporary directory, at a fixed time.
    struct Fixture {
        let dir = TempDir()
        let household: Household

        init() throws {
            household = try Household.create(
                home: dir.path, name: "home", identity: Identity(name: "Alice", email: "alice@example.org"),
                clock: .fixed(1_700_000_000_000), driverCommand: "true")
        }

        var repo: String { household.path }

        func head() throws -> String { try git("rev-parse", "main", in: repo).trimmingCharacters(in: .whitespacesAndNewlines) }
        func subject() throws -> String { try git("log", "-1", "--format=%s", "main", in: repo).trimmingCharacters(in: .newlines) }
        func commitCount() throws -> Int { Int(try git("rev-list", "--count", "main", in: repo).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }
        func committedFile(_ id: TaskID) throws -> String { try git("show", "main:\(id.path)", in: repo) }

        func add(_ title: String, tags: [String] = []) throws -> ChangedTask {
            var new = NewTask(title: title)
            new.tags = tags
            let outcome = try household.add(new)
            return try #require(outcome.tasks.first)
        }
    }

    @Test func addCommitsOneTaskFileAndSaysWhich() throws {
        let f = try Fixture()
        var new = NewTask(title: "Buy milk")
        new.assignee = "Bob"
        new.priority = .high
        new.tags = ["shop"]
        let outcome = try f.household.add(new)
        let added = try #require(outcome.tasks.first)
        #expect(outcome.commit == (try f.head()))
        #expect(try f.subject() == "add: Buy milk (\(added.short))")
        #expect(try git("log", "-1", "--format=%an <%ae>", "main", in: f.repo) == "Alice <alice@example.org>\n")
        #expect(added.task.id.hex.hasPrefix(added.short))
        let file = try f.committedFile(added.task.id)
        #expect(file.contains("\"title\": \"Buy milk\"") || file.contains("\"title\":\"Buy milk\""))
        let stored = try TaskCodec.decode(Array(file.utf8), expectedID: added.task.id)
        #expect(stored.assignee == "Bob" && stored.priority == .high && stored.tags == ["shop"])
        #expect(stored.createdBy == "Alice")
        #expect(Set(stored.stamps.keys) == Set(Task.stampedFields))
    }

    @Test func editWritesOnlyWhatDiffersInTheOrderAsked() throws {
        let f = try Fixture()
        let a = try f.add("Buy milk", tags: ["weekly"])
        var edit = TaskEdit()
        edit.title = "Buy oat milk"
        edit.due = .set(try #require(Due(stored: "2030-01-02")))
        edit.addTags = ["shop"]
        edit.removeTags = ["weekly"]
        let outcome = try f.household.edit(a.short, edit)
        let changed = try #require(outcome.tasks.first)
        #expect(changed.fields == ["title", "due", "+shop", "-weekly"])
        #expect(outcome.commit == (try f.head()))
        #expect(try f.subject() == "edit: Buy oat milk (\(changed.short))")
        let stored = try TaskCodec.decode(Array(try f.committedFile(a.task.id).utf8), expectedID: a.task.id)
        #expect(stored.title == "Buy oat milk" && stored.tags == ["shop"] && stored.due?.description == "2030-01-02")

        // The same edit again changes nothing and commits nothing.
        let before = try f.commitCount()
        let again = try f.household.edit(a.task.id.hex, edit)
        #expect(again.tasks.first?.changed == false && again.commit == nil)
        #expect(try f.commitCount() == before)
    }

    @Test func stateChangesCommitTheTasksThatChangedOnce() throws {
        let f = try Fixture()
        let a = try f.add("Alpha")
        let b = try f.add("Beta")
        let done = try f.household.set(.done, ids: [a.short, b.short, a.task.id.hex])
        #expect(done.tasks.map(\.task.title) == ["Alpha", "Beta"])
        #expect(done.tasks.allSatisfy { $0.fields == ["status"] })
        #expect(done.commit == (try f.head()))
        #expect(try f.subject() == "done: Alpha (\(a.short)), Beta (\(b.short))")

        let before = try f.commitCount()
        let again = try f.household.set(.done, ids: [a.short])
        #expect(again.tasks.first?.changed == false && again.commit == nil)
        #expect(try f.commitCount() == before)

        _ = try f.household.set(.reopen, ids: [a.short])
        #expect(try f.subject() == "reopen: Alpha (\(a.short))")
        #expect(try f.committedFile(a.task.id).contains("\"open\""))

        _ = try f.household.set(.rm, ids: [b.short])
        #expect(try f.subject() == "rm: Beta (\(b.short))")
        #expect(try TaskCodec.decode(Array(try f.committedFile(b.task.id).utf8), expectedID: b.task.id).deleted)
        _ = try f.household.set(.restore, ids: [b.short])
        #expect(try TaskCodec.decode(Array(try f.committedFile(b.task.id).utf8), expectedID: b.task.id).deleted == false)
        #expect(try f.subject() == "restore: Beta (\(b.short))")
    }

    @Test func aStateChangeNamingAnUnknownTaskChangesNothing() throws {
        let f = try Fixture()
        let a = try f.add("Alpha")
        let before = try f.head()
        #expect {
            try f.household.set(.done, ids: [a.short, "ffffffff"])
        } throws: { error in
            guard case .taskNotFound("ffffffff")? = error as? StoreError else { return false }
            return true
        }
        #expect(try f.head() == before)
    }

    /// In a process that has not declared itself one command (`todo serve`, this test), libgit2's
    /// check that a tree's blobs exist stays on: a bulk import stores its blobs as a pack of their
    /// own before making its trees, and is as whole and sound.
    @Test func aLargeImportInALongRunningProcessIsWholeAndSound() throws {
        let f = try Fixture()
        let json = "[" + (0..<(Household.bulkThreshold + 36)).map { #"{"title": "Bulk \#($0)"}"# }.joined(separator: ",") + "]"
        let outcome = try f.household.importTasks(Array(json.utf8), file: "bulk.json")
        #expect(outcome.imported == Household.bulkThreshold + 36)
        #expect(outcome.commit == (try f.head()))
        #expect(try f.subject() == "import: \(Household.bulkThreshold + 36) tasks from bulk.json")
        let files = try git("ls-tree", "-r", "--name-only", "main", "tasks", in: f.repo)
        #expect(files.split(separator: "\n").count == Household.bulkThreshold + 36)
        #expect(try git("fsck", "--strict", "--no-progress", in: f.repo).isEmpty)
        #expect(try git("status", "--porcelain", "--untracked-files=all", in: f.repo).isEmpty)
    }

    @Test func importKeepsIDsSkipsKnownOnesAndRefusesBadData() throws {
        let f = try Fixture()
        let json = """
            [{"id": "0123456789abcdef0123456789abcdef", "title": "One"},
             {"id": "fedcba9876543210fedcba9876543210", "title": "Two", "tags": ["x"]}]
            """
        let first = try f.household.importTasks(Array(json.utf8), file: "/tmp/some/tasks.json")
        #expect(first.imported == 2 && first.skipped == 0)
        #expect(first.commit == (try f.head()))
        #expect(try f.subject() == "import: 2 tasks from tasks.json")
        let ids = try git("ls-tree", "-r", "--name-only", "main", "tasks", in: f.repo)
        #expect(ids.contains("tasks/01/0123456789abcdef0123456789abcdef.json"))
        #expect(ids.contains("tasks/fe/fedcba9876543210fedcba9876543210.json"))

        let second = try f.household.importTasks(Array(json.utf8), file: nil)
        #expect(second.imported == 0 && second.skipped == 2 && second.commit == nil)

        #expect {
            try f.household.importTasks(Array("{ not json".utf8), file: nil)
        } throws: { error in
            guard case .badImport(let file, _)? = error as? StoreError else { return false }
            return file == "-"
        }
    }

    @Test func conflictRestoreWritesTheLostValueAsANewEdit() throws {
        let f = try Fixture()
        let a = try f.add("Kept title")
        let stamper = try f.household.stamper()
        let entry = ConflictEntry(
            kind: .field, task: a.task.id, title: "Kept title", field: "title",
            kept: .init(value: .string("Kept title"), stamp: stamper.stamp(after: a.task)),
            lost: .init(value: .string("Lost title"), stamp: stamper.stamp(after: nil)))
        let gone = ConflictEntry(
            kind: .modifyDelete, task: a.task.id, title: "Kept title", field: "deleted",
            kept: .init(value: .bool(false), stamp: nil), lost: .init(value: .bool(true), stamp: nil))
        try f.household.update { snap in
            var task = try #require(try snap.task(a.task.id))
            task.conflicts = [entry.json, gone.json]
            return Household.Update(tasks: [task], message: "log two conflicts", value: ())
        }

        let log = try f.household.conflictLog(of: a.short, since: nil, withShortIDs: true)
        #expect(Set(log.entries.map(\.entry.id)) == [entry.id, gone.id])
        #expect(log.shortIDs == [a.task.id: a.short])
        #expect(f.household.conflictsSeen() == log.entries.first?.time)

        let outcome = try f.household.restoreConflict(String(entry.id.prefix(8)))
        let restored = try #require(outcome.tasks.first)
        #expect(restored.fields == ["title"] && restored.task.title == "Lost title")
        #expect(outcome.commit == (try f.head()))
        #expect(try f.subject() == "conflicts restore: Lost title (\(restored.short)): title")
        let stored = try TaskCodec.decode(Array(try f.committedFile(a.task.id).utf8), expectedID: a.task.id)
        #expect(stored.title == "Lost title")
        // Its stamp is newer than every stamp the task had.
        #expect(try #require(stored.stamps["title"]).stamp > (try #require(a.task.maxStamp)))

        let again = try f.household.restoreConflict(entry.id)
        #expect(again.tasks.first?.changed == false && again.commit == nil)

        #expect {
            try f.household.restoreConflict(gone.id)
        } throws: { error in
            guard case .nothingToRestore(.nothingLost)? = error as? StoreError else { return false }
            return true
        }
    }

    @Test func statusCountsWhatNoRemoteHasSeen() throws {
        let f = try Fixture()
        let a = try f.add("Alpha")
        let b = try f.add("Beta")
        let status = try f.household.status()
        #expect(status.remote == nil)
        #expect(Set(status.unsent.map(\.id)) == [a.task.id, b.task.id])
        #expect(status.unsentShortIDs[a.task.id] == a.short && status.unsentShortIDs[b.task.id] == b.short)
        #expect(status.unmerged == 0 && status.newConflicts == 0)
    }

    @Test func logListsTheCommitsGitLists() throws {
        let f = try Fixture()
        let a = try f.add("Alpha")
        _ = try f.add("Beta")
        var edit = TaskEdit()
        edit.notes = "with a note"
        _ = try f.household.edit(a.short, edit)

        let all = try f.household.log(of: nil, limit: nil, withShortIDs: true)
        let gitAll = try git("log", "--format=%H", "main", in: f.repo).split(separator: "\n").map(String.init)
        #expect(all.entries.map(\.commit) == gitAll)
        #expect(all.shortIDs[a.task.id.hex] == a.short)

        let one = try f.household.log(of: a.short, limit: nil, withShortIDs: false)
        let gitOne = try git("log", "--format=%H", "main", "--", a.task.id.path, in: f.repo).split(separator: "\n").map(String.init)
        #expect(one.task == a.task.id)
        #expect(one.entries.map(\.commit) == gitOne)
        #expect(one.entries.first?.changes.first?.fields == ["notes"])
        #expect(one.shortIDs.isEmpty)

        let limited = try f.household.log(of: nil, limit: 1, withShortIDs: false)
        #expect(limited.entries.map(\.commit) == [gitAll[0]])
    }
}
