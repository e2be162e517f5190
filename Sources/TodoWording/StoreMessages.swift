import SystemPackage
public import TodoCore
public import TodoStore

/// A failure worded for a person: the fact (what happened, and what it did or did not change, in
/// words any front end can show), what the person can do about it (`advice`, a value each front
/// end words: the command line names a command, a page says whom to ask), the exit code `todo`
/// gives it (a web page maps it to a status), and technical detail for `--verbose`.
/// docs/ARCHITECTURE.md, "Words".
public struct Worded: Sendable {
    /// One line or more: what happened. No command, flag, manual section, and no path on this
    /// machine unless the front end asked for them (`LocalPaths.shown`).
    public let fact: String
    public let advice: Advice?
    public let exit: Exit
    public var detail: String?

    public init(_ fact: String, advice: Advice? = nil, exit: Exit, detail: String? = nil) {
        self.fact = fact
        self.advice = advice
        self.exit = exit
        self.detail = detail
    }

    /// The first line: what happened.
    public var sentence: String { String(fact.split(separator: "\n", maxSplits: 1).first ?? "") }

    /// A failure nothing names: exit 70 with its cause, never a guess at what it means.
    public init(internal cause: String) {
        self.init(
            "Internal error: \(safe(cause)).\nThis is a bug in todo, not something you did; what was committed before it is safe.",
            advice: .checkHousehold, exit: .software)
    }
}

/// Text from outside made safe to show (control characters and bidirectional overrides visible).
func safe(_ s: String) -> String { DisplayText.escaped(s) }

/// The one table from store failures to facts, advice and exit codes (README "Exit codes").

