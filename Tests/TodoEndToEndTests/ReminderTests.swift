import Glibc
import Foundation
import Testing
import TodoCore

/// `todo member` and `todo remind`, judged by real receivers the tests start on 127.0.0.1:
/// aiosmtpd's SMTP server and Python's http.server (scripts/servers/reminder_receiver.py), which
/// record every message they are given. aiosmtpd comes from `sh scripts/deps.sh --test`. The
/// clock is fixed at Thursday 2025-11-20 09:00 UTC; the household has no zone, so its days are
/// UTC's (the sandbox's TZ).
@Suite(.timeLimit(.minutes(20)), .kit) struct ReminderTests {
    static let receiverScript = packageRoot + "/scripts/servers/reminder_receiver.py"
    static let day = Int64(86_400_000)

    /// A receiver of `kind` ("smtp" or "http") with `extra` options; the file it records to.
    func receiver(_ sb: Sandbox, _ kind: String, _ extra: [String] = [], port: UInt16? = nil, sourceLocation: SourceLocation = #_sourceLocation)
        throws -> (ServerProcess, UInt16, String)
    {
        let python = try requireProgram("python3", sourceLocation: sourceLocation)
        let out = sb.root + "/io/\(kind)-\(UUID().uuidString).jsonl"
        let (server, line) = try ServerProcess.start(
            "reminder_receiver.py \(kind)", python,
            [Self.receiverScript, kind, "--out", out, "--port", String(port ?? 0)] + extra,
            environment: serverEnvironment(home: sb.home), ready: "listening on 127.0.0.1 port ",
            sourceLocation: sourceLocation)
        let bound = try #require(line.split(separator: " ").last.flatMap { UInt16($0) }, "no port in \(line)")
        return (server, bound, out)
    }

    /// What a receiver recorded, one JSON object per message.
    func received(_ path: String) throws -> [JSONValue] {
        let text = String(decoding: readBytes(path) ?? [], as: UTF8.self)
        return try text.split(separator: "\n").map { try json(String($0)) }
    }

    /// Writes the sending machine's reminder settings, readable by its owner only.
    func settings(_ sb: Sandbox, _ lines: String..., mode: mode_t = 0o600) throws {
        let dir = sb.home + "/.config/todo"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try writeBytes(dir + "/remind", Array((lines.joined(separator: "\n") + "\n").utf8))
        chmod(dir + "/remind", mode)
    }

    func statePath(_ sb: Sandbox) -> String { sb.home + "/.local/state/todo/reminders/home.state" }

    /// A household where Kim has an overdue task, one due today, one without a date, and the
    /// daily turn of a chore; Alice (who runs cron) has nothing.
    func kimsHousehold() throws -> Sandbox {
        let sb = try Sandbox()
        try sb.initHousehold()
        _ = try sb.add("Renew the permit", "--due", "2025-11-18", "--assign", "Kim")
        _ = try sb.add("Buy milk", "--due", "2025-11-20", "--assign", "Kim")
        _ = try sb.add("Fix the bike", "--assign", "Kim")
        _ = try sb.add("Water the plants", "--every", "day", "--rotate", "Kim", "--from", "2025-11-20")
        return sb
    }

    // MARK: Member details

    @Test func memberDetailsAreSetCheckedAndSharedInTheSettingsFile() throws {
        let sb = try kimsHousehold()
        // Kim is known from the tasks before anyone entered an email.
        var r = try sb.todo("member")
        #expect(r.exitCode == 0 && r.stdout == "Alice: active; reminders by standard output (no email or method set)\nKim: active; reminders by standard output (no email or method set)\n", "\(r)")
        r = try sb.todo("member", "set", "kim", "--email", "kim@example.org")
        #expect(r.exitCode == 0 && r.stdout.hasPrefix("Kim <kim@example.org>: reminders by mail to kim@example.org"), "\(r)")
        #expect(try sb.subject() == "member: Kim")
        r = try sb.todo("member", "show", "KIM")
        #expect(r.stdout == "Member:    Kim\nEmail:     kim@example.org\nReminders: mail to kim@example.org\n", "\(r)")
        let before = try sb.commits().count
        #expect(try sb.todo("member", "set", "Kim", "--email", "kim@example.org").stdout == "Kim: unchanged.\n")
        #expect(try sb.commits().count == before)

        // Stamped keys per member and field in the deleted settings file.
        let file = try json(String(decoding: try sb.committedBytes("tasks/00/00000000000000000000000000000000.json"), as: UTF8.self))
        #expect(file["deleted"] == .bool(true) && file["member:email:Kim"] == .string("kim@example.org"), "\(file)")
        #expect(file["stamps"]?["member:email:Kim"]?.stringValue?.hasSuffix(" Alice") == true, "\(file)")
        #expect(!(try sb.todo("list").stdout.contains("Household settings")))

        // Bad input: each a message and its exit code, nothing written.
        let bad: [([String], Int32, String)] = [
            (["member", "set", "Kim", "--email", "kim at example.org"], 64, "--email must be an address"),
            (["member", "set", "Kim", "--email", "a@b@c"], 64, "--email must be an address"),
            (["member", "set", "Kim", "--via", "pigeon"], 64, "--via must be stdout, mail or post"),
            (["member", "set", "Kim", "--post-url", "ftp://example.org/x"], 64, "--post-url must be an http:// or https:// URL"),
            (["member", "set", "Kim", "--post-url", "https://user:pw@ntfy.sh/x"], 64, "--post-url must be"),
            (["member", "set", "Kim", "--via", "post"], 64, "has no URL to post to"),
            (["member", "set", "Kim"], 64, "Nothing to set"),
            (["member", "set", "Zoe", "--email", "zoe@example.org"], 66, "No member \"Zoe\""),
            (["member", "show", "Zoe"], 66, "No member \"Zoe\""),
            (["remind", "--member", "Zoe"], 66, "No member \"Zoe\""),
            (["remind", "--via", "fax"], 64, "--via must be stdout, mail or post"),
        ]
        for (args, code, text) in bad {
            let r = try sb.todo(args)
            #expect(r.exitCode == code && r.stderr.contains(text) && r.stdout.isEmpty, "\(args): \(r)")
        }
        #expect(try sb.commits().count == before)
        // Someone new is added on purpose.
        r = try sb.todo("member", "set", "Zoe", "--new", "--email", "zoe@example.org")
        #expect(r.exitCode == 0, "\(r)")
        #expect(try sb.todo("member", "show", "zoe").stdout.contains("Email:     zoe@example.org"))
        try sb.expectClean()
    }

    // MARK: Standard output

    @Test func remindPrintsOncePerDayUntilDoneAndIsSilentWithNothing() throws {
        let sb = try kimsHousehold()
        var r = try sb.todo("remind")
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        let bike = try #require(r.lines.first { $0.contains("Fix the bike") })
        #expect(r.stdout.hasPrefix("todo: 1 overdue, 2 due today, 1 new for Kim (home)\n\nOverdue:\n  - Renew the permit (due 2025-11-18)"), "\(r)")
        #expect(r.stdout.contains("\n\nDue today:\n  - ") && r.stdout.contains("\n  - Buy milk  [") && r.stdout.contains("\n  - Water the plants (your turn)  ["), "\(r)")
        #expect(r.stdout.contains("New for you:\n") && bike.hasPrefix("  - Fix the bike  ["), "\(r)")
        #expect(!r.stdout.contains("Alice"), "Alice has nothing: \(r)")
        // Nothing is committed; the state is on this machine.
        let commits = try sb.commits().count
        #expect(FileManager.default.fileExists(atPath: statePath(sb)))
        // At most once per household day.
        r = try sb.todo("remind")
        #expect(r.exitCode == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "\(r)")

        // The next day: the chore and the overdue tasks again, the bike no longer new.
        sb.now = fixedNow + Self.day
        r = try sb.todo("remind")
        #expect(r.exitCode == 0 && r.stdout.hasPrefix("todo: 2 overdue, 1 due today for Kim (home)"), "\(r)")
        #expect(!r.stdout.contains("Fix the bike") && r.stdout.contains("Water the plants (your turn)"), "\(r)")

        // All dealt with: silence, exit 0.
        sb.now = fixedNow + 2 * Self.day
        let list = try json(try sb.todo("list", "--json").stdout)
        for t in list.items where ["Renew the permit", "Buy milk", "Water the plants"].contains(t["title"]?.stringValue ?? "") {
            let id = try #require(t["id"]?.stringValue)
            #expect(try sb.todo("done", String(id.prefix(8))).exitCode == 0)
        }
        r = try sb.todo("remind")
        #expect(r.exitCode == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "\(r)")
        // Reassigned to Kim later: new for her.
        sb.now = fixedNow + 3 * Self.day
        _ = try sb.add("Call the plumber", "--assign", "Kim")
        r = try sb.todo("remind")
        // (The daily chore is due again each day.)
        #expect(r.stdout.hasPrefix("todo: 1 due today, 1 new for Kim (home)\n\nDue today:\n  - Water the plants (your turn)"), "\(r)")
        #expect(r.stdout.contains("\nNew for you:\n  - Call the plumber  ["), "\(r)")
        // --dry-run shows, sends nothing, records nothing.
        sb.now = fixedNow + 4 * Self.day
        let state = readBytes(statePath(sb))
        r = try sb.todo("remind", "--dry-run")
        #expect(r.exitCode == 0 && r.stdout.hasPrefix("To Kim by standard output:\nSubject: todo: 1 due today for Kim (home)\nMessage-ID: <todo-"), "\(r)")
        #expect(readBytes(statePath(sb)) == state)
        #expect(try sb.commits().count == commits + 4)
        try sb.expectClean()
    }

    @Test func aMemberMayChooseFewerReminders() throws {
        let sb = try kimsHousehold()
        var r = try sb.todo("member", "set", "Kim", "--every-days", "3")
        #expect(r.exitCode == 0 && r.stdout.hasPrefix("Kim: reminders by standard output (no email or method set), every 3 days at most;"), "\(r)")
        r = try sb.todo("member", "set", "Kim", "--every-days", "31")
        #expect(r.exitCode == 64 && r.stderr.contains("--every-days must be a number of days from 1 to 30"), "\(r)")
        var sent: [Int] = []
        for day in 0..<7 {
            sb.now = fixedNow + Int64(day) * Self.day
            r = try sb.todo("remind")
            #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
            if r.stdout.contains("for Kim") { sent.append(day) }
        }
        #expect(sent == [0, 3, 6])
    }

    // MARK: Mail over SMTP

    @Test func mailGoesThroughSMTPOnceADayWithAStableMessageID() throws {
        let sb = try kimsHousehold()
        #expect(try sb.todo("member", "set", "Kim", "--email", "kim@example.org", "--via", "mail").exitCode == 0)
        let (server, port, out) = try receiver(sb, "smtp", ["--fail", "1"])
        defer { server.stop() }
        try settings(sb, "smtp.host=127.0.0.1", "smtp.port=\(port)", "smtp.from=todo@example.org")

        // The first try is answered 451: reported on stderr, exit 75, nothing recorded as sent.
        var r = try sb.todo("remind")
        #expect(r.exitCode == 75 && r.stdout.isEmpty, "\(r)")
        #expect(r.stderr.contains("could not remind Kim by mail") && r.stderr.contains("451") && r.stderr.contains("tried again"), "\(r)")
        // The next run, a minute later, delivers the same message, with the same Message-ID and
        // Date.
        sb.now = fixedNow + 60_000
        r = try sb.todo("remind")
        #expect(r.exitCode == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "\(r)")
        var got = try received(out)
        try #require(got.count == 2, "\(got)")
        #expect(got[0]["accepted"] == .bool(false) && got[1]["accepted"] == .bool(true))
        #expect(got[0]["message_id"] == got[1]["message_id"] && got[1]["message_id"]?.stringValue?.hasPrefix("<todo-") == true, "\(got)")
        #expect(got[0]["date"] == got[1]["date"] && got[0]["body"] == got[1]["body"], "\(got)")
        let m = got[1]
        #expect(m["from"] == .string("todo@example.org") && m["to"] == .array([.string("kim@example.org")]), "\(m)")
        #expect(m["header_to"] == .string("kim@example.org") && m["subject"] == .string("todo: 1 overdue, 2 due today, 1 new for Kim (home)"), "\(m)")
        let body = (m["body"]?.stringValue ?? "").replacingOccurrences(of: "\r\n", with: "\n")
        #expect(body.hasPrefix("Overdue:\n  - Renew the permit (due 2025-11-18)") && body.contains("  - Buy milk") && body.contains("New for you:\n  - Fix the bike"), "\(body)")
        #expect(m["content_type"]?.stringValue?.contains("utf-8") == true)
        // Once a day.
        r = try sb.todo("remind")
        #expect(r.exitCode == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "\(r)")
        #expect(try received(out).count == 2)
        // The next day: the server is down. Told once, then silent (exit 75) until it is back.
        server.stop()
        sb.now = fixedNow + Self.day
        r = try sb.todo("remind")
        #expect(r.exitCode == 75 && r.stderr.contains("cannot connect to 127.0.0.1 port \(port)"), "\(r)")
        r = try sb.todo("remind")
        #expect(r.exitCode == 75 && r.stderr.isEmpty && r.stdout.isEmpty, "\(r)")
        let (again, _, out2) = try receiver(sb, "smtp", port: port)
        defer { again.stop() }
        r = try sb.todo("remind")
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        got = try received(out2)
        #expect(got.count == 1 && got.first?["subject"] == .string("todo: 2 overdue, 1 due today for Kim (home)"), "\(got)")
        #expect(got.first?["message_id"] != m["message_id"])
        try sb.expectClean()
    }

    @Test func aRefusedSenderAndAnUnsafeSettingsFileAreConfigurationErrors() throws {
        let sb = try kimsHousehold()
        #expect(try sb.todo("member", "set", "Kim", "--email", "kim@example.org").exitCode == 0)
        let (server, port, out) = try receiver(sb, "smtp", ["--refuse-sender", "nobody@example.org"])
        defer { server.stop() }
        try settings(sb, "smtp.host=127.0.0.1", "smtp.port=\(port)", "smtp.from=nobody@example.org", mode: 0o644)
        var r = try sb.todo("remind")
        #expect(r.exitCode == 78 && r.stderr.contains("group or others may read") && r.stdout.isEmpty, "\(r)")
        try settings(sb, "smtp.host=127.0.0.1", "smtp.port=\(port)", "smtp.from=nobody@example.org")
        r = try sb.todo("remind")
        #expect(r.exitCode == 78 && r.stderr.contains("refused the sender <nobody@example.org>") && r.stderr.contains("550"), "\(r)")
        #expect(try received(out).isEmpty)
        try settings(sb, "smtp.host=127.0.0.1", "smtp.port=99999")
        r = try sb.todo("remind")
        #expect(r.exitCode == 78 && r.stderr.contains("smtp.port must be a port from 1 to 65535"), "\(r)")
        // The environment overrides the file.
        r = try sb.todo(["remind"], env: ["TODO_SMTP_PORT": String(port), "TODO_SMTP_FROM": "alice@example.org"])
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        #expect(try received(out).first?["from"] == .string("alice@example.org"))
    }

    /// A certificate authority made for the test and a certificate for localhost it signed, for
    /// the TLS receivers: trusted only through `TODO_TLS_CA` (beside the system's authorities).
    func testCA(_ sb: Sandbox) throws -> (ca: String, cert: String, key: String) {
        let openssl = try requireProgram("openssl")
        let io = sb.root + "/io/"
        let ext = try sb.file("leaf.cnf", "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
        for args in [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", io + "ca.key", "-out", io + "ca.pem", "-days", "2",
             "-subj", "/CN=todo test CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", io + "key.pem", "-out", io + "leaf.csr", "-subj", "/CN=localhost"],
            ["x509", "-req", "-in", io + "leaf.csr", "-CA", io + "ca.pem", "-CAkey", io + "ca.key", "-CAcreateserial",
             "-out", io + "cert.pem", "-days", "2", "-extfile", ext],
        ] {
            let made = try runProgram(openssl, args, in: sb)
            try #require(made.exitCode == 0, "\(made)")
        }
        return (io + "ca.pem", io + "cert.pem", io + "key.pem")
    }

    @Test func anHTTPSPostChecksTheCertificate() throws {
        let sb = try kimsHousehold()
        let (ca, cert, key) = try testCA(sb)
        let (server, port, out) = try receiver(sb, "http", ["--tls-cert", cert, "--tls-key", key])
        defer { server.stop() }
        #expect(try sb.todo("member", "set", "Kim", "--via", "post", "--post-url", "https://localhost:\(port)/kim").exitCode == 0)
        // Not from an authority this machine trusts: nothing sent.
        var r = try sb.todo(["remind"], env: ["TODO_POST_TOKEN": "tok"])
        #expect(r.exitCode == 75 && r.stderr.contains("could not remind Kim by post: TLS with localhost failed"), "\(r)")
        #expect(try received(out).isEmpty)
        r = try sb.todo(["remind"], env: ["TODO_POST_TOKEN": "tok", "TODO_TLS_CA": ca])
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        let got = try received(out)
        #expect(got.count == 1 && got.first?["headers"]?["authorization"] == .string("Bearer tok"), "\(got)")
        #expect(got.first?["headers"]?["idempotency-key"]?.stringValue?.hasPrefix("todo-") == true, "\(got)")
        #expect(got.first?["body"]?.stringValue?.hasPrefix("Overdue:\n  - Renew the permit") == true, "\(got)")
    }

    @Test func aTurnPassedToAMemberIsTheirsInTheirReminder() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let trash = try sb.add("Take out the trash", "--every", "day", "--rotate", "Alice,Kim", "--from", "2025-11-20")
        var r = try sb.todo("remind", "--member", "Kim")
        #expect(r.exitCode == 0 && r.stdout.isEmpty, "Alice's turn today: \(r)")
        #expect(try sb.todo("pass", trash.short, "--to", "Kim").exitCode == 0)
        r = try sb.todo("remind", "--member", "Kim")
        #expect(r.stdout.hasPrefix("todo: 1 due today for Kim (home)\n\nDue today:\n  - Take out the trash (your turn)"), "\(r)")
        r = try sb.todo("remind", "--member", "Alice")
        #expect(r.exitCode == 0 && r.stdout.isEmpty, "no longer Alice's: \(r)")
    }

    /// STARTTLS and a login: the certificate is checked (one from the test's authority is
    /// refused until the machine trusts it, here through TODO_TLS_CA), the password comes from
    /// the environment and is on no command line.
    @Test func mailWithSTARTTLSChecksTheCertificateAndLogsIn() throws {
        let sb = try kimsHousehold()
        #expect(try sb.todo("member", "set", "Kim", "--email", "kim@example.org").exitCode == 0)
        let (ca, cert, key) = try testCA(sb)
        let (server, port, out) = try receiver(sb, "smtp", ["--tls-cert", cert, "--tls-key", key, "--login", "family:pa ss\"word"])
        defer { server.stop() }
        try settings(sb, "smtp.host=localhost", "smtp.port=\(port)", "smtp.tls=starttls", "smtp.user=family", "smtp.from=family@example.org")
        let secret = ["TODO_SMTP_PASSWORD": "pa ss\"word"]
        // Not trusted: nothing sent.
        var r = try sb.todo(["remind"], env: secret)
        #expect(r.exitCode == 75 && r.stderr.contains("could not remind Kim by mail: TLS with localhost failed"), "\(r)")
        #expect(try received(out).isEmpty)
        // A wrong password: aiosmtpd never answers it, --timeout ends the try; told once a day.
        r = try sb.todo(["remind", "--timeout", "2"], env: ["TODO_SMTP_PASSWORD": "wrong", "TODO_TLS_CA": ca])
        #expect(r.exitCode == 75 && r.stderr.isEmpty, "told once a day: \(r)")
        #expect(try received(out).isEmpty)
        // Trusted, with the right password: delivered.
        r = try sb.todo(["remind"], env: secret.merging(["TODO_TLS_CA": ca]) { a, _ in a })
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        let got = try received(out)
        #expect(got.count == 1 && got.first?["from"] == .string("family@example.org") && got.first?["to"] == .array([.string("kim@example.org")]), "\(got)")
        #expect(got.first?["subject"] == .string("todo: 1 overdue, 2 due today, 1 new for Kim (home)"), "\(got)")
        #expect(got.first?["message_id"]?.stringValue?.hasPrefix("<todo-") == true, "\(got)")
    }

    /// TLS from the first byte (port 465's way), the certificate checked as with STARTTLS.
    @Test func mailWithImplicitTLSChecksTheCertificate() throws {
        let sb = try kimsHousehold()
        #expect(try sb.todo("member", "set", "Kim", "--email", "kim@example.org").exitCode == 0)
        let (ca, cert, key) = try testCA(sb)
        let (server, port, out) = try receiver(sb, "smtp", ["--tls-cert", cert, "--tls-key", key, "--implicit-tls"])
        defer { server.stop() }
        try settings(sb, "smtp.host=localhost", "smtp.port=\(port)", "smtp.tls=tls", "smtp.from=family@example.org")
        var r = try sb.todo("remind")
        #expect(r.exitCode == 75 && r.stderr.contains("could not remind Kim by mail: TLS with localhost failed"), "\(r)")
        #expect(try received(out).isEmpty)
        // The certificate is for localhost, not for 127.0.0.1: refused even from a trusted authority.
        try settings(sb, "smtp.host=127.0.0.1", "smtp.port=\(port)", "smtp.tls=tls", "smtp.from=family@example.org", "tls.ca=\(ca)")
        sb.now = fixedNow + Self.day
        r = try sb.todo("remind")
        #expect(r.exitCode == 75 && r.stderr.contains("TLS with 127.0.0.1 failed"), "\(r)")
        try settings(sb, "smtp.host=localhost", "smtp.port=\(port)", "smtp.tls=tls", "smtp.from=family@example.org", "tls.ca=\(ca)")
        r = try sb.todo("remind")
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        let got = try received(out)
        #expect(got.count == 1 && got.first?["subject"] == .string("todo: 2 overdue, 1 due today, 1 new for Kim (home)"), "\(got)")
    }

    /// `todo` sends nothing over the network itself: without todo-serve beside it or on PATH, a
    /// network delivery fails with exit 78 saying so; standard output still works.
    @Test(needsNotInstalled("todo-serve")) func withoutTodoServeANetworkDeliveryExits78() throws {
        let sb = try kimsHousehold()
        let alone = sb.root + "/alone"
        try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: sb.binary, toPath: alone + "/todo")
        sb.binary = alone + "/todo"
        #expect(try sb.todo("member", "set", "Kim", "--via", "post", "--post-url", "http://127.0.0.1:9/kim").exitCode == 0)
        var r = try sb.todo(["remind"], env: ["PATH": "/usr/bin:/bin"])
        #expect(r.exitCode == 78 && r.stderr.contains("could not remind Kim by post: todo-serve, which sends mail over SMTP and POSTs, is not installed"), "\(r)")
        try settings(sb, "smtp.host=127.0.0.1", "smtp.port=9")
        #expect(try sb.todo("member", "set", "Kim", "--via", "mail", "--email", "kim@example.org").exitCode == 0)
        sb.now = fixedNow + Self.day
        r = try sb.todo(["remind"], env: ["PATH": "/usr/bin:/bin"])
        #expect(r.exitCode == 78 && r.stderr.contains("could not remind Kim by mail: todo-serve"), "\(r)")
        r = try sb.todo(["remind", "--via", "stdout"], env: ["PATH": "/usr/bin:/bin"])
        #expect(r.exitCode == 0 && r.stdout.hasPrefix("todo: 2 overdue, 1 due today, 1 new for Kim (home)"), "\(r)")
    }

    @Test func mailGoesThroughSendmailWhenNoSMTPHostIsSet() throws {
        let sb = try kimsHousehold()
        #expect(try sb.todo("member", "set", "Kim", "--email", "kim@example.org").exitCode == 0)
        let captured = sb.root + "/io/sendmail.txt"
        let fake = try sb.file("sendmail", "#!/bin/sh\necho \"$@\" > \(captured).args\ncat > \(captured)\n")
        chmod(fake, 0o755)
        try settings(sb, "sendmail=\(fake)")
        let r = try sb.todo("remind")
        #expect(r.exitCode == 0 && r.stderr.isEmpty && r.stdout.isEmpty, "\(r)")
        let text = String(decoding: readBytes(captured) ?? [], as: UTF8.self)
        #expect(String(decoding: readBytes(captured + ".args") ?? [], as: UTF8.self) == "-t -i\n")
        #expect(text.hasPrefix("From: alice@example.org\nTo: kim@example.org\nSubject: todo: 1 overdue, 2 due today, 1 new for Kim (home)\n"), "\(text)")
        #expect(text.contains("\nMessage-ID: <todo-") && text.contains("\n\nOverdue:\n  - Renew the permit"), "\(text)")
    }

    // MARK: HTTP POST

    @Test func aPostIsRetriedWithTheSameIdempotencyKey() throws {
        let sb = try kimsHousehold()
        let (server, port, out) = try receiver(sb, "http", ["--fail", "1"])
        defer { server.stop() }
        let url = "http://127.0.0.1:\(port)/family-kim?x=1"
        var r = try sb.todo("member", "set", "Kim", "--via", "post", "--post-url", url)
        #expect(r.exitCode == 0, "\(r)")
        let env = ["TODO_POST_TOKEN": "s3cret-token"]
        r = try sb.todo(["remind", "--member", "Kim"], env: env)
        #expect(r.exitCode == 75 && r.stderr.contains("could not remind Kim by post") && r.stderr.contains("503"), "\(r)")
        r = try sb.todo(["remind", "--member", "Kim"], env: env)
        #expect(r.exitCode == 0 && r.stderr.isEmpty && r.stdout.isEmpty, "\(r)")
        let got = try received(out)
        try #require(got.count == 2, "\(got)")
        let (first, second) = (got[0], got[1])
        #expect(second["accepted"] == .bool(true) && second["path"] == .string("/family-kim?x=1"), "\(second)")
        let key = second["headers"]?["idempotency-key"]?.stringValue
        #expect(key != nil && key == first["headers"]?["idempotency-key"]?.stringValue, "\(got)")
        #expect(second["headers"]?["authorization"] == .string("Bearer s3cret-token"), "\(second)")
        #expect(second["headers"]?["content-type"]?.stringValue?.hasPrefix("text/plain") == true)
        #expect(second["headers"]?["title"] == .string("todo: 1 overdue, 2 due today, 1 new for Kim (home)"), "\(second)")
        #expect(second["body"]?.stringValue?.hasPrefix("Overdue:\n  - Renew the permit") == true, "\(second)")
        // The token is in no file of the household.
        let grep = try sb.git("grep", "-q", "s3cret", "refs/heads/main")
        #expect(grep.exitCode == 1, "\(grep)")
        // --via stdout for one run.
        sb.now = fixedNow + Self.day
        r = try sb.todo("remind", "--member", "Kim", "--via", "stdout")
        #expect(r.exitCode == 0 && r.stdout.hasPrefix("todo: 2 overdue, 1 due today for Kim (home)"), "\(r)")
        #expect(try received(out).count == 2)
    }

    @Test func aServerThatHangsIsATimeoutTriedAgainNextRun() throws {
        let sb = try kimsHousehold()
        let (server, port, out) = try receiver(sb, "stall")
        defer { server.stop() }
        #expect(try sb.todo("member", "set", "Kim", "--via", "post", "--post-url", "http://127.0.0.1:\(port)/kim").exitCode == 0)
        #expect(try sb.todo("member", "set", "Alice", "--email", "alice@example.org").exitCode == 0)
        _ = try sb.add("Alice's errand", "--due", "2025-11-20", "--assign", "Alice")
        try settings(sb, "smtp.host=127.0.0.1", "smtp.port=\(port)")
        let started = ContinuousClock.now
        var r = try sb.todo("remind", "--timeout", "1")
        #expect(ContinuousClock.now - started < .seconds(20), "the timeout bounds the run")
        #expect(r.exitCode == 75 && r.stderr.contains("could not remind Kim by post") && r.stderr.contains("did not answer in time"), "\(r)")
        #expect(r.stderr.contains("could not remind Alice by mail"), "\(r)")
        #expect(try received(out).count == 2)
        // Nothing was recorded as sent: a receiver back on the next run gets both.
        server.stop()
        let (http, _, httpOut) = try receiver(sb, "http", port: port)
        r = try sb.todo("remind", "--member", "Kim", "--timeout", "5")
        http.stop()
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        #expect(try received(httpOut).first?["body"]?.stringValue?.contains("Buy milk") == true)
        r = try sb.todo("remind", "--timeout", "0")
        #expect(r.exitCode == 64 && r.stderr.contains("--timeout must be from 1 to 600"), "\(r)")
    }

    @Test func aSecondRunWhileOneSendsSendsNothing() throws {
        let sb = try kimsHousehold()
        let (server, port, _) = try receiver(sb, "stall")
        defer { server.stop() }
        #expect(try sb.todo("member", "set", "Kim", "--via", "post", "--post-url", "http://127.0.0.1:\(port)/kim").exitCode == 0)
        let first = try sb.start(["remind", "--timeout", "30"])
        // The first run holds the lock once the receiver has its connection.
        try #require(server.output.waitForLine(containing: "connection 1", timeout: .seconds(60)) != nil, "\(server.output.text)")
        let r = try sb.todo("remind")
        #expect(r.exitCode == 75 && r.stderr.contains("Another `todo remind` is sending"), "\(r)")
        server.stop()
        let ended = try first.wait(within: .seconds(60))
        #expect(ended.exitCode == 75, "\(ended)")
    }

    // MARK: Shared between replicas

    @Test func detailsSetOnOneReplicaAreUsedOnAnother() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host, now: fixedNow + 60_000)
        try alice.create(remote: host.url())
        _ = try alice.add("Buy milk", "--due", "2025-11-20", "--assign", "Kim")
        try alice.sync()
        try bob.join(host.url())
        // Apart: Alice sets Kim's email, Bob sets Kim's method; both set Alice's email.
        try alice.change("member", "set", "Kim", "--email", "kim@example.org")
        try bob.change("member", "set", "Kim", "--via", "post", "--post-url", "http://127.0.0.1:9/kim")
        try bob.change("member", "set", "Alice", "--email", "alice@home.example.org")
        try alice.change("member", "set", "Alice", "--email", "alice@work.example.org")
        try alice.sync()
        try bob.sync()
        try alice.sync()
        // Both sides' edits of different fields survive; Alice's email: the later stamp (Bob's
        // clock is a minute ahead), the other value in the conflict log.
        for m in [alice, bob] {
            let r = try m.todo("member", "show", "Kim")
            #expect(r.stdout == "Member:    Kim\nEmail:     kim@example.org\nReminders: POST to http://127.0.0.1:9/kim\nPost URL:  http://127.0.0.1:9/kim\n", "\(m.name): \(r)")
            #expect(try m.todo("member", "show", "Alice").stdout.contains("Email:     alice@home.example.org"))
        }
        let conflicts = try alice.todo("conflicts")
        #expect(conflicts.stdout.contains("alice@work.example.org"), "\(conflicts)")
        // Alice's machine sends with what Bob entered.
        let (server, port, out) = try receiver(alice.sb, "http")
        defer { server.stop() }
        try bob.change("member", "set", "Kim", "--post-url", "http://127.0.0.1:\(port)/kim")
        try bob.sync()
        try alice.sync()
        let r = try alice.todo("remind", "--member", "Kim")
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        let got = try received(out)
        #expect(got.count == 1 && got.first?["body"]?.stringValue?.hasPrefix("Due today:\n  - Buy milk  [") == true, "\(got)")
        try alice.expectClean()
    }
}

