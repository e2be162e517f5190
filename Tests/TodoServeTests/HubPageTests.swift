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

    /// Without a mark, or with one whose commit cannot be read, the page shows what the others
    /// changed since the start of the household day seven days ago, says so in one line, and
    /// offers "Mark as seen"; viewing it writes nothing.
    @Test func withoutAMarkThePageShowsTheLastSevenDays() async throws {
        let f = try ServeFixture()
        let now = f.site.now()
        _ = try Household.open(home: f.home, name: "home", clock: .fixed(now - 10 * 86_400_000)).add(NewTask(title: "Old news"))
        _ = try Household.open(home: f.home, name: "home", clock: .fixed(now - 2 * 86_400_000)).add(NewTask(title: "Fresh news"))
        try await f.application().test(.router) { client in
            let ben = try await client.signIn(f, as: "Ben")
            let commits = try f.commitCount()
            let page = try await client.get("/changes", ben)
            #expect(page.status == .ok)
            #expect(page.text.contains("Nothing is marked as seen yet, so this shows what the others changed in the last seven days (since "), "\(page.text)")
            #expect(page.text.contains(">Fresh news</a>: Owner added it"), "\(page.text)")
            #expect(!page.text.contains("Old news"), "\(page.text)")
            #expect(try Self.seenCommit(page) == f.household().headCommit())
            #expect(try f.site.visits(member: "ben") == nil, "a view records nothing")
            #expect(try f.commitCount() == commits)

            let gone = String(repeating: "ab", count: 20)
            try f.site.recordVisit(member: "ben", commit: gone)
            let unreadable = try await client.get("/changes", ben)
            #expect(unreadable.text.contains("Your last visit could not be read"), "\(unreadable.text)")
            #expect(unreadable.text.contains("in the last seven days") && unreadable.text.contains(">Fresh news</a>"), "\(unreadable.text)")
            #expect(!unreadable.text.contains("Old news"))
            #expect(try f.site.visits(member: "ben") == gone)
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

/// The phone's form: a date picker beside the CLI's words, the household's members in a select,
/// checklist items as toggles, Undo after Done, Skip or a tick, Reopen on a done task.
@Suite(.kit, .timeLimit(.minutes(5)), .serialized)
struct PhoneFormTests {
    @Test func theAddFormHasADatePickerAndTheMembersInASelect() async throws {
        let f = try ServeFixture()
        let h = try f.household()
        let today = h.clock.today
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            let page = try await client.get("/add", ann)
            #expect(page.text.contains("<input type=\"date\" id=\"due-date\" name=\"due-date\" value=\"\">"), "\(page.text)")
            #expect(page.text.contains("<input type=\"time\" id=\"due-time\" name=\"due-time\" value=\"\">"))
            #expect(page.text.contains("<label for=\"due-date\">Date</label>") && page.text.contains("<label for=\"due-time\">Time (optional)</label>"))
            #expect(page.text.contains("<select id=\"assignee\" name=\"assignee\">"))
            #expect(page.text.contains("<option value=\"\" selected>Nobody</option>"))
            for m in ["Ann", "Ben"] { #expect(page.text.contains("<option value=\"\(m)\">\(m)</option>"), "\(m)") }

            func add(_ title: String, _ fields: [(String, String)], form: Character) async throws -> Task {
                let r = try await client.post("/add", ann, [("title", title), ("form", String(repeating: form, count: 32))] + fields)
                #expect(r.status == .seeOther, "\(title): \(r.text)")
                return try #require(try f.household().snapshot().task(TaskID(try f.taskID(titled: title))!))
            }
            let picked = try await add("Picked", [("due-date", "2031-12-24"), ("due-time", "18:30"), ("assignee", "Ben")], form: "1")
            #expect(picked.due == Due(date: CivilDate(year: 2031, month: 12, day: 24)!, minutes: 18 * 60 + 30))
            #expect(picked.assignee == "Ben")
            let dateOnly = try await add("Date only", [("due-date", "2031-01-02"), ("due-time", "")], form: "2")
            #expect(dateOnly.due == Due(date: CivilDate(year: 2031, month: 1, day: 2)!))
            let words = try await add("Words win", [("due", "tomorrow"), ("due-date", "2031-01-02")], form: "3")
            #expect(words.due?.date == today.checkedAdding(days: 1))
            let timeAlone = try await add("Time alone", [("due-time", "07:15")], form: "4")
            #expect(timeAlone.due == Due(date: today, minutes: 7 * 60 + 15))

            // A date that is not one: refused beside the field, what was picked kept.
            let bad = try await client.post(
                "/add", ann, [("title", "Bad"), ("due-date", "2031-02-30"), ("assignee", "Ben"), ("form", String(repeating: "5", count: 32))])
            #expect(bad.status == .unprocessableContent)
            #expect(bad.text.contains("id=\"due-error\">The date picked is not a date of the calendar."), "\(bad.text)")
            #expect(bad.text.contains("value=\"2031-02-30\"") && bad.text.contains("<option value=\"Ben\" selected>Ben</option>"))
        }
    }

    @Test func eachChecklistItemIsAToggleThatSendsOnlyItsChange() async throws {
        let f = try ServeFixture()
        let list = try f.addList("Shopping", items: ["milk", "eggs"], tags: ["shopping"])
        let milk = try #require(try f.household().snapshot().task(TaskID(list)!)?.visibleItems.first { $0.text == "milk" }).key
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            let page = try await client.get("/lists", ann)
            let toggle = "<button type=\"submit\" class=\"check\" aria-pressed=\"false\"><span class=\"box\" aria-hidden=\"true\"></span><span class=\"itemtext\">milk</span></button>"
            #expect(page.text.contains(toggle), "\(page.text)")
            #expect(page.text.contains("action=\"/t/\(list)/items/\(milk)/check\""))
            let before = try f.commitCount()
            #expect(try await client.post("/t/\(list)/items/\(milk)/check", ann, [("back", "/lists")]).status == .seeOther)
            #expect(try f.commitCount() == before + 1)
            // The commit wrote milk's entry and nothing of eggs.
            let entry = try #require(try f.household().history(of: TaskID(list)!, limit: 1).first)
            let after = try #require(entry.changes.first?.after)
            #expect(after.visibleItems.first { $0.text == "milk" }?.state == .checked)
            #expect(after.visibleItems.first { $0.text == "eggs" }?.state == .open)
            let shown = try await client.get("/lists", ann)
            #expect(shown.text.contains("aria-pressed=\"true\"><span class=\"box\" aria-hidden=\"true\"></span><span class=\"itemtext\">milk</span>"))
            #expect(shown.text.contains("action=\"/t/\(list)/items/\(milk)/uncheck\""))
        }
    }

    /// The notice's cookie after a change: its code, task and commit.
    static func undoable(_ r: TestResponse) throws -> (notice: String, task: String, commit: String) {
        let parts = try #require(r.noticeCookie).split(separator: "~").map(String.init)
        try #require(parts.count == 3, "\(r.noticeCookie ?? "")")
        return (parts[0], parts[1], parts[2])
    }

    @Test func undoAfterDoneSkipOrATickTakesBackThatCommit() async throws {
        let f = try ServeFixture()
        let h = try f.household()
        let plain = try f.taskID(titled: "Ann's first chore")
        let chore = try f.addChore("Bins", rotation: ["Ann"])
        let list = try f.addList("Shopping", items: ["milk"])
        let milk = try #require(try h.snapshot().task(TaskID(list)!)?.visibleItems.first).key
        let today = h.clock.today
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            let ben = try await client.signIn(f, as: "Ben")

            let done = try await client.post("/t/\(plain)/done", ann, [("back", "/")])
            let u = try Self.undoable(done)
            let head = try f.household().headCommit()
            #expect(u.notice == "done" && u.task == plain && u.commit == head)
            // The page the notice is shown on offers the Undo, and only there.
            let page = try await client.get("/", ann, headers: [.cookie: "todo_notice=\(try #require(done.noticeCookie))"])
            #expect(page.text.contains("<p class=\"notice\" role=\"status\">Done.</p>"))
            #expect(page.text.contains("<form method=\"post\" action=\"/undo\" class=\"undo\">"), "\(page.text)")
            #expect(page.text.contains("name=\"commit\" value=\"\(u.commit)\"") && page.text.contains("name=\"task\" value=\"\(plain)\""))
            #expect(!(try await client.get("/", ann)).text.contains("action=\"/undo\""))

            // Ben cannot take back Ann's change.
            let count = try f.commitCount()
            #expect(try await client.post("/undo", ben, [("task", plain), ("commit", u.commit)]).status == .notFound)
            let undo = try await client.post("/undo", ann, [("task", plain), ("commit", u.commit), ("back", "/")])
            #expect(undo.status == .seeOther && undo.headers[.location] == "/" && undo.notice == "undone")
            #expect(try f.household().snapshot().task(TaskID(plain)!)?.status == .open)
            #expect(try f.commitCount() == count + 1)
            let again = try await client.post("/undo", ann, [("task", plain), ("commit", u.commit), ("back", "/")])
            let afterAgain = try f.commitCount()
            #expect(again.notice == "already-undone" && afterAgain == count + 1)

            // A chore's done and skip, and a tick.
            for (uri, fields, code) in [
                ("/t/\(chore)/done", [("occurrence", today.description)], "done"),
                ("/t/\(chore)/skip", [("occurrence", today.description)], "skipped"),
                ("/t/\(list)/items/\(milk)/check", [], "checked"),
            ] {
                let before = try f.household().snapshot().task(TaskID(uri.split(separator: "/")[1].description)!)
                let r = try await client.post(uri, ann, fields)
                let x = try Self.undoable(r)
                #expect(x.notice == code)
                let back = try await client.post("/undo", ann, [("task", x.task), ("commit", x.commit)])
                #expect(back.notice == "undone", "\(uri): \(back.text)")
                let now = try f.household().snapshot().task(TaskID(x.task)!)
                #expect(now?.visibleItems.map(\.state) == before?.visibleItems.map(\.state), "\(uri)")
                let day = today
                let (was, is_) = (before?.schedule(today: day, context: .plain)?.current, now?.schedule(today: day, context: .plain)?.current)
                #expect(is_ == was, "\(uri)")
            }
            // Taken back already, or changed since by someone else: refused, nothing written.
            let tick = try Self.undoable(try await client.post("/t/\(list)/items/\(milk)/check", ann))
            #expect(try await client.post("/t/\(list)/items/\(milk)/uncheck", ben).status == .seeOther)
            let n = try f.commitCount()
            let refused = try await client.post("/undo", ann, [("task", tick.task), ("commit", tick.commit)])
            let afterRefused = try f.commitCount()
            #expect(refused.notice == "undo-refused" && afterRefused == n)
            // Not a commit of this task, or not hex: refused.
            #expect(try await client.post("/undo", ann, [("task", plain), ("commit", tick.commit)]).status == .notFound)
            #expect(try await client.post("/undo", ann, [("task", plain), ("commit", "HEAD")]).status == .unprocessableContent)
        }
    }

    @Test func aDoneTaskCanBeReopenedFromItsPage() async throws {
        let f = try ServeFixture()
        let id = try f.taskID(titled: "Ann's first chore")
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            #expect(!(try await client.get("/t/\(id)", ann)).text.contains(">Reopen</button>"))
            _ = try await client.post("/t/\(id)/done", ann)
            let page = try await client.get("/t/\(id)", ann)
            #expect(page.text.contains("<form method=\"post\" action=\"/t/\(id)/reopen\">") && page.text.contains(">Reopen</button>"))
            let r = try await client.post("/t/\(id)/reopen", ann)
            #expect(r.status == .seeOther && r.headers[.location] == "/t/\(id)" && r.notice == "reopened")
            #expect(try f.household().snapshot().task(TaskID(id)!)?.status == .open)
            #expect(try await client.post("/t/\(id)/reopen", ann).notice == "already-open")
        }
    }
}

