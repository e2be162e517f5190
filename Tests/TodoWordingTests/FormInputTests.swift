import Testing
import TodoCore
import TodoStore
import TodoWording

/// The shared sentences: what a form shows for refused input and store failures.
@Suite(.timeLimit(.minutes(2)))
struct FormInputTests {
    static let clock = WallClock.fixed(1_700_000_000_000)

    @Test func aDateNotUnderstoodIsRefusedInTheCommandLinesWords() throws {
        guard case .failure(let p) = FormInput.due("frydai", clock: Self.clock) else {
            Issue.record("frydai was taken as a date")
            return
        }
        #expect(p.message.hasPrefix("\"frydai\" is not a date I understand.\nUse YYYY-MM-DD, today, tomorrow"))
        #expect(p.message.hasSuffix("or a time alone (18:00)."))
        #expect(try FormInput.due("2030-01-02", clock: Self.clock).get().description == "2030-01-02")
        #expect(try FormInput.due("friday 18:00", clock: Self.clock).get().description.hasSuffix("T18:00"))
        #expect(try FormInput.day("2030-01-02 18:00", today: Self.clock.today).get().description == "2030-01-02")
    }

    @Test func titlesAndFieldsFollowFieldRules() throws {
        #expect(FormInput.title("   ") == .failure(InputProblem("The title is empty.")))
        #expect(FormInput.title(String(repeating: "x", count: FieldRules.maxTitle + 1))
            == .failure(InputProblem("The title is longer than \(FieldRules.maxTitle) characters.")))
        #expect(try FormInput.title("  Buy   milk ").get() == (try FieldRules.title("  Buy   milk ").get()))
        #expect(try FormInput.assignee("").get() == nil)
        #expect(try FormInput.assignee("Kim").get() == "Kim")
        #expect(FormInput.tag("two words") == .failure(InputProblem("\"two words\" is not a valid tag: use 1 to \(FieldRules.maxTag) characters without spaces.")))
        #expect(FormInput.item("") == .failure(InputProblem("A checklist item is empty.")))
    }

    @Test func storeFailuresHaveASentenceAndAnExitCode() {
        let unknown = Worded(StoreError.taskNotFound("abcd"))
        #expect(unknown.exit == .notFound)
        #expect(unknown.sentence == "No task has an id starting with \"abcd\".")
        #expect(Worded(StoreError.handEdits(repo: "/h", paths: ["tasks/ab/x.json"])).exit == .data)
        #expect(Worded(StoreError.invalidTaskID("xyz")).exit == .usage)
        #expect(SyncMessages.fact(SyncProblem.diskFull).hasPrefix("The disk is full."))
    }
}
