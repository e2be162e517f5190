import Foundation
import Testing
import TodoCore

/// Faults that randomized runs of several members (scripts/chaos.py) found, each reduced to the
/// few commands that show it.
@Suite(.timeLimit(.minutes(20)), .kit) struct RandomRunFindingsTests {
    /// An undo of the edit that gave a chore its first rotation wrote `"rotation": null`, which
    /// the format does not allow: the task dropped out of every list and the household could no
    /// longer sync (exit 65) until `doctor --fix`.
    @Test func undoOfAFirstRotationLeavesAReadableChore() throws {
        let (host, alice) = try aliceSyncedWithAPathRemote(first: "Buy milk")
        let trash = try alice.add("Take out the trash", "--every", "week")
        try alice.change("edit", trash.short, "--rotate", "Alice,Bob")
        try alice.change("undo")

        let task = try TaskCodec.decode(try alice.sb.committedBytes(trash.path))
        #expect(task.rotation.isEmpty && task.isChore)
        let list = try alice.todo("list")
        #expect(list.exitCode == 0 && list.stderr.isEmpty && list.stdout.contains("Take out the trash"), "\(list)")
        try alice.sync()
        try expectRemote(host, tree: try alice.tree())
        try alice.expectClean()
    }

    /// A clock past the year 9999 (here 10093) made `add --every` start the chore on a date the
    /// format does not allow: the new task was unreadable and the household could not sync. A
    /// change now writes no date after 2199-12-31 (docs/FORMAT.md, "Dates"): the chore is
    /// refused with the range, nothing is written, and the household still lists and syncs.
    @Test func aClockPastTheYear9999AddsNoUnreadableChore() throws {
        let (host, alice) = try aliceSyncedWithAPathRemote(first: "Buy milk")
        let before = try alice.tree()
        alice.sb.now = 316_633_324_020_000
        let refused = try alice.todo("add", "Take out the trash", "--every", "mon,thu")
        #expect(refused.exitCode == 64 && refused.stderr.contains("1970-01-01 through 2199-12-31"), "\(refused)")
        #expect(try alice.tree() == before)
        let list = try alice.todo("list")
        #expect(list.exitCode == 0 && list.stderr.isEmpty && list.stdout.contains("Buy milk"), "\(list)")
        try alice.sync()
        try expectRemote(host, tree: try alice.tree())
        try alice.expectClean()
    }

    /// A write killed after moving the branch but before writing the work tree and index left
    /// `git status` dirty until the next writing command. A command that only reads writes
    /// nothing (docs/FORMAT.md): it lists the household as of the last complete change and says
    /// a change is pending; the next command that writes finishes it.
    @Test func aReadTellsOfAnInterruptedChangeAndTheNextWriteFinishesIt() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("Walk the dog")
        let full = sb.repo() + "/" + a.path
        try sb.leaveInterruptedChange(of: a)
        let left = readBytes(full)
        let pending = readBytes(sb.repo() + "/.git/todo-pending") ?? []
        #expect(!pending.isEmpty)
        let list = try sb.todo("list")
        #expect(list.exitCode == 0 && list.stdout.contains("Walk the dog"), "\(list)")
        #expect(list.stderr.contains("a change was interrupted before it finished"), "\(list)")
        #expect(readBytes(full) == left && readBytes(sb.repo() + "/.git/todo-pending") ?? [] == pending, "a read leaves it")
        _ = try sb.add("Feed the cat")
        #expect(readBytes(full) == (try sb.committedBytes(a.path)))
        #expect(readBytes(sb.repo() + "/.git/todo-pending") ?? [] == [])
        try sb.expectClean()
    }
}