extension Worded {
    /// Says what happened, for every store failure; `paths` says whether the places on this
    /// machine it concerns are named (the command line) or described (anything else).
    public init(_ error: StoreError, paths: LocalPaths = .withheld) {
        switch error {
        case .invalidHouseholdName(let name):
            self.init(
                "\"\(safe(name))\" is not a valid household name. Use letters, digits, '.', '_' or '-' (up to 64).",
                exit: .usage)
        case .householdNotFound(let name, let home):
            self.init(
                "There is no household \"\(name)\"\(paths == .shown ? " in \(safe(home))" : "").",
                advice: .createHousehold(name: name, home: home), exit: .notFound)
        case .householdExists(let name, let path):
            self.init(
                "Household \"\(name)\" already exists\(paths == .shown ? " at \(safe(path))" : "").",
                advice: .useOrRenameHousehold(path: path), exit: .cannotWrite)
        case .notWritable(let path, let cause) where cause.errno == .readOnlyFileSystem:
            self.init(
                "Cannot write to \(paths.name(path, "the household's files")): its file system is read-only (\(Self.reason(cause, paths))). Nothing was changed.",
                advice: .mountWritable(path: path), exit: .cannotWrite)
        case .notWritable(let path, let cause):
            self.init(
                "Cannot write to \(paths.name(path, "the household's files")) (\(Self.reason(cause, paths))). Nothing was changed.",
                advice: .makeWritable(path: path), exit: .cannotWrite)
        case .fileFailed(let path, let cause):
            self = Self.fileFailed(path: path, cause: cause, paths: paths)
        case .diskFull(let path, _):
            self.init(
                "The disk holding \(paths.name(path, "the household")) is full. Nothing was changed.",
                advice: .freeSpace, exit: .cannotWrite)
        case .taskNotFound(let prefix):
            self.init("No task has an id starting with \"\(safe(prefix))\".", advice: .findTaskIDs, exit: .notFound)
        case .idTooShort(let prefix):
            self.init(
                "\"\(safe(prefix))\" is too short for a task id: give at least \(ShortIDs.minimum) characters.",
                advice: .shortIDsAreListed, exit: .usage)
        case .invalidTaskID(let id):
            self.init(
                "\"\(safe(id))\" is not a task id to add a task under: it must be 32 lowercase hex digits, and not the settings file's. Nothing was added.",
                exit: .usage)
        case .settingsNotATask(let prefix):
            self.init(
                "\"\(safe(prefix))\" names the household settings file, not a task: it cannot be shown, changed or restored as one.",
                advice: .changeSettings, exit: .notFound)
        case .conflictNotFound(let prefix):
            self.init("No conflict-log entry has an id starting with \"\(safe(prefix))\".", advice: .findConflictIDs, exit: .notFound)
        case .nothingToRestore(.unreadableVersion):
            self.init(
                "The set-aside version of this task is not a readable task file, so there is no value to restore.",
                advice: .conflictBytes, exit: .data)
        case .nothingToRestore(.nothingLost):
            self.init("Nothing was lost in this entry: the task file was kept.", exit: .data)
        case .nothingToRestore(.unreadableEntry):
            self.init(
                "The value this entry set aside is not a chore occurrence, take-over or checklist item, so there is nothing to restore.",
                advice: .conflictBytes, exit: .data)
        case .badImport(let file, let error):
            self.init(
                "Cannot import \(paths.name(file, "the file")): \(safe(ImportWording.text(error))). Nothing was imported.", exit: .data)
        case .itemNotFound(let task, let item):
            self.init("Task \(safe(task)) has no item \"\(safe(item))\".", advice: .showTask(task, .items), exit: .notFound)
        case .itemCheckedAndUnchecked(let task, let item):
            self.init(
                "One change both checks and unchecks item \"\(safe(item))\" of task \(safe(task)). Nothing was changed.",
                advice: .checkOrUncheck, exit: .usage)
        case .notAChore(let task):
            self.init(
                "Task \(safe(task)) is not a chore: it does not repeat, so it has no occurrences or turns to skip, swap or pass. Nothing was changed.",
                advice: .makeChore(task), exit: .usage)
        case .notAnOccurrence(let task, let date):
            self.init(
                "\(date) is not an occurrence of chore \(safe(task)). Nothing was changed.",
                advice: .showTask(task, .ruleAndDates), exit: .usage)
        case .notYetDue(let task, let date, let current):
            self.init(
                "\(date) has not come yet for chore \(safe(task)); only its current occurrence can be done ahead of time. Nothing was changed.",
                advice: current.map { .doCurrentOccurrence(task: task, date: $0) }, exit: .usage)
        case .afterDoneNeedsInterval(let task, let rule):
            self.init(
                "\(task.map { "Chore \(safe($0))" } ?? "A chore") cannot repeat \(rule.phrase) after it is done: only a number of days, weeks or months (3d, 2w, month) can be counted from when it was done. Nothing was \(task == nil ? "added" : "changed").",
                advice: .useIntervalOrCalendar(task: task), exit: .usage)
        case .catchUpAfterDone(let task?):
            self.init(
                "Chore \(safe(task)) repeats from when it is done, so it is never behind and has nothing to catch up. Nothing was changed.",
                advice: .followCalendarToCatchUp(task: task), exit: .usage)
        case .catchUpAfterDone(nil):
            self.init(
                "A chore that repeats from when it is done is never behind, so it has nothing to catch up. Nothing was added.",
                advice: .followCalendarToCatchUp(task: nil), exit: .usage)
        case .noRotation(let task):
            self.init(
                "Chore \(safe(task)) has no rotation, so it has no turns to swap or pass. Nothing was changed.",
                advice: .giveRotation(task), exit: .usage)
        case .notInRotation(let task, let member, let rotation):
            self.init(
                "\"\(safe(member))\" is not in the rotation of chore \(safe(task)) (\(rotation.map(safe).joined(separator: ", "))). Nothing was changed.",
                advice: .joinRotation(task), exit: .usage)
        case .noComingTurn(let task, let member):
            self.init(
                "\(safe(member)) has no coming turn of chore \(safe(task)). Nothing was changed.",
                advice: .showTask(task, .turns), exit: .data)
        case .noSuchMember(let name):
            self.init(
                "\"\(safe(name))\" is not a member of this household: no task, rotation, change or roster entry names them. Nothing was changed.",
                exit: .notFound)
        case .memberAbsent(let member, let date, let away):
            let why = away.map { "is away from \($0.from) to \($0.until)" } ?? "has left the household"
            self.init("\(safe(member)) \(why), so cannot take a turn on \(date). Nothing was changed.", exit: .data)
        case .memberLeft(let member):
            self.init(
                "\(safe(member)) is no longer a member of this household (their latest roster entry is \"left\"): nothing is written on their behalf. Nothing was changed.",
                exit: .data)
        case .leaveToSelf(let member):
            self.init("\(safe(member)) cannot hand their tasks to themselves when leaving. Nothing was changed.", exit: .usage)
        case .badAwayWindow(let from, let until, let today):
            let why = until < from ? "it ends (\(until)) before it starts (\(from))" : "it ended before tomorrow (\(today.adding(days: 1))), and days already begun keep their turns"
            self.init("That absence cannot be recorded: \(why). Nothing was changed.", exit: .usage)
        case .dateOutOfRange(let field, let date):
            self.init("\(Self.dateField(field)) \(date) is outside the dates todo keeps (\(DateBounds.text)). Nothing was changed.", exit: .usage)
        case .fieldRefused(let field, let value, let problem):
            self.init("\(Self.refusal(field: field, value: value, problem: problem)) Nothing was changed.", exit: .usage)
        case .sameMember(let task, let member):
            self.init(
                "\(safe(member)) would swap or pass a turn of chore \(safe(task)) with themselves. Nothing was changed.",
                exit: .usage)
        case .ambiguousID(let prefix, let candidates):
            self.init(
                "The id \"\(safe(prefix))\" matches several tasks: \(candidates.joined(separator: ", ")).\nType more of the id.",
                exit: .usage)
        case .malformedTask(let path, let reason):
            self.init("The task file \(safe(path)) is malformed (\(safe(reason))).", advice: .repairTaskFile, exit: .data)
        case .handEdits(let repo, let paths_):
            let shown = paths_.prefix(3).map(safe).joined(separator: ", ") + (paths_.count > 3 ? ", ..." : "")
            self.init(
                "Task files in \(paths.name(repo, "the household")) were changed by hand and not committed: \(shown).",
                advice: .commitOrDiscard(repo: repo), exit: .data)
        case .locked(let repo, let seconds):
            self.init(
                "Another todo command has been working on \(paths.name(repo, "the household")) for over \(seconds) seconds.\nNothing was changed; try again in a moment.",
                exit: .busy)
        case .notAHousehold(let path, let reason):
            self.init(
                "\(paths == .shown ? safe(path) : "The household's folder") is not a usable household repository (\(paths.said(safe(reason), remote: path))).",
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
                "The household repository could not be read or written\(paths == .shown ? " (\(safe(g.message)))" : ""). Nothing was changed.",
                exit: .software, detail: safe(g.description))
        case .identityExposed(let path, let folder):
            let what = folder ? "The folder of this device's identity" : "This device's identity file"
            self.init(
                "\(what)\(paths == .shown ? " \(safe(path))" : "") may be read or written by other users, so it is not used: whoever reads the identity reads the household as this device can.",
                advice: .protectIdentity(path: path, folder: folder), exit: .configuration)
        case .identityUnreadable(let path, let reason):
            let why: String
            switch reason {
            case .notRegularFile: why = "it is not a regular file"
            case .otherOwner: why = "another user owns it"
            case .noIdentity: why = "it holds no identity"
            case .malformed(let words): why = "it is not an age identity file (\(safe(words)))"
            }
            self.init("This device's identity file\(paths == .shown ? " \(safe(path))" : "") cannot be used: \(why).", exit: .configuration)
        case .badRecipient(let text):
            self.init(
                "\"\(safe(DisplayText.truncated(text, 80)))\" is not an age recipient (a device's key is age1 followed by 58 letters and digits). Nothing was changed.",
                exit: .usage)
        case .keyNotGranted(let recipient, let member):
            self.init("\(safe(member)) has no device key \(safe(recipient)). Nothing was changed.", exit: .notFound)
        case .internalError(let path, let cause):
            self.init(internal: paths == .shown ? "\(cause.text) (in \(path))" : Self.reason(cause, paths))
        }
    }

