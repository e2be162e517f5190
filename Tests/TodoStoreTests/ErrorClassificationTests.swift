import Glibc
@testable import GitKit
import SystemPackage
import Testing

@testable import TodoStore

/// libgit2's error classes (git2/errors.h, libgit2 1.5).
private let classOS: Int32 = 2
private let classNet: Int32 = 12
private let classSSH: Int32 = 23
private let classHTTP: Int32 = 34
/// libgit2's return codes.
private let generic: Int32 = -1
private let eauth: Int32 = -16
private let ecertificate: Int32 = -17

private func gitError(_ message: String, code: Int32 = generic, errorClass: Int32 = 0) -> GitError {
    GitError(code: code, errorClass: errorClass, message: message, function: "git_remote_fetch")
}

/// The one function that reads libgit2's messages: each phrase, and what it is taken to mean.
@Suite(.timeLimit(.minutes(20))) struct LibgitTextTests {
    @Test(arguments: LibgitText.phrases.map { Phrase(text: $0.0, fact: $0.1) })
    func eachPhraseStatesItsFact(_ phrase: Phrase) {
        // In any case and inside a longer message.
        let message = "failed to do it: " + phrase.text.uppercased() + " (at the end)"
        #expect(LibgitText.facts(in: message).contains(phrase.fact))
        #expect(!LibgitText.facts(in: "all is well").contains(phrase.fact))
    }

    @Test func anHTTPServerErrorStatusIsAServerError() {
        #expect(LibgitText.facts(in: "unexpected http status code: 503").contains(.serverError))
        #expect(!LibgitText.facts(in: "unexpected http status code: 404").contains(.serverError))
        #expect(LibgitText.facts(in: "unexpected http status code: 401").contains(.authentication))
        #expect(LibgitText.facts(in: "unexpected http status code: 403").contains(.authentication))
        #expect(LibgitText.facts(in: "unexpected http status code: 404").contains(.noRepository))
    }

    /// A number in a path or a host name is not an HTTP status: a household whose remote lives
    /// in /srv/nas-401 is missing, not refusing credentials.
    @Test func numbersOutsideAStatusSayNothing() {
        let missing = "failed to resolve path '/tmp/todo-chaos-401-x/remote.git': No such file or directory"
        #expect(!LibgitText.facts(in: missing).contains(.authentication))
        #expect(LibgitText.facts(in: missing).contains(.noRepository))
        #expect(!LibgitText.facts(in: "could not read from /srv/backup-503/home.git").contains(.serverError))
        #expect(!LibgitText.facts(in: "failed to connect to nas-403.local: Connection refused").contains(.authentication))
        #expect(FailureShape.of(gitError(missing, errorClass: 2), timedOut: false) == .notFound)
    }

    @Test(arguments: [
        ("failed to write: No space left on device", Errno.noSpace),
        ("failed to write: Disk quota exceeded", Errno.diskQuotaExceeded),
        ("could not open 'x': Permission denied", Errno.permissionDenied),
        ("failed to make directory: Read-only file system", Errno.readOnlyFileSystem),
    ])
    func theErrnoOfAnOperatingSystemFailure(_ message: String, _ errno: Errno) {
        #expect(LibgitText.errno(in: message) == errno)
    }

    @Test func noErrnoWhereTheMessageNamesNone() {
        #expect(LibgitText.errno(in: "object not found") == nil)
    }

    /// A failed system call keeps its errno as the number, whatever its text says (no round
    /// trip through English); a libgit2 failure carries the facts GitKit read in its message.
    @Test func aSystemCallsErrnoIsKeptNotReadBack() {
        let full = GitError.system(errno: ENOSPC, call: "write")
        #expect(full.errno == .noSpace)
        #expect(full.facts.isEmpty)
        // EIO's text names none of the phrases, and is still EIO.
        #expect(GitError.system(errno: EIO, call: "fsync").errno == .ioError)
        let libgit = GitError(code: -1, errorClass: 2, message: "failed to write: No space left on device", function: "git_odb_write")
        #expect(libgit.errno == .noSpace && libgit.facts.contains(.noSpace))
        guard case .diskFull = StoreError.from(GitError.system(errno: EDQUOT, call: "write"), path: "/h") else {
            Issue.record("a full quota is a full disk")
            return
        }
    }

    /// An error nothing names is an internal error, never "not writable" (a guess that would
    /// send the user to check permissions).
    @Test func anUnnamedErrorIsInternal() {
        struct Unnamed: Error {}
        guard case .internalError(_, let cause) = StoreError.from(Unnamed(), path: "/h") else {
            Issue.record("an unnamed error must be internal")
            return
        }
        #expect(cause.text.contains("Unnamed"))
        guard case .malformedTask = StoreError.from(StoreError.malformedTask(path: "p", reason: "r"), path: "/h") else {
            Issue.record("a store error passes through")
            return
        }
    }

    struct Phrase: CustomTestStringConvertible, Sendable {
        let text: String
        let fact: LibgitText.Fact
        var testDescription: String { "\"\(text)\"" }
    }
}

