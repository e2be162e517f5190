import Glibc
import SystemPackage
public import TodoCore
public import TodoStore

/// A reminder's words (docs/FORMAT.md, "What a reminder holds"), the same for `todo remind` and
/// the hub's scheduler: the message's identity hashes them, so both send one reminder with one
/// Message-ID.
public enum ReminderWording {
    /// The reminder's subject and body (docs/FORMAT.md, "What a reminder holds"). The message's
    /// identity hashes these words: the same facts give the same Message-ID as long as they stay.
    public static func reminder(_ f: ReminderFacts) -> (subject: String, body: String) {
        (subject(f), body(f))
    }

    /// The subject line: counts, the member and the household.
    public static func subject(_ f: ReminderFacts) -> String {
        var parts: [String] = []
        if !f.overdue.isEmpty { parts.append("\(f.overdue.count) overdue") }
        if !f.today.isEmpty { parts.append("\(f.today.count) due today") }
        if !f.new.isEmpty { parts.append("\(f.new.count) new") }
        return "todo: \(parts.joined(separator: ", ")) for \(ReminderText.line(f.member)) (\(f.household))"
    }

    /// The plain-text body: one section per group, one line per task.
    public static func body(_ f: ReminderFacts) -> String {
        func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        func line(_ item: ReminderItem) -> String {
            var text = "  - " + ReminderText.line(item.title)
            var notes: [String] = []
            if item.isChore { notes.append("your turn") }
            if let due = item.due {
                if due.date < f.day {
                    notes.append("due \(due.date)")
                } else if due.date == f.day {
                    if let m = due.minutes { notes.append("at \(pad2(m / 60)):\(pad2(m % 60))") }
                } else {
                    notes.append("due \(due)")
                }
            }
            if !notes.isEmpty { text += " (" + notes.joined(separator: ", ") + ")" }
            return text + "  [" + String(item.id.description.prefix(8)) + "]"
        }
        var lines: [String] = []
        for (title, group) in [("Overdue:", f.overdue), ("Due today:", f.today), ("New for you:", f.new)] where !group.isEmpty {
            if !lines.isEmpty { lines.append("") }
            lines.append(title)
            for item in group { lines.append(line(item)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Why a delivery failed, as a clause any front end can show (no command, flag or path: the
    /// command line adds those, `RemindMessages.reason`).
    public static func reason(_ failure: DeliveryFailure) -> String {
        let refused: Bool
        switch failure {
        case .transient: refused = false
        case .refused: refused = true
        }
        switch failure.problem {
        case .sendmailFailed(let program):
            return "the mail program \(program.split(separator: "/").last.map(String.init) ?? program) failed or could not be run"
        case .loginInClear:
            return "the SMTP login would cross the network in clear; set smtp.tls to starttls or tls"
        case .smtpClosed(let host):
            return "the SMTP server \(host) closed the connection"
        case .notSMTP(let host):
            return "the SMTP server \(host) answered something that is not SMTP"
        case .smtpAnswer(let host, let step, _, let said):
            return refused
                ? "the SMTP server \(host) refused \(smtpStep(step)): \(said)"
                : "the SMTP server \(host) did not accept \(smtpStep(step)) for now: \(said)"
        case .noAuthPlain(let host):
            return "the SMTP server \(host) offers no AUTH PLAIN login"
        case .noStartTLS(let host):
            return "the SMTP server \(host) does not offer STARTTLS; set smtp.tls to tls or none"
        case .notHTTPURL(let url):
            return "\(url) is not an http:// or https:// URL"
        case .httpAnswer(let host, _, let said):
            return refused ? "\(host) refused the POST: \(said)" : "\(host) answered \(said)"
        case .addressNotFound(let host):
            return "cannot find the address of \(host)"
        case .cannotConnect(let host, let port, let errno):
            return "cannot connect to \(host) port \(port) (\(errno.map(text) ?? "no address"))"
        case .answerTimedOut:
            return "the server did not answer in time"
        case .connectionBroke(let errno):
            return "the connection broke" + (errno.map { " (\(text($0)))" } ?? "")
        case .lineTooLong:
            return "the server sent a line too long"
        case .tls(let host, let said):
            return "TLS with \(host) failed (is its certificate from an authority this machine trusts, for that name?): \(said)"
        case .noNetworkHelper(let program):
            return "\(program), which sends mail over SMTP and POSTs, is not installed"
        case .helperFailed(let program):
            return "\(program) deliver-reminder gave no answer"
        case .noEmail(let member):
            return "no email is recorded for \(member)"
        case .noPostURL(let member):
            return "no URL to post to is recorded for \(member)"
        }
    }

    /// What an SMTP answer was for: "the sender <kim@example.org>".
    public static func smtpStep(_ step: SMTPStep) -> String {
        switch step {
        case .connection: return "the connection"
        case .ehlo: return "EHLO"
        case .startTLS: return "STARTTLS"
        case .login: return "the login"
        case .sender(let address): return "the sender <\(address)>"
        case .recipient(let address): return "the recipient <\(address)>"
        case .data: return "DATA"
        case .message: return "the message"
        }
    }

    /// The system's words for an errno.
    static func text(_ errno: Errno) -> String { String(cString: strerror(errno.rawValue)) }
}
