import FileKit
import Glibc
import SystemPackage
import TodoCore

/// One member's reminder, ready to leave.
public struct ReminderMessage: Sendable {
    public var member: String
    public var household: String
    public var subject: String
    public var body: String
    /// 32 hex digits (`ReminderText.identity`).
    public var identity: String

    public init(member: String, household: String, subject: String, body: String, identity: String) {
        self.member = member
        self.household = household
        self.subject = subject
        self.body = body
        self.identity = identity
    }

    /// The mail's Message-ID and the POST's Idempotency-Key.
    public var messageID: String { "todo-\(identity)@\(household)" }

    /// The message as RFC 5322 text, lines ending in `newline`.
    func mail(from: String, to: String, nowMillis: Int64, newline: String) -> String {
        var lines = [
            "From: \(from)", "To: \(to)", "Subject: \(Self.headerText(subject))", "Date: \(Self.date(nowMillis))",
            "Message-ID: <\(messageID)>", "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit", "Auto-Submitted: auto-generated", "",
        ]
        lines += body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines.joined(separator: newline) + newline
    }

    /// `text` as a header value: as is when it is printable ASCII, else an RFC 2047 word.
    static func headerText(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) && text.utf8.count <= 900 { return text }
        return "=?UTF-8?B?" + Base64.encode(Array(text.utf8)) + "?="
    }

    /// An RFC 5322 date in UTC.
    static func date(_ millis: Int64) -> String {
        let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let d = CivilDate(daysSinceEpoch: Int(days))
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func p(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(names[d.weekday]), \(d.day) \(months[d.month - 1]) \(d.year) \(p(rest / 3600)):\(p(rest / 60 % 60)):\(p(rest % 60)) +0000"
    }
}

/// Sends reminders by mail (sendmail or SMTP) and by HTTP POST.
public struct ReminderSender: Sendable {
    public var settings: ReminderSettings
    /// The sender address when `smtp.from` is not set (the running member's email).
    public var defaultFrom: String
    /// A private folder for curl's configuration (credentials never go on a command line).
    public var scratch: String
    public var timeoutSeconds = 30
    public var nowMillis: Int64

    public init(settings: ReminderSettings, defaultFrom: String, scratch: String, nowMillis: Int64) {
        self.settings = settings
        self.defaultFrom = defaultFrom
        self.scratch = scratch
        self.nowMillis = nowMillis
    }

    var from: String { settings.smtpFrom ?? defaultFrom }

    /// Mails `message` to `to`: over SMTP when `smtp.host` is set, else through sendmail.
    public func mail(_ message: ReminderMessage, to: String) throws(DeliveryFailure) {
        guard let host = settings.smtpHost else {
            let text = message.mail(from: from, to: to, nowMillis: nowMillis, newline: "\n")
            let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
            guard runProgram([settings.sendmail, "-t", "-i"], input: text, deadline: deadline) != nil else {
                throw .transient(.sendmailFailed(program: settings.sendmail))
            }
            return
        }
        let security = settings.smtpSecurity ?? (ReminderSettings.isLoopback(host) ? .none : .starttls)
        if security == .none {
            try smtpPlain(message, to: to, host: host, port: settings.smtpPort ?? 25)
        } else {
            try smtpThroughCurl(message, to: to, host: host, security: security)
        }
    }

    /// SMTP without TLS (RFC 5321), for a relay on this machine or the local network.
    func smtpPlain(_ message: ReminderMessage, to: String, host: String, port: Int) throws(DeliveryFailure) {
        if settings.smtpUser != nil && !ReminderSettings.isLoopback(host) {
            throw .refused(.loginInClear)
        }
        let s = try PlainSocket(host: host, port: port, timeoutSeconds: timeoutSeconds)
        func reply() throws(DeliveryFailure) -> (Int, [String]) {
            var lines: [String] = []
            while true {
                guard let line = try s.readLine() else { throw .transient(.smtpClosed(host: host)) }
                lines.append(line)
                let bytes = Array(line.utf8)
                guard bytes.count >= 3, let code = Int(String(decoding: bytes[0..<3], as: UTF8.self)) else {
                    throw .transient(.notSMTP(host: host))
                }
                if bytes.count == 3 || bytes[3] != 0x2D { return (code, lines) }
            }
        }
        func expect(_ step: SMTPStep, _ ok: ClosedRange<Int> = 200...399) throws(DeliveryFailure) -> [String] {
            let (code, lines) = try reply()
            guard ok.contains(code) else {
                let answer = DeliveryProblem.smtpAnswer(host: host, step: step, code: code, said: ReminderText.line(lines.last ?? ""))
                throw code >= 500 ? .refused(answer) : .transient(answer)
            }
            return lines
        }
        _ = try expect(.connection)
        try s.write("EHLO \(Self.hostName())\r\n")
        let features = try expect(.ehlo)
        if let user = settings.smtpUser {
            let password = settings.smtpPassword ?? ""
            guard features.contains(where: { $0.uppercased().contains("AUTH") && $0.uppercased().contains("PLAIN") }) else {
                throw .refused(.noAuthPlain(host: host))
            }
            try s.write("AUTH PLAIN " + Base64.encode([0] + Array(user.utf8) + [0] + Array(password.utf8)) + "\r\n")
            _ = try expect(.login)
        }
        let eight = features.contains { $0.uppercased().contains("8BITMIME") }
        try s.write("MAIL FROM:<\(from)>" + (eight ? " BODY=8BITMIME" : "") + "\r\n")
        _ = try expect(.sender(from))
        try s.write("RCPT TO:<\(to)>\r\n")
        _ = try expect(.recipient(to))
        try s.write("DATA\r\n")
        _ = try expect(.data)
        var text = message.mail(from: from, to: to, nowMillis: nowMillis, newline: "\r\n")
        // Dot-stuffing: a line starting with "." gets another.
        if text.hasPrefix(".") { text = "." + text }
        text = text.replacingAll("\r\n.", with: "\r\n..")
        try s.write(text + ".\r\n")
        _ = try expect(.message)
        // The message was accepted (250 above); a server that hangs up before QUIT loses nothing.
        try? s.write("QUIT\r\n")
    }

