import Glibc
import Foundation
import Testing
import TodoCore

/// `todo list`, `show` and `status` say, in one line on stderr, when task files were changed by
/// hand and not committed, or when a committed task file cannot be read; `status --json` lists
/// both.
@Suite(.timeLimit(.minutes(20)), .kit) struct HandEditWarningTests {
    static let editedWarning = "changed by hand and not committed"

    /// Saves `bytes` over `path` as most editors do: a new file renamed into place.
    func saveByRename(_ sb: Sandbox, _ path: String, _ bytes: [UInt8]) throws {
        let full = sb.repo() + "/" + path
        try writeBytes(full + ".swp", bytes)
        try #require(rename(full + ".swp", full) == 0)
    }

    func warnings(_ r: Run) -> [String] { r.stderr.split(separator: "\n").map(String.init) }

    @Test func aCleanHouseholdHasNoWarnings() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let milk = try sb.add("Buy milk")
        for args in [["list"], ["show", milk.short], ["status"]] {
            let r = try sb.todo(args)
            #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        }
        let status = try json(try sb.todo("status", "--json").stdout)
        #expect(status["handEdits"] == .array([]) && status["unreadable"] == .array([]))
    }

    @Test func handEditsAreReported() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let milk = try sb.add("Buy milk")
        let bins = try sb.add("Take out the bins")
        var text = try String(contentsOfFile: sb.repo() + "/" + milk.path, encoding: .utf8)
        text = text.replacingOccurrences(of: "Buy milk", with: "Buy oat milk")
        try saveByRename(sb, milk.path, Array(text.utf8))
        let stray = "tasks/\(bins.id.prefix(2))/notes.txt"
        try writeBytes(sb.repo() + "/" + stray, Array("remember\n".utf8))

        for args in [["list"], ["show", bins.short], ["status"]] {
            let r = try sb.todo(args)
            #expect(r.exitCode == 0, "\(r)")
            let lines = warnings(r).filter { $0.contains(Self.editedWarning) }
            #expect(lines.count == 1 && warnings(r).count == 1, "\(r)")
            #expect(lines.first?.contains(milk.path) == true && lines.first?.contains(stray) == true, "\(r)")
        }
        let list = try sb.todo("list")
        #expect(list.stdout.contains("Buy milk"), "the committed task is listed: \(list)")

        let status = try json(try sb.todo("status", "--json").stdout)
        #expect(status["handEdits"]?.strings == [milk.path, stray].sorted())
    }

    /// When the check itself fails (here, the tree of a folder that looks edited cannot be
    /// read: its object is damaged), `show` says so in one line rather than saying nothing, and
    /// goes on with the same exit status (`list` words the same check with the same call).
    @Test func aCheckThatFailsIsSaidNotSkipped() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let milk = try sb.add("Buy milk")
        var bins = try sb.add("Take out the bins")
        for n in 0..<20 where bins.id.prefix(2) == milk.id.prefix(2) { bins = try sb.add("Take out the bins \(n)") }
        try #require(bins.id.prefix(2) != milk.id.prefix(2))
        let folder = "tasks/\(bins.id.prefix(2))"
        let tree = try sb.git("rev-parse", "HEAD:" + folder).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let object = sb.repo() + "/.git/objects/\(tree.prefix(2))/\(tree.dropFirst(2))"
        try #require(chmod(object, 0o644) == 0)
        try writeBytes(object, Array("damaged".utf8))
        var later = [timespec(tv_sec: time(nil) + 60, tv_nsec: 0), timespec(tv_sec: time(nil) + 60, tv_nsec: 0)]
        try #require(utimensat(AT_FDCWD, sb.repo() + "/" + folder, &later, 0) == 0)
        do {
            let r = try sb.todo("show", milk.short)
            #expect(r.exitCode == 0, "\(r)")
            #expect(r.stdout.contains("Buy milk"), "\(r)")
            let lines = warnings(r).filter { $0.contains("hand edits") }
            #expect(lines.count == 1 && lines.first?.hasPrefix("todo: warning: hand edits could not be checked (") == true, "\(r)")
            #expect(lines.first?.hasSuffix("); run `todo doctor`.") == true, "\(r)")
        }
    }

    /// A later command that writes other files (and the index) does not make a hand edit look
    /// committed.
    @Test func aHandEditIsStillReportedAfterAnotherChange() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let milk = try sb.add("Buy milk")
        try saveByRename(sb, milk.path, Array("{ half typed\n".utf8))
        #expect(try sb.todo("list").stderr.contains(milk.path))
        _ = try sb.add("Take out the bins")
        let list = try sb.todo("list")
        #expect(list.stderr.contains(Self.editedWarning) && list.stderr.contains(milk.path), "\(list)")
        // Discarded with git: the warning goes.
        #expect(try sb.git("checkout", "--", milk.path).exitCode == 0)
        let clean = try sb.todo("list")
        #expect(clean.exitCode == 0 && clean.stderr.isEmpty, "\(clean)")
    }

    /// A copy of the household (every folder newer than the index) has no hand edits.
    @Test func aCopiedHouseholdHasNoWarnings() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        for n in 1...20 { _ = try sb.add("Task \(n)") }
        let copy = sb.root + "/copy"
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: sb.repo(), toPath: copy + "/home")
        for _ in 1...2 {
            let r = try sb.todo(["list"], env: ["TODO_HOME": copy])
            #expect(r.exitCode == 0 && r.stderr.isEmpty && r.lines.count == 20, "\(r)")
        }
    }

    /// In a copied household every index entry's stat data is out of date. `todo status`
    /// compares every file and reports only the edit, writing nothing; `todo doctor --fix`
    /// refreshes the index as `git status` does (so git, and the next check, see only the
    /// edited file as changed), and `todo list` still reports the edit although its folder is
    /// now older than the index.
    @Test func doctorFixRefreshesACopiedIndexAndListStillSeesTheEdit() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let milk = try sb.add("Buy milk")
        for n in 1...10 { _ = try sb.add("Task \(n)") }
        let copy = sb.root + "/copy"
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: sb.repo(), toPath: copy + "/home")
        let repo = copy + "/home"
        let full = repo + "/" + milk.path
        var text = try String(contentsOfFile: full, encoding: .utf8)
        text = text.replacingOccurrences(of: "Buy milk", with: "Buy oat milk")
        try writeBytes(full + ".swp", Array(text.utf8))
        try #require(rename(full + ".swp", full) == 0)
        let stale = try sb.gitRun(["-C", repo, "diff-files", "--name-only"])
        try #require(stale.lines.count == 12, "every entry's stat data is out of date in a copy: \(stale)")

        let status = try sb.todo(["status"], env: ["TODO_HOME": copy])
        #expect(status.exitCode == 0 && warnings(status).count == 1 && status.stderr.contains(milk.path), "\(status)")
        // `status` only reads: the index stays as it was; `doctor --fix` refreshes it.
        #expect(try sb.gitRun(["-C", repo, "diff-files", "--name-only"]).lines.count == 12)
        let fix = try sb.todo(["doctor", "--fix", "--offline"], env: ["TODO_HOME": copy])
        #expect(fix.stdout.contains(milk.path), "\(fix)")
        let refreshed = try sb.gitRun(["-C", repo, "diff-files", "--name-only"])
        #expect(refreshed.lines == [milk.path], "\(refreshed)")
        let list = try sb.todo(["list"], env: ["TODO_HOME": copy])
        #expect(list.exitCode == 0 && list.stderr.contains(Self.editedWarning) && list.stderr.contains(milk.path), "\(list)")
    }

    /// Appends to `path` in place (the same inode), then puts its folder's times back, so that
    /// nothing but the file's own stat data and content tell of the edit.
    func appendInPlace(_ sb: Sandbox, _ path: String, _ text: String) throws {
        let full = sb.repo() + "/" + path
        let folder = String(full[..<(full.lastIndex(of: "/") ?? full.endIndex)])
        var before = stat()
        try #require(stat(folder, &before) == 0)
        var inode = stat()
        try #require(stat(full, &inode) == 0)
        let fd = open(full, O_WRONLY | O_APPEND)
        try #require(fd >= 0)
        let written = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        try #require(written == text.utf8.count)
        var times = [before.st_atim, before.st_mtim]
        try #require(utimensat(AT_FDCWD, folder, &times, 0) == 0)
        var after = stat()
        try #require(stat(folder, &after) == 0 && stat(full, &inode) == 0)
        try #require(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
    }

    /// An editor that writes in place (nano, `echo >> file`) leaves the folder's time alone:
    /// `todo status` compares every task file with the index, `todo show` its own file.
    @Test func anInPlaceEditIsSeenByStatusAndShow() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let milk = try sb.add("Buy milk")
        _ = try sb.add("Take out the bins")
        try appendInPlace(sb, milk.path, "\n")

        for args in [["status"], ["show", milk.short]] {
            let r = try sb.todo(args)
            #expect(r.exitCode == 0, "\(r)")
            #expect(warnings(r).count == 1 && r.stderr.contains(Self.editedWarning) && r.stderr.contains(milk.path), "\(r)")
        }
        #expect(try sb.todo("show", milk.short).stdout.contains("Buy milk"))
        let report = try sb.todo("status", "--json")
        #expect(report.exitCode == 0, "\(report)")
        #expect(try json(report.stdout)["handEdits"]?.strings == [milk.path], "\(report)")

        // Discarded with git: nothing to warn about.
        #expect(try sb.git("checkout", "--", milk.path).exitCode == 0)
        for args in [["status"], ["show", milk.short]] {
            let r = try sb.todo(args)
            #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        }
        #expect(try json(try sb.todo("status", "--json").stdout)["handEdits"] == .array([]))
    }

    /// A file rewritten in place (no rename) is seen by `todo doctor`, which compares every file.
    @Test func anInPlaceEditIsSeenByDoctor() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let milk = try sb.add("Buy milk")
        let fd = open(sb.repo() + "/" + milk.path, O_WRONLY | O_APPEND)
        try #require(fd >= 0)
        _ = "\n".withCString { write(fd, $0, 1) }
        close(fd)
        let r = try sb.todo("doctor", "--offline", "--json")
        #expect(r.exitCode == 65, "\(r)")
        let found = try json(r.stdout)["findings"]?.items ?? []
        #expect(found.contains { $0["check"]?.stringValue == "hand-edit" && $0["path"]?.stringValue == milk.path }, "\(r)")
    }

    @Test func unreadableCommittedFilesAreReported() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let milk = try sb.add("Buy milk")
        let bins = try sb.add("Take out the bins")
        try sb.commitByHand([(milk.path, Array("{ not json\n".utf8))], message: "oops")

        let show = try sb.todo("show", bins.short)
        #expect(show.exitCode == 0, "\(show)")
        #expect(warnings(show).count == 1 && show.stderr.contains("cannot be read") && show.stderr.contains(milk.path), "\(show)")
        let status = try sb.todo("status")
        #expect(warnings(status).count == 1 && status.stderr.contains(milk.path), "\(status)")
        let list = try sb.todo("list")
        #expect(list.stderr.contains(milk.path) && !list.stdout.contains("Buy milk"), "\(list)")

        let report = try json(try sb.todo("status", "--json").stdout)
        let unreadable = report["unreadable"]?.items ?? []
        #expect(unreadable.count == 1 && unreadable.first?["path"]?.stringValue == milk.path, "\(report)")
        #expect(unreadable.first?["reason"]?.stringValue?.isEmpty == false)

        // Fixed by a new commit: the warnings go.
        let fix = try sb.todo("doctor", "--fix", "--offline")
        #expect(fix.exitCode == 0, "\(fix)")
        for args in [["list"], ["show", bins.short], ["status"]] {
            let r = try sb.todo(args)
            #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        }
    }
}
