import Foundation
import Testing

/// A full disk during a commit, for real: the household lives on a 2 MiB tmpfs mounted in a
/// private user and mount namespace (`unshare -rm`, no root needed on the host), filled up
/// before the change. Everything runs inside the namespace; the results come back as files.
@Suite(.timeLimit(.minutes(20)), .kit) struct DiskFullTests {
    @Test func aFullDiskFailsTheChangeCleanlyAndLosesNothing() throws {
        try requireProgram("unshare")
        try requireProgram("mount")
        let sb = try Sandbox()
        let mountPoint = sb.root + "/small"
        let results = sb.root + "/results"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: results, withIntermediateDirectories: true)
        let script = """
            set -u
            export D='\(mountPoint)' R='\(results)'
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
            """
        let run = try sb.shell(script).wait()
        try #require(
            run.exitCode == 0,
            "a private tmpfs could not be set up (`unshare -rm` and `mount -t tmpfs` are needed): \(run)")
        func read(_ name: String) -> String {
            (try? String(contentsOfFile: results + "/" + name, encoding: .utf8)) ?? "<missing \(name)>"
        }
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
}
