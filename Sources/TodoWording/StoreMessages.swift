import SystemPackage
import TodoCore
import TodoStore

/// A failure worded for a person: a message of one or two lines (what happened, then what to
/// do), the exit code `todo` gives it (a web page maps it to a status), and technical detail
/// for `--verbose`. The sentences are shared by every front end (docs/ARCHITECTURE.md).
public struct Worded: Sendable {
    public let message: String
    public let exit: Exit
    public var detail: String?

    public init(_ message: String, exit: Exit, detail: String? = nil) {
        self.message = message
        self.exit = exit
        self.detail = detail
    }

    /// The first line: what happened, without the advice that follows it.
    public var sentence: String { String(message.split(separator: "\n", maxSplits: 1).first ?? "") }

    /// A failure nothing names: exit 70 with its cause, never a guess at what it means.
    public init(internal cause: String) {
        self.init(
            "Internal error: \(safe(cause)).\nThis is a bug in todo, not something you did; what was committed before it is safe (`todo doctor` checks the household).",
            exit: .software)
    }
}

/// Text from outside made safe to show (control characters and bidirectional overrides visible).
func safe(_ s: String) -> String { DisplayText.escaped(s) }

/// The one table from store failures to messages and exit codes (README "Exit codes").

extension Worded {
    /// Says what happened and what to do, for every store failure.
    public init(_ error: StoreError) {
        switch error {
        case .invalidHouseholdName(let name):
            self.init(
                "\"\(safe(name))\" is not a valid household name. Use letters, digits, '.', '_' or '-' (up to 64).",
                exit: .usage)
        case .householdNotFound(let name, let home):
            self.init(
                "There is no household \"\(name)\" in \(safe(home)).\nRun `todo init\(name == "home" ? "" : " --household \(name)")` to create it.",
                exit: .notFound)
        case .householdExists(let name, let path):
            self.init(
                "Household \"\(name)\" already exists at \(safe(path)).\nUse it as it is, or choose another name with --household.",
                exit: .cannotWrite)
        case .notWritable(let path, let cause) where cause.errno == .readOnlyFileSystem:
            self.init(
                "Cannot write to \(safe(path)): its file system is read-only (\(safe(cause.text))). Nothing was changed.\nMount it writable, or set TODO_HOME to a writable directory.",
                exit: .cannotWrite)
        case .notWritable(let path, let cause):
            self.init(
                "Cannot write to \(safe(path)) (\(safe(cause.text))).\nCheck its permissions, or set TODO_HOME to a writable directory. Nothing was changed.",
                exit: .cannotWrite)
        case .fileFailed(let path, let cause):
            self = Self.fileFailed(path: path, cause: cause)
        case .diskFull(let path, _):
            self.init(
                "The disk holding \(safe(path)) is full. Nothing was changed.\nFree some space and run the command again.",
                exit: .cannotWrite)
        case .taskNotFound(let prefix):
            self.init(
                "No task has an id starting with \"\(safe(prefix))\".\nRun `todo list --all` to see the ids.",
                exit: .notFound)
        case .idTooShort(let prefix):
            self.init(
                "\"\(safe(prefix))\" is too short for a task id: give at least \(ShortIDs.minimum) characters (`todo list` shows them).",
                exit: .usage)
        case .invalidTaskID(let id):
            self.init(
                "\"\(safe(id))\" is not a task id to add a task under: it must be 32 lowercase hex digits, and not the settings file's. Nothing was added.",
                exit: .usage)
        case .settingsNotATask(let prefix):
            self.init(
                "\"\(safe(prefix))\" names the household settings file, not a task: it cannot be shown, changed or restored as one.\nChange the settings with `todo timezone` or `todo member`; run `todo list --all` to see the task ids.",
                exit: .notFound)
        case .conflictNotFound(let prefix):
            self.init(
                "No conflict-log entry has an id starting with \"\(safe(prefix))\".\nRun `todo conflicts` to see the entries.",
                exit: .notFound)
        case .nothingToRestore(.unreadableVersion):
            self.init(
                "The set-aside version of this task is not a readable task file, so there is no value to restore.\nIts raw bytes are in `todo conflicts --json`.",
                exit: .data)
        case .nothingToRestore(.nothingLost):
            self.init("Nothing was lost in this entry: the task file was kept.", exit: .data)
        case .nothingToRestore(.unreadableEntry):
            self.init(
                "The value this entry set aside is not a chore occurrence, take-over or checklist item, so there is nothing to restore.\nIt is in `todo conflicts --json`.",
                exit: .data)
        case .badImport(let file, let error):
            self.init("Cannot import \(safe(file)): \(safe(ImportWording.text(error))). Nothing was imported.", exit: .data)
        case .itemNotFound(let task, let item):
            self.init(
                "Task \(safe(task)) has no item \"\(safe(item))\".\nRun `todo show \(safe(task))` to see its items and their numbers.",
                exit: .notFound)
        case .itemCheckedAndUnchecked(let task, let item):
            self.init(
                "--check and --uncheck both name item \"\(safe(item))\" of task \(safe(task)). Nothing was changed.\nSay one of them.",
                exit: .usage)
        case .notAChore(let task):
            self.init(
                "Task \(safe(task)) is not a chore: it does not repeat, so it has no occurrences or turns (`skip`, `swap`, `pass` and `--on` act on chores). Nothing was changed.\nMake it a chore with `todo edit \(safe(task)) --every RULE`.",
                exit: .usage)
        case .notAnOccurrence(let task, let date):
            self.init(
                "\(date) is not an occurrence of chore \(safe(task)). Nothing was changed.\nRun `todo show \(safe(task))` to see its rule and dates.",
                exit: .usage)
        case .notYetDue(let task, let date, let current):
            let next = current.map { " Its current occurrence is \($0): `todo done \(safe(task))` completes it." } ?? ""
            self.init(
                "\(date) has not come yet for chore \(safe(task)); only its current occurrence can be done ahead of time. Nothing was changed.\(next)",
                exit: .usage)
        case .afterDoneNeedsInterval(let task?, let rule):
            self.init(
                "Chore \(safe(task)) cannot repeat \(rule.phrase) after it is done: only a number of days, weeks or months (3d, 2w, month) can be counted from when it was done. Nothing was changed.\nGive it such a rule, or make it follow the calendar with `todo edit \(safe(task)) --no-after-done`.",
                exit: .usage)
        case .afterDoneNeedsInterval(nil, let rule):
            self.init(
                "A chore cannot repeat \(rule.phrase) after it is done: only a number of days, weeks or months (3d, 2w, month) can be counted from when it was done. Nothing was added.\nUse such a rule with --after-done, or leave --after-done out.",
                exit: .usage)
        case .catchUpAfterDone(let task?):
            self.init(
                "Chore \(safe(task)) repeats from when it is done, so it is never behind and has nothing to catch up. Nothing was changed.\nMake it follow the calendar first with `todo edit \(safe(task)) --no-after-done`.",
                exit: .usage)
        case .catchUpAfterDone(nil):
            self.init(
                "A chore that repeats from when it is done is never behind, so it has nothing to catch up: use either --after-done or --catch-up. Nothing was added.",
                exit: .usage)
        case .noRotation(let task):
            self.init(
                "Chore \(safe(task)) has no rotation, so it has no turns to swap or pass. Nothing was changed.\nGive it one with `todo edit \(safe(task)) --rotate A,B,...`.",
                exit: .usage)
        case .notInRotation(let task, let member, let rotation):
            self.init(
                "\"\(safe(member))\" is not in the rotation of chore \(safe(task)) (\(rotation.map(safe).joined(separator: ", "))). Nothing was changed.\nName one of them, or add them with `todo edit \(safe(task)) --rotate ...`.",
                exit: .usage)
        case .noComingTurn(let task, let member):
            self.init(
                "\(safe(member)) has no coming turn of chore \(safe(task)). Nothing was changed.\nRun `todo show \(safe(task))` to see whose turns come next.",
                exit: .data)
        case .noSuchMember(let name):
            self.init(
                "\"\(safe(name))\" is not a member of this household: no task, rotation, change or roster entry names them. Nothing was changed.",
                exit: .notFound)
        case .memberAbsent(let member, let date, let away):
            let why = away.map { "is away from \($0.from) to \($0.until)" } ?? "has left the household"
            self.init("\(safe(member)) \(why), so cannot take a turn on \(date). Nothing was changed.", exit: .data)
        case .leaveToSelf(let member):
            self.init("\(safe(member)) cannot hand their tasks to themselves when leaving. Nothing was changed.", exit: .usage)
        case .badAwayWindow(let from, let until, let today):
            let why = until < from ? "it ends (\(until)) before it starts (\(from))" : "it ended before tomorrow (\(today.adding(days: 1))), and days already begun keep their turns"
            self.init("That absence cannot be recorded: \(why). Nothing was changed.", exit: .usage)
        case .sameMember(let task, let member):
            self.init(
                "\(safe(member)) would swap or pass a turn of chore \(safe(task)) with themselves. Nothing was changed.",
                exit: .usage)
        case .ambiguousID(let prefix, let candidates):
            self.init(
                "The id \"\(safe(prefix))\" matches several tasks: \(candidates.joined(separator: ", ")).\nType more of the id.",
                exit: .usage)
        case .malformedTask(let path, let reason):
            self.init(
                "The task file \(path) is malformed (\(safe(reason))).\nRepair or remove it with git in the household repository.",
                exit: .data)
        case .handEdits(let repo, let paths):
            let shown = paths.prefix(3).map(safe).joined(separator: ", ") + (paths.count > 3 ? ", ..." : "")
            self.init(
                "Task files in \(safe(repo)) were changed by hand and not committed: \(shown).\nCommit them (git -C \(safe(repo)) commit -a) or discard them (git -C \(safe(repo)) checkout -- .), then try again.",
                exit: .data)
        case .locked(let repo, let seconds):
            self.init(
                "Another todo command has been working on \(safe(repo)) for over \(seconds) seconds.\nNothing was changed; try again in a moment.",
                exit: .busy)
        case .notAHousehold(let path, let reason):
            self.init(
                "\(safe(path)) is not a usable household repository (\(safe(reason))).",
                exit: .data)
        case .mergeFailed(let failures):
            let first = failures.prefix(3).map { safe(MergeWording.text($0)) }.joined(separator: "\n")
            self.init(
                first + (failures.count > 3 ? "\n(and \(failures.count - 3) more)" : "") + "\nNothing was merged or committed.",
                exit: .data)
        case .unrelatedHistories:
            self.init(
                "The histories have nothing in common, so they are not the same household. Nothing was merged.",
                exit: .data)
        case .git(let g):
            self.init(
                "The household repository could not be updated (\(safe(g.message))). Nothing was changed.",
                exit: .software, detail: safe(g.description))
        case .internalError(let path, let cause):
            self.init(internal: "\(cause.text) (in \(path))")
        }
    }
}

