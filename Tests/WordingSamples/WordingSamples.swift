import SystemPackage
import TodoCore

@testable import TodoStore

/// One value of every store failure and every sync problem, for the tests that word them all
/// (TodoWordingTests, the page's, the command line's). The switches in `name` are exhaustive, so
/// a new case fails to compile here until it has a sample, and `complete` fails until the sample
/// is listed. Every path in them is under `local` (say the test's temporary directory), so that
/// a test can tell a path of this machine in what a front end shows.
public enum WordingSamples {
    public static let commit = CommitFacts(id: "0123456789", authorName: "Bob", authorEmail: "bob@example.org")
    public static let link = FormatViolation(kind: .symbolicLink, path: "x")

    /// Every `StoreError` case, paths under `local`.
    public static func storeErrors(local: String) -> [StoreError] {
        let cause = Cause(source: .system(.permissionDenied), path: local + "/data/home/.git/index", text: "open \(local)/data/home/.git/index: Permission denied")
        let full = Cause(source: .system(.noSpace), path: local + "/data/home", text: "write: No space left on device")
        let odd = Cause(source: .other, path: local + "/data/home", text: "UnexpectedThing(path: \"\(local)/data/home/x\")")
        let today = CivilDate(year: 2026, month: 11, day: 26)!
        let later = CivilDate(year: 2026, month: 12, day: 3)!
        return [
            .invalidHouseholdName("a b"),
            .householdNotFound(name: "cabin", home: local + "/data"),
            .householdExists(name: "home", path: local + "/data/home"),
            .notWritable(path: local + "/data/home", cause: cause),
            .notWritable(path: local + "/data/home", cause: Cause(source: .system(.readOnlyFileSystem), path: local + "/data/home", text: "Read-only file system")),
            .fileFailed(path: local + "/data/home/.git/todo/list-cache", cause: Cause(source: .system(.ioError), path: local + "/data/home", text: "Input/output error")),
            .fileFailed(path: local + "/data/home/.git/todo/list-cache", cause: Cause(source: .system(.tooManyOpenFiles), path: local + "/data/home", text: "Too many open files")),
            .fileFailed(path: local + "/data/home/.git/todo/list-cache", cause: Cause(source: .system(.resourceTemporarilyUnavailable), path: local + "/data/home", text: "Resource temporarily unavailable")),
            .fileFailed(path: local + "/data/home/.git/todo/list-cache", cause: Cause(source: .system(.noSuchFileOrDirectory), path: local + "/data/home", text: "No such file or directory \(local)/data/home/x")),
            .internalError(path: local + "/data/home", cause: odd),
            .diskFull(path: local + "/data/home", cause: full),
            .taskNotFound("abcd"),
            .idTooShort("ab"),
            .invalidTaskID("xyz"),
            .settingsNotATask("0000"),
            .conflictNotFound("beef"),
            .nothingToRestore(.unreadableVersion),
            .nothingToRestore(.nothingLost),
            .nothingToRestore(.unreadableEntry),
            .ambiguousID("abcd", candidates: ["abcd1", "abcd2"]),
            .malformedTask(path: "tasks/ab/x.json", reason: "not JSON"),
            .handEdits(repo: local + "/data/home", paths: ["tasks/ab/x.json"]),
            .locked(repo: local + "/data/home", seconds: 30),
            .notAHousehold(path: local + "/data/home", reason: "no tasks folder in \(local)/data/home"),
            .mergeFailed([MergeFailure(path: "tasks/ab/x.json", reason: .tooLarge(size: 2 << 20))]),
            .unrelatedHistories,
            .badImport(file: local + "/tasks.json", ImportError(index: 2, .notADate(field: "due"))),
            .itemNotFound(task: "abcd", item: "milk"),
            .itemCheckedAndUnchecked(task: "abcd", item: "milk"),
            .notAChore("abcd"),
            .notAnOccurrence(task: "abcd", date: later),
            .notYetDue(task: "abcd", date: later, current: today),
            .afterDoneNeedsInterval(task: "abcd", rule: RepeatRule("tue")!),
            .afterDoneNeedsInterval(task: nil, rule: RepeatRule("tue")!),
            .catchUpAfterDone("abcd"),
            .catchUpAfterDone(nil),
            .noRotation("abcd"),
            .notInRotation(task: "abcd", member: "Eve", rotation: ["Ann", "Ben"]),
            .noComingTurn(task: "abcd", member: "Ann"),
            .sameMember(task: "abcd", member: "Ann"),
            .noSuchMember("Eve"),
            .memberAbsent(member: "Ann", date: later, away: (from: today, until: later)),
            .memberAbsent(member: "Ann", date: later, away: nil),
            .memberLeft("Ann"),
            .leaveToSelf("Ann"),
            .badAwayWindow(from: later, until: today, today: today),
            .dateOutOfRange(field: "due", date: CivilDate(year: 1, month: 1, day: 1)!),
            .fieldRefused(field: .title, value: " ", problem: .empty),
            .identityExposed(path: local + "/home/.config/todo/identity", folder: false),
            .identityExposed(path: local + "/home/.config/todo", folder: true),
            .identityUnreadable(path: local + "/home/.config/todo/identity", reason: .notRegularFile),
            .identityUnreadable(path: local + "/home/.config/todo/identity", reason: .otherOwner),
            .identityUnreadable(path: local + "/home/.config/todo/identity", reason: .noIdentity),
            .identityUnreadable(path: local + "/home/.config/todo/identity", reason: .malformed("invalid identity: wrong length at 0")),
            .badRecipient("age1nope"),
            .keyNotGranted(recipient: "age1qqqq", member: "Ann"),
            .git(RepositoryFailure(message: "failed to open '\(local)/data/home/.git/HEAD'", function: "git_reference_lookup", code: -1, errorClass: 2)),
        ]
    }

