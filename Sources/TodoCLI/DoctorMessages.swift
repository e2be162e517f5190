import TodoWording
import TodoStore

/// The words for every doctor finding: what was found, and what to do. The store reports the
/// facts (`DoctorFinding.Fact`, `.Advice`); this is the one place the command line words them,
/// for the text output and `doctor --json`'s `message` and `advice` alike.
enum DoctorMessages {
    static func message(_ f: DoctorFinding) -> String { message(f.fact) }

    static func advice(_ f: DoctorFinding) -> String? { f.advice.map(advice) }

    static func message(_ fact: DoctorFinding.Fact) -> String {
        switch fact {
        case .locksNotChecked:
            return "another todo command is working on the household; locks not checked"
        case .staleLock(let name):
            return "stale lock .git/\(name) (left by a process that stopped)"
        case .staleLockRemoved(let name):
            return "removed the stale lock .git/\(name)"
        case .interruptedChange:
            return "a change was interrupted (.git/todo-pending); its files may look edited"
        case .interruptedChangeFinished:
            return "finished the interrupted change recorded in .git/todo-pending"
        case .noStaleLocks:
            return "no stale locks"
        case .unsentRefused(let commit, let problem):
            return unsent(commit, problem)
        case .unsentReplaced(let commit, let problem, let replacement, let dropped, let setAside):
            return unsent(commit, problem)
                + "; commit \(replacement) now holds every task as it was\(dropped.isEmpty ? "" : ", without " + dropped.joined(separator: ", ")), and the commits it replaces are kept as \(setAside)"
        case .notATaskFile(let path, let reason):
            return "\(path) is not a task file (\(reason))"
        case .neverReadable(let path, let reason):
            return "\(path) cannot be read (\(reason)) and never could be"
        case .unreadable(let path, let reason):
            return "\(path) cannot be read (\(reason))"
        case .restored(let path, let reason, let from, let commit):
            return "\(path) could not be read (\(reason)); restored its version of commit \(from) in commit \(commit ?? "-")"
        case .disallowedPath(let problem):
            return "the household has \(SyncMessages.violation(problem))"
        case .taskFilesReadable:
            return "every task file can be read"
        case .workTreeNotCompared(let reason):
            return "the work tree could not be compared with the last commit, so hand edits were not checked: \(Worded(reason).sentence)"
        case .noHandEdits:
            return "no uncommitted changes in tasks/"
        case .handEdit(let path):
            return "\(path) was changed by hand and not committed"
        case .mergeDriverRunsThis(let setting):
            return "the merge driver runs this todo (\(setting))"
        case .mergeDriver(let problem, let nowSetTo):
            return driver(problem) + (nowSetTo.map { "; now set to \($0)" } ?? "")
        case .serveUnitRuns(let unit, let server):
            return "\(unit) runs \(server)"
        case .serveUnitProgramGone(let unit, let programs):
            return "\(unit) names \(programs.joined(separator: " and ")), which \(programs.count == 1 ? "is" : "are") gone (todo was removed or installed elsewhere), so the server it runs cannot start"
        case .serveUnitUnreadable(let unit):
            return "\(unit) cannot be read, or has no command line this todo can read"
        case .zoneFollowed(let name):
            return name.map { "the household's days follow \($0)" } ?? "no household time zone recorded: this machine's zone decides \"today\" (todo timezone ZONE sets one)"
        case .zoneUnknown(let name, let using):
            return "the household's time zone \(name) is not in this machine's time zone database; \"today\" here follows this machine's zone (\(using)) meanwhile"
        case .clocksInStep:
            return "no stamps more than a day ahead of this machine's clock"
        case .clockAhead(let member, let days, let tasks):
            return "\(member ?? "a member") wrote stamps up to \(days) day\(days == 1 ? "" : "s") ahead of this machine's clock (\(tasks) task\(tasks == 1 ? "" : "s"))"
        case .noRemote:
            return "no remote: this household is not synced (todo remote set URL)"
        case .waitingOffline:
            return "this household waits for its remote's first history (not checked: --offline); tasks added here join it on the first sync after the household's creator has synced"
        case .syncRunning(let remote):
            return "a sync is running; the remote \(remote) was not checked"
        case .remoteWaiting(let remote):
            return "\(remote) is reachable and has no history yet: this household waits for it, and tasks added here join it on the first sync after the household's creator has synced"
        case .remoteEmpty(let remote):
            return "\(remote) is reachable and empty; the next sync sends this household's history"
        case .remoteIsAnotherHousehold(let remote):
            return "the main of \(remote) shares no history with this household: it is another household"
        case .remoteHasRefused(let remote, let problem, let commit):
            return "\(remote) has \(SyncMessages.violation(problem)) in commit \(commit.id) by \(SyncMessages.author(commit))"
        case .remoteToJoin(let remote):
            return "\(remote) holds the household's history now: this household waits for it, and the next sync joins it with the tasks added here on top"
        case .remoteShared(let remote):
            return "\(remote) is reachable and its main shares history with this household"
        case .remoteEncrypted(let remote, let devices, let members, let recovery):
            let whom = members.map(Terminal.safe).joined(separator: ", ")
            return "\(remote) holds only ciphertext, readable by \(devices) device\(devices == 1 ? "" : "s") of \(members.isEmpty ? "no member" : whom)\(recovery ? " and the recovery key" : "")"
        case .syncFailed(let e):
            return SyncMessages.fact(e.problem, paths: .shown).split(separator: "\n").first.map(String.init) ?? ""
        case .storage(let remote, let state):
            return "\(remote ? "the remote's objects" : "objects"): \(describe(state))"
        case .storagePacked(let remote, let objects, let after):
            return "packed \(objects) objects; \(remote ? "the remote's objects" : "objects") now \(describe(after))"
        }
    }

