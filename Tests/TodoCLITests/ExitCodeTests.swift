import FileKit
import Glibc
@testable import GitKit
import SystemPackage
import Testing
import TodoCore

@testable import TodoCLI
@testable import TodoStore

/// Every store failure has its exit code from the README's table; one nothing names is an
/// internal error (70) that shows its cause.
@Suite(.timeLimit(.minutes(5))) struct ExitCodeTests {
    @Test func anInternalErrorExits70WithItsCause() {
        let cause = Cause(source: .other, path: "/h", text: "UnexpectedThing(x: 1)")
        let e = CLIError(StoreError.internalError(path: "/h", cause: cause))
        #expect(e.exit == .software)
        #expect(e.exit.rawValue == 70)
        #expect(e.message.hasPrefix("Internal error: UnexpectedThing(x: 1) (in /h)."), "\(e.message)")
        #expect(!e.message.contains("permissions"))
    }

    @Test func aFullDiskAndAPermissionProblemKeepTheirCodes() {
        let full = StoreError.from(GitError.system(errno: ENOSPC, call: "write"), path: "/h")
        #expect(CLIError(full).exit == .cannotWrite)
        let denied = StoreError.from(GitError.system(errno: EACCES, call: "open"), path: "/h")
        #expect(CLIError(denied).exit == .cannotWrite)
    }

    /// README's table by errno, for a failed call of the file layer and for one of GitKit's
    /// system calls alike; the message names the file, and says "permissions" only for them.
    static let table: [(errno: Int32, code: Int32)] = [
        (EROFS, 73), (EACCES, 73), (EPERM, 73), (ENOSPC, 73), (EDQUOT, 73), (EMFILE, 75), (ENFILE, 75), (EAGAIN, 75),
        (EIO, 74), (ENOENT, 70), (EISDIR, 70),
    ]

    @Test(arguments: table)
    func eachErrnoHasItsCode(_ row: (errno: Int32, code: Int32)) {
        let (errno, code) = row
        let file = CLIError(StoreError.from(FileError(.write, path: "/h/x", errno: Errno(rawValue: errno)), path: "/h"))
        #expect(file.exit.rawValue == code, "\(file.message)")
        #expect(file.message.contains("/h/x"), "\(file.message)")
        #expect(file.message.contains("permissions") == (errno == EACCES || errno == EPERM), "\(file.message)")
        if errno != ENOENT && errno != EISDIR {
            let git = CLIError(StoreError.from(GitError.system(errno: errno, call: "write /h/x"), path: "/h"))
            #expect(git.exit.rawValue == code, "\(git.message)")
        }
    }
}
