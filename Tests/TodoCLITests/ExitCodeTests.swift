import Glibc
@testable import GitKit
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
}