/// "Add to Home Screen": a manifest linked from every page, served without a session, valid
/// JSON naming the household, and icons it names that are reachable and real PNGs of their size.
@Suite(.kit, .timeLimit(.minutes(5)), .serialized)
struct HomeScreenTests {
    /// Decodes a PNG with Python's zlib (an implementation other than the server's): its width,
    /// height and how many pixels are the second palette entry (the tick).
    static func decode(_ bytes: [UInt8], in f: ServeFixture) throws -> (Int, Int, Int) {
        let file = f.tmp.path + "/icon.png"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let script = """
            import struct, sys, zlib
            b = open(sys.argv[1], 'rb').read()
            assert b[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
            i, idat, size = 8, b'', None
            while i < len(b):
                n, = struct.unpack('>I', b[i:i+4]); kind = b[i+4:i+8]; data = b[i+8:i+8+n]
                assert zlib.crc32(kind + data) == struct.unpack('>I', b[i+8+n:i+12+n])[0], kind
                if kind == b'IHDR': size = struct.unpack('>II', data[:8]); assert data[8:10] == bytes([1, 3])
                if kind == b'IDAT': idat += data
                i += 12 + n
            raw = zlib.decompress(idat); w, h = size; row = (w + 7) // 8 + 1
            assert len(raw) == row * h
            print(w, h, sum(bin(x).count('1') for y in range(h) for x in raw[y*row+1:(y+1)*row]))
            """
        let out = try runProcess("/usr/bin/python3", ["-c", script, file])
        #expect(out.status == 0, "\(out.stderr)")
        let n = out.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(n.count == 3, "\(out.stdout)")
        return (n[0], n[1], n[2])
    }

