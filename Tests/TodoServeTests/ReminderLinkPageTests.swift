import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// The page a reminder's Done link opens is the page's own template, so a title from a task
/// file is text, never markup; the link's GET changes nothing and its POST acts once.
@Suite(.timeLimit(.minutes(5))) struct ReminderLinkPageTests {
    @Test func aHostileTitleIsTextAndTheLinkActsOnce() async throws {
        let f = try ServeFixture()
        var new = NewTask(title: "<img src=x onerror=alert(1)></p><form action=\"https://evil.example/\"> & \u{202E}x")
        new.assignee = "Ann"
        let id = try #require(try f.household().add(new).tasks.first).task.id
        let links = try ReminderLinks.load(f.site.state)
        let token = links.token(.init(member: "Ann", id: id, day: try f.household().clock.today, occurrence: nil))
        let commits = try f.commitCount()
        try await f.application().test(.router) { client in
            let page = try await client.get("/r/\(token)")
            #expect(page.status == .ok)
            #expect(!page.text.contains("<img") && !page.text.contains("evil.example/\">") && !page.text.contains("\u{202E}"), "\(page.text)")
            #expect(page.text.contains("&lt;img src=x onerror=alert(1)&gt;") && page.text.contains("\\u{202e}"), "\(page.text)")
            #expect(page.text.contains("<form method=\"post\" action=\"/r/\(token)\"><button type=\"submit\">Done</button></form>"))
            #expect(try f.commitCount() == commits, "a GET changes nothing")
            let done = try await client.post("/r/\(token)", nil)
            #expect(done.status == .ok && done.text.contains("is done. Thank you, Ann."), "\(done.text)")
            #expect(try f.commitCount() == commits + 1)
            let again = try await client.post("/r/\(token)", nil)
            #expect(again.status == .ok && again.text.contains("was done already."))
            #expect(try f.commitCount() == commits + 1)
            #expect(try await client.get("/r/\(token.dropLast(2))xx").status == .notFound)
        }
    }
}
