import Foundation
import Testing
import TodoCore

@testable import TodoStore

/// The store holds every new or edited task to `FieldRules` itself, whatever a front end
/// checked: a value the rules refuse is `fieldRefused` and nothing is committed; one they trim
/// is stored trimmed.
@Suite(.timeLimit(.minutes(5)), .kit)
struct StoreRulesTests {
    func commits(_ h: Household) throws -> String { try git("rev-list", "--count", "main", in: h.path) }

    /// The refusal `body` threw, as (field, problem); nil when it threw none or another.
    func refusal(_ body: () throws(StoreError) -> Void) -> (StoreError.RuledField, FieldRules.Problem)? {
        do {
            try body()
        } catch {
            if case .fieldRefused(let field, _, let problem) = error { return (field, problem) }
            Issue.record("not a refusal: \(error)")
        }
        return nil
    }

    @Test func aNewTaskPastTheRulesIsRefusedAndNothingCommitted() throws {
        let f = try StoreTransactionTests.Fixture()
        let h = f.household
        let before = try commits(h)
        var cases: [(NewTask, StoreError.RuledField, FieldRules.Problem)] = []
        cases.append((NewTask(title: "  \t "), .title, .empty))
        cases.append((NewTask(title: String(repeating: "t", count: FieldRules.maxTitle + 1)), .title, .tooLong(limit: FieldRules.maxTitle)))
        var notes = NewTask(title: "ok")
        notes.notes = String(repeating: "n", count: FieldRules.maxNotes + 1)
        cases.append((notes, .notes, .tooLong(limit: FieldRules.maxNotes)))
        var assignee = NewTask(title: "ok")
        assignee.assignee = " "
        cases.append((assignee, .assignee, .empty))
        var tag = NewTask(title: "ok")
        tag.tags = ["fine", "two words"]
        cases.append((tag, .tag, .invalid))
        var item = NewTask(title: "ok")
        item.items = ["milk", String(repeating: "i", count: FieldRules.maxItem + 1)]
        cases.append((item, .item, .tooLong(limit: FieldRules.maxItem)))
        for (new, field, problem) in cases {
            let found = refusal { () throws(StoreError) in _ = try h.add(new) }
            #expect(found?.0 == field && found?.1 == problem, "\(field)")
        }
        #expect(try commits(h) == before)
    }

    @Test func anEditPastTheRulesIsRefusedAndATrimmedOneStoredTrimmed() throws {
        let f = try StoreTransactionTests.Fixture()
        let h = f.household
        var new = NewTask(title: "  Buy milk  ")
        new.tags = ["+shop"]
        let added = try #require(try h.add(new).tasks.first)
        #expect(added.task.title == "Buy milk")
        #expect(added.task.tags == ["shop"])
        let before = try commits(h)
        var blank = TaskEdit()
        blank.title = ""
        #expect(refusal { () throws(StoreError) in _ = try h.edit(added.task.id.hex, blank) }.map { $0 == (.title, .empty) } == true)
        var tagged = TaskEdit()
        tagged.addTags = [String(repeating: "x", count: FieldRules.maxTag + 1)]
        #expect(refusal { () throws(StoreError) in _ = try h.edit(added.task.id.hex, tagged) }.map { $0 == (.tag, .tooLong(limit: FieldRules.maxTag)) } == true)
        var assigned = TaskEdit()
        assigned.assignee = .set("")
        #expect(refusal { () throws(StoreError) in _ = try h.edit(added.task.id.hex, assigned) }.map { $0 == (.assignee, .empty) } == true)
        #expect(try commits(h) == before)
        var renamed = TaskEdit()
        renamed.title = "\tOat milk "
        renamed.assignee = .set(" Bob ")
        let edited = try #require(try h.edit(added.task.id.hex, renamed).tasks.first)
        #expect(edited.task.title == "Oat milk" && edited.task.assignee == "Bob")
    }
}
