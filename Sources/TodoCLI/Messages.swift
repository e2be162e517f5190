import TodoStore

/// The one table from failures to messages and exit codes (README "Exit codes").

extension CLIError {
    /// Says what happened and what to do, for every store failure.
    init(_ error: StoreError) {
        switch error {
        case .invalidHouseholdName(let name):
            self.init(
                "\"\(Terminal.safe(name))\" is not a valid household name. Use letters, digits, '.', '_' or '-' (up to 64).",
                exit: .usage)
        case .householdNotFound(let name, let home):
            self.init(
                "There is no household \"\(name)\" in \(Terminal.safe(home)).\nRun `todo init\(name == "home" ? "" : " --household \(name)")` to create it.",
                exit: .notFound)
        case .householdExists(let name, let path):
            self.init(
                "Household \"\(name)\" already exists at \(Terminal.safe(path)).\nUse it as it is, or choose another name with --household.",
                exit: .cannotWrite)
        case .notWritable(let path, let cause):
            self.init(
                "Cannot write to \(Terminal.safe(path)) (\(Terminal.safe(cause.text))).\nCheck its permissions, or set TODO_HOME to a writable directory. Nothing was changed.",
                exit: .cannotWrite)
        case .diskFull(let path, _):
            self.init(
                "The disk holding \(Terminal.safe(path)) is full. Nothing was changed.\nFree some space and run the command again.",
                exit: .cannotWrite)
        case .taskNotFound(let prefix):
            self.init(
                "No task has an id starting with \"\(Terminal.safe(prefix))\".\nRun `todo list --all` to see the ids.",
                exit: .notFound)
        case .invalidTaskID(let id):
            self.init(
                "\"\(Terminal.safe(id))\" is not a task id to add a task under: it must be 32 lowercase hex digits, and not the settings file's. Nothing was added.",
                exit: .usage)
        case .settingsNotATask(let prefix):
            self.init(
                "\"\(Terminal.safe(prefix))\" names the household settings file, not a task: it cannot be shown, changed or restored as one.\nChange the settings with `todo timezone` or `todo member`; run `todo list --all` to see the task ids.",
                exit: .notFound)
        case .conflictNotFound(let prefix):
            self.init(
                "No conflict-log entry has an id starting with \"\(Terminal.safe(prefix))\".\nRun `todo conflicts` to see the entries.",
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
        case .badImport(let file, let reason):
            self.init("Cannot import \(Terminal.safe(file)): \(Terminal.safe(reason)). Nothing was imported.", exit: .data)
        case .itemNotFound(let task, let item):
            self.init(
                "Task \(Terminal.safe(task)) has no item \"\(Terminal.safe(item))\".\nRun `todo show \(Terminal.safe(task))` to see its items and their numbers.",
                exit: .notFound)
        case .itemCheckedAndUnchecked(let task, let item):
            self.init(
                "--check and --uncheck both name item \"\(Terminal.safe(item))\" of task \(Terminal.safe(task)). Nothing was changed.\nSay one of them.",
                exit: .usage)
        case .notAChore(let task):
            self.init(
                "Task \(Terminal.safe(task)) is not a chore: it does not repeat, so it has no occurrences or turns (`skip`, `swap`, `pass` and `--on` act on chores). Nothing was changed.\nMake it a chore with `todo edit \(Terminal.safe(task)) --every RULE`.",
                exit: .usage)
        case .notAnOccurrence(let task, let date):
            self.init(
                "\(date) is not an occurrence of chore \(Terminal.safe(task)). Nothing was changed.\nRun `todo show \(Terminal.safe(task))` to see its rule and dates.",
                exit: .usage)
        case .notYetDue(let task, let date, let current):
            let next = current.map { " Its current occurrence is \($0): `todo done \(Terminal.safe(task))` completes it." } ?? ""
            self.init(
                "\(date) has not come yet for chore \(Terminal.safe(task)); only its current occurrence can be done ahead of time. Nothing was changed.\(next)",
                exit: .usage)
        case .noRotation(let task):
            self.init(
                "Chore \(Terminal.safe(task)) has no rotation, so it has no turns to swap or pass. Nothing was changed.\nGive it one with `todo edit \(Terminal.safe(task)) --rotate A,B,...`.",
                exit: .usage)
        case .notInRotation(let task, let member, let rotation):
            self.init(
                "\"\(Terminal.safe(member))\" is not in the rotation of chore \(Terminal.safe(task)) (\(rotation.map(Terminal.safe).joined(separator: ", "))). Nothing was changed.\nName one of them, or add them with `todo edit \(Terminal.safe(task)) --rotate ...`.",
                exit: .usage)
        case .noComingTurn(let task, let member):
            self.init(
                "\(Terminal.safe(member)) has no coming turn of chore \(Terminal.safe(task)). Nothing was changed.\nRun `todo show \(Terminal.safe(task))` to see whose turns come next.",
                exit: .data)
        case .sameMember(let task, let member):
            self.init(
                "\(Terminal.safe(member)) would swap or pass a turn of chore \(Terminal.safe(task)) with themselves. Nothing was changed.",
                exit: .usage)
        case .ambiguousID(let prefix, let candidates):
            self.init(
                "The id \"\(Terminal.safe(prefix))\" matches several tasks: \(candidates.joined(separator: ", ")).\nType more of the id.",
                exit: .usage)
        case .malformedTask(let path, let reason):
            self.init(
                "The task file \(path) is malformed (\(Terminal.safe(reason))).\nRepair or remove it with git in the household repository.",
                exit: .data)
        case .handEdits(let repo, let paths):
            let shown = paths.prefix(3).map(Terminal.safe).joined(separator: ", ") + (paths.count > 3 ? ", ..." : "")
            self.init(
                "Task files in \(Terminal.safe(repo)) were changed by hand and not committed: \(shown).\nCommit them (git -C \(Terminal.safe(repo)) commit -a) or discard them (git -C \(Terminal.safe(repo)) checkout -- .), then try again.",
                exit: .data)
        case .locked(let repo, let seconds):
            self.init(
                "Another todo command has been working on \(Terminal.safe(repo)) for over \(seconds) seconds.\nNothing was changed; try again in a moment.",
                exit: .busy)
        case .notAHousehold(let path, let reason):
            self.init(
                "\(Terminal.safe(path)) is not a usable household repository (\(Terminal.safe(reason))).",
                exit: .data)
        case .mergeFailed(let failures):
            let first = failures.prefix(3).map { Terminal.safe($0.description) }.joined(separator: "\n")
            self.init(
                first + (failures.count > 3 ? "\n(and \(failures.count - 3) more)" : "") + "\nNothing was merged or committed.",
                exit: .data)
        case .unrelatedHistories:
            self.init(
                "The histories have nothing in common, so they are not the same household. Nothing was merged.",
                exit: .data)
        case .git(let g):
            self.init(
                "The household repository could not be updated (\(Terminal.safe(g.message))). Nothing was changed.",
                exit: .software, detail: Terminal.safe(g.description))
        case .internalError(let path, let cause):
            self.init(internal: "\(cause.text) (in \(path))")
        }
    }


    /// A failed sync, worded in `SyncMessages`, with the exit code of its class.
    init(_ e: SyncError) {
        let lines = SyncMessages.text(e).split(separator: "\n", omittingEmptySubsequences: false).map { Terminal.safe(String($0)) }
        self.init(lines.joined(separator: "\n"), exit: Self.exit(e), detail: e.detail.map(Terminal.safe))
    }

    /// Exit codes for sync failures: by class, and for a local failure, by whether the disk is full.
    static func exit(_ e: SyncError) -> Exit {
        switch e.kind {
        case .transient: return .busy
        case .authentication: return .authentication
        case .configuration: return .configuration
        case .data: return .data
        case .local: return e.code == .diskFull ? .cannotWrite : .busy
        }
    }
}