    /// Why the field rules refused `value` for `field`, in the words a form shows for the same
    /// text (`FormInput`).
    public static func refusal(field: StoreError.RuledField, value: String, problem: FieldRules.Problem) -> String {
        let sentence: Result<String, InputProblem> =
            switch field {
            case .title: FormInput.title(value).map { _ in "" }
            case .notes: FormInput.notes(value).map { _ in "" }
            case .tag: FormInput.tag(value).map { _ in "" }
            case .item: FormInput.item(value).map { _ in "" }
            case .assignee: problem == .empty ? .failure(InputProblem("The assignee is empty.")) : FormInput.assignee(value).map { _ in "" }
            case .keptLines: .failure(InputProblem("The to-do carries more properties than the server keeps."))
            }
        if case .failure(let p) = sentence { return p.message }
        // The rules passed the value when worded: the store's problem, in general words.
        switch problem {
        case .empty: return "The \(field.rawValue) is empty."
        case .tooLong(let limit): return "The \(field.rawValue) is longer than \(limit)."
        case .invalid: return "The \(field.rawValue) \"\(safe(value))\" cannot be kept."
        }
    }

    /// What holds a date outside `DateBounds`, as the refusal names it.
    static func dateField(_ field: String) -> String {
        switch field {
        case "due": "The due date"
        case "repeat": "The chore's start"
        case "on": "The occurrence"
        case "away": "The absence's date"
        case "completions": "The completion's date"
        case "occurrences": "The occurrence"
        case "turns", "rotations": "The turn's date"
        default: "The date"
        }
    }

