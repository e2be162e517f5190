import TodoWording
import Glibc
import SystemPackage
import TodoCore
import TodoStore

/// The sentences for reminders and members' details: the reminder itself, why a delivery
/// failed, why the settings or the state on this machine cannot be used, a member's value left
/// out. The store reports the facts (`ReminderFacts`, `DeliveryFailure`, `ReminderConfigError`,
/// `MemberFieldProblem`); this is the one place the command line words them.
enum RemindMessages {
    /// The reminder's subject and body: TodoWording's, shared with the hub's scheduler so that
    /// both give one reminder the same Message-ID.
    static func reminder(_ f: ReminderFacts) -> (subject: String, body: String) { ReminderWording.reminder(f) }

    /// The line on standard error for a failed delivery (once a day per member), after "todo: ".
    static func deliveryFailed(member: String, how: Delivery, _ failure: DeliveryFailure) -> String {
        "could not remind \(Terminal.safe(member)) by \(how.rawValue): \(Terminal.safe(reason(failure))). It will be tried again on the next `todo remind`."
    }

    /// Why a delivery failed, as a clause (TodoWording's, shared with the hub).
    static func reason(_ failure: DeliveryFailure) -> String {
        switch failure.problem {
        case .sendmailFailed(let program): return "\(program) -t -i failed or could not be run"
        case .noNetworkHelper(let program):
            return "\(program), which sends mail over SMTP and POSTs, is not installed; install it beside todo (make install installs both)"
        case .noEmail(let member): return "no email recorded (`todo member set \(member) --email ADDRESS`)"
        case .noPostURL(let member): return "no URL recorded (`todo member set \(member) --post-url URL`)"
        default: return ReminderWording.reason(failure)
        }
    }

    static func smtpStep(_ step: SMTPStep) -> String { ReminderWording.smtpStep(step) }

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
        case .malformedTime: what = "is not a time HH:MM"
        }
        return "\(p.field) of \(p.member) \(what)"
    }

    /// The system's words for an errno.
    static func text(_ errno: Errno) -> String { String(cString: strerror(errno.rawValue)) }
}
