#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import GitKit
import Synchronization

/// Network steps with a deadline, retries with backoff for transient failures, and one
/// credential source for the whole sync.
final class Network {
    let url: String
    let options: SyncOptions
    let deadline: Double
    let credentials: CredentialSource
    /// The household's `core.sshCommand` (fetches run in a scratch repository without it).
    var sshCommand: String?
    /// Set by this sync's watchdog thread when the deadline passes; read by libgit2's callbacks.
    /// One per sync, so that another sync in the same process is not cancelled with this one.
    let timedOut = WatchdogState()

    /// Whether this household has synced with the remote before (it has a tracking ref).
    let syncedBefore: Bool

    init(url: String, options: SyncOptions, deadline: Double, syncedBefore: Bool = false) {
        self.syncedBefore = syncedBefore
        self.url = url
        self.options = options
        self.deadline = deadline
        credentials = CredentialSource(
            interactive: options.interactive, deadline: deadline)
    }

    /// Runs one network step, retrying transient failures with exponential backoff and jitter
    /// while time remains; classifies the final failure.
    func run(_ what: String, _ body: (RemoteCallbacks) throws -> Void) throws {
        var delay = 0.5
        var attempt = 0
        while true {
            attempt += 1
            credentials.beginStep()
            let callbacks = RemoteCallbacks()
            callbacks.credentials = { [credentials] url, user, allowed in
                credentials.next(url: url, userFromURL: user, allowed: allowed)
            }
            callbacks.shouldCancel = { [timedOut, deadline] in timedOut.fired.load(ordering: .acquiring) || monotonicSeconds() > deadline }
            callbacks.allowPrompts = options.interactive
            callbacks.sshCommand = sshCommand
            if let progress = options.progress {
                callbacks.transferProgress = { p in
                    guard p.totalObjects > 0 else { return }
                    progress("Receiving objects: \(p.receivedObjects * 100 / p.totalObjects)% (\(p.receivedObjects)/\(p.totalObjects))")
                }
                callbacks.pushProgress = { current, total, _ in
                    guard total > 0 else { return }
                    progress("Sending objects: \(current * 100 / total)% (\(current)/\(total))")
                }
            }
            let sockets = TransferSockets()
            let watchdog = Watchdog(deadline: deadline, sockets: sockets, alsoSets: timedOut)
            sockets.begin()
            defer { sockets.end() }
            do {
                try body(callbacks)
                watchdog.cancel()
                credentials.report(success: true)
                return
            } catch let e as GitError {
                watchdog.cancel()
                // Someone pushed first: the caller fetches and merges, which no retry can replace.
                if e.isNonFastForward { throw e }
                let shape = FailureShape.of(e, timedOut: watchdog.fired || monotonicSeconds() > deadline)
                let error =
                    callbacks.sshExit.flatMap { sshError($0, e, what: what) }
                    ?? classify(shape, e, what: what, refusedHost: callbacks.certificateRefused)
                if shape == .auth { credentials.report(success: false) }
                let remaining = deadline - monotonicSeconds()
                guard error.kind == .transient, shape != .timeout, attempt < options.attempts, remaining > delay else {
                    throw error
                }
                var rng = SystemRandomNumberGenerator()
                let jitter = Double.random(in: 0..<(delay / 2), using: &rng)
                usleep(UInt32((delay + jitter) * 1_000_000))
                delay *= 2
            }
        }
    }

    func classify(_ shape: FailureShape, _ e: GitError, what: String, refusedHost: String?) -> SyncError {
        let shown = redactedURL(url)
        let detail = e.description
        let cause = Cause(
            source: .git(errorClass: e.errorClass, code: e.code, errno: e.errno), path: nil,
            text: e.message)
        switch shape {
        case .timeout:
            return SyncError(.timeout, "The household remote did not answer within \(Int(options.timeout)) seconds (\(what)).", detail: detail, cause: cause)
        case .refused:
            return SyncError(.unreachable, "Could not reach the household remote \(shown) (\(e.message)).", detail: detail, cause: cause)
        case .dns:
            return SyncError(.hostNotFound, "Could not find the host of the household remote \(shown) (\(e.message)).", detail: detail, cause: cause)
        case .busy:
            return SyncError(.remoteBusy, "The household remote is busy (\(e.message)).", detail: detail, cause: cause)
        case .auth:
            // https: ssh's refusals are explained in SSHFailure.swift.
            if credentials.askedOnlyForKerberos {
                return SyncError(
                    .credentialsRefused,
                    "The household remote \(shown) asks for Kerberos sign-in (HTTP Negotiate), which todo does not offer.\nAsk for password sign-in on that server, or use an ssh remote.",
                    detail: detail, cause: cause)
            }
            return SyncError(
                .credentialsRefused,
                "The household remote \(shown) did not accept your credentials.\nStore the password with a git credential helper.",
                detail: detail, cause: cause)
        case .hostKey:
            // Only a transport of libgit2's that checks host keys itself gets here: ssh runs
            // OpenSSH, whose refusals SSHFailure.swift explains.
            return SyncError(
                .unknownHostKey,
                "The ssh host key of \(refusedHost ?? "the server") could not be verified, so the remote cannot be trusted yet.\nConnect once at a terminal with `ssh HOST` and compare the fingerprint it shows with the server's own.",
                detail: detail, cause: cause)
        case .certificate:
            return SyncError(
                .untrustedCertificate,
                "The https certificate of \(refusedHost ?? shown) is not trusted.\nInstall its CA certificate in the system store (update-ca-certificates) or name it in git's http.sslCAInfo setting.",
                detail: detail, cause: cause)
        case .notFound where syncedBefore && Household.localPath(url) != nil:
            return SyncError(
                .remoteMissing,
                "The household remote \(shown) is missing, though earlier syncs found it there.\nIf it is on a drive or a network share, check that it is mounted, and check the URL with `todo remote`. Do not create a new repository there: that would split the household.",
                detail: detail, cause: cause)
        case .notFound where syncedBefore:
            return SyncError(
                .noRepository,
                "There is no git repository at \(shown), though earlier syncs found one there.\nCheck that the server still serves it and the URL with `todo remote`. Do not create a new repository there: that would split the household.",
                detail: detail, cause: cause)
        case .notFound:
            return SyncError(
                .noRepository, "There is no git repository at \(shown).\nCheck the URL with `todo remote`, or create the repository there (git init --bare).",
                detail: detail, cause: cause)
        case .badURL:
            return SyncError(.badURL, "\(shown) is not a remote URL todo understands (use a path, file://, git://, ssh:// or https://).", detail: detail, cause: cause)
        case .other:
            return SyncError(.unreachable, "The sync with \(shown) failed (\(e.message)).", detail: detail, cause: cause)
        }
    }
}
