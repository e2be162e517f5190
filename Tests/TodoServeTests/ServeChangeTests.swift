import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// The POST routes: each change once, as the member, back to the page with a notice.
@Suite(.kit, .timeLimit(.minutes(5)), .serialized)
struct ServeChangeTests {
    @Test func eachChangeSentTwiceMakesOneCommit() async throws {
        let f = try ServeFixture()
        let h = try f.household()
        let choreID = try f.addChore("Bins", rotation: ["Ann", "Ben"])
        let recyclingID = try f.addChore("Recycling")
        let listID = try f.addList("Shopping", items: ["milk", "eggs"], tags: ["shopping"])
        let plainID = try f.taskID(titled: "Ann's first chore")
        let occurrence = try #require(try h.snapshot().task(TaskID(choreID)!)).schedule(today: h.clock.today, context: .plain)?.current
        let milk = try #require(try h.snapshot().task(TaskID(listID)!)?.visibleItems.first { $0.text == "milk" }).key

        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            func twice(
                _ uri: String, _ fields: [(String, String)], first: String, second: String,
                sourceLocation: SourceLocation = #_sourceLocation
            ) async throws {
                let before = try f.commitCount()
                let a = try await client.post(uri, device, fields)
                #expect(a.status == .seeOther, sourceLocation: sourceLocation)
                #expect(a.notice == first, "\(a.headers)", sourceLocation: sourceLocation)
                let b = try await client.post(uri, device, fields)
                #expect(b.status == .seeOther, sourceLocation: sourceLocation)
                #expect(b.notice == second, "\(b.headers)", sourceLocation: sourceLocation)
                #expect(try f.commitCount() == before + 1, "\(uri)", sourceLocation: sourceLocation)
            }
            try await twice("/t/\(plainID)/done", [("back", "/")], first: "done", second: "already-done")
            try await twice(
                "/t/\(choreID)/done", [("occurrence", occurrence?.description ?? ""), ("back", "/")], first: "done", second: "already-done")
            try await twice(
                "/t/\(recyclingID)/skip", [("occurrence", occurrence?.description ?? ""), ("back", "/")], first: "skipped",
                second: "already-skipped")
            try await twice("/t/\(listID)/items/\(milk)/check", [("back", "/lists")], first: "checked", second: "unchanged")
            try await twice("/t/\(listID)/items/\(milk)/uncheck", [("back", "/lists")], first: "unchecked", second: "unchanged")
            try await twice("/t/\(listID)/items", [("text", "bread")], first: "item-added", second: "item-known")
            let form = String(repeating: "d", count: 32)
            try await twice("/add", [("title", "Call the plumber"), ("due", "tomorrow"), ("tags", "house"), ("form", form)], first: "added", second: "added-before")

            // The notice shows on the page the answer sends back to.
            let back = try await client.post("/t/\(listID)/items/\(milk)/check", device, [("back", "/lists")])
            #expect(back.headers[.location] == "/lists" && back.notice == "checked")
            let page = try await client.get("/lists", device, headers: [.cookie: "todo_notice=checked"])
            #expect(page.text.contains("<p class=\"notice\" role=\"status\">Checked.</p>"))
            #expect(page.headers[values: .setCookie].contains { $0.hasPrefix("todo_notice=;") && $0.contains("Max-Age=0") })
            #expect(!(try await client.get("/lists", device)).text.contains("class=\"notice\""))
            #expect(page.text.contains("aria-pressed=\"true\"><span class=\"box\" aria-hidden=\"true\"></span><span class=\"itemtext\">milk</span>"))
            #expect(page.text.contains("aria-pressed=\"false\"><span class=\"box\" aria-hidden=\"true\"></span><span class=\"itemtext\">eggs</span>"))
            // A `back` to another site is not followed.
            let away = try await client.post("/t/\(listID)/items/\(milk)/uncheck", device, [("back", "//evil.example/")])
            #expect(away.headers[.location] == "/t/\(listID)" && away.notice == "unchecked")
        }
        let added = try f.taskID(titled: "Call the plumber")
        let task = try #require(try f.household().snapshot().task(TaskID(added)!))
        #expect(task.tags == ["house"] && task.due?.date == h.clock.today.checkedAdding(days: 1))
    }

    @Test func aChangeIsCommittedAsTheMember() async throws {
        let f = try ServeFixture()
        _ = try f.household().setMember("Ben", MemberChange(email: "ben@example.org"))
        let annTask = try f.taskID(titled: "Ann's first chore")
        let benTask = try f.taskID(titled: "Ben's first chore")
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "ann")
            #expect(try await client.post("/t/\(annTask)/done", ann).status == .seeOther)
            #expect(try f.git(["log", "-1", "--format=%an <%ae>|%cn <%ce>"]) == "Ann <ann@home.todo.invalid>|Ann <ann@home.todo.invalid>\n")
            let ben = try await client.signIn(f, as: "Ben")
            #expect(try await client.post("/t/\(benTask)/done", ben).status == .seeOther)
            #expect(try f.git(["log", "-1", "--format=%an <%ae>"]) == "Ben <ben@example.org>\n")
        }
        // The stamps name the member and the server's replica, not the clone's.
        let task = try #require(try f.household().snapshot().task(TaskID(annTask)!))
        let stamp = try #require(task.stamps["status"])
        #expect(stamp.member == "Ann")
        #expect(stamp.stamp.replica == f.site.replica)
    }

    @Test func mineShowsTheMembersChoresWithDoneAndSkip() async throws {
        let f = try ServeFixture()
        let h = try f.household()
        var chore = NewTask(title: "Water plants")
        chore.recurrence = Recurrence(rule: try #require(RepeatRule("daily")), from: h.clock.today)
        chore.rotation = ["Ann"]
        let id = try #require(try h.add(chore).tasks.first).task.id.hex
        let today = h.clock.today
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            let mine = try await client.get("/", ann)
            #expect(mine.text.contains("class=\"title\" href=\"/t/\(id)\">Water plants</a>"))
            #expect(mine.text.contains("aria-label=\"Done: Water plants\""))
            #expect(mine.text.contains("aria-label=\"Skip: Water plants\""))
            #expect(mine.text.contains("<form method=\"post\" action=\"/t/\(id)/skip\">"))
            #expect(mine.text.contains("name=\"occurrence\" value=\"\(today)\""))
            #expect(mine.text.contains("Ann&#39;s first chore") || mine.text.contains("Ann's first chore"))
            #expect(!mine.text.contains("Ben&#39;s first chore") && !mine.text.contains("Ben's first chore"))
            let skip = try await client.post("/t/\(id)/skip", ann, [("occurrence", today.description), ("back", "/")])
            #expect(skip.headers[.location] == "/" && skip.notice == "skipped")
        }
    }

    /// Mine shows at most a page's worth (50) in each part and links to the rest, filtered to the
    /// member in the household list, so a member with hundreds of overdue tasks gets a page of
    /// bounded size.
    @Test func minePagesEachPartAndLinksToTheRest() async throws {
        let f = try ServeFixture()
        let h = try f.household()
        let json = "[" + (0..<60).map { #"{"title": "Overdue \#($0)", "assignee": "Ann", "due": "2020-01-01"}"# }
            .joined(separator: ",") + "]"
        _ = try h.importTasks(Array(json.utf8), file: nil)
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            let mine = try await client.get("/", ann)
            #expect(mine.status == .ok)
            #expect(mine.text.components(separatedBy: "aria-label=\"Done: Overdue ").count - 1 == 50)
            #expect(mine.text.contains("<a href=\"/tasks?assignee=Ann&amp;overdue=1\">10 more of yours"), "\(mine.text)")
            // The link leads to all 60, a page of 50 and a next page.
            let rest = try await client.get("/tasks?assignee=Ann&overdue=1", ann)
            #expect(rest.status == .ok)
            #expect(rest.text.components(separatedBy: "class=\"title\" href=").count - 1 == 50, "\(rest.text)")
            #expect(rest.text.contains(">Next page</a>"))
        }
    }

    @Test func aCommitMadeElsewhereBetweenTwoRequestsShows() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            let first = try await client.get("/tasks", device)
            #expect(!first.text.contains("Made by the CLI"))
            // Another process (the CLI, cron's sync) commits meanwhile.
            _ = try f.household().add(NewTask(title: "Made by the CLI"))
            let second = try await client.get("/tasks", device)
            #expect(second.text.contains("Made by the CLI"))
            // `todo maintenance` replaces the packs; the next request opens the household fresh.
            var options = MaintenanceOptions()
            options.grace = 0
            _ = try f.household().maintain(options)
            _ = try f.household().add(NewTask(title: "After the repack"))
            let third = try await client.get("/tasks", device)
            #expect(third.status == .ok && third.text.contains("After the repack") && third.text.contains("Made by the CLI"))
            let done = try await client.post("/t/\(try f.taskID(titled: "After the repack"))/done", device)
            #expect(done.status == .seeOther)
        }
        #expect(try f.git(["fsck", "--no-progress"]).isEmpty)
    }

    @Test func aChangeIsSyncedSoonAfterByTheBackgroundSync() async throws {
        let f = try ServeFixture { $0.syncEvery = 3600; $0.syncDebounce = 0.2 }
        let remote = f.tmp.path + "/remote.git"
        _ = try runProcess("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", remote])
        try f.household().setRemote(remote)
        let id = try f.taskID(titled: "Ann's first chore")
        try await f.application(services: true).test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            #expect(try await client.post("/t/\(id)/done", device).status == .seeOther)
            // The sync runs on its own; wait (bounded) for its record.
            let deadline = ContinuousClock.now + .seconds(30)
            while try f.household().syncState().lastSuccess == nil && ContinuousClock.now < deadline {
                try await _Concurrency.Task.sleep(for: .milliseconds(100))
            }
            #expect(try f.household().syncState().lastSuccess != nil)
        }
        let pushed = try runProcess("/usr/bin/git", ["-C", remote, "log", "--format=%an %s", "main"])
        #expect(pushed.stdout.contains("Ann done: Ann's first chore"), "\(pushed.stdout)")
    }

    @Test func syncNowSyncsWithTheRemoteAndTheSyncPageSaysSo() async throws {
        let f = try ServeFixture()
        let remote = f.tmp.path + "/remote.git"
        _ = try runProcess("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", remote])
        try f.household().setRemote(remote)
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            let before = try await client.get("/sync", device)
            #expect(before.text.contains("<dt>Last success</dt><dd>never</dd>"))
            let r = try await client.post("/sync", device)
            #expect(r.headers[.location] == "/sync" && r.notice == "synced")
            let after = try await client.get("/sync", device, headers: [.cookie: "todo_notice=synced"])
            #expect(after.text.contains("<p class=\"notice\" role=\"status\">Synced.</p>"))
            #expect(!after.text.contains("<dt>Last success</dt><dd>never</dd>"))
            #expect(after.text.contains("<dt>Waiting to be sent</dt><dd>0 changed tasks</dd>"))
        }
        let pushed = try runProcess("/usr/bin/git", ["-C", remote, "log", "--format=%s", "main"])
        #expect(pushed.stdout.contains("Ann's first chore"))
    }

    @Test func theHouseholdListPagesBy50() async throws {
        let f = try ServeFixture(members: [])
        let h = try f.household()
        for i in 0..<120 { _ = try h.add(NewTask(title: "task \(i)")) }
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Owner")
            var seen = Set<String>()
            var uri: String? = "/tasks"
            var pages = 0
            while let u = uri {
                let r = try await client.get(u, device)
                #expect(r.status == .ok)
                let titles = r.text.components(separatedBy: "class=\"title\"").count - 1
                #expect(titles <= 50)
                for match in r.text.components(separatedBy: "\">task ").dropFirst() { seen.insert(String(match.prefix { $0 != "<" })) }
                pages += 1
                uri = r.text.components(separatedBy: "<a href=\"").dropFirst().first { $0.hasPrefix("/tasks?") && r.text.contains("Next page") }
                    .map { String($0.prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&") }
                if !r.text.contains(">Next page</a>") { uri = nil }
            }
            #expect(pages == 3)
            #expect(seen.count == 120)

            // The last row of a page leaves the list before Next: the next page starts after it.
            let first = try await client.get("/tasks", device)
            let titles = first.text.components(separatedBy: "\">task ").dropFirst().map { "task " + String($0.prefix { $0 != "<" }) }
            let next = try #require(
                first.text.components(separatedBy: "<a href=\"").dropFirst().first { $0.hasPrefix("/tasks?") }
                    .map { String($0.prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&") })
            _ = try f.household().complete([try f.taskID(titled: try #require(titles.last))], .done)
            let second = try await client.get(next, device)
            let again = second.text.components(separatedBy: "\">task ").dropFirst().map { "task " + String($0.prefix { $0 != "<" }) }
            #expect(again.count == 50 && Set(again).isDisjoint(with: titles), "\(again.prefix(3))")
        }
    }

    @Test func theFeedIsReadableWithItsTokenOnly() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            #expect(try await client.post("/feed/new", device).status == .seeOther)
            let r = try await client.get("/feed", device)
            let url = try #require(r.text.components(separatedBy: "value=\"http://127.0.0.1:8080").dropFirst().first?.prefix { $0 != "\"" })
            #expect(url.hasPrefix("/feed/") && url.hasSuffix(".ics"))
            let feed = try await client.get(String(url))
            #expect(feed.status == .ok && feed.headers[.contentType] == "text/calendar; charset=utf-8")
            #expect(feed.text.hasPrefix("BEGIN:VCALENDAR"))
            #expect(try await client.get("/feed/12345678.\(String(repeating: "a", count: 43)).ics").status == .notFound)
            // A new address stops the old one.
            _ = try await client.post("/feed/new", device)
            #expect(try await client.get(String(url)).status == .notFound)
            // The feed token opens no page.
            let token = String(url.dropFirst(6).dropLast(4))
            #expect(try await client.get("/", Device(cookie: token, csrf: "")).status == .unauthorized)
        }
    }

    @Test func signingOutEndsThisDevicesSession() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            let r = try await client.post("/signout", device)
            #expect(r.status == .ok && r.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await client.get("/", device).status == .unauthorized)
        }
    }

    @Test func changesSinceTheLastVisitShowWhatOthersDid() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            let first = try await client.get("/changes", device)
            #expect(first.text.contains("Nothing is marked as seen yet"))
            try await HubPageTests.markSeen(client, device)
            _ = try f.household().add(NewTask(title: "New from elsewhere"))
            let second = try await client.get("/changes", device)
            #expect(second.status == .ok && second.text.contains(">New from elsewhere</a>: Owner added it"), "\(second.text)")
            let sync = try await client.post("/sync", device)
            #expect(sync.status == .seeOther && sync.headers[.location] == "/sync")
        }
    }

    /// A last visit the history cannot answer for (a commit it no longer has): the page says
    /// it could not read the changes, never "nothing new", keeps the visit as it was, and
    /// offers to mark the present as seen.
    @Test func changesThatCannotBeReadAreSaidSo() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            _ = try await client.get("/changes", device)
            let gone = String(repeating: "ab", count: 20)
            try f.site.recordVisit(member: "ann", commit: gone)
            _ = try f.household().add(NewTask(title: "New from elsewhere"))
            let r = try await client.get("/changes", device)
            #expect(r.status == .ok)
            #expect(r.text.contains("could not be read"), "\(r.text)")
            #expect(!r.text.contains("Nothing has changed") && !r.text.contains("Nothing new"), "\(r.text)")
            #expect(try f.site.visits(member: "ann") == gone, "a view records nothing")
            #expect(try HubPageTests.seenCommit(r) == f.household().headCommit())
        }
    }
}
