import Testing
import TodoCore
import TodoStore
import TodoWording
import WordingSamples

/// What TodoWording says can be shown by any front end (docs/ARCHITECTURE.md, "Words"): no
/// `todo` command, flag, manual section or path of this machine in any fact, for every store
/// failure, sync problem and refused input. The command line's advice comes from `Advice`.
@Suite(.timeLimit(.minutes(2)))
struct NeutralWordingTests {
    /// A folder that stands for this machine's: every path in the samples is under it.
    static let local = "/srv/todo-wording-test"

    static func expectNeutral(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let problems = FrontEndText.problems(in: text, localPaths: [local])
        #expect(problems.isEmpty, "\(what): \(problems)\n\(text)", sourceLocation: sourceLocation)
    }

    @Test func theSamplesNameEveryCase() {
        #expect(Set(WordingSamples.storeErrors(local: Self.local).map(WordingSamples.name)).count == WordingSamples.storeErrorCases)
        #expect(Set(WordingSamples.syncProblems(local: Self.local).map(WordingSamples.name)).count == WordingSamples.syncProblemCases)
    }

    @Test func everyStoreFailureIsAFactAnyFrontEndCanShow() {
        for error in WordingSamples.storeErrors(local: Self.local) {
            let worded = Worded(error)
            Self.expectNeutral(worded.fact, WordingSamples.name(error))
            #expect(!worded.fact.isEmpty)
        }
        Self.expectNeutral(Worded(internal: "Oops").fact, "internal")
    }

    @Test func everySyncProblemIsAFactAnyFrontEndCanShow() {
        for e in WordingSamples.syncErrors(local: Self.local) {
            let name = WordingSamples.name(e.problem)
            Self.expectNeutral(SyncMessages.fact(e.problem), name)
            Self.expectNeutral(SyncMessages.fact(e), name + " with changes waiting")
            // What the sync log and the sync state keep, whichever front end ran the sync.
            Self.expectNeutral(SyncMessages.describe(e), name + " as recorded")
        }
    }

    /// The command line asks for the paths: they are named there, and only there.
    @Test func aFrontEndOnThisMachineMayNameThePaths() {
        let cabin = StoreError.householdNotFound(name: "cabin", home: Self.local + "/data")
        #expect(Worded(cabin, paths: .shown).fact == "There is no household \"cabin\" in \(Self.local)/data.")
        #expect(Worded(cabin).fact == "There is no household \"cabin\".")
        #expect(Worded(cabin).advice == .createHousehold(name: "cabin", home: Self.local + "/data"))
        let missing = SyncProblem.remoteMissing(remote: Self.local + "/remote.git")
        #expect(SyncMessages.fact(missing, paths: .shown).contains(Self.local + "/remote.git"))
        #expect(SyncMessages.fact(missing).hasPrefix("The household remote is missing"))
        #expect(SyncMessages.fact(SyncProblem.unreachable(remote: "https://host/h.git", said: "refused")).contains("https://host/h.git"))
        #expect(SyncMessages.advice(.noRemote) == .setRemote)
    }

    @Test func everyRefusedInputIsAFactAnyFrontEndCanShow() {
        let clock = WallClock.fixed(1_700_000_000_000)
        let refused: [(String, Result<Any, InputProblem>)] = [
            ("empty title", FormInput.title(" ").map { $0 }),
            ("long title", FormInput.title(String(repeating: "x", count: FieldRules.maxTitle + 1)).map { $0 }),
            ("long note", FormInput.notes(String(repeating: "x", count: FieldRules.maxNotes + 1)).map { $0 }),
            ("long assignee", FormInput.assignee(String(repeating: "x", count: FieldRules.maxName + 1)).map { $0 as Any }),
            ("bad tag", FormInput.tag("two words").map { $0 }),
            ("empty item", FormInput.item("").map { $0 }),
            ("long item", FormInput.item(String(repeating: "x", count: FieldRules.maxItem + 1)).map { $0 }),
            ("bad date", FormInput.due("frydai", clock: clock).map { $0 }),
            ("bad day", FormInput.day("frydai", today: clock.today).map { $0 }),
        ]
        for (what, result) in refused {
            guard case .failure(let problem) = result else {
                Issue.record("\(what) was accepted")
                continue
            }
            Self.expectNeutral(problem.message, what)
        }
    }

    /// The check finds what the shared words used to hold, so it can fail.
    @Test func theCheckFindsCommandsFlagsManualSectionsAndPaths() {
        let found = { (text: String) in FrontEndText.problems(in: text, localPaths: [Self.local]) }
        #expect(!found("This household has no remote. Set one with `todo remote set URL`.").isEmpty)
        #expect(!found("Use YYYY-MM-DD or +3d; see todo(1), DATES.").isEmpty)
        #expect(!found("Use it as it is, or choose another name with --household.").isEmpty)
        #expect(!found("Cannot write to /home/kim/.local/share/todo (Permission denied).").isEmpty)
        #expect(!found("The remote \(Self.local)/remote.git is missing.").isEmpty)
        #expect(!found("run todo doctor there").isEmpty)
        #expect(found("The owner can look at `todo doctor`.").contains("a command: todo doctor`."))
        #expect(found("Another todo command has been working on the household; other members' todo refuses it.").isEmpty)
        #expect(found("Could not reach the household remote https://host/h.git (connection refused).").isEmpty)
    }
}
