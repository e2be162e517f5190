import FileKit
import Glibc
import SystemPackage
public import TodoCore

/// One member's reminder, ready to leave.
public struct ReminderMessage: Sendable {
    public var member: String
    public var household: String
    public var subject: String
    public var body: String
    /// 32 hex digits (`ReminderText.identity`).
    public var identity: String
    /// A Done button per item (at most three), when a hub sends or makes the links.
    public var links: [ReminderLink] = []
    /// The member's page on the hub.
    public var click: String?
    /// The household day of the reminder, and what it names (overdue, due today, new): what a
    /// hub makes the Done links of.
    public var day: CivilDate?
    public var items: [ReminderItem] = []
    /// When it was first tried (`ReminderState.beginSending`): the mail's Date, the same on
    /// every retry.
    public var firstTry: Int64?

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
    public func mail(from: String, to: String, nowMillis: Int64, newline: String) -> String {
        var lines = [
            "From: \(from)", "To: \(to)", "Subject: \(Self.headerText(subject))", "Date: \(Self.date(firstTry ?? nowMillis))",
            "Message-ID: <\(messageID)>", "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit", "Auto-Submitted: auto-generated", "",
        ]
        lines += body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        // The hub's links: each opens a page with a Done button (opening it changes nothing).
        if !links.isEmpty || click != nil {
            lines.append("")
            for link in links { lines.append("\(ReminderText.line(link.label)): \(link.url)") }
            if let click { lines.append("Your page: \(click)") }
        }
        return lines.joined(separator: newline) + newline
    }

    /// The message as SMTP's DATA sends it: CRLF lines, dot-stuffed, ending in `.` on a line.
    public func smtpData(from: String, to: String, nowMillis: Int64) -> String {
        var text = mail(from: from, to: to, nowMillis: nowMillis, newline: "\r\n")
        // Dot-stuffing: a line starting with "." gets another.
        if text.hasPrefix(".") { text = "." + text }
        return text.replacingAll("\r\n.", with: "\r\n..") + ".\r\n"
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

/// A button of a reminder: ntfy's `http` action, a link in a mail.
public struct ReminderLink: Sendable, Equatable {
    public var label: String
    public var url: String

    public init(label: String, url: String) {
        self.label = label
        self.url = url
    }
}

/// Sends reminders by mail (sendmail, or SMTP through todo-serve) and by HTTP POST (through
/// todo-serve): `todo` links no network client of its own beyond libgit2's.
public struct ReminderSender: Sendable {
    public var settings: ReminderSettings
    /// The sender address when `smtp.from` is not set (the running member's email).
    public var defaultFrom: String
    /// `todo-serve`, which delivers over the network (`deliver-reminder`); nil when it is not
    /// installed.
    public var networkHelper: String?
    public var timeoutSeconds = 30
    public var nowMillis: Int64

    public init(settings: ReminderSettings, defaultFrom: String, networkHelper: String?, nowMillis: Int64) {
        self.settings = settings
        self.defaultFrom = defaultFrom
        self.networkHelper = networkHelper
        self.nowMillis = nowMillis
    }

    public var from: String { settings.smtpFrom ?? defaultFrom }

    /// Mails `message` to `to`: over SMTP when `smtp.host` is set, else through sendmail.
    public func mail(_ message: ReminderMessage, to: String) throws(DeliveryFailure) {
        guard settings.smtpHost != nil else {
            let text = message.mail(from: from, to: to, nowMillis: nowMillis, newline: "\n")
            let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
            guard runProgram([settings.sendmail, "-t", "-i"], input: text, deadline: deadline) != nil else {
                throw .transient(.sendmailFailed(program: settings.sendmail))
            }
            return
        }
        try network(.mail(from: from, to: to), message)
    }

    /// POSTs `message` to `url` with its Idempotency-Key.
    public func post(_ message: ReminderMessage, url: String) throws(DeliveryFailure) {
        try network(.post(url: url), message)
    }

    /// Hands the delivery to `todo-serve deliver-reminder` (its standard input; its answer on
    /// standard output).
    private func network(_ target: NetworkDelivery.Target, _ message: ReminderMessage) throws(DeliveryFailure) {
        let program = "todo-serve"
        guard let helper = networkHelper else { throw .refused(.noNetworkHelper(program: program)) }
        let request = NetworkDelivery(target: target, message: message, settings: settings, nowMillis: nowMillis, timeoutSeconds: timeoutSeconds)
        // The helper's own timeouts end it first; this bounds a helper that hangs.
        let deadline = ContinuousClock.now + .seconds(timeoutSeconds + 10)
        guard let answer = runProgram([helper, "deliver-reminder"], input: String(decoding: request.encoded(), as: UTF8.self), deadline: deadline)
        else { throw .transient(.helperFailed(program: helper)) }
        if let failure = DeliveryAnswer.decode(answer, program: helper) { throw failure }
    }
}

/// Base64 (RFC 4648), for RFC 2047 words and an SMTP login.
public enum Base64 {
    public static func encode(_ bytes: [UInt8]) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let b0 = bytes[i]
            let b1 = i + 1 < bytes.count ? bytes[i + 1] : 0
            let b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
            out.append(table[Int(b0 >> 2)])
            out.append(table[Int((b0 & 3) << 4 | b1 >> 4)])
            out.append(i + 1 < bytes.count ? table[Int((b1 & 15) << 2 | b2 >> 6)] : 0x3D)
            out.append(i + 2 < bytes.count ? table[Int(b2 & 63)] : 0x3D)
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
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