    @Test func theManifestAndItsIconsAreServedAndLinkedFromEveryPage() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            for page in ["/", "/tasks", "/lists", "/add", "/changes", "/sync", "/feed", "/phone"] {
                let r = try await client.get(page, ann)
                #expect(r.text.contains("<link rel=\"manifest\" href=\"/manifest.webmanifest\">"), "\(page)")
                #expect(r.text.contains("<link rel=\"apple-touch-icon\" href=\"/static/icon-192.png\">"), "\(page)")
            }
            #expect(try await client.get("/i/nothing").text.contains("rel=\"manifest\""), "the sign-in page too")
            // No cookie: a browser fetches the manifest without one.
            let m = try await client.get("/manifest.webmanifest")
            #expect(m.status == .ok && m.headers[.contentType] == "application/manifest+json")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(m.text.utf8)) as? [String: Any])
            #expect(json["name"] as? String == "todo: home" && json["short_name"] as? String == "home")
            #expect(json["start_url"] as? String == "/" && json["scope"] as? String == "/" && json["display"] as? String == "standalone")
            #expect(json["theme_color"] as? String == HomeScreen.colour(for: "home"))
            let icons = try #require(json["icons"] as? [[String: String]])
            var sizes: Set<String> = []
            for icon in icons {
                let src = try #require(icon["src"])
                let r = try await client.get(src)
                #expect(r.status == .ok && r.headers[.contentType] == icon["type"], "\(src)")
                guard icon["type"] == "image/png" else {
                    #expect(r.text.hasPrefix("<svg ") && r.text.contains("<polyline"))
                    continue
                }
                let (w, h, tick) = try Self.decode(Array(r.body.readableBytesView), in: f)
                #expect("\(w)x\(h)" == icon["sizes"], "\(src)")
                // The tick covers some of the square, not all of it.
                #expect(tick > w * h / 50 && tick < w * h / 4, "\(src): \(tick) of \(w * h)")
                sizes.insert("\(w)x\(h)")
            }
            #expect(sizes == ["192x192", "512x512"])
            #expect(icons.contains { $0["purpose"] == "maskable" })
        }
    }

    @Test func aPrefixedServerNamesItsPrefixInTheManifest() async throws {
        let f = try ServeFixture { $0.baseURL = BaseURL.parse("https://nas.example/todo/") }
        try await f.application().test(.router) { client in
            let m = try await client.get("/todo/manifest.webmanifest")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(m.text.utf8)) as? [String: Any], "\(m.text)")
            #expect(json["start_url"] as? String == "/todo/" && json["scope"] as? String == "/todo/")
            #expect((json["icons"] as? [[String: String]])?.allSatisfy { $0["src"]?.hasPrefix("/todo/static/") == true } == true)
        }
    }
}