/// Network failures, by shape: from libgit2's code and class first, its message only after.
@Suite(.timeLimit(.minutes(20))) struct FailureShapeTests {
    @Test func aPassedDeadlineIsATimeoutWhateverLibgit2Said() {
        #expect(FailureShape.of(gitError("authentication required", code: eauth), timedOut: true) == .timeout)
    }

    @Test func authenticationByCode() {
        #expect(FailureShape.of(gitError("whatever", code: eauth, errorClass: classSSH), timedOut: false) == .auth)
    }

    @Test func authenticationByHTTPStatus() {
        #expect(FailureShape.of(gitError("unexpected http status code: 401", errorClass: classHTTP), timedOut: false) == .auth)
    }

    @Test func anUnknownSSHHostKeyIsNotACertificateProblem() {
        #expect(FailureShape.of(gitError("invalid or unknown remote ssh hostkey", code: ecertificate, errorClass: classSSH), timedOut: false) == .hostKey)
        #expect(FailureShape.of(gitError("the SSL certificate is invalid", code: ecertificate, errorClass: 16), timedOut: false) == .certificate)
    }

    @Test func aMissingLocalPathIsNotFoundAndABadSchemeIsABadURL() {
        #expect(FailureShape.of(gitError("unsupported URL protocol"), timedOut: false) == .notFound)
        #expect(FailureShape.of(gitError("unsupported URL protocol: 'foo://x'"), timedOut: false) == .badURL)
        #expect(FailureShape.of(gitError("malformed URL 'x'"), timedOut: false) == .badURL)
    }

    @Test func aMissingRepository() {
        #expect(FailureShape.of(gitError("repository not found", errorClass: classNet), timedOut: false) == .notFound)
    }

    @Test func anUnresolvableHost() {
        #expect(FailureShape.of(gitError("failed to resolve address for nas.invalid", errorClass: classNet), timedOut: false) == .dns)
        #expect(FailureShape.of(gitError("could not resolve nas.invalid", errorClass: classNet), timedOut: false) == .dns)
    }

    @Test func aBusyServer() {
        #expect(FailureShape.of(gitError("unexpected http status code: 502", errorClass: classHTTP), timedOut: false) == .busy)
    }

    @Test func anyOtherFailureOfTheConnectionIsUnreachableByClass() {
        #expect(FailureShape.of(gitError("connection refused"), timedOut: false) == .refused)
        #expect(FailureShape.of(gitError("something new", errorClass: classOS), timedOut: false) == .refused)
        #expect(FailureShape.of(gitError("something new", errorClass: classNet), timedOut: false) == .refused)
        #expect(FailureShape.of(gitError("something new", errorClass: classSSH), timedOut: false) == .refused)
    }

    @Test func anythingElseIsOther() {
        #expect(FailureShape.of(gitError("something new", errorClass: 3), timedOut: false) == .other)
    }
}

/// Store errors keep their cause, and a full disk is known by its errno.
@Suite(.timeLimit(.minutes(20))) struct StoreErrorCauseTests {
    @Test func aFullDiskFromASystemCall() {
        let e = StoreError.from(SystemError(errno: Errno.noSpace.rawValue, what: "write /h/x"), path: "/h")
        guard case .diskFull(let path, let cause) = e else {
            Issue.record("\(e)")
            return
        }
        #expect(path == "/h" && cause.errno == .noSpace && cause.source == .system(.noSpace))
    }

    @Test func aFullDiskFromLibgit2() {
        let e = StoreError.from(gitError("failed to write: No space left on device", errorClass: classOS), path: "/h")
        guard case .diskFull(_, let cause) = e else {
            Issue.record("\(e)")
            return
        }
        #expect(cause.source == .git(errorClass: classOS, code: generic, errno: .noSpace))
    }

    @Test func aPermissionProblemIsNotWritableWithLibgit2sWords() {
        let e = StoreError.from(gitError("could not open 'x': Permission denied", errorClass: classOS), path: "/h")
        guard case .notWritable(_, let cause) = e else {
            Issue.record("\(e)")
            return
        }
        #expect(cause.text == "could not open 'x': Permission denied" && cause.errno == .permissionDenied)
    }

    @Test func anyOtherLibgit2FailureStaysALibgit2Failure() {
        guard case .git(let g) = StoreError.from(gitError("object not found", code: -3, errorClass: 9), path: "/h") else {
            Issue.record("not a git error")
            return
        }
        #expect(g.code == -3 && g.errorClass == 9)
    }

    @Test(arguments: [
        (SyncError.Code.timeout, SyncError.Class.transient), (.credentialsRefused, .authentication),
        (.unknownHostKey, .configuration), (.remoteData, .data), (.diskFull, .local),
    ])
    func everySyncCodeHasItsClass(_ code: SyncError.Code, _ kind: SyncError.Class) {
        #expect(SyncError(code, .noRemote).kind == kind)
    }
}
