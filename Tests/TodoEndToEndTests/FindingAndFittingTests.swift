import Glibc
import Foundation
import Testing
import TodoCore

/// The dates people type, search, a list that fits the terminal, and help for a mistyped command.
@Suite(.timeLimit(.minutes(20)), .kit) struct FindingAndFittingTests {
    @Test func theNewDateFormsAreStoredAsDates() throws {
        let sb = try Sandbox()  // Thursday 2025-11-20 09:00 UTC
        try sb.initHousehold()
        let cases = [
            ("yesterday", "2025-11-19"), ("eow", "2025-11-23"), ("sow", "2025-11-24"), ("eom", "2025-11-30"),
            ("som", "2025-12-01"), ("eoy", "2025-12-31"), ("15th", "2025-12-15"), ("1st", "2025-12-01"),
            ("+1m", "2025-12-20"), ("+1y", "2026-11-20"), ("next mon", "2025-11-24"), ("18:00", "2025-11-20T18:00"),
            ("today 18:00", "2025-11-20T18:00"), ("fri 9:30", "2025-11-21T09:30"), ("now", "2025-11-20T09:00"),
            ("eod", "2025-11-20"),
        ]
        for (input, stored) in cases {
            let t = try sb.add("Task \(input)", "--due", input)
            #expect(try json(try sb.todo("show", "--json", t.short).stdout)["due"] == .string(stored), "\(input)")
        }
        let t = try sb.add("Water the plants")
        #expect(try sb.todo("edit", t.short, "--due", "22nd 07:30").exitCode == 0)
        #expect(try json(try sb.todo("show", "--json", t.short).stdout)["due"] == .string("2025-11-22T07:30"))
        // The list says saturday; show adds the stored form and how far off it is.
        let listed = try sb.todo("list").stdout
        #expect(listed.contains(try Regex("\n\(t.short)  saturday 07:30 +Water the plants\n")), "\(listed)")
        #expect(try sb.todo("show", t.short).stdout.contains("Due:      saturday 07:30  (2025-11-22T07:30, in 2 days)\n"))
        let far = try sb.add("Renew passport", "--due", "+2m")
        #expect(try sb.todo("show", far.short).stdout.contains("Due:      2026-01-20  (in 2 months)\n"))
    }

    @Test func searchFindsEveryWordInTitleNotesTagsOrAssigneeIgnoringCaseAndAccents() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let garage = try sb.add("Clean the GARAGE", "--note", "the bikes go to the shed")
        let cafe = try sb.add("Pay the café bill", "--tag", "Errands")
        let zoe = try sb.add("Book the dentist", "--assign", "Zoë")
        let door = try sb.add("Oil the garage door", "--tag", "DIY")
        _ = try sb.add("Buy milk")
        /// The ids listed (a set: tasks made at the same fixed time are listed in id order).
        func ids(_ args: String...) throws -> Set<String> {
            let r = try sb.todo(["list"] + args)
            #expect(r.exitCode == 0, "\(r)")
            return Set(r.lines.map { String($0.prefix(while: { $0 != " " })) })
        }
        #expect(try ids("garage") == [garage.short, door.short])
        #expect(try ids("garage", "door") == [door.short])
        #expect(try ids("GARAGE DOOR") == [door.short], "one argument with two words")
        #expect(try ids("shed") == [garage.short], "notes are searched")
        #expect(try ids("cafe") == [cafe.short], "accents folded")
        #expect(try ids("CAFÉ") == [cafe.short])
        #expect(try ids("errands") == [cafe.short], "tags are searched")
        #expect(try ids("+Errands") == [cafe.short], "written as list shows tags")
        #expect(try ids("zoe") == [zoe.short], "the assignee is searched")
        #expect(try ids("diy", "oil") == [door.short])
        #expect(try ids("garage", "milk") == [])
        // With the other filters and --json.
        #expect(try ids("garage", "--tag", "diy") == [door.short], "--tag ignores case")
        #expect(try ids("--tag", "+errands") == [cafe.short])
        #expect(try ids("--assignee", "ZOË") == [zoe.short])
        let r = try sb.todo("list", "--json", "garage")
        #expect(Set(try json(r.stdout).items.compactMap { $0["id"]?.stringValue }) == [garage.id, door.id])
    }

    @Test func inAPipeNothingIsCutAndEmptyColumnsAreLeftOut() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let title = String(repeating: "Sort the photos from the summer holiday ", count: 3).trimmingCharacters(in: .whitespaces)
        let t = try sb.add(title, "--tag", "photos", "--assign", "A very long assignee name indeed")
        let r = try sb.todo("list")
        #expect(r.lines == ["\(t.short)  A very long assignee name indeed  \(title)  +photos"])
    }

    /// `todo list` on a terminal: every line fits the width, the title gives way, the tags are
    /// shown whole or not at all.
    @Test(arguments: [40, 60, 80])
    func onATerminalEveryLineFitsTheWidth(columns: Int) throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let long = try sb.add(
            "Take the winter tyres to the garage before the first frost", "--tag", "car", "--tag", "groceries",
            "--due", "tomorrow")
        let emoji = try sb.add("Family 👨‍👩‍👧 photo 🇫🇷 trip 日本", "--tag", "👨‍👩‍👧", "--tag", "🇫🇷")
        let short = try sb.add("Milk", "--tag", "groceries")
        for env in [["COLUMNS": String(columns)], ["COLUMNS": ""]] {
            let r = try runOnTerminal(sb, ["list"], columns: env["COLUMNS"]!.isEmpty ? columns : 200, env: env)
            #expect(r.status == 0, "\(r.text)")
            let lines = r.text.split(separator: "\n").map(String.init)
            try #require(lines.count == 4, "\(r.text)")
            #expect(lines[0].hasPrefix("ID"), "a header on a terminal")
            #expect(!lines[0].contains("WHO"), "nobody is assigned: no WHO column")
            for line in lines {
                #expect(DisplayText.width(line) <= columns, "\(columns): '\(line)' is \(DisplayText.width(line)) wide")
            }
            #expect(lines.contains { $0.hasPrefix(long.short) && $0.contains("…") }, "the long title gives way")
            #expect(lines.contains { $0.hasPrefix(short.short) && $0.hasSuffix("+groceries") })
            let emojiLine = try #require(lines.first { $0.hasPrefix(emoji.short) })
            #expect(emojiLine.contains("+👨‍👩‍👧") || emojiLine.hasSuffix("…"), "tags whole: \(emojiLine)")
            for line in lines where line.contains("+") {
                // A tag is never cut: each shown tag is one the task has.
                let tags = line.split(separator: " ").filter { $0.hasPrefix("+") }
                #expect(tags.allSatisfy { ["+car", "+groceries", "+👨‍👩‍👧", "+🇫🇷"].contains(String($0)) }, "\(line)")
            }
        }
    }

    /// Down to 20 columns, as the man page promises: assignees, then the title's room, then
    /// long dates give way, and the header too fits.
    @Test(arguments: [20, 21, 24, 27, 30, 33, 36, 39, 42, 45])
    func onANarrowTerminalEveryLineFits(columns: Int) throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        _ = try sb.add("Take the winter tyres to the garage", "--tag", "car", "--due", "2026-01-02", "--assign", "Bartholomew")
        _ = try sb.add("Milk", "--due", "2030-12-30 18:00", "--tag", "groceries")
        _ = try sb.add("日本語のテキスト", "--assign", "Kim")
        let r = try runOnTerminal(sb, ["list"], columns: 200, env: ["COLUMNS": String(columns)])
        #expect(r.status == 0, "\(r.text)")
        let lines = r.text.split(separator: "\n").map(String.init)
        try #require(lines.count == 4, "\(r.text)")
        #expect(lines[0].hasPrefix("ID"))
        for line in lines {
            #expect(DisplayText.width(line) <= columns, "\(columns): '\(line)' is \(DisplayText.width(line)) wide")
        }
        // Every task keeps its id and some of its title.
        #expect(lines.dropFirst().allSatisfy { $0.split(separator: " ").count >= 2 }, "\(r.text)")
    }

    @Test func displayWidthCountsGraphemeClusters() {
        #expect(DisplayText.width("abc") == 3)
        #expect(DisplayText.width("👨‍👩‍👧") == 2)
        #expect(DisplayText.width("🇫🇷") == 2)
        #expect(DisplayText.width("e\u{301}") == 1)
        #expect(DisplayText.width("日本") == 4)
        #expect(DisplayText.width("❤️") == 2)
        #expect(DisplayText.width("👍🏽") == 2)
        #expect(DisplayText.truncated("日本語のテキスト", 5) == "日本…")
        #expect(DisplayText.truncated("👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧", 4) == "👨‍👩‍👧…")
    }

    @Test func aMistypedCommandSuggestsTheNearestOnes() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let lst = try sb.todo("lst")
        #expect(lst.exitCode == 64)
        #expect(lst.stderr.contains("'lst' is not a todo command. Did you mean `list`?"), "\(lst)")
        #expect(lst.stdout.isEmpty)
        #expect(try sb.todo("shwo", "1234").stderr.contains("Did you mean `show`?"))
        #expect(try sb.todo("-H", "home", "confilcts").stderr.contains("Did you mean `conflicts`?"))
        let nothing = try sb.todo("xyzzy")
        #expect(nothing.exitCode == 64 && !nothing.stderr.contains("Did you mean"), "\(nothing)")
        let help = try sb.todo("help", "lst")
        #expect(help.exitCode == 64, "\(help)")
        #expect(help.stderr.contains("Did you mean `list`?"), "\(help)")
        #expect(help.stdout.isEmpty)
        #expect(try sb.todo("help", "list").exitCode == 0)
    }

    @Test func theHouseholdMayComeBeforeTheCommandAsTheSynopsisShows() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        try sb.initHousehold("cabin")
        #expect(try sb.todo("-H", "cabin", "add", "Chop wood").exitCode == 0)
        #expect(try sb.todo("--household", "cabin", "add", "--", "-5 degrees: check the pipes").exitCode == 0)
        #expect(try sb.todo("--household=cabin", "--verbose", "list").lines.count == 2)
        #expect(try sb.todo("-H", "cabin", "list").stdout.contains("Chop wood"))
        #expect(try sb.todo("list").lines.isEmpty, "home is untouched")
        let missing = try sb.todo("-H", "nowhere", "list")
        #expect(missing.exitCode == 66, "\(missing)")
    }
}

