import Foundation
import Glibc
import Testing
import TodoCore

/// Reminders from the hub (docs/SERVE.md, "Reminders from the hub"): `todo-serve` sends each
/// member's reminder at their hour, to a receiver built from ntfy's documented publish API
/// (scripts/servers/ntfy_receiver.py), with a Done button per item that credits the member once;
/// `todo remind` and the server share one record; a server killed between the send and the
/// record sends again with the same Idempotency-Key. The clock is fixed at Thursday 2025-11-20
/// 09:00 UTC; the household has no zone, so its days are UTC's.
@Suite(.timeLimit(.minutes(5)), .kit, .serialized)
struct HubReminderTests {
    static let ntfyScript = packageRoot + "/scripts/servers/ntfy_receiver.py"
    let serveBinary = directoryName(todoBinary) + "/todo-serve"

    func ntfy(_ sb: Sandbox, _ extra: [String] = []) throws -> (ServerProcess, UInt16, String) {
        let python = try requireProgram("python3")
        let out = sb.root + "/io/ntfy-\(UUID().uuidString).jsonl"
        let (server, line) = try ServerProcess.start(
            "ntfy_receiver.py", python, [Self.ntfyScript, "--out", out] + extra, environment: serverEnvironment(home: sb.home),
            ready: "listening on 127.0.0.1 port ")
        let port = try #require(line.split(separator: " ").last.flatMap { UInt16($0) }, "no port in \(line)")
        return (server, port, out)
    }

    func received(_ path: String) throws -> [JSONValue] {
        let text = String(decoding: readBytes(path) ?? [], as: UTF8.self)
        return try text.split(separator: "\n").map { try json(String($0)) }
    }

    func startServer(_ sb: Sandbox, port: Int = 0) throws -> (ServerProcess, String) {
        let (server, line) = try ServerProcess.start(
            "todo-serve", serveBinary, ["--listen", "127.0.0.1:\(port)", "--sync-every", "0"],
            environment: sb.todoEnvironment(["TODO_SERVE_TODO": sb.binary]), ready: "todo-serve: listening on")
        let base = String(line.dropFirst("todo-serve: listening on ".count).dropLast())
        return (server, base)
    }

    /// Kim's reminders go by POST to a new ntfy-like receiver; a server is started and has sent
    /// its first reminder: the receiver, its record, the server and the address it serves.
    func kimsFirstReminder(_ sb: Sandbox) throws -> (receiver: ServerProcess, out: String, server: ServerProcess, base: String, actions: [JSONValue]) {
        let (receiver, port, out) = try ntfy(sb)
        #expect(try sb.todo("member", "set", "Kim", "--via", "post", "--post-url", "http://127.0.0.1:\(port)/kim").exitCode == 0)
        let (server, base) = try startServer(sb)
        try #require(receiver.output.waitForLine(containing: "published m1") != nil)
        guard case .array(let actions)? = try received(out).first?["message"]?["actions"] else { return (receiver, out, server, base, []) }
        return (receiver, out, server, base, actions)
    }