    /// Why a system call failed: its own words on the command line; only the errno's
    /// elsewhere, since libgit2's and a call's words may name a path.
    static func reason(_ cause: Cause, _ paths: LocalPaths) -> String {
        if paths == .shown { return safe(cause.text) }
        return cause.errno.map { "\($0)" } ?? "an unexpected failure"
    }
}

extension Worded {
    /// A file that could not be read or written, by its errno (README "Exit codes"): the disk
    /// failed (EIO, 74); too many open files or a busy file (75, try again); any other errno
    /// (70), named with the file and the system's words for it.
    public static func fileFailed(path: String, cause: Cause, paths: LocalPaths = .withheld) -> Worded {
        let p = paths.name(path, "one of the household's files")
        let why = Self.reason(cause, paths)
        let exit = cause.errno.map { Exit.forFile(errno: $0) } ?? .software
        switch cause.errno {
        case .ioError?:
            return Worded(
                "The disk failed while reading or writing \(p) (input/output error). Nothing was changed.",
                advice: .checkDisk, exit: exit, detail: safe(cause.text))
        case .tooManyOpenFiles?, .tooManyOpenFilesInSystem?:
            return Worded(
                "Too many files are open to open \(p) (\(why)). Nothing was changed.",
                advice: .closeProgramsAndRetry, exit: exit, detail: safe(cause.text))
        case .resourceTemporarilyUnavailable?:
            return Worded(
                "\(p) is busy for now (\(why)). Nothing was changed.",
                advice: .tryAgainSoon, exit: exit, detail: safe(cause.text))
        default:
            return Worded(
                "Could not use \(p) (\(why)). Nothing was changed.",
                exit: exit, detail: safe(cause.text))
        }
    }
}
