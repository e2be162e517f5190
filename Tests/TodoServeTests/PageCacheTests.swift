import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// Mine is kept per commit, minute and session (`Site.page`): what it shows follows every
/// commit, each session gets its own page (its own CSRF value in every form), and a notice is
/// never kept for a later view.
@Suite(.timeLimit(.minutes(5))) struct PageCacheTests {
    @Test func mineFollowsEachCommitAndEachSession() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            let ann2 = try await client.signIn(f, as: "Ann")
            let ben = try await client.signIn(f, as: "Ben")
            let first = try await client.get("/", ann)
            let annsChore = ["Ann&#39;s first chore", "Ann&#x27;s first chore", "Ann's first chore"]
            #expect(first.status == .ok && annsChore.contains { first.text.contains($0) })
            #expect(try await client.get("/", ann).text == first.text)
            // Another device of Ann's, and Ben: their own CSRF values, never Ann's first.
            let other = try await client.get("/", ann2).text
            #expect(other.contains(ann2.csrf) && !other.contains(ann.csrf))
            let bens = try await client.get("/", ben).text
            #expect(bens.contains(ben.csrf) && !bens.contains(ann.csrf) && !annsChore.contains { bens.contains($0) })

            // A change from the CLI: a new commit, shown at once.
            var t = NewTask(title: "Buy stamps")
            t.assignee = "Ann"
            t.due = Due(date: try f.household().clock.today)
            _ = try f.household().add(t)
            #expect(try await client.get("/", ann).text.contains("Buy stamps"))

            // A change from the page: its notice once, then the page without it.
            let id = try f.taskID(titled: "Buy stamps")
            let done = try await client.post("/t/\(id)/done", ann, [("back", "/")])
            #expect(done.status == .seeOther)
            let notice = try #require(done.noticeCookie)
            var headers = ann.headers
            headers[.cookie] = "todo_session=\(ann.cookie); todo_notice=\(notice)"
            let withNotice = try await client.get("/", headers: headers)
            #expect(withNotice.text.contains("class=\"notice\" role=\"status\""), "\(withNotice.text.prefix(2000))")
            let after = try await client.get("/", ann).text
            #expect(!after.contains("Buy stamps") && !after.contains("class=\"notice\""))
        }
    }
}
