import TodoWording
import Glibc
import SystemPackage
import Testing
import ArgumentParser
import TodoCore
import WordingSamples

@testable import TodoCLI
@testable import TodoStore

/// The store reports sync problems, doctor findings and reminder failures as facts; the command
/// line words every one of them. Each list below names every case once: the switches in `name` are exhaustive, so
/// a new case fails to compile here until it has a sample, and the count check fails until the
/// sample is listed.
@Suite(.timeLimit(.minutes(5))) struct FactWordingTests {
    static let commit = WordingSamples.commit
    static let link = WordingSamples.link
    static let failure = SyncError(.unreachable, .unreachable(remote: "ssh://host/h.git", said: "connection refused"))

    /// Every sync problem, the store failures among them (`WordingSamples`).
    static let problems = WordingSamples.syncProblems(local: "/srv/todo-cli-test")

    static let facts: [DoctorFinding.Fact] = [
        .locksNotChecked, .staleLock(name: "index.lock"), .staleLockRemoved(name: "index.lock"), .interruptedChange,
        .interruptedChangeFinished, .noStaleLocks,
        .unsentRefused(commit: commit, problem: link),
        .unsentReplaced(commit: commit, problem: link, replacement: "abcdef0123", dropped: ["m"], setAside: "refs/todo/set-aside/x"),
        .notATaskFile(path: "tasks/zz", reason: "not a task file"), .neverReadable(path: "tasks/ab/x.json", reason: "bad"),
        .unreadable(path: "tasks/ab/x.json", reason: "bad"),
        .restored(path: "tasks/ab/x.json", reason: "bad", from: "0123456789", in: nil), .disallowedPath(link),
        .taskFilesReadable, .workTreeNotCompared(reason: .locked(repo: "r", seconds: 2)), .noHandEdits, .handEdit(path: "tasks/ab/x.json"),
        .mergeDriverRunsThis(setting: "todo merge-driver"), .mergeDriver(.notConfigured, nowSetTo: nil),
        .serveUnitRuns(unit: "/h/.config/systemd/user/todo-serve-home.service", server: "/usr/bin/todo-serve"),
        .serveUnitProgramGone(unit: "/h/.config/systemd/user/todo-serve-home.service", programs: ["/usr/local/bin/todo-serve"]),
        .serveUnitUnreadable(unit: "/h/.config/systemd/user/todo-serve-home.service"),
        .zoneFollowed(name: "Europe/Paris"), .zoneUnknown(name: "Mars/Olympus", using: "UTC"),
        .clocksInStep, .clockAhead(member: nil, days: 3, tasks: 1),
        .noRemote, .waitingOffline, .syncRunning(remote: "r"), .remoteWaiting(remote: "r"), .remoteEmpty(remote: "r"),
        .remoteIsAnotherHousehold(remote: "r"), .remoteHasRefused(remote: "r", problem: link, commit: commit),
        .remoteToJoin(remote: "r"), .remoteShared(remote: "r"), .syncFailed(failure),
        .remoteEncrypted(remote: "r", devices: 3, members: ["Alice", "Bob"], recovery: true),
        .storage(remote: false, state: StorageState(looseObjects: 13_098, packs: 4, bytes: 61_234_567)),
        .storagePacked(remote: true, objects: 12, after: StorageState(looseObjects: 0, packs: 1, bytes: 812)),
    ]

    static func name(_ f: DoctorFinding.Fact) -> String {
        switch f {
        case .locksNotChecked: "locksNotChecked"
        case .staleLock: "staleLock"
        case .staleLockRemoved: "staleLockRemoved"
        case .interruptedChange: "interruptedChange"
        case .interruptedChangeFinished: "interruptedChangeFinished"
        case .noStaleLocks: "noStaleLocks"
        case .unsentRefused: "unsentRefused"
        case .unsentReplaced: "unsentReplaced"
        case .notATaskFile: "notATaskFile"
        case .neverReadable: "neverReadable"
        case .unreadable: "unreadable"
        case .restored: "restored"
        case .disallowedPath: "disallowedPath"
        case .taskFilesReadable: "taskFilesReadable"
        case .workTreeNotCompared: "workTreeNotCompared"
        case .noHandEdits: "noHandEdits"
        case .handEdit: "handEdit"
        case .mergeDriverRunsThis: "mergeDriverRunsThis"
        case .mergeDriver: "mergeDriver"
        case .serveUnitRuns: "serveUnitRuns"
        case .serveUnitProgramGone: "serveUnitProgramGone"
        case .serveUnitUnreadable: "serveUnitUnreadable"
        case .zoneFollowed: "zoneFollowed"
        case .zoneUnknown: "zoneUnknown"
        case .clocksInStep: "clocksInStep"
        case .clockAhead: "clockAhead"
        case .noRemote: "noRemote"
        case .waitingOffline: "waitingOffline"
        case .syncRunning: "syncRunning"
        case .remoteWaiting: "remoteWaiting"
        case .remoteEmpty: "remoteEmpty"
        case .remoteIsAnotherHousehold: "remoteIsAnotherHousehold"
        case .remoteHasRefused: "remoteHasRefused"
        case .remoteToJoin: "remoteToJoin"
        case .remoteShared: "remoteShared"
        case .remoteEncrypted: "remoteEncrypted"
        case .syncFailed: "syncFailed"
        case .storage: "storage"
        case .storagePacked: "storagePacked"
        }
    }

    static let driverProblems: [DoctorFinding.DriverProblem] = [
        .otherVersion(program: "/usr/bin/todo", version: nil, expected: "1.0"), .missingProgram(setting: "/gone/todo merge-driver"),
        .notConfigured,
    ]

    static let advice: [DoctorFinding.Advice] = [
        .removeStaleLock, .finishInterruptedChange, .syncThenFix, .setAsideUnsent(prefix: "refs/todo/set-aside/"),
        .handEditsBlockFix(paths: ["tasks/ab/x.json"]), .removeWithGit(path: "tasks/zz"), .fixByHand,
        .restoreVersion(commit: "0123456789"), .removeWithNewCommit, .seeUnsent, .commitOrDiscard(repo: "/h", path: "tasks/ab/x.json"),
        .setMergeDriver(command: "todo merge-driver %O %A %B %P"),
        .rewriteServeUnit(command: ["todo", "serve", "install", "-H", "home", "--listen", "127.0.0.1:8080"]), .checkClock(member: "Bob"),
        .anotherHousehold(remote: "r", household: "home"), .askAuthorToRemove,
        // A one-line failure has empty advice (the line is the message); this one has two.
        .syncFailed(SyncError(.noRepository, .noRepository(remote: "r"))), .installZoneData(name: "Mars/Olympus"), .runMaintenance,
    ]

    static func name(_ a: DoctorFinding.Advice) -> String {
        switch a {
        case .removeStaleLock: "removeStaleLock"
        case .finishInterruptedChange: "finishInterruptedChange"
        case .syncThenFix: "syncThenFix"
        case .setAsideUnsent: "setAsideUnsent"
        case .handEditsBlockFix: "handEditsBlockFix"
        case .removeWithGit: "removeWithGit"
        case .fixByHand: "fixByHand"
        case .restoreVersion: "restoreVersion"
        case .removeWithNewCommit: "removeWithNewCommit"
        case .seeUnsent: "seeUnsent"
        case .commitOrDiscard: "commitOrDiscard"
        case .setMergeDriver: "setMergeDriver"
        case .rewriteServeUnit: "rewriteServeUnit"
        case .checkClock: "checkClock"
        case .anotherHousehold: "anotherHousehold"
        case .askAuthorToRemove: "askAuthorToRemove"
        case .syncFailed: "syncFailed"
        case .installZoneData: "installZoneData"
        case .runMaintenance: "runMaintenance"
        }
    }

    static let deliveryProblems: [DeliveryProblem] = [
        .sendmailFailed(program: "/usr/sbin/sendmail"), .loginInClear, .smtpClosed(host: "mail"), .notSMTP(host: "mail"),
        .smtpAnswer(host: "mail", step: .recipient("kim@example.org"), code: 550, said: "550 no such user"),
        .noAuthPlain(host: "mail"), .noStartTLS(host: "mail"), .notHTTPURL(url: "ftp://x"),
        .httpAnswer(host: "push", status: 503, said: "HTTP/1.1 503 Busy"), .addressNotFound(host: "push"),
        .cannotConnect(host: "push", port: 80, errno: .connectionRefused), .answerTimedOut,
        .connectionBroke(.connectionReset), .lineTooLong, .tls(host: "mail", said: "handshake failed"),
        .noNetworkHelper(program: "todo-serve"), .helperFailed(program: "/usr/bin/todo-serve"),
        .noEmail(member: "Kim"), .noPostURL(member: "Kim"),
    ]

    static func name(_ p: DeliveryProblem) -> String {
        switch p {
        case .sendmailFailed: "sendmailFailed"
        case .loginInClear: "loginInClear"
        case .smtpClosed: "smtpClosed"
        case .notSMTP: "notSMTP"
        case .smtpAnswer: "smtpAnswer"
        case .noAuthPlain: "noAuthPlain"
        case .noStartTLS: "noStartTLS"
        case .notHTTPURL: "notHTTPURL"
        case .httpAnswer: "httpAnswer"
        case .addressNotFound: "addressNotFound"
        case .cannotConnect: "cannotConnect"
        case .answerTimedOut: "answerTimedOut"
        case .connectionBroke: "connectionBroke"
        case .lineTooLong: "lineTooLong"
        case .tls: "tls"
        case .noNetworkHelper: "noNetworkHelper"
        case .helperFailed: "helperFailed"
        case .noEmail: "noEmail"
        case .noPostURL: "noPostURL"
        }
    }

    static let smtpSteps: [SMTPStep] = [.connection, .ehlo, .startTLS, .login, .sender("a@b.c"), .recipient("a@b.c"), .data, .message]

    static let configErrors: [ReminderConfigError] = [
        .unsafeFile(path: "/c/remind", why: .notRegularFile), .unsafeFile(path: "/c/remind", why: .otherOwner),
        .unsafeFile(path: "/c/remind", why: .openToOthers), .unsafeFile(path: "/c/remind", why: .unreadable),
        .badSetting(key: "smtp.port", value: "0", expected: .port), .badSetting(key: "smtp.tls", value: "ssl", expected: .security),
        .badSetting(key: "smtp.from", value: "x", expected: .email), .badSetting(key: "smtp.host", value: "", expected: .oneWord),
        .badState(path: "/s/home.state"), .busy(path: "/s/home.state"),
        .cannotWriteState(path: "/s/home.state", step: .create, errno: .permissionDenied),
        .cannotWriteState(path: "/s/home.state", step: .write(temporary: "/s/home.state.tmp-1"), errno: .noSpace),
        .cannotWriteState(path: "/s/home.state", step: .rename, errno: .readOnlyFileSystem),
        .cannotWriteState(path: "/s/home.state.lock", step: .lock(call: "flock"), errno: .ioError),
    ]

    static func name(_ e: ReminderConfigError) -> String {
        switch e {
        case .unsafeFile: "unsafeFile"
        case .badSetting: "badSetting"
        case .badState: "badState"
        case .cannotWriteState: "cannotWriteState"
        case .busy: "busy"
        }
    }

    static let memberProblems: [MemberFieldProblem.Kind] = [
        .notAString, .malformedEmail, .unknownDelivery, .everyOutOfRange, .malformedPostURL, .malformedTime,
    ]

    static func name(_ k: MemberFieldProblem.Kind) -> String {
        switch k {
        case .notAString: "notAString"
        case .malformedEmail: "malformedEmail"
        case .unknownDelivery: "unknownDelivery"
        case .everyOutOfRange: "everyOutOfRange"
        case .malformedPostURL: "malformedPostURL"
        case .malformedTime: "malformedTime"
        }
    }

    @Test func everySyncProblemHasAMessage() {
        #expect(Set(Self.problems.map(WordingSamples.name)).count == WordingSamples.syncProblemCases)
        for p in Self.problems {
            let text = SyncMessages.fact(p, paths: .shown)
            #expect(!text.isEmpty && !text.hasPrefix("\n"), "\(WordingSamples.name(p))")
            #expect(!CLIError(SyncError(.unspecified, p)).message.isEmpty, "\(WordingSamples.name(p))")
        }
    }

    /// The facts are shared; the command line adds the command that helps, after them.
    @Test func theCommandLineAddsItsAdviceAfterTheSharedFact() {
        let none = CLIError(SyncError(.unspecified, .noRemote)).message
        #expect(none == "This household has no remote.\nSet one with `todo remote set URL`.")
        let cabin = CLIError(StoreError.householdNotFound(name: "cabin", home: "/h")).message
        #expect(cabin == "There is no household \"cabin\" in /h.\nRun `todo init --household cabin` to create it.")
        for e in WordingSamples.storeErrors(local: "/h") {
            let w = Worded(e, paths: .shown)
            #expect(CLIError(e).message.hasPrefix(w.fact), "\(WordingSamples.name(e))")
            if let advice = w.advice { #expect(CLIError(e).message.hasSuffix("\n" + AdviceText.text(advice)), "\(WordingSamples.name(e))") }
        }
    }

    /// `FrontEndText.commandWords` knows every command of `todo`, so the wording tests find
    /// any of them in a fact.
    @Test func theWordingCheckKnowsEveryCommand() {
        func names(_ c: any ParsableCommand.Type) -> [String] {
            let conf = c.configuration
            return [conf.commandName ?? ""] + conf.subcommands.flatMap(names)
        }
        let all = Set(Todo.configuration.subcommands.flatMap(names)).subtracting([""])
        #expect(all.subtracting(FrontEndText.commandWords).isEmpty, "\(all.subtracting(FrontEndText.commandWords))")
    }

    @Test func everyDoctorFactAndAdviceHasWords() {
        #expect(Set(Self.facts.map(Self.name)).count == Self.facts.count)
        #expect(Set(Self.advice.map(Self.name)).count == Self.advice.count)
        for f in Self.facts { #expect(!DoctorMessages.message(f).isEmpty, "\(Self.name(f))") }
        for d in Self.driverProblems {
            #expect(!DoctorMessages.message(.mergeDriver(d, nowSetTo: nil)).isEmpty)
            #expect(DoctorMessages.message(.mergeDriver(d, nowSetTo: "todo")).hasSuffix("; now set to todo"))
        }
        for a in Self.advice { #expect(!DoctorMessages.advice(a).isEmpty, "\(Self.name(a))") }
    }

    @Test func everyReminderFailureHasWords() {
        #expect(Set(Self.deliveryProblems.map(Self.name)).count == Self.deliveryProblems.count)
        for p in Self.deliveryProblems {
            for f in [DeliveryFailure.transient(p), .refused(p)] {
                let reason = RemindMessages.reason(f)
                #expect(!reason.isEmpty && !reason.contains("\n"), "\(Self.name(p))")
                #expect(RemindMessages.deliveryFailed(member: "Kim", how: .mail, f).hasPrefix("could not remind Kim by mail: \(reason)."))
            }
        }
        for step in Self.smtpSteps { #expect(!RemindMessages.smtpStep(step).isEmpty) }
        // The kind decides between "refused" and "for now", as the exit code does.
        let answer = DeliveryProblem.smtpAnswer(host: "mail", step: .message, code: 451, said: "451 try later")
        #expect(RemindMessages.reason(.transient(answer)) == "the SMTP server mail did not accept the message for now: 451 try later")
        #expect(RemindMessages.reason(.refused(.httpAnswer(host: "push", status: 403, said: "HTTP/1.1 403 No")))
            == "push refused the POST: HTTP/1.1 403 No")
        #expect(RemindMessages.reason(.transient(.cannotConnect(host: "h", port: 25, errno: nil))) == "cannot connect to h port 25 (no address)")

        #expect(Set(Self.configErrors.map(Self.name)).count == 5)
        for e in Self.configErrors { #expect(!RemindMessages.config(e).message.isEmpty, "\(Self.name(e))") }

        #expect(Set(Self.memberProblems.map(Self.name)).count == Self.memberProblems.count)
        for k in Self.memberProblems {
            #expect(RemindMessages.leftOut(MemberFieldProblem(field: "email", member: "Kim", kind: k)).hasPrefix("email of Kim is "))
        }
    }

    @Test func aReminderIsWordedFromItsFacts() throws {
        let day = try #require(CivilDate(year: 2026, month: 11, day: 25))
        func item(_ title: String, _ due: Due?, chore: Bool = false) -> ReminderItem {
            ReminderItem(id: TaskID(high: 0, low: 1), title: title, isChore: chore, due: due)
        }
        let facts = ReminderFacts(
            member: "Kim", household: "home", day: day,
            overdue: [item("Old", Due(date: try #require(CivilDate(year: 2026, month: 11, day: 20))))],
            today: [item("Now", Due(date: day, minutes: 18 * 60)), item("Bins\nBcc: x", Due(date: day), chore: true)],
            new: [item("Later", Due(date: try #require(CivilDate(year: 2026, month: 12, day: 1)))), item("Undated", nil)])
        let (subject, body) = RemindMessages.reminder(facts)
        #expect(subject == "todo: 1 overdue, 2 due today, 2 new for Kim (home)")
        #expect(body == """
            Overdue:
              - Old (due 2026-11-20)  [00000000]

            Due today:
              - Now (at 18:00)  [00000000]
              - Bins Bcc: x (your turn)  [00000000]

            New for you:
              - Later (due 2026-12-01)  [00000000]
              - Undated  [00000000]

            """)
    }

    @Test func everyViolationHasWordsNamingItsPath() {
        let kinds: [FormatViolation.Kind] = [
            .symbolicLink, .submodule, .executableFile, .oversizedFile, .pathNotAllowed, .oversizedTaskFile(bytes: 2 << 20),
        ]
        for k in kinds {
            let v = FormatViolation(kind: k, path: "tasks/zz")
            #expect(SyncMessages.violation(v).hasSuffix("\"tasks/zz\""))
            // The commit message the doctor's repair writes says the same.
            #expect(SyncMessages.violation(v) == v.historyText)
        }
    }

    @Test func progressLinesSayHowFar() {
        #expect(SyncMessages.progress(.receiving(done: 450, total: 1000)) == "Receiving objects: 45% (450/1000)")
        #expect(SyncMessages.progress(.sending(done: 3, total: 3)) == "Sending objects: 100% (3/3)")
    }

    @Test func changesThatWaitAreTheLastLine() {
        var e = Self.failure.noting(unsent: .init(count: 2, waitingForRemote: false))
        #expect(CLIError(e).message.hasSuffix("\nYour 2 changes are saved and will be sent on the next sync."))
        e = Self.failure.noting(unsent: .init(count: 1, waitingForRemote: true))
        #expect(CLIError(e).message.hasSuffix("\nYour 1 change is saved and will be sent on the first sync after the household's creator has synced."))
    }

    static let importProblems: [ImportProblem] = [
        .notAnObject, .notJSON(line: 2, detail: "x"), .noTasks, .notAString(field: "f"), .emptyTitle,
        .notAnArray(field: "tags"), .notWords(field: "tags"), .notAnID(field: "id"), .notAUUID(field: "uuid"),
        .notAStatus(field: "status"), .notADate(field: "due"), .notAPriority(field: "priority"),
        .notABool(field: "deleted"), .notAnAlarm(field: "alarm"), .empty(field: "title"),
        .tooLong(field: "notes", limit: 9, bytes: true), .format(TaskFormatError("bad")),
        .dateOutOfRange(field: "due", date: CivilDate(year: 1, month: 1, day: 1)!, title: "Old"),
    ]
    static let importOutcomes: [ImportNoteOutcome] = [
        .keptInNotes, .projectKeptInNotes, .becameChore, .recurKeptInNotes, .importedAsOwnTask, .foldedIntoChore,
        .notAnOccurrence, .completion, .skip,
    ]

    static func name(_ p: ImportProblem) -> String {
        switch p {
        case .notAnObject: "notAnObject"
        case .notJSON: "notJSON"
        case .noTasks: "noTasks"
        case .notAString: "notAString"
        case .emptyTitle: "emptyTitle"
        case .notAnArray: "notAnArray"
        case .notWords: "notWords"
        case .notAnID: "notAnID"
        case .notAUUID: "notAUUID"
        case .notAStatus: "notAStatus"
        case .notADate: "notADate"
        case .notAPriority: "notAPriority"
        case .notABool: "notABool"
        case .notAnAlarm: "notAnAlarm"
        case .empty: "empty"
        case .tooLong: "tooLong"
        case .format: "format"
        case .dateOutOfRange: "dateOutOfRange"
        }
    }

    @Test func everyImportProblemAndOutcomeHasWords() {
        #expect(Set(Self.importProblems.map(Self.name)).count == Self.importProblems.count)
        for p in Self.importProblems {
            let text = ImportWording.text(ImportError(index: 2, p))
            #expect(text.hasPrefix("task 3: ") && text.count > 9, "\(Self.name(p))")
        }
        #expect(ImportWording.text(ImportError(index: nil, .tooLong(field: "notes", limit: 9, bytes: true))) == "\"notes\" is longer than 9 bytes")
        #expect(Set(Self.importOutcomes.map(ImportWording.outcome)).count == Self.importOutcomes.count)
    }


    @Test func everyMergeFailureAndWarningNamesItsFile() {
        let id = TaskID(high: 1, low: 2)
        let failures: [MergeFailure.Reason] = [
            .noReadableSide(ours: "removed", theirs: "not a task file"), .differentTasks(ours: id, theirs: id),
            .tooLarge(size: 2_000_000), .tooDeep(field: "notes"),
        ]
        for r in failures {
            #expect(MergeWording.text(MergeFailure(path: "tasks/ab/c.json", reason: r)).hasPrefix("Cannot merge tasks/ab/c.json: "))
        }
        for k in [MergeWarning.Kind.invalidFile(reason: "x"), .baseIgnored(reason: "y"), .removed] {
            #expect(MergeWording.text(MergeWarning(path: "tasks/ab/c.json", input: .theirs, kind: k)).hasPrefix("tasks/ab/c.json: the "))
        }
    }

}
