import Testing

@testable import TodoCore

/// Members' details as the settings file holds them, the checks of what members type, and what a
/// reminder says (`MemberFields`, `MemberInput`, `URLParts`, `Reminder`).
@Suite(.timeLimit(.minutes(5))) struct MemberAndReminderTests {
    static let today = CivilDate(year: 2026, month: 11, day: 25)!

    static func task(_ n: Int, _ title: String, assignee: String?, due: Due?) -> Task {
        let hex = String(repeating: "0", count: 31) + String(n, radix: 16)
        var t = Task(id: TaskID(hex)!, title: title, createdAt: "2026-11-20T09:00:00.000Z", createdBy: "Ana")
        t.assignee = assignee
        t.due = due
        return t
    }

    @Test(arguments: [
        ("kim@example.org", true), ("k.im+home@mail.example.org", true), ("kim@localhost", true),
        ("kim", false), ("@example.org", false), ("kim@", false), ("kim@@example.org", false), ("a@b@c", false),
        ("kim @example.org", false), ("kim@example..org", false), ("kim@example.org\r\nBcc: x@y", false),
        ("<kim@example.org>", false), ("kim@example.org,bob@example.org", false),
    ])
    func emails(_ text: String, _ ok: Bool) {
        #expect(MemberInput.isEmail(text) == ok, "\(text)")
    }

    @Test func urls() throws {
        let u = try #require(URLParts("http://127.0.0.1:8080/a/b?c=d#frag"))
        #expect(u == URLParts("http://127.0.0.1:8080/a/b?c=d"))
        #expect(!u.secure && u.host == "127.0.0.1" && u.port == 8080 && u.target == "/a/b?c=d")
        let s = try #require(URLParts("https://ntfy.sh"))
        #expect(s.secure && s.port == 443 && s.target == "/")
        let v6 = try #require(URLParts("http://[::1]:9/x"))
        #expect(v6.host == "::1" && v6.port == 9)
        #expect(URLParts("http://example.org?q=1")?.target == "/?q=1")
        for bad in [
            "ftp://example.org/", "http://", "http:///x", "http://user:pw@example.org/", "http://example.org:0/",
            "http://example.org:70000/", "http://example.org:8a/", "http://exa mple.org/", "http://example.org/\n",
            "http://[::1/", "example.org/x",
        ] {
            #expect(!MemberInput.isPostURL(bad), "\(bad)")
        }
    }

    @Test func detailsAreReadPerMemberAndFieldAndBadValuesAreLeftOut() {
        var settings = Task(id: TaskID(high: 0, low: 0), title: "s", createdAt: "", createdBy: "")
        settings.extra = [
            "timeZone": .string("Europe/Paris"),
            "member:email:Kim": .string("kim@example.org"), "member:via:Kim": .string("post"),
            "member:postURL:Kim": .string("https://ntfy.sh/kim"), "member:every:Kim": .string("2"),
            "member:email:Jo: the elder": .string("jo@example.org"),
            "member:email:Sam": .string("not an address"), "member:via:Sam": .string("pigeon"),
            "member:every:Sam": .string("007"), "member:email:Ana": .string(""), "member:colour:Ana": .string("red"),
            "member:email:": .string("x@y.z"), "member:email:Lee": .number("3"),
        ]
        let (details, problems) = MemberFields.details(in: settings)
        #expect(details["Kim"] == MemberDetails(email: "kim@example.org", via: .post, postURL: "https://ntfy.sh/kim", everyDays: 2))
        #expect(details["Jo: the elder"]?.email == "jo@example.org")
        #expect(details["Sam"] == nil && details["Ana"] == nil && details["Lee"] == nil)
        #expect(problems.count == 4, "\(problems)")
        #expect(MemberFields.parse("member:via:a:b")! == ("via", "a:b"))

        // Two spellings of one member written apart: per field, the later stamp.
        var two = Task(id: TaskID(high: 0, low: 0), title: "s", createdAt: "", createdBy: "")
        let early = FieldStamp(Stamp(wall: 1, counter: 0, replica: "a1"), by: "Ana")
        let late = FieldStamp(Stamp(wall: 2, counter: 0, replica: "b2"), by: "Bo")
        two.extra = ["member:email:kim": .string("new@example.org"), "member:email:Kim": .string("old@example.org"),
                     "member:via:Kim": .string("post")]
        two.stamps = ["member:email:kim": late, "member:email:Kim": early, "member:via:Kim": early]
        #expect(MemberFields.details(in: two).details == ["Kim": MemberDetails(email: "new@example.org", via: .post)])
        #expect(MemberDetails(email: "a@b.c").delivery == .mail && MemberDetails().delivery == .stdout)
    }

    @Test func aReminderListsOverdueTodayAndWhatIsNew() {
        let tasks = [
            Self.task(1, "Old", assignee: "Kim", due: Due(date: CivilDate(year: 2026, month: 11, day: 20)!)),
            Self.task(2, "Now", assignee: "kim@example.org", due: Due(date: Self.today, minutes: 18 * 60)),
            Self.task(3, "Later", assignee: "KIM", due: Due(date: CivilDate(year: 2026, month: 12, day: 1)!)),
            Self.task(4, "Undated", assignee: "Kim", due: nil),
            Self.task(5, "Someone else's", assignee: "Sam", due: Due(date: Self.today)),
        ]
        let names: Set<String> = ["kim", "kim@example.org"]
        let first = Reminder(tasks, names: names, today: Self.today, minuteOfDay: 9 * 60, previous: nil, context: .plain)
        #expect(first.overdue == [0] && first.today == [1] && first.new == [2, 3])
        #expect(first.theirs.count == 4)
        let facts = first.facts(tasks, member: "Kim", household: "home", today: Self.today, context: .plain)
        #expect(facts.overdue.map(\.title) == ["Old"] && facts.today.map(\.title) == ["Now"] && facts.new.map(\.title) == ["Later", "Undated"])
        #expect(facts.today.first?.due == Due(date: Self.today, minutes: 18 * 60) && facts.new.last?.due == nil)
        #expect(facts.overdue.first?.id == tasks[0].id && facts.overdue.first?.isChore == false)
        // Later the same evening: the time has passed; nothing new.
        let again = Reminder(tasks, names: names, today: Self.today, minuteOfDay: 19 * 60, previous: first.theirs, context: .plain)
        #expect(again.overdue == [0, 1] && again.today.isEmpty && again.new.isEmpty)
        // Nothing theirs: empty.
        #expect(Reminder(tasks, names: ["bob"], today: Self.today, minuteOfDay: 0, previous: nil, context: .plain).isEmpty)
    }

    @Test func identityIsStableAndChangesWithContent() {
        let a = ReminderText.identity(member: "Kim", day: Self.today, subject: "s", body: "b")
        #expect(a.count == 32 && a.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
        #expect(a == ReminderText.identity(member: "kim", day: Self.today, subject: "s", body: "b"))
        #expect(a != ReminderText.identity(member: "Kim", day: Self.today.adding(days: 1), subject: "s", body: "b"))
        #expect(a != ReminderText.identity(member: "Kim", day: Self.today, subject: "s", body: "b2"))
        #expect(ReminderText.line("a\r\nBcc: x\u{1b}[2J\u{2028}") == "a  Bcc: x [2J ")
    }
}