/// A household with no recorded time zone follows the server's clock: Mine says so and offers
/// the form that records one, for everyone.
@Suite(.kit, .timeLimit(.minutes(5)), .serialized)
struct ZoneNoticeTests {
    @Test func mineShowsHowToSetTheHouseholdsZoneUntilOneIsSet() async throws {
        let f = try ServeFixture()
        guard case .machine = try f.household().zone().source else {
            Issue.record("the fixture's household records a zone")
            return
        }
        try await f.application().test(.router) { client in
            let ann = try await client.signIn(f, as: "Ann")
            let mine = try await client.get("/", ann)
            #expect(mine.text.contains("<h2 id=\"zone-heading\">The household has no time zone</h2>"), "\(mine.text)")
            #expect(mine.text.contains("<form method=\"post\" action=\"/zone\">") && mine.text.contains("<option value=\"Europe/Paris\">"))
            PageWordingTests.expectNeutral(mine.text, "Mine without a zone", f)

            let before = try f.commitCount()
            for bad in ["Mars/Olympus", "../../etc/passwd", ""] {
                let r = try await client.post("/zone", ann, [("zone", bad)])
                #expect(r.status == .unprocessableContent, "\(bad)")
                PageWordingTests.expectNeutral(r.text, bad, f)
            }
            #expect(try f.commitCount() == before)
            let r = try await client.post("/zone", ann, [("zone", "Europe/Paris")])
            #expect(r.status == .seeOther && r.headers[.location] == "/" && r.notice == "zone-set")
            #expect(try f.household().zone().rules.name == "Europe/Paris")
            #expect(!(try await client.get("/", ann)).text.contains("zone-heading"))
            // Once recorded, the page does not change it.
            #expect(try await client.post("/zone", ann, [("zone", "Asia/Tokyo")]).status == .conflict)
            #expect(try f.household().zone().rules.name == "Europe/Paris")
        }
    }
}
