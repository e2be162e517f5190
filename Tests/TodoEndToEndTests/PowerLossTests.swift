import Glibc
import Foundation
import Testing

/// What a machine that lost power in the middle of a change can leave, rebuilt by hand, and
/// how the next command recovers (docs/FORMAT.md, "Concurrency and crashes").
@Suite(.timeLimit(.minutes(20)), .kit) struct PowerLossTests {
    /// Objects written after the pending-change record was made durable but before the sync
    /// that makes them durable can come back empty or cut short; `main` never points at them.
    @Test func damagedLooseObjectsNamedInTheRecordAreRemoved() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let task = try sb.add("Before the power cut")
        let git = sb.repo() + "/.git"
        // Two objects of a change that never reached `main`: one empty, one cut short.
        let empty = "3b18e512dba79e4c8300dd08aeb37f8e728b8dad"
        let cut = "0123456789abcdef0123456789abcdef01234567"
        for (id, bytes) in [(empty, [UInt8]()), (cut, [0x78, 0x01, 0x2b])] {
            try FileManager.default.createDirectory(atPath: "\(git)/objects/\(id.prefix(2))", withIntermediateDirectories: true)
            try writeBytes("\(git)/objects/\(id.prefix(2))/\(id.dropFirst(2))", bytes)
        }
        try writeBytes(git + "/todo-pending", Array("\(task.path)\nobject \(empty)\nobject \(cut)\n".utf8))
        let broken = try sb.git("fsck", "--strict", "--no-progress")
        #expect(broken.exitCode != 0, "the damaged objects should be what git fsck rejects\n\(broken)")

        let next = try sb.todo("add", "After the power cut")
        #expect(next.exitCode == 0, "\(next)")
        #expect(access("\(git)/objects/\(empty.prefix(2))/\(empty.dropFirst(2))", F_OK) != 0)
        #expect(access("\(git)/objects/\(cut.prefix(2))/\(cut.dropFirst(2))", F_OK) != 0)
        try sb.expectClean()
        let shown = try sb.todo("show", task.short)
        #expect(shown.exitCode == 0 && shown.stdout.contains("Before the power cut"), "\(shown)")
    }

    /// Whole objects named in the record stay: they may be what `main` points at.
    @Test func wholeObjectsNamedInTheRecordStay() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let task = try sb.add("Kept")
        let head = try sb.git("rev-parse", "refs/heads/main").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try writeBytes(sb.repo() + "/.git/todo-pending", Array("\(task.path)\nobject \(head)\n".utf8))
        let next = try sb.todo("done", task.short)
        #expect(next.exitCode == 0, "\(next)")
        try sb.expectClean()
        #expect(try sb.git("cat-file", "-e", head).exitCode == 0)
    }
}