extension Worded {
    /// A file that could not be read or written, by its errno (README "Exit codes"): the disk
    /// failed (EIO, 74); too many open files or a busy file (75, try again); any other errno
    /// (70), named with the file and the system's words for it.
    public static func fileFailed(path: String, cause: Cause) -> Worded {
        let p = safe(path)
        let exit = cause.errno.map { Exit.forFile(errno: $0) } ?? .software
        switch cause.errno {
        case .ioError?:
            return Worded(
                "The disk failed while reading or writing \(p) (input/output error). Nothing was changed.\nCheck the disk (the system log names the device) before running the command again.",
                exit: exit, detail: safe(cause.text))
        case .tooManyOpenFiles?, .tooManyOpenFilesInSystem?:
            return Worded(
                "Too many files are open to open \(p) (\(safe(cause.text))). Nothing was changed.\nClose some programs and try again.",
                exit: exit, detail: safe(cause.text))
        case .resourceTemporarilyUnavailable?:
            return Worded(
                "\(p) is busy for now (\(safe(cause.text))). Nothing was changed.\nTry again in a moment.",
                exit: exit, detail: safe(cause.text))
        default:
            return Worded(
                "Could not use \(p) (\(safe(cause.text))). Nothing was changed.",
                exit: exit, detail: safe(cause.text))
        }
    }
}