    static func advice(_ advice: DoctorFinding.Advice) -> String {
        switch advice {
        case .removeStaleLock:
            return "run `todo doctor --fix` to remove it"
        case .finishInterruptedChange:
            return "run `todo doctor --fix`, or any command that changes a task"
        case .syncThenFix:
            return "run `todo sync` (it merges what was fetched, then stops before sending), then `todo doctor --fix`"
        case .setAsideUnsent(let prefix):
            return "run `todo doctor --fix`: one new commit on the remote's main takes the place of the unsent commits, with every task as it is now and without what is refused; they are kept under \(prefix)"
        case .handEditsBlockFix(let paths):
            return "commit or discard the hand edits (\(paths.prefix(3).joined(separator: ", "))), then run `todo doctor --fix`"
        case .removeWithGit(let path):
            return "move or remove it with git (git rm \(path), then git commit)"
        case .fixByHand:
            return "fix it by hand and commit it with git"
        case .restoreVersion(let commit):
            return "run `todo doctor --fix` to restore its version of commit \(commit) with a new commit"
        case .removeWithNewCommit:
            return "remove it with a new commit (git rm, then git commit)"
        case .seeUnsent:
            return "see unsent: `todo doctor --fix` leaves it out of what is sent"
        case .commitOrDiscard(let repo, let path):
            return "commit it (git -C \(repo) commit \(path)) or discard it (git -C \(repo) checkout -- \(path))"
        case .setMergeDriver(let command):
            return "run `todo doctor --fix` to set it to \(command)"
        case .rewriteServeUnit(let command):
            return "rewrite it with `\(command.map(shellWord).joined(separator: " "))` (it says how to restart the server)"
        case .checkClock(let member):
            return "ask \(member ?? "a member") to check their clock (or check this one); merges still converge"
        case .anotherHousehold(let remote, let household):
            return "sync refuses to merge it. "
                + AdviceText.text(.joinOtherHousehold(remote: remote, household: household)).split(separator: "\n").joined(separator: " ")
        case .askAuthorToRemove:
            return "sync refuses it; ask that member to remove it with a new commit"
        case .syncFailed(let e):
            return CLIError.text(e).split(separator: "\n").dropFirst().joined(separator: " ")
        case .installZoneData(let name):
            return "install or update this machine's time zone database so that it has \(name) (Debian: apt-get install tzdata)"
        case .runMaintenance:
            return "run `todo maintenance` to pack them (it also runs by itself after the next change)"
        }
    }

    /// `word` as a shell reads it back: as it is when plain, else in single quotes.
    static func shellWord(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { c in
            (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || "/-._:=,@+%".unicodeScalars.contains(c)
        }
        return plain ? word : MergeDriverConfig.shellQuoted(word)
    }

    /// "13098 loose objects and 4 packs, 61.2 MB".
    static func describe(_ state: StorageState) -> String {
        let loose = state.looseObjects == 1 ? "1 loose object" : "\(state.looseObjects) loose objects"
        let packs = state.packs == 1 ? "1 pack" : "\(state.packs) packs"
        return "\(loose) and \(packs), \(byteText(state.bytes))"
    }

    /// Bytes as a person reads them: "812 KB", "61.2 MB".
    static func byteText(_ bytes: Int) -> String {
        if bytes < 1_000_000 { return "\((bytes + 999) / 1000) KB" }
        let tenths = (bytes + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10) MB"
    }


    static func unsent(_ commit: CommitFacts, _ problem: FormatViolation) -> String {
        "commit \(commit.id) by \(SyncMessages.author(commit)), not sent yet, has \(SyncMessages.violation(problem)); other members' todo refuses it even if a later commit removes it"
    }

    static func driver(_ problem: DoctorFinding.DriverProblem) -> String {
        switch problem {
        case .otherVersion(let program, let version, let expected):
            return "the merge driver runs \(program), which is todo \(version ?? "of an unknown version"), not \(expected)"
        case .missingProgram(let setting):
            return "the merge driver names a program that does not exist (\(setting))"
        case .notConfigured:
            return "no merge driver is configured, so plain `git merge` would not merge task files field by field"
        }
    }
}
