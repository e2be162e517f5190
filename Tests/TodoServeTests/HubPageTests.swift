import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// The page as a household meets it on a phone: news of every other writer, a "since my last
/// visit" that only a button marks seen, a feed address shown once after a 303.
@Suite(.kit, .timeLimit(.minutes(5)), .serialized)
struct HubPageTests {
    /// The commit the changes page offers to mark as seen.
    static func seenCommit(_ page: TestResponse) throws -> String {
        let after = try #require(page.text.components(separatedBy: "name=\"commit\" value=\"").dropFirst().first, "\(page.text)")
        return String(after.prefix { $0 != "\"" })
    }

    /// Marks everything the changes page shows as seen, as its button does.
    static func markSeen(_ client: some TestClientProtocol, _ device: Device) async throws {
        let page = try await client.get("/changes", device)
        let r = try await client.post("/changes/seen", device, [("commit", try seenCommit(page))])
        #expect(r.status == .seeOther && r.headers[.location] == "/changes" && r.notice == "seen")
    }

    /// The owner's own commands write through the server's clone (its replica); for Ben they
    /// are news all the same, and Ann's changes through the page are Ben's news but not hers.
    @Test func theOwnersChangesShowAsNewsToTheOthers() async throws {
        let f = try ServeFixture()
        let annTask = try f.taskID(titled: "Ann's first chore")
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            let ben = try await client.signIn(f, as: "Ben")
            try await Self.markSeen(client, ann)
            try await Self.markSeen(client, ben)
            var bike = NewTask(title: "Fix the bike")
            bike.assignee = "Ben"
            _ = try f.household().add(bike)
            #expect(try await client.post("/t/\(annTask)/done", ann).status == .seeOther)

            let forBen = try await client.get("/changes", ben)
            #expect(forBen.text.contains(">Fix the bike</a>: Owner added it"), "\(forBen.text)")
            #expect(forBen.text.contains(">Ann&#39;s first chore</a>: Ann completed it"), "\(forBen.text)")
            #expect(!forBen.text.contains("Nothing new from the others"))
            let forAnn = try await client.get("/changes", ann)
            #expect(forAnn.text.contains(">Fix the bike</a>: Owner added it"), "\(forAnn.text)")
            #expect(!forAnn.text.contains("Ann completed it"), "her own change is not news to her")
        }
    }

    /// A view of the page marks nothing: only "Mark as seen" does, with the commit the page
    /// showed, so a change that came in after the page was shown stays news.
    @Test func onlyTheButtonMarksChangesSeen() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let ben = try await client.signIn(f, as: "Ben")
            let first = try await client.get("/changes", ben)
            #expect(first.text.contains("Nothing is marked as seen yet"), "\(first.text)")
            #expect(try f.site.visits(member: "ben") == nil, "a view records nothing")
            try await Self.markSeen(client, ben)

            _ = try f.household().add(NewTask(title: "Buy paint"))
            let shown = try await client.get("/changes", ben)
            #expect(shown.text.contains(">Buy paint</a>"))
            let again = try await client.get("/changes", ben)
            #expect(again.text.contains(">Buy paint</a>"), "a second view still shows it")

            _ = try f.household().add(NewTask(title: "Call the vet"))
            let r = try await client.post("/changes/seen", ben, [("commit", try Self.seenCommit(shown))])
            #expect(r.status == .seeOther && r.notice == "seen")
            let after = try await client.get("/changes", ben, headers: [.cookie: "todo_notice=seen"])
            #expect(after.text.contains("Marked as seen."))
            #expect(!after.text.contains(">Buy paint</a>") && after.text.contains(">Call the vet</a>"), "\(after.text)")

            try await Self.markSeen(client, ben)
            let none = try await client.get("/changes", ben)
            #expect(none.text.contains("Nothing has changed since your last visit."))
            #expect(!none.text.contains("name=\"commit\""), "nothing to mark")

            // A commit that is not one is refused, and changes nothing.
            let before = try f.site.visits(member: "ben")
            for bad in ["", "xyz", String(repeating: "A", count: 40)] {
                #expect(try await client.post("/changes/seen", ben, [("commit", bad)]).status == .unprocessableContent)
            }
            #expect(try f.site.visits(member: "ben") == before)
            // Without the session's CSRF value: refused.
            #expect(try await client.post("/changes/seen", ben, [("commit", before ?? "")], csrf: "x").status == .forbidden)
        }
    }

    /// `POST /feed/new` answers 303 to `/feed`, which shows the address once; a reload, or
    /// another device of the same member, does not.
    @Test func aNewFeedAddressIsShownOnceAfterA303() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            let other = try await client.signIn(f, as: "Ann")
            let r = try await client.post("/feed/new", ann)
            #expect(r.status == .seeOther && r.headers[.location] == "/feed" && r.notice == "feed-made")
            #expect(r.body.readableBytes == 0)
            #expect(!(try await client.get("/feed", other)).text.contains("value=\"http"), "another device does not see it")
            let page = try await client.get("/feed", ann)
            let url = try #require(page.text.components(separatedBy: "value=\"http://127.0.0.1:8080").dropFirst().first?.prefix { $0 != "\"" })
            #expect(url.hasPrefix("/feed/") && url.hasSuffix(".ics"))
            #expect(try await client.get(String(url)).status == .ok)
            let reload = try await client.get("/feed", ann)
            #expect(!reload.text.contains(String(url)) && reload.text.contains("You have a feed address."))
        }
    }

    /// Commits a file that is not a task at `tasks/ab/<id>.json` on `main`, as a bad merge or
    /// a hand edit would; its path.
    static func commitUnreadableTask(_ f: ServeFixture) throws -> String {
        let path = "tasks/ab/ab" + String(repeating: "0", count: 30) + ".json"
        let env = [
            "GIT_INDEX_FILE": f.tmp.path + "/index.tmp", "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.org",
            "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.org",
        ]
        func git(_ args: [String], stdin: StandardInput = .null) throws -> String {
            try runProcess("/usr/bin/git", ["-C", f.repo] + args, environment: env, stdin: stdin).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let blob = try git(["hash-object", "-w", "--stdin"], stdin: .text("{not json"))
        _ = try git(["read-tree", "main"])
        _ = try git(["update-index", "--add", "--cacheinfo", "100644,\(blob),\(path)"])
        let tree = try git(["write-tree"])
        let commit = try git(["commit-tree", tree, "-p", "main", "-m", "a broken file"])
        _ = try git(["update-ref", "refs/heads/main", commit])
        return path
    }

    /// A task file that cannot be read is named on every list page (as `todo list` warns), not
    /// silently left out.
    @Test func aTaskFileThatCannotBeReadIsNamed() async throws {
        let f = try ServeFixture()
        _ = try f.addList("Shopping", items: ["milk"])
        let path = try Self.commitUnreadableTask(f)
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            for page in ["/", "/tasks", "/lists"] {
                let r = try await client.get(page, ann)
                #expect(r.status == .ok, "\(page)")
                #expect(r.text.contains("One task file cannot be read"), "\(page): \(r.text)")
                #expect(r.text.contains("<code>\(path)</code>"), "\(page)")
                PageWordingTests.expectNeutral(r.text, page, f)
            }
            // The others still show.
            #expect(try await client.get("/lists", ann).text.contains(">Shopping</a>"))
            #expect(!(try await client.get("/changes", ann)).text.contains("cannot be read"))
        }
    }

    /// The history's long unbroken words wrap: the style sheet lets any line of the page's
    /// text break anywhere rather than scroll sideways (the browser test measures it at 320 px).
    @Test func longWordsWrap() throws {
        let rule = try #require(Style.css.split(separator: "\n").first { $0.hasPrefix("main,footer,") })
        for selector in ["main", "footer", "ol.history li", "ul.changes li"] {
            #expect(rule.contains(selector) && rule.hasSuffix("{overflow-wrap:anywhere}"), "\(rule)")
        }
    }

    /// A due date the form does not understand is refused in words for a member without a
    /// shell: no manual page, no section name.
    @Test func theDateErrorSpeaksToAMember() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            let r = try await client.post("/add", ann, [("title", "Milk"), ("due", "frydai"), ("form", String(repeating: "e", count: 32))])
            #expect(r.status == .unprocessableContent)
            let error = try #require(r.text.components(separatedBy: "id=\"due-error\">").dropFirst().first?.prefix { $0 != "<" })
            #expect(error.contains("is not a date I understand"), "\(error)")
            for word in ["todo(1)", "DATES", "see todo", "man "] { #expect(!error.contains(word), "\(error)") }
        }
    }
}