/// The member details kept by a member on the older release (`$TODO_OLD_BINARY`, see
/// OlderVersionTests): it syncs, edits the settings file's household and sends it back without
/// changing a byte of the details.
@Suite(
    .timeLimit(.minutes(20)), .kit,
    .enabled(if: olderTodo != nil, "TODO_OLD_BINARY is not set (see OlderVersionTests)"))
struct OlderVersionMemberTests {
    @Test func anOlderMemberKeepsMemberDetailsByteForByte() throws {
        let old = try #require(olderTodo)
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host, now: fixedNow + 60_000)
        bob.sb.binary = old
        try alice.create(remote: host.url())
        _ = try alice.add("Buy milk", "--assign", "Kim")
        try alice.change("member", "set", "Kim", "--email", "kim@example.org", "--via", "mail")
        try alice.sync()
        let path = "refs/heads/main:tasks/00/00000000000000000000000000000000.json"
        let written = try alice.git("show", path).stdout
        #expect(written.contains("\"member:email:Kim\": \"kim@example.org\""), "\(written)")

        try bob.join(host.url())
        let list = try bob.todo("list")
        #expect(list.exitCode == 0 && list.stderr.isEmpty && !list.stdout.contains("Household settings"), "\(list)")
        _ = try bob.add("Older member's task")
        // The older member changes the settings file itself: restores it, edits it, removes it.
        let r = try bob.todo("restore", "00000000")
        #expect(r.exitCode == 0, "\(r)")
        try bob.change("edit", "00000000", "--title", "Household settings (kept by todo; do not restore)")
        try bob.change("rm", "00000000")
        try bob.sync()
        let kept = try bob.git("show", path).stdout
        for line in written.split(separator: "\n") where line.contains("member:") {
            #expect(kept.contains(String(line)), "lost \(line): \(kept)")
        }
        try alice.sync()
        let shown = try alice.todo("member", "show", "Kim")
        #expect(shown.stdout.contains("Email:     kim@example.org\nReminders: mail to kim@example.org"), "\(shown)")
        try alice.expectClean()
    }
}