/// A finished run on a pseudo-terminal: exit status and what it wrote ("\r\n" read as "\n").
struct TerminalRun {
    let status: Int32?
    let text: String
}

/// Runs `todo` with its standard output on a pseudo-terminal of `columns` columns.
func runOnTerminal(_ sb: Sandbox, _ args: [String], columns: Int, env: [String: String]) throws -> TerminalRun {
    // The C library's pseudo-terminal calls, which the Glibc module does not import.
    typealias IntFn = @convention(c) (Int32) -> Int32
    typealias NameFn = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
    func symbol<T>(_ name: String, _: T.Type) throws -> T {
        unsafeBitCast(try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), name), "\(name)"), to: T.self)
    }
    let master = try symbol("posix_openpt", IntFn.self)(O_RDWR | O_NOCTTY)
    try #require(master >= 0)
    defer { close(master) }
    try #require(try symbol("grantpt", IntFn.self)(master) == 0 && symbol("unlockpt", IntFn.self)(master) == 0)
    let slavePath = String(cString: try #require(try symbol("ptsname", NameFn.self)(master)))
    var size = winsize(ws_row: 24, ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
    try #require(ioctl(master, UInt(TIOCSWINSZ), &size) == 0)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    let (_, err) = sb.nextIO()
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, slavePath, O_WRONLY | O_NOCTTY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var environment = sb.todoEnvironment([:])
    for (k, v) in env {
        if v.isEmpty { environment[k] = nil } else { environment[k] = v }
    }
    let (rc, pid) = posixSpawn(todoBinary, args, environment: environment, actions: &actions, attributes: nil)
    try #require(rc == 0)
    // Read while the child runs, so a full terminal buffer never blocks it; the read ends with
    // EIO once the child has closed the terminal.
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let ready = poll(&fds, 1, 10_000)
        if ready <= 0 { break }
        let n = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        bytes += buffer[0..<n]
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
    return TerminalRun(status: status & 0x7F == 0 ? (status >> 8) & 0xFF : nil, text: text)
}