    public static func name(_ e: StoreError) -> String {
        switch e {
        case .invalidHouseholdName: "invalidHouseholdName"
        case .householdNotFound: "householdNotFound"
        case .householdExists: "householdExists"
        case .notWritable: "notWritable"
        case .fileFailed: "fileFailed"
        case .internalError: "internalError"
        case .diskFull: "diskFull"
        case .taskNotFound: "taskNotFound"
        case .idTooShort: "idTooShort"
        case .invalidTaskID: "invalidTaskID"
        case .settingsNotATask: "settingsNotATask"
        case .conflictNotFound: "conflictNotFound"
        case .nothingToRestore: "nothingToRestore"
        case .ambiguousID: "ambiguousID"
        case .malformedTask: "malformedTask"
        case .handEdits: "handEdits"
        case .locked: "locked"
        case .notAHousehold: "notAHousehold"
        case .mergeFailed: "mergeFailed"
        case .unrelatedHistories: "unrelatedHistories"
        case .badImport: "badImport"
        case .itemNotFound: "itemNotFound"
        case .itemCheckedAndUnchecked: "itemCheckedAndUnchecked"
        case .notAChore: "notAChore"
        case .notAnOccurrence: "notAnOccurrence"
        case .notYetDue: "notYetDue"
        case .afterDoneNeedsInterval: "afterDoneNeedsInterval"
        case .catchUpAfterDone: "catchUpAfterDone"
        case .noRotation: "noRotation"
        case .notInRotation: "notInRotation"
        case .noComingTurn: "noComingTurn"
        case .sameMember: "sameMember"
        case .noSuchMember: "noSuchMember"
        case .memberAbsent: "memberAbsent"
        case .memberLeft: "memberLeft"
        case .leaveToSelf: "leaveToSelf"
        case .badAwayWindow: "badAwayWindow"
        case .dateOutOfRange: "dateOutOfRange"
        case .fieldRefused: "fieldRefused"
        case .git: "git"
        case .identityExposed: "identityExposed"
        case .identityUnreadable: "identityUnreadable"
        case .badRecipient: "badRecipient"
        case .keyNotGranted: "keyNotGranted"
        }
    }

    /// How many cases `StoreError` has: `name` lists them all.
    public static let storeErrorCases = 44

