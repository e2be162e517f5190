import FileKit
import Glibc
import GitKit
public import SystemPackage
public import TodoCore

/// What went wrong in a household operation. Each case is a code a caller can switch on and
/// carries the facts a message needs; failures of the system or of libgit2 keep their cause.
/// The command layer turns each case into a message and an exit code, in one table
/// (`Sources/TodoCLI/Messages.swift`; README "Exit codes").
public enum StoreError: Error, Sendable {
    case invalidHouseholdName(String)
    case householdNotFound(name: String, home: String)
    case householdExists(name: String, path: String)
    case notWritable(path: String, cause: Cause)
    /// A failure the store has no name for (a bug, or a case nobody foresaw): reported as it
    /// is, never guessed at.
    case internalError(path: String, cause: Cause)
    case diskFull(path: String, cause: Cause)
    /// A file could not be read or written for a reason that is neither permissions nor a full
    /// disk: the disk failed (EIO), too many files are open (EMFILE, ENFILE), the file is busy
    /// (EAGAIN), or any other errno, kept in `cause` with the path (README "Exit codes").
    case fileFailed(path: String, cause: Cause)
    case taskNotFound(String)
    /// A task id prefix shorter than `ShortIDs.minimum` characters, refused whatever it matches.
    case idTooShort(String)
    /// A caller-chosen task id (`NewTask.id`) that is not 32 lowercase hex digits, or is the
    /// settings file's.
    case invalidTaskID(String)
    /// An id prefix that names only the household settings file, which is not a task.
    case settingsNotATask(String)
    case conflictNotFound(String)
    case nothingToRestore(NothingToRestore)
    case ambiguousID(String, candidates: [String])
    case malformedTask(path: String, reason: String)
    case handEdits(repo: String, paths: [String])
    case locked(repo: String, seconds: Int)
    case notAHousehold(path: String, reason: String)
    case mergeFailed([MergeFailure])
    case unrelatedHistories
    /// An import file that is not tasks (`file` as the user named it, `-` for standard input).
    case badImport(file: String, ImportError)
    /// No checklist item of the task matches the text or index given.
    case itemNotFound(task: String, item: String)
    /// One edit both checks and unchecks one checklist item (`item` as the task shows it).
    case itemCheckedAndUnchecked(task: String, item: String)
    /// `skip` (or another chore-only action) on a task that is not a chore.
    case notAChore(String)
    /// `done --on DATE` or `skip --on DATE` for a date that is not one of the chore's occurrences.
    case notAnOccurrence(task: String, date: CivilDate)
    /// `done --on DATE` for an occurrence after today that is not the chore's current one
    /// (done ahead of time is the current occurrence only).
    case notYetDue(task: String, date: CivilDate, current: CivilDate?)
    /// A chore that repeats from when it was done (`anchor` `done`) with a rule that is not an
    /// interval: a weekday or a day of the month (`task` nil: one being added).
    case afterDoneNeedsInterval(task: String?, rule: RepeatRule)
    /// `catch-up` for a chore that repeats from when it was done, which is never behind.
    case catchUpAfterDone(String?)
    /// `swap` or `pass` on a chore without a rotation.
    case noRotation(String)
    /// `swap` or `pass` naming someone the chore's rotation does not have.
    case notInRotation(task: String, member: String, rotation: [String])
    /// `swap` or `pass` when `member` has no coming turn of the chore (within a thousand occurrences).
    case noComingTurn(task: String, member: String)
    /// `swap` with oneself, `pass` to oneself.
    case sameMember(task: String, member: String)
    /// A name the household does not use (`member leave`, `member away`, `--to`).
    case noSuchMember(String)
    /// `swap`, `pass`, `member away` or `--to` naming a member who has left (`away`: nil) or is
    /// away on `date`.
    case memberAbsent(member: String, date: CivilDate, away: (from: CivilDate, until: CivilDate)?)
    /// A change asked for by a member acting through a front end (`ChangeMaker.member`) whose
    /// latest roster entry is `left`: nothing is written on their behalf.
    case memberLeft(String)
    /// `member leave NAME --to NAME`.
    case leaveToSelf(String)
    /// `member away` with an end before its start, or a window that has already ended.
    case badAwayWindow(from: CivilDate, until: CivilDate, today: CivilDate)
    /// A change that would write a date outside `DateBounds` (1970-01-01 through 2199-12-31):
    /// `field` is what holds it (`due`, `repeat` for a chore's start, `on` for an occurrence
    /// named, `away`, `occurrences`, `completions`, `turns`, `rotations`). Nothing is written.
    case dateOutOfRange(field: String, date: CivilDate)
    /// A value the field rules refuse (`FieldRules`; a device's kept lines past their bounds):
    /// `value` is what was given. Nothing is written.
    case fieldRefused(field: RuledField, value: String, problem: FieldRules.Problem)
    case git(RepositoryFailure)
    /// This device's identity file (`path`), or its folder (`folder` true, `path` the folder),
    /// may be read or written by others than its owner: it is not used (docs/ENCRYPTION.md).
    case identityExposed(path: String, folder: Bool)
    /// This device's identity file cannot be used as one.
    case identityUnreadable(path: String, reason: IdentityProblem)
    /// A text given as an age recipient (`age1…`) that is not one. Nothing is written.
    case badRecipient(String)
    /// `member key remove` of a recipient the member has not been granted.
    case keyNotGranted(recipient: String, member: String)

