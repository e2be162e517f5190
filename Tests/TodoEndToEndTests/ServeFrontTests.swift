import Foundation
import Testing

/// `todo serve ...` hands over to `todo-serve`, found beside `todo` or else on PATH, with the
/// arguments after `serve` and `TODO_SERVE_TODO`; without it, exit 78 and what to install.
@Suite(.timeLimit(.minutes(5)), .kit)
struct ServeFrontTests {
    /// The `todo` under test in a folder of its own (so that no `todo-serve` built beside the
    /// original is found), and that folder. A hard link where it can be: a copy is written
    /// through a descriptor, and a process another test starts meanwhile may hold it open
    /// for writing a moment, which makes running the copy fail with ETXTBSY.
    static func lonelyTodo(_ sb: Sandbox) throws -> (todo: String, folder: String) {
        let folder = sb.root + "/bin"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let copy = folder + "/todo"
        if link(sb.binary, copy) != 0 {
            let fd = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
            try #require(fd >= 0, "cannot create \(copy)")
            defer { close(fd) }
            let bytes = try #require(readBytes(sb.binary))
            var done = 0
            while done < bytes.count {
                let n = bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                try #require(n > 0, "cannot write \(copy)")
                done += n
            }
        }
        return (copy, folder)
    }

    /// A `todo-serve` in `folder` that prints its arguments one a line and `TODO_SERVE_TODO`,
    /// and exits 7: a link to the fixture, for the same reason.
    static func fakeServe(in folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try #require(symlink(fixture("serve/todo-serve"), folder + "/todo-serve") == 0)
    }

    @Test func withoutTodoServeItSaysWhatToInstallAndExits78() throws {
        let sb = try Sandbox()
        let (todo, _) = try Self.lonelyTodo(sb)
        sb.binary = todo
        let r = try sb.todo("serve", "--listen", "127.0.0.1:0")
        #expect(r.exitCode == 78, "\(r)")
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == "todo: todo-serve is not installed; install todo-serve beside todo (make install installs both)\n", "\(r)")
        // Other commands do not care.
        #expect(try sb.todo("--version").exitCode == 0)
    }

    @Test func theArgumentsAndTodosPathArriveBesideTodo() throws {
        let sb = try Sandbox()
        let (todo, folder) = try Self.lonelyTodo(sb)
        try Self.fakeServe(in: folder)
        sb.binary = todo
        let r = try sb.todo("-H", "cabin", "--verbose", "serve", "invite", "Kim", "--label", "Kim's phone", "--", "x y")
        #expect(r.exitCode == 7, "\(r)")
        #expect(r.stdout == "arg:-H\narg:cabin\narg:invite\narg:Kim\narg:--label\narg:Kim's phone\narg:--\narg:x y\ntodo:\(todo)\n", "\(r)")
        #expect(r.stderr.isEmpty, "\(r)")
        // `--help` is todo-serve's to answer.
        #expect(try sb.todo("serve", "--help").stdout == "arg:--help\ntodo:\(todo)\n")
    }

    @Test func itIsFoundOnPathWhenNotBesideTodo() throws {
        let sb = try Sandbox()
        let (todo, _) = try Self.lonelyTodo(sb)
        let elsewhere = sb.root + "/elsewhere"
        try Self.fakeServe(in: elsewhere)
        sb.binary = todo
        let r = try sb.todo(["serve"], env: ["PATH": "\(elsewhere):\(minimalPath)"])
        #expect(r.exitCode == 7, "\(r)")
        #expect(r.stdout == "todo:\(todo)\n", "\(r)")
    }
}