    /// Every `SyncProblem` case; the remotes that can be a path are under `local` (a path remote
    /// of this machine) and, once more, a URL of another machine.
    public static func syncProblems(local: String) -> [SyncProblem] {
        let path = local + "/remote/household.git"
        let url = "ssh://host/h.git"
        var all: [SyncProblem] = [
            .sshNotRunnable(command: local + "/bin/ssh", reason: "not found"),
            .hostKeyChanged(host: "host", presented: "SHA256:x", target: "-p 2222 me@host"),
            .hostKeyUnknown(host: "host", target: "me@host"),
            .sshKeyLocked(remote: url, key: local + "/.ssh/id_ed25519"),
            .sshCredentialsRefused(remote: url, said: "Permission denied", user: nil),
            .sshHostUnresolvable(remote: url, host: "host"),
            .noGitOnServer(remote: url, said: "git-upload-pack: not found"),
            .sshFailed(remote: url, said: "broken pipe"),
            .timedOut(seconds: 60, step: "fetch"),
            .stopped(step: "fetch"),
            .unreachable(remote: "https://host/h.git", said: "connection refused"),
            .hostNotFound(remote: "https://host/h.git", said: "no such host"),
            .remoteBusy(said: "503"),
            .kerberosOnly(remote: "https://host/h.git"),
            .credentialsRefused(remote: "https://host/h.git"),
            .hostKeyUnverified(host: nil),
            .untrustedCertificate(host: "host"),
            .remoteMissing(remote: path),
            .repositoryGone(remote: url),
            .noRepository(remote: path),
            .noRepositoryToJoin(remote: url),
            .badURL(remote: "gopher://host"),
            .failed(remote: path, said: "could not find repository at '\(path)'"),
            .noRemote,
            .pushRaces(rounds: 5),
            .pushRefused(remote: url, reason: "hook declined"),
            .anotherHousehold(remote: path, household: "home"),
            .unrelatedHistories,
            .notAHousehold(remote: url),
            .remoteData(link, commit: commit),
            .remoteMainNotACommit(commit: "0123456789"),
            .unsendablePath(link, commit: nil),
            .unsendableFile(path: "tasks/ab/x.json", reason: "bad", commit: commit),
            .encryptedRemote(.retiredKey, commit: "0123456789"),
            .encryptedRemote(.unexpectedContent("tasks"), commit: "0123456789"),
            .encryptedRemote(.keyOutOfSequence(expected: 3, found: 5), commit: "0123456789"),
            .encryptedRemote(.undecryptable(file: "data.age", reason: "the header's MAC does not match"), commit: "0123456789"),
            .notGranted(recipient: "age1qyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqs3290gq"),
            .noLongerGranted(recipient: "age1qyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqs3290gq"),
            .noDeviceKey(path: local + "/.config/todo/identity", error: .identityExposed(path: local + "/.config/todo/identity", folder: false)),
            .noRecipients,
            .diskFull,
            .householdBusy,
            .handEdits(paths: ["tasks/ab/x.json"]),
            .mergeFailed([MergeFailure(path: "tasks/ab/x.json", reason: .tooLarge(size: 2 << 20))]),
            .repository(said: "failed to write '\(local)/data/home/.git/index'"),
            .store(.taskNotFound("ab")),
        ]
        // The remotes named above by URL, once more as paths of this machine.
        all += [
            .sshCredentialsRefused(remote: path, said: "Permission denied", user: nil), .unreachable(remote: path, said: "\(path): refused"),
            .remoteMissing(remote: "file://" + path), .repositoryGone(remote: path), .noRepositoryToJoin(remote: path),
            .badURL(remote: path), .pushRefused(remote: path, reason: "hook declined"), .notAHousehold(remote: path),
            .kerberosOnly(remote: path), .credentialsRefused(remote: path), .noGitOnServer(remote: path, said: "not found"),
            .sshFailed(remote: path, said: "broken pipe"), .hostNotFound(remote: path, said: "no such host"),
            .sshHostUnresolvable(remote: path, host: "host"), .sshKeyLocked(remote: path, key: local + "/.ssh/id_ed25519"),
        ]
        return all + storeErrors(local: local).map { .store($0) }
    }

    public static func name(_ p: SyncProblem) -> String {
        switch p {
        case .sshNotRunnable: "sshNotRunnable"
        case .hostKeyChanged: "hostKeyChanged"
        case .hostKeyUnknown: "hostKeyUnknown"
        case .sshKeyLocked: "sshKeyLocked"
        case .sshCredentialsRefused: "sshCredentialsRefused"
        case .sshHostUnresolvable: "sshHostUnresolvable"
        case .noGitOnServer: "noGitOnServer"
        case .sshFailed: "sshFailed"
        case .timedOut: "timedOut"
        case .stopped: "stopped"
        case .unreachable: "unreachable"
        case .hostNotFound: "hostNotFound"
        case .remoteBusy: "remoteBusy"
        case .kerberosOnly: "kerberosOnly"
        case .credentialsRefused: "credentialsRefused"
        case .hostKeyUnverified: "hostKeyUnverified"
        case .untrustedCertificate: "untrustedCertificate"
        case .remoteMissing: "remoteMissing"
        case .repositoryGone: "repositoryGone"
        case .noRepository: "noRepository"
        case .noRepositoryToJoin: "noRepositoryToJoin"
        case .badURL: "badURL"
        case .failed: "failed"
        case .noRemote: "noRemote"
        case .pushRaces: "pushRaces"
        case .pushRefused: "pushRefused"
        case .anotherHousehold: "anotherHousehold"
        case .unrelatedHistories: "unrelatedHistories"
        case .notAHousehold: "notAHousehold"
        case .remoteData: "remoteData"
        case .remoteMainNotACommit: "remoteMainNotACommit"
        case .unsendablePath: "unsendablePath"
        case .unsendableFile: "unsendableFile"
        case .encryptedRemote: "encryptedRemote"
        case .notGranted: "notGranted"
        case .noLongerGranted: "noLongerGranted"
        case .noDeviceKey: "noDeviceKey"
        case .noRecipients: "noRecipients"
        case .diskFull: "diskFull"
        case .householdBusy: "householdBusy"
        case .handEdits: "handEdits"
        case .mergeFailed: "mergeFailed"
        case .repository: "repository"
        case .store: "store"
        }
    }

    /// How many cases `SyncProblem` has: `name` lists them all.
    public static let syncProblemCases = 44

    /// A failed sync for each problem, with changes waiting, in the class the store would give it.
    public static func syncErrors(local: String) -> [SyncError] {
        syncProblems(local: local).map { SyncError(.transient, $0).noting(unsent: .init(count: 2, waitingForRemote: false)) }
    }
}
