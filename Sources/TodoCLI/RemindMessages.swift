import Glibc
import SystemPackage
import TodoCore
import TodoStore

/// The sentences for reminders and members' details: the reminder itself, why a delivery
/// failed, why the settings or the state on this machine cannot be used, a member's value left
/// out. The store reports the facts (`ReminderFacts`, `DeliveryFailure`, `ReminderConfigError`,
/// `MemberFieldProblem`); this is the one place the command line words them.
enum RemindMessages {
    /// The reminder's subject and body (docs/FORMAT.md, "What a reminder holds"). The message's
    /// identity hashes these words: the same facts give the same Message-ID as long as they stay.
    static func reminder(_ f: ReminderFacts) -> (subject: String, body: String) {
        (subject(f), body(f))
    }

    /// The subject line: counts, the member and the household.
    static func subject(_ f: ReminderFacts) -> String {
        var parts: [String] = []
        if !f.overdue.isEmpty { parts.append("\(f.overdue.count) overdue") }
        if !f.today.isEmpty { parts.append("\(f.today.count) due today") }
        if !f.new.isEmpty { parts.append("\(f.new.count) new") }
        return "todo: \(parts.joined(separator: ", ")) for \(ReminderText.line(f.member)) (\(f.household))"
    }

    /// The plain-text body: one section per group, one line per task.
    static func body(_ f: ReminderFacts) -> String {
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

    /// The line on standard error for a failed delivery (once a day per member), after "todo: ".
    static func deliveryFailed(member: String, how: Delivery, _ failure: DeliveryFailure) -> String {
        "could not remind \(Terminal.safe(member)) by \(how.rawValue): \(Terminal.safe(reason(failure))). It will be tried again on the next `todo remind`."
    }

    /// Why a delivery failed, as a clause.
    static func reason(_ failure: DeliveryFailure) -> String {
        let refused: Bool
        switch failure {
        case .transient: refused = false
        case .refused: refused = true
        }
        switch failure.problem {
        case .sendmailFailed(let program):
            return "\(program) -t -i failed or could not be run"
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
        case .curlFailed(let what):
            let delivery: String
            switch what {
            case .mail(let host): delivery = "mail through \(host)"
            case .post(let host): delivery = "the POST to \(host)"
            }
            return "curl could not deliver \(delivery) (is curl installed? run it by hand to see why)"
        case .cannotWriteCurlConfig(let path, let errno):
            return "cannot write \(path)" + (errno.map { " (\(text($0)))" } ?? "")
        case .notHTTPURL(let url):
            return "\(url) is not an http:// or https:// URL"
        case .httpClosed(let host):
            return "\(host) closed the connection without an answer"
        case .notHTTP(let host):
            return "\(host) answered something that is not HTTP"
        case .httpAnswer(let host, _, let said):
            return refused ? "\(host) refused the POST: \(said)" : "\(host) answered \(said)"
        case .addressNotFound(let host, let code):
            return "cannot find the address of \(host) (\(String(cString: gai_strerror(code))))"
        case .cannotConnect(let host, let port, let errno):
            return "cannot connect to \(host) port \(port) (\(errno.map(text) ?? "no address"))"
        case .sendTimedOut:
            return "the connection timed out"
        case .answerTimedOut:
            return "the server did not answer in time"
        case .connectionBroke(let errno):
            return "the connection broke (\(text(errno)))"
        case .lineTooLong:
            return "the server sent a line too long"
        case .noEmail(let member):
            return "no email recorded (`todo member set \(member) --email ADDRESS`)"
        case .noPostURL(let member):
            return "no URL recorded (`todo member set \(member) --post-url URL`)"
        }
    }

    /// What an SMTP answer was for: "the sender <kim@example.org>".
    static func smtpStep(_ step: SMTPStep) -> String {
        switch step {
        case .connection: return "the connection"
        case .ehlo: return "EHLO"
        case .login: return "the login"
        case .sender(let address): return "the sender <\(address)>"
        case .recipient(let address): return "the recipient <\(address)>"
        case .data: return "DATA"
        case .message: return "the message"
        }
    }

    /// The settings, the state or the lock on this machine cannot be used: the message and its
    /// exit code.
    static func config(_ error: ReminderConfigError) -> CLIError {
        switch error {
        case .unsafeFile(let path, let why):
            let reason: String
            switch why {
            case .notRegularFile: reason = "it is not a regular file"
            case .otherOwner: reason = "it belongs to another user"
            case .openToOthers: reason = "group or others may read or change it (run `chmod 600 \(Terminal.safe(path))`)"
            case .unreadable: reason = "it cannot be read"
            }
            return CLIError("Refusing the reminder settings \(Terminal.safe(path)): \(reason). It may hold a password.", exit: .configuration)
        case .badSetting(let key, let value, let rule):
            let expected: String
            switch rule {
            case .port: expected = "a port from 1 to 65535"
            case .security: expected = "none, starttls or tls"
            case .email: expected = "an email address"
            case .oneWord: expected = "a value without spaces or control characters"
            }
            return CLIError("The reminder setting \(key) must be \(expected); \"\(Terminal.safe(value))\" is not.", exit: .configuration)
        case .badState(let path):
            return CLIError(
                "Cannot read \(Terminal.safe(path)), what earlier reminders sent. Remove it to start afresh (each member may get one reminder again today).",
                exit: .data)
        case .busy(let path):
            return CLIError(
                "Another `todo remind` is sending for this household on this machine (\(Terminal.safe(path)).lock); this run sent nothing. Try again later.",
                exit: .busy)
        case .cannotWriteState(let path, let step, let errno):
            let reason: String
            switch step {
            case .create, .rename: reason = text(errno)
            // As the write loop has always put it (a system call's failure in GitKit's form).
            case .write(let temporary): reason = "write \(temporary) failed: \(text(errno))"
            case .lock(let call): reason = "\(call) \(path): \(text(errno))"
            }
            return CLIError("Cannot record what was sent in \(Terminal.safe(path)) (\(Terminal.safe(reason))).", exit: .forFile(errno: errno))
        }
    }

    /// A member's value left out of their details: "email of Kim is malformed".
    static func leftOut(_ p: MemberFieldProblem) -> String {
        let what: String
        switch p.kind {
        case .notAString: what = "is not a string"
        case .malformedEmail, .malformedPostURL: what = "is malformed"
        case .unknownDelivery: what = "is not stdout, mail or post"
        case .everyOutOfRange: what = "is not 1 to 30"
        }
        return "\(p.field) of \(p.member) \(what)"
    }

    /// The system's words for an errno.
    static func text(_ errno: Errno) -> String { String(cString: strerror(errno.rawValue)) }
}