    /// Why an identity file cannot be used.
    public enum IdentityProblem: Sendable, Equatable {
        /// A folder, a device, a socket: not a regular file.
        case notRegularFile
        /// Another user owns it.
        case otherOwner
        /// A well-formed file with no identity in it.
        case noIdentity
        /// Not an identity file (the parser's words).
        case malformed(String)
    }

    /// What `fieldRefused` refused.
    public enum RuledField: String, Sendable {
        case title, notes, tag, assignee, item
        /// The property lines a device sent that the task keeps for it (docs/CALDAV.md).
        case keptLines
    }

    /// Why `conflicts restore` has nothing to write.
    public enum NothingToRestore: Sendable {
        /// The set-aside version of a task file is not a readable task.
        case unreadableVersion
        /// The entry records a file kept whole: nothing was lost.
        case nothingLost
        /// The entry's lost value is not a chore or checklist entry this version can write.
        case unreadableEntry
    }
}

/// The failure underneath a store error: which system call or libgit2 call, and how it failed.
public struct Cause: Sendable, CustomStringConvertible {
    public enum Source: Sendable, Equatable {
        /// A system call failed with this errno.
        case system(Errno)
        /// A libgit2 call failed: its error class and return code, and, for a failure of the
        /// operating system underneath it, the errno its message names.
        case git(errorClass: Int32, code: Int32, errno: Errno?)
        case other
    }

    public let source: Source
    /// The file or directory involved, when known.
    public let path: String?
    /// The failure as the system or libgit2 put it (shown in messages).
    public let text: String

    public var description: String { text }

    /// The errno behind the failure, from the system call or libgit2's report of it.
    public var errno: Errno? {
        switch source {
        case .system(let e): return e
        case .git(_, _, let e): return e
        case .other: return nil
        }
    }
}

/// A failed system call.
struct SystemError: Error, CustomStringConvertible {
    let errno: Int32
    let what: String
    var code: Errno { Errno(rawValue: errno) }
    var description: String { "\(what): \(String(cString: strerror(errno)))" }
}

extension StoreError {
    /// Maps a failure under `path` to a store error. A failed call of the file layer or another
    /// system call goes by its errno, with the file it names: a full disk (ENOSPC, EDQUOT), not
    /// writable (EROFS, EACCES, EPERM), any other errno a failed file (`fileFailed`). A libgit2
    /// failure whose errno says a full disk, no permission, a failed disk (EIO) or too many open
    /// files goes the same way; any other is `.git`.
    static func from(_ error: Error, path: String) -> StoreError {
        if let e = error as? StoreError { return e }
        if let f = error as? FileError {
            return byErrno(f.errno, path: f.path, cause: Cause(source: .system(f.errno), path: f.path, text: f.description))
        }
        if let s = error as? SystemError {
            return byErrno(s.code, path: path, cause: Cause(source: .system(s.code), path: path, text: s.description))
        }
        guard let g = error as? GitError else {
            return .internalError(path: path, cause: Cause(source: .other, path: path, text: "\(error)"))
        }
        let errno = g.errno
        let cause = Cause(source: .git(errorClass: g.errorClass, code: g.code, errno: errno), path: path, text: g.message)
        // A full disk, no permission, a failed disk or files run out: the same for git's files
        // as for the store's.
        if let errno, isDiskFull(errno) || isNotWritable(errno)
            || [.ioError, .tooManyOpenFiles, .tooManyOpenFilesInSystem, .resourceTemporarilyUnavailable].contains(errno)
        {
            return byErrno(errno, path: path, cause: cause)
        }
        return .git(RepositoryFailure(g))
    }

    /// A failed system call on `path`, by its errno.
    static func byErrno(_ errno: Errno, path: String, cause: Cause) -> StoreError {
        if isDiskFull(errno) { return .diskFull(path: path, cause: cause) }
        if isNotWritable(errno) { return .notWritable(path: path, cause: cause) }
        return .fileFailed(path: path, cause: cause)
    }

    static func isNotWritable(_ e: Errno) -> Bool { e == .permissionDenied || e == .notPermitted || e == .readOnlyFileSystem }

    static func isDiskFull(_ e: Errno) -> Bool { e == .noSpace || e == .diskQuotaExceeded }

    /// The cause of a system call on `path` that failed with `errno`.
    static func systemCause(path: String, errno: Int32) -> Cause {
        Cause(source: .system(Errno(rawValue: errno)), path: path, text: String(cString: strerror(errno)))
    }
}

/// A failed call into the repository library (libgit2) that is none of the store's other
/// failures: what it said, and the call with its codes for a report.
public struct RepositoryFailure: Error, Sendable, CustomStringConvertible {
    /// libgit2's message.
    public let message: String
    /// The call, the message and the codes: `git_reference_lookup failed: … (code -1, class 2)`.
    public let description: String
    /// libgit2's return code and error class.
    public let code: Int32
    public let errorClass: Int32

    /// As `GitError.description` words a failure (samples and tests make one without libgit2).
    public init(message: String, function: String, code: Int32, errorClass: Int32) {
        self.message = message
        self.code = code
        self.errorClass = errorClass
        description = "\(function) failed: \(message) (code \(code), class \(errorClass))"
    }

    init(_ g: GitError) {
        message = g.message
        description = g.description
        code = g.code
        errorClass = g.errorClass
    }
}
