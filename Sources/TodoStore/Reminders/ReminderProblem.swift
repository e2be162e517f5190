public import SystemPackage

/// Why a delivery failed. Both kinds are retried on the next run (the state is not advanced);
/// the kind decides the exit code (75 for a passing failure, 78 for a refusal).
public enum DeliveryFailure: Error, Sendable, Equatable {
    /// A passing failure: unreachable, timed out, a 4xx SMTP answer, a 5xx HTTP answer.
    case transient(DeliveryProblem)
    /// The receiver or the settings refuse it: a 5xx SMTP answer, a 4xx HTTP answer, no address.
    case refused(DeliveryProblem)

    public var problem: DeliveryProblem {
        switch self {
        case .transient(let p), .refused(let p): return p
        }
    }
}

/// What went wrong delivering one reminder, as facts: one case per situation, with what a front
/// end needs to say it (the host, port, the server's answer as it said it, made one line, the
/// errno of a failed system call). The store writes no sentence about it; the command line words
/// every case in `RemindMessages.swift`. docs/ARCHITECTURE.md, "A second front end".
public enum DeliveryProblem: Sendable, Equatable {
    // MARK: Mail

    /// `sendmail -t -i` exited with a failure, or could not be run.
    case sendmailFailed(program: String)
    /// A login over SMTP without TLS to a host that is not this machine.
    case loginInClear
    /// The SMTP server closed the connection before its answer.
    case smtpClosed(host: String)
    /// An answer without a three-digit code.
    case notSMTP(host: String)
    /// The SMTP server did not accept `step`: `code` and its last line (`said`, code included).
    /// A 5xx code refuses, a 4xx one defers.
    case smtpAnswer(host: String, step: SMTPStep, code: Int, said: String)
    /// A login is set but the server does not offer AUTH PLAIN.
    case noAuthPlain(host: String)
    /// `smtp.tls=starttls` but the server does not offer STARTTLS.
    case noStartTLS(host: String)

    // MARK: POST

    /// The member's URL is not one todo can POST to.
    case notHTTPURL(url: String)
    /// A status other than 2xx: `said` is the status line, made one line. 5xx, 408 and 429
    /// defer; any other refuses.
    case httpAnswer(host: String, status: Int, said: String)

    // MARK: The connection (RemindNet, in todo-serve)

    /// The host's name has no address.
    case addressNotFound(host: String)
    /// No address of `host` accepted a connection: the last connect's errno, nil when no socket
    /// could be made at all.
    case cannotConnect(host: String, port: Int, errno: Errno?)
    /// The answer did not come within the timeout.
    case answerTimedOut
    /// The connection broke: the errno of the failed call, when there is one.
    case connectionBroke(Errno?)
    /// A line of the answer longer than 64 KiB.
    case lineTooLong
    /// TLS could not be set up with `host`: its certificate is not trusted or not for that
    /// name, or the handshake failed (`said`: the TLS library's reason, one line).
    case tls(host: String, said: String)

    // MARK: The helper (todo-serve)

    /// A network delivery, but todo-serve, which sends over the network, is not installed.
    case noNetworkHelper(program: String)
    /// todo-serve ran but gave no answer (it crashed or outlived the timeout).
    case helperFailed(program: String)

    // MARK: The member's details (the command)

    /// Delivery by mail to a member with no email.
    case noEmail(member: String)
    /// Delivery by POST to a member with no URL.
    case noPostURL(member: String)
}

/// The step of an SMTP conversation an answer was for.
public enum SMTPStep: Sendable, Equatable {
    /// The server's greeting.
    case connection
    case ehlo
    case startTLS
    case login
    case sender(String)
    case recipient(String)
    /// The DATA command.
    case data
    /// The message itself, after DATA.
    case message
}

/// Why reminders cannot be sent as configured.
public enum ReminderConfigError: Error, Sendable, Equatable {
    /// The local settings file may be read or changed by others, or is not a regular file of ours.
    case unsafeFile(path: String, why: UnsafeSettings)
    /// A setting has a value that cannot be used; `value` is empty when it is not to be shown.
    case badSetting(key: String, value: String, expected: SettingRule)
    /// The state file exists but cannot be read as one.
    case badState(path: String)
    /// The state file (or its lock) cannot be written: the step that failed and its errno.
    case cannotWriteState(path: String, step: StateWriteStep, errno: Errno)
    /// Another `todo remind` for this household is running on this machine.
    case busy(path: String)
}

/// Why the settings file is not used.
public enum UnsafeSettings: Sendable, Equatable {
    case notRegularFile
    case otherOwner
    /// Group or others may read or change it.
    case openToOthers
    case unreadable
}

/// What a setting's value must be.
public enum SettingRule: Sendable, Equatable {
    /// 1 to 65535.
    case port
    /// An `SMTPSecurity`.
    case security
    case email
    /// No spaces or control characters.
    case oneWord
}

/// Which system call failed while recording the state.
public enum StateWriteStep: Sendable, Equatable {
    /// Creating the temporary file beside it.
    case create
    /// Writing `temporary`.
    case write(temporary: String)
    /// Renaming the temporary file over the state.
    case rename
    /// Opening (`open`) or taking (`flock`) the lock file (the error's path).
    case lock(call: String)
}