    /// SMTP with STARTTLS or TLS through curl, which checks the server's certificate against the
    /// system's authorities; the login goes to curl in a private file, never on its command line.
    func smtpThroughCurl(_ message: ReminderMessage, to: String, host: String, security: SMTPSecurity) throws(DeliveryFailure) {
        let port = settings.smtpPort ?? (security == .tls ? 465 : 587)
        let scheme = security == .tls ? "smtps" : "smtp"
        var config = [
            "url = \(Self.quoted("\(scheme)://\(host):\(port)"))", "mail-from = \(Self.quoted(from))",
            "mail-rcpt = \(Self.quoted(to))", "upload-file = \"-\"", "silent", "show-error",
            "max-time = \(timeoutSeconds)",
        ]
        if security == .starttls { config.append("ssl-reqd") }
        if let user = settings.smtpUser { config.append("user = \(Self.quoted(user + ":" + (settings.smtpPassword ?? "")))") }
        try runCurl(config, input: message.mail(from: from, to: to, nowMillis: nowMillis, newline: "\r\n"), what: .mail(host: host))
    }

    /// POSTs `message` as plain text to `url` with its Idempotency-Key (http:// over a socket,
    /// https:// through curl, which checks the certificate).
    public func post(_ message: ReminderMessage, url: String) throws(DeliveryFailure) {
        guard let parts = URLParts(url) else { throw .refused(.notHTTPURL(url: url)) }
        var headers = [("Content-Type", "text/plain; charset=utf-8"), ("Idempotency-Key", message.messageID)]
        if message.subject.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { headers.append(("Title", message.subject)) }
        if let token = settings.postToken { headers.append(("Authorization", "Bearer \(token)")) }
        if parts.secure {
            var config = ["url = \(Self.quoted(url))", "data-binary = \"@-\"", "silent", "show-error", "fail", "max-time = \(timeoutSeconds)"]
            for (k, v) in headers { config.append("header = \(Self.quoted("\(k): \(v)"))") }
            try runCurl(config, input: message.body, what: .post(host: parts.host))
            return
        }
        let s = try PlainSocket(host: parts.host, port: parts.port, timeoutSeconds: timeoutSeconds)
        let body = Array(message.body.utf8)
        let hostHeader = parts.host.contains(":") ? "[\(parts.host)]" : parts.host
        var head = "POST \(parts.target) HTTP/1.1\r\nHost: \(hostHeader)\(parts.port == 80 ? "" : ":\(parts.port)")\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\nUser-Agent: todo\r\n\r\n"
        try s.write(Array(head.utf8) + body)
        guard let status = try s.readLine() else { throw .transient(.httpClosed(host: parts.host)) }
        let fields = status.split(separator: " ", maxSplits: 2)
        guard fields.count >= 2, fields[0].hasPrefix("HTTP/1."), let code = Int(fields[1]) else {
            throw .transient(.notHTTP(host: parts.host))
        }
        if (200...299).contains(code) { return }
        let answer = DeliveryProblem.httpAnswer(host: parts.host, status: code, said: ReminderText.line(status))
        throw code >= 500 || code == 408 || code == 429 ? .transient(answer) : .refused(answer)
    }

    private func runCurl(_ config: [String], input: String, what: CurlDelivery) throws(DeliveryFailure) {
        let path = scratch + "/curl-\(getpid()).conf"
        defer { unlink(path) }
        do throws(FileError) {
            try WholeFile.write(path, Array((config.joined(separator: "\n") + "\n").utf8), mode: 0o600)
        } catch {
            throw .transient(.cannotWriteCurlConfig(path: path, errno: error.errno))
        }
        let deadline = ContinuousClock.now + .seconds(timeoutSeconds + 5)
        guard runProgram(["curl", "--disable", "-K", path], input: input, deadline: deadline) != nil else {
            throw .transient(.curlFailed(what))
        }
    }

    /// A value for curl's configuration file: quoted, `\` and `"` escaped, no line breaks.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for ch in text.unicodeScalars {
            switch ch {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n", "\r", "\t": out += " "
            default: out.unicodeScalars.append(ch)
            }
        }
        return out + "\""
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(cString: buffer)
        return name.isEmpty || !name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) ? "localhost" : name
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        let t = Array(target.utf8)
        let s = Array(self.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var i = 0
        while i < s.count {
            if i + t.count <= s.count && Array(s[i..<(i + t.count)]) == t {
                out += replacement.utf8
                i += t.count
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