    /// Kills `server` (kill -9) and starts another on the same address, so its links start the same.
    func killAndRestart(_ sb: Sandbox, _ server: ServerProcess, base: String) throws -> ServerProcess {
        server.stop()
        return try startServer(sb, port: try #require(Int(base.split(separator: ":").last ?? ""))).0
    }

    /// An HTTP request by curl: the status and the body.
    func http(_ method: String, _ url: String) throws -> (status: Int, body: String) {
        let curl = try requireProgram("curl")
        let r = try runProcess(curl, ["-s", "-X", method, "-w", "\n%{http_code}", url], timeout: .seconds(60))
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// Kim: an overdue task, one due today, the daily turn of a chore, one without a date.
    func household() throws -> Sandbox {
        let sb = try Sandbox()
        try sb.initHousehold()
        _ = try sb.add("Renew the permit", "--due", "2025-11-18", "--assign", "Kim")
        _ = try sb.add("Buy milk", "--due", "2025-11-20", "--assign", "Kim")
        _ = try sb.add("Water the plants", "--every", "day", "--rotate", "Kim", "--from", "2025-11-20")
        _ = try sb.add("Fix the bike", "--assign", "Kim")
        return sb
    }

    func task(_ sb: Sandbox, _ title: String) throws -> JSONValue? {
        try json(try sb.todo("list", "--all", "--json").stdout).items.first { $0["title"]?.stringValue == title }
    }

    @Test func theServerRemindsAtTheMembersHourWithDoneButtonsThatCountOnce() throws {
        let sb = try household()
        let (receiver, port, out) = try ntfy(sb)
        defer { receiver.stop() }
        var r = try sb.todo("member", "set", "Kim", "--via", "post", "--post-url", "http://127.0.0.1:\(port)/kim", "--remind-at", "08:00")
        #expect(r.exitCode == 0 && r.stdout.contains(", at 08:00"), "\(r)")
        #expect(try sb.todo("member", "show", "Kim").stdout.contains("Remind at: 08:00"))
        r = try sb.todo("member", "set", "Kim", "--remind-at", "25:00")
        #expect(r.exitCode == 64 && r.stderr.contains("--remind-at must be a time of day HH:MM"), "\(r)")

        // 09:00, past Kim's 08:00: the server sends at start (the same household day).
        let (server, base) = try startServer(sb)
        defer { server.stop() }
        try #require(receiver.output.waitForLine(containing: "published m1") != nil)
        let got = try received(out)
        try #require(got.count == 1, "\(got)")
        let m = try #require(got[0]["message"])
        #expect(m["title"] == .string("todo: 1 overdue, 2 due today, 1 new for Kim (home)"), "\(m)")
        #expect(m["click"] == .string(base + "/"), "\(m)")
        #expect(got[0]["headers"]?["idempotency-key"]?.stringValue?.hasPrefix("todo-") == true)
        guard case .array(let actions)? = m["actions"] else { Issue.record("no actions: \(m)"); return }
        // ntfy's limit: three, overdue first.
        let labels = actions.map { $0["label"]?.stringValue ?? "" }
        #expect(labels.first == "Done: Renew the permit" && Set(labels) == ["Done: Renew the permit", "Done: Water the plants", "Done: Buy milk"], "\(actions)")
        func url(_ label: String) throws -> String { try #require(actions.first { $0["label"]?.stringValue == label }?["url"]?.stringValue) }
        for a in actions {
            #expect(a["action"] == .string("http") && a["method"] == .string("POST"), "\(a)")
            #expect(a["url"]?.stringValue?.hasPrefix(base + "/r/") == true, "\(a)")
        }
        // Recorded where `todo remind` keeps it: a run from cron now sends nothing.
        try #require(server.output.waitForLine(containing: "todo-serve: reminded Kim by post.") != nil)
        r = try sb.todo("remind")
        #expect(r.exitCode == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "\(r)")
        #expect(try received(out).count == 1)

        // Done for "Buy milk": a GET only shows the button; the POST acts, once.
        let milk = try url("Done: Buy milk")
        let commits = try sb.commits().count
        var answer = try http("GET", milk)
        #expect(answer.status == 200 && answer.body.contains("<form method=\"post\"") && answer.body.contains("Buy milk"), "\(answer)")
        #expect(try task(sb, "Buy milk")?["status"] == .string("open"))
        #expect(try sb.commits().count == commits)
        answer = try http("POST", milk)
        #expect(answer.status == 200 && answer.body.contains("is done"), "\(answer)")
        #expect(try task(sb, "Buy milk")?["status"] == .string("done"))
        for _ in 0..<3 {
            answer = try http("POST", milk)
            #expect(answer.status == 200 && answer.body.contains("was done already"), "\(answer)")
        }
        #expect(try sb.commits().count == commits + 1)
        #expect(try sb.git("log", "-1", "--format=%an").stdout == "Kim\n")
        // The chore's button: today's occurrence, credited to Kim.
        answer = try http("POST", try url("Done: Water the plants"))
        #expect(answer.status == 200 && answer.body.contains("is done"), "\(answer)")
        answer = try http("POST", try url("Done: Water the plants"))
        #expect(answer.status == 200 && answer.body.contains("was done already"), "\(answer)")
        #expect(try sb.commits().count == commits + 2)

        // A link changed by one character is not the server's.
        var forged = Array(try #require(actions[0]["url"]?.stringValue))
        forged[forged.count - 1] = forged.last == "A" ? "B" : "A"
        #expect(try http("POST", String(forged)).status == 404)
        server.stop()

        // Two days later the links have expired.
        sb.now = fixedNow + 2 * 86_400_000
        let (later, laterBase) = try startServer(sb)
        defer { later.stop() }
        answer = try http("POST", try #require(actions[0]["url"]?.stringValue).replacingOccurrences(of: base, with: laterBase))
        #expect(answer.status == 410 && answer.body.contains("expired"), "\(answer)")
        #expect(try task(sb, "Renew the permit")?["status"] == .string("open"))
    }

    @Test func aMemberWhoLeftLosesTheirLinks() throws {
        let sb = try household()
        let (receiver, _, server, base, actions) = try kimsFirstReminder(sb)
        defer {
            receiver.stop()
            server.stop()
        }
        let url = try #require(actions.first?["url"]?.stringValue)
        #expect(try sb.todo("member", "leave", "Kim", "--to", "Alice").exitCode == 0)
        // A leave counts from the next household day.
        sb.now = fixedNow + 86_400_000
        server.stop()
        let (later, laterBase) = try startServer(sb)
        defer { later.stop() }
        let laterURL = url.replacingOccurrences(of: base, with: laterBase)
        let answer = try http("POST", laterURL)
        #expect(answer.status == 410, "\(answer) \(laterURL) \(later.output.text)")
    }

    /// Sent, then killed (kill -9) before the delivery was recorded: the next start sends the
    /// same reminder again, byte for byte, with the same Idempotency-Key.
    @Test func aServerKilledBetweenSendAndRecordSendsTheSameAgain() throws {
        let sb = try household()
        let (receiver, port, out) = try ntfy(sb, ["--hold", "1"])
        defer { receiver.stop() }
        #expect(try sb.todo("member", "set", "Kim", "--via", "post", "--post-url", "http://127.0.0.1:\(port)/kim").exitCode == 0)
        let (server, base) = try startServer(sb)
        try #require(receiver.output.waitForLine(containing: "held 1") != nil)
        let again = try killAndRestart(sb, server, base: base)
        defer { again.stop() }
        try #require(receiver.output.waitForLine(containing: "published m2") != nil)
        let got = try received(out)
        try #require(got.count == 2, "\(got)")
        #expect(got[0]["held"] == .bool(true))
        #expect(got[0]["body"] == got[1]["body"], "\(got)")
        for h in ["idempotency-key", "title", "actions", "click"] {
            #expect(got[0]["headers"]?[h] != nil && got[0]["headers"]?[h] == got[1]["headers"]?[h], "\(h): \(got)")
        }
        try #require(again.output.waitForLine(containing: "todo-serve: reminded Kim by post.") != nil)
        let r = try sb.todo("remind")
        #expect(r.exitCode == 0 && r.stdout.isEmpty, "recorded once delivered: \(r)")
    }

    /// Cron's `todo remind` and the server keep one record: whoever sent first, the other sends
    /// nothing for that member that day. A member whose hour has not come waits.
    @Test func cronAndTheServerNeverBothSend() throws {
        let sb = try household()
        _ = try sb.add("Call the bank", "--due", "2025-11-20", "--assign", "Bea")
        _ = try sb.add("Pay the rent", "--due", "2025-11-20", "--assign", "Alice")
        let (receiver, port, out) = try ntfy(sb)
        defer { receiver.stop() }
        for name in ["Alice", "Bea", "Kim"] {
            #expect(try sb.todo("member", "set", name, "--via", "post", "--post-url", "http://127.0.0.1:\(port)/\(name.lowercased())").exitCode == 0)
        }
        #expect(try sb.todo("member", "set", "Bea", "--remind-at", "21:30").exitCode == 0)
        // Cron sent Alice's.
        let r = try sb.todo("remind", "--member", "Alice")
        #expect(r.exitCode == 0, "\(r)")
        try #require(receiver.output.waitForLine(containing: "published m1") != nil)
        // The server goes through the members in order (Alice, Bea, Kim): Kim's arriving means
        // it passed Alice (sent) and Bea (21:30) by.
        let (server, _) = try startServer(sb)
        defer { server.stop() }
        try #require(receiver.output.waitForLine(containing: "published m2") != nil)
        let got = try received(out)
        #expect(got.map { $0["path"]?.stringValue ?? "" } == ["/alice", "/kim"], "\(got)")
    }

    /// Mail from the hub over STARTTLS to aiosmtpd, the certificate from the test's authority
    /// (`tls.ca`): the Done links are below the body; killed (kill -9) while the server had the
    /// message but had not answered, the next start sends it again with the same Message-ID.
    @Test func theServerMailsOverSTARTTLSAndAfterAKillSendsTheSameMessageID() throws {
        let sb = try household()
        let kit = ReminderTests()
        #expect(try sb.todo("member", "set", "Kim", "--email", "kim@example.org", "--via", "mail").exitCode == 0)
        let (ca, cert, key) = try kit.testCA(sb)
        let (receiver, port, out) = try kit.receiver(sb, "smtp", ["--tls-cert", cert, "--tls-key", key, "--hold", "1"])
        defer { receiver.stop() }
        try kit.settings(sb, "smtp.host=localhost", "smtp.port=\(port)", "smtp.tls=starttls", "smtp.from=family@example.org", "tls.ca=\(ca)")
        let (server, base) = try startServer(sb)
        try #require(receiver.output.waitForLine(containing: "held 1") != nil)
        // Started again five minutes later, the same household day.
        sb.now = fixedNow + 300_000
        let again = try killAndRestart(sb, server, base: base)
        defer { again.stop() }
        try #require(receiver.output.waitForLine(containing: "accepted") != nil)
        let got = try kit.received(out)
        try #require(got.count == 2, "\(got)")
        #expect(got[0]["message_id"]?.stringValue?.hasPrefix("<todo-") == true && got[0]["message_id"] == got[1]["message_id"], "\(got)")
        // Byte for byte: the Date is the first try's.
        #expect(got[0]["body"] == got[1]["body"] && got[0]["subject"] == got[1]["subject"], "\(got)")
        #expect(got[1]["date"] == .string("Thu, 20 Nov 2025 09:00:00 +0000"), "\(got)")
        let body = (got[1]["body"]?.stringValue ?? "").replacingOccurrences(of: "\r\n", with: "\n")
        #expect(body.hasPrefix("Overdue:\n  - Renew the permit"), "\(body)")
        #expect(body.contains("\nDone: Renew the permit: \(base)/r/") && body.hasSuffix("\nYour page: \(base)/\n"), "\(body)")
        try #require(again.output.waitForLine(containing: "todo-serve: reminded Kim by mail.") != nil)
        let r = try sb.todo("remind")
        #expect(r.exitCode == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "recorded once delivered: \(r)")
    }

    /// Mail from the hub with TLS from the first byte (port 465's way).
    @Test func theServerMailsOverImplicitTLS() throws {
        let sb = try household()
        let kit = ReminderTests()
        #expect(try sb.todo("member", "set", "Kim", "--email", "kim@example.org", "--via", "mail").exitCode == 0)
        let (ca, cert, key) = try kit.testCA(sb)
        let (receiver, port, out) = try kit.receiver(sb, "smtp", ["--tls-cert", cert, "--tls-key", key, "--implicit-tls"])
        defer { receiver.stop() }
        try kit.settings(sb, "smtp.host=localhost", "smtp.port=\(port)", "smtp.tls=tls", "smtp.from=family@example.org", "tls.ca=\(ca)")
        let (server, _) = try startServer(sb)
        defer { server.stop() }
        try #require(receiver.output.waitForLine(containing: "accepted") != nil)
        let got = try kit.received(out)
        #expect(got.count == 1 && got.first?["to"] == .array([.string("kim@example.org")]), "\(got)")
        #expect(got.first?["subject"] == .string("todo: 1 overdue, 2 due today, 1 new for Kim (home)"), "\(got)")
    }

    /// Settings the server cannot use are told on its standard error, once; nothing is sent.
    @Test func unusableSettingsAreToldOnce() throws {
        let sb = try household()
        let kit = ReminderTests()
        #expect(try sb.todo("member", "set", "Kim", "--email", "kim@example.org", "--via", "mail").exitCode == 0)
        try kit.settings(sb, "smtp.host=127.0.0.1", "smtp.port=9", mode: 0o644)
        let (server, _) = try startServer(sb)
        defer { server.stop() }
        let line = server.output.waitForLine(containing: "reminders cannot be sent for now")
        #expect(line?.contains("the settings file \(sb.home)/.config/todo/remind is refused") == true, "\(server.output.text)")
    }

    /// `todo-serve deliver-reminder` takes only what `todo remind` writes.
    @Test func deliverReminderRefusesWhatIsNotARequest() throws {
        let r = try runProcess(serveBinary, ["deliver-reminder"], stdin: .text("{\"kind\": \"fax\"}"), timeout: .seconds(60))
        #expect(r.exitCode == 64 && r.stderr.contains("reads a reminder from todo remind") && r.stdout.isEmpty, "\(r)")
    }

    /// Where a server runs for the household, a reminder `todo remind` sends over the network has
    /// the same Done links the server would give it, and they work the same.
    @Test func cronsReminderCarriesTheServersDoneLinks() throws {
        let sb = try household()
        let (receiver, port, out) = try ntfy(sb)
        defer { receiver.stop() }
        // 23:00: the server leaves it to later today; cron's run with --now sends it at once.
        let url = "http://127.0.0.1:\(port)/kim"
        #expect(try sb.todo("member", "set", "Kim", "--via", "post", "--post-url", url, "--remind-at", "23:00").exitCode == 0)
        let (server, base) = try startServer(sb)
        defer { server.stop() }
        let r = try sb.todo("remind", "--now")
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        let got = try received(out)
        try #require(got.count == 1, "\(got)")
        #expect(got[0]["message"]?["click"] == .string(base + "/"), "\(got)")
        guard case .array(let actions)? = got[0]["message"]?["actions"] else { Issue.record("no actions: \(got)"); return }
        #expect(actions.count == 3 && actions.allSatisfy { $0["url"]?.stringValue?.hasPrefix(base + "/r/") == true }, "\(actions)")
        let permit = try #require(actions.first { $0["label"] == .string("Done: Renew the permit") }?["url"]?.stringValue)
        let answer = try http("POST", permit)
        #expect(answer.status == 200 && answer.body.contains("is done"), "\(answer)")
        #expect(try task(sb, "Renew the permit")?["status"] == .string("done"))
    }

    /// `todo` links no network client but libgit2's: swift-nio, NIOSSL and async-http-client
    /// are todo-serve's alone.
    @Test(needsSymbols()) func todoLinksNoNetworkClient() throws {
        let nm = try requireProgram("nm")
        let r = try runProcess(nm, ["--defined-only", todoBinary], timeout: .seconds(120))
        try #require(r.exitCode == 0 && !r.stdout.isEmpty, "\(r.stderr)")
        for module in ["AsyncHTTPClient", "NIOSSL", "NIOPosix", "NIOCore"] {
            #expect(!r.stdout.contains(module), "todo links \(module)")
        }
        let serve = try runProcess(nm, ["--defined-only", serveBinary], timeout: .seconds(120))
        #expect(serve.stdout.contains("AsyncHTTPClient") && serve.stdout.contains("NIOSSL"))
    }

    /// A title with letters beyond ASCII, commas, semicolons and quotes keeps them on its button
    /// (ntfy's JSON form of `Actions`, in ASCII).
    @Test func aButtonKeepsItsTitleWhateverItsLetters() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let title = "Köp mjölk, 2 l; \"havre\" 🥛"
        _ = try sb.add(title, "--due", "2025-11-20", "--assign", "Kim")
        let (receiver, out, server, _, actions) = try kimsFirstReminder(sb)
        defer {
            receiver.stop()
            server.stop()
        }
        let got = try received(out)
        #expect(actions.count == 1 && actions.first?["label"] == .string("Done: " + title), "\(actions)")
        #expect(got.first?["headers"]?["actions"]?.stringValue?.utf8.allSatisfy { $0 < 0x80 } == true, "\(got)")
    }
}
