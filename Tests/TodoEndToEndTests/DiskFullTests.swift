import Foundation
import Testing

/// A full disk during a commit, for real: the household lives on a 2 MiB tmpfs mounted in a
/// private user and mount namespace (`unshare -rm`, no root needed on the host), filled up
/// before the change. Everything runs inside the namespace; the results come back as files.
@Suite(.timeLimit(.minutes(20)), .kit) struct DiskFullTests {
    @Test func aFullDiskFailsTheChangeCleanlyAndLosesNothing() throws {
        let (_, read) = try runInPrivateNamespace(
            folder: "small", needing: "a private tmpfs (`unshare -rm` and `mount -t tmpfs`)",
            """
            set -u
            exec unshare -rm sh -c '
              set -u
              mount -t tmpfs -o size=2m tmpfs "$D" || exit 90
              export TODO_HOME="$D/todo"
              "$TODO" init --name Alice --email alice@example.org >/dev/null || exit 91
              "$TODO" add "Before" >/dev/null || exit 92
              head -c 8m /dev/zero > "$D/fill" 2>/dev/null
              "$TODO" add "While full" >"$R/add.out" 2>"$R/add.err"; echo $? >"$R/add.rc"
              git -C "$TODO_HOME/home" fsck --strict --no-progress >"$R/fsck1" 2>&1; echo $? >"$R/fsck1.rc"
              git --no-optional-locks -C "$TODO_HOME/home" status --porcelain --untracked-files=all >"$R/status1" 2>&1
              git -C "$TODO_HOME/home" log --format=%s >"$R/log1"
              rm "$D/fill"
              "$TODO" add "After" >/dev/null 2>"$R/after.err"; echo $? >"$R/after.rc"
              "$TODO" list >"$R/list" 2>&1
              git -C "$TODO_HOME/home" fsck --strict --no-progress >"$R/fsck2" 2>&1; echo $? >"$R/fsck2.rc"
              git -C "$TODO_HOME/home" status --porcelain --untracked-files=all >"$R/status2" 2>&1
            '
            """)
        #expect(read("add.rc") == "73\n", "add on a full disk: \(read("add.err"))")
        #expect(read("add.out").isEmpty)
        #expect(read("add.err").contains("is full. Nothing was changed."), "\(read("add.err"))")
        #expect(read("add.err").split(separator: "\n").count <= 2, "one or two lines: \(read("add.err"))")
        #expect(read("fsck1.rc") == "0\n", "\(read("fsck1"))")
        #expect(read("status1").isEmpty, "nothing half-written: \(read("status1"))")
        let subjects = read("log1").split(separator: "\n")
        #expect(subjects.count == 2 && subjects[0].hasPrefix("add: Before ("), "no commit for the failed add: \(subjects)")

        // Once there is room again, the next command works normally.
        #expect(read("after.rc") == "0\n", "\(read("after.err"))")
        #expect(read("list").contains("Before") && read("list").contains("After"), "\(read("list"))")
        #expect(!read("list").contains("While full"))
        #expect(read("fsck2.rc") == "0\n", "\(read("fsck2"))")
        #expect(read("status2").isEmpty, "\(read("status2"))")
    }

    /// A household on a read-only file system (a bind mount made read-only in a private mount
    /// namespace; tests run as root, so a mode would not stop a write): a change fails with 73
    /// and says the file system is read-only, naming the household, never "check its
    /// permissions"; reads still work; nothing was written.
    @Test func aReadOnlyFileSystemFailsTheChangeWith73AndSaysSo() throws {
        let (home, read) = try runInPrivateNamespace(
            folder: "ro", needing: "a read-only bind mount (`unshare -rm` and `mount --bind`)",
            """
            set -u
            export TODO_HOME="$D/todo"
            "$TODO" init --name Alice --email alice@example.org >/dev/null || exit 91
            "$TODO" add "Before" >/dev/null || exit 92
            exec unshare -rm sh -c '
              set -u
              mount --bind "$D" "$D" && mount -o remount,bind,ro "$D" || exit 90
              "$TODO" add "While read-only" >"$R/add.out" 2>"$R/add.err"; echo $? >"$R/add.rc"
              "$TODO" list >"$R/list" 2>"$R/list.err"; echo $? >"$R/list.rc"
              git -C "$TODO_HOME/home" log --format=%s >"$R/log"
            '
            """)
        #expect(read("add.rc") == "73\n", "add on a read-only file system: \(read("add.err"))")
        #expect(read("add.out").isEmpty)
        #expect(read("add.err").contains(home + "/todo"), "names the household: \(read("add.err"))")
        #expect(read("add.err").contains("read-only"), "\(read("add.err"))")
        #expect(!read("add.err").lowercased().contains("permissions"), "\(read("add.err"))")
        #expect(read("list.rc") == "0\n", "a read works: \(read("list.err"))")
        #expect(read("list").contains("Before") && !read("list").contains("While read-only"), "\(read("list"))")
        #expect(read("log").split(separator: "\n").count == 2, "no commit for the failed add: \(read("log"))")
    }

    /// Runs `script` in a fresh sandbox with `D` set to an empty folder `folder` and `R` to one
    /// for the results, which it writes as files (a private namespace's work cannot be seen
    /// from outside it); returns `D` and a reader of those files. `needing` says what the
    /// script must be able to do: the test cannot run without it.
    private func runInPrivateNamespace(folder: String, needing: String, _ script: String) throws -> (String, (String) -> String) {
        try requireProgram("unshare")
        try requireProgram("mount")
        let sb = try Sandbox()
        let mountPoint = sb.root + "/" + folder
        let results = sb.root + "/results"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: results, withIntermediateDirectories: true)
        let run = try sb.shell("export D='\(mountPoint)' R='\(results)'\n" + script).wait()
        try #require(run.exitCode == 0, "\(needing) could not be set up: \(run)")
        return (mountPoint, { name in (try? String(contentsOfFile: results + "/" + name, encoding: .utf8)) ?? "<missing \(name)>" })
    }
}
