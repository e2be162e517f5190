import Glibc
import GitKit
import Synchronization

/// Network steps with a deadline, retries with backoff for transient failures, and one
/// credential source for the whole sync.
final class Network {
    let url: String
    let options: SyncOptions
    let deadline: ContinuousClock.Instant
    let credentials: CredentialSource
    /// The household's `core.sshCommand` (fetches run in a scratch repository without it).
    var sshCommand: String?
    /// Set by this sync's watchdog thread when the deadline passes; read by libgit2's callbacks.
    /// One per sync, so that another sync in the same process is not cancelled with this one.
    let timedOut = WatchdogState()

    /// Whether this household has synced with the remote before (it has a tracking ref).
    let syncedBefore: Bool

    init(url: String, options: SyncOptions, deadline: ContinuousClock.Instant, syncedBefore: Bool = false) {
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
        let stop = options.stop
        while true {
            attempt += 1
            if stop?.requested == true { throw stopped(what) }
            credentials.beginStep()
            let callbacks = RemoteCallbacks()
            callbacks.credentials = { [credentials] url, user, allowed in
                credentials.next(url: url, userFromURL: user, allowed: allowed)
            }
            callbacks.shouldCancel = { [timedOut, deadline] in
                timedOut.fired.load(ordering: .acquiring) || ContinuousClock.now > deadline || stop?.requested == true
            }
            callbacks.allowPrompts = options.interactive
            callbacks.sshCommand = sshCommand
            if let progress = options.progress {
                callbacks.transferProgress = { p in
                    guard p.totalObjects > 0 else { return }
                    progress(.receiving(done: p.receivedObjects, total: p.totalObjects))
                }
                callbacks.pushProgress = { current, total, _ in
                    guard total > 0 else { return }
                    progress(.sending(done: current, total: total))
                }
            }
            let sockets = TransferSockets()
            let watchdog = Watchdog(deadline: deadline, sockets: sockets, alsoSets: timedOut)
            sockets.begin()
            defer { sockets.end() }
            if let stop {
                guard stop.watch(sockets) else { throw stopped(what) }
            }
            defer { stop?.unwatch(sockets) }
            do {
                try body(callbacks)
                watchdog.cancel()
                credentials.report(success: true)
                return
            } catch let e as GitError {
                watchdog.cancel()
                if stop?.requested == true { throw stopped(what) }
                // Someone pushed first: the caller fetches and merges, which no retry can replace.
                if e.isNonFastForward { throw e }
                // The watchdog cut the exchange off: a timeout. Past the deadline without it, a
                // timeout only when the failure says nothing more precise: a slow machine that
                // retried a missing remote until the deadline still reports it missing.
                var shape = FailureShape.of(e, timedOut: watchdog.fired)
                if !watchdog.fired, ContinuousClock.now > deadline, shape == .refused || shape == .other { shape = .timeout }
                let error =
                    callbacks.sshExit.flatMap { sshError($0, e, what: what) }
                    ?? classify(shape, e, what: what, refusedHost: callbacks.certificateRefused)
                if shape == .auth { credentials.report(success: false) }
                let remaining = (deadline - .now) / .seconds(1)
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

    func stopped(_ what: String) -> SyncError {
        SyncError(.stopped, .stopped(step: what))
    }

    func classify(_ shape: FailureShape, _ e: GitError, what: String, refusedHost: String?) -> SyncError {
        let shown = redactedURL(url)
        let detail = e.description
        let cause = Cause(
            source: .git(errorClass: e.errorClass, code: e.code, errno: e.errno), path: nil,
            text: e.message)
        switch shape {
        case .timeout:
            return SyncError(.timeout, .timedOut(seconds: Int(options.timeout), step: what), detail: detail, cause: cause)
        case .refused:
            return SyncError(.unreachable, .unreachable(remote: shown, said: e.message), detail: detail, cause: cause)
        case .dns:
            return SyncError(.hostNotFound, .hostNotFound(remote: shown, said: e.message), detail: detail, cause: cause)
        case .busy:
            return SyncError(.remoteBusy, .remoteBusy(said: e.message), detail: detail, cause: cause)
        case .auth:
            // https: ssh's refusals are told apart in SSHFailure.swift.
            if credentials.askedOnlyForKerberos {
                return SyncError(.credentialsRefused, .kerberosOnly(remote: shown), detail: detail, cause: cause)
            }
            return SyncError(.credentialsRefused, .credentialsRefused(remote: shown), detail: detail, cause: cause)
        case .hostKey:
            // Only a transport of libgit2's that checks host keys itself gets here: ssh runs
            // OpenSSH, whose refusals SSHFailure.swift tells apart.
            return SyncError(.unknownHostKey, .hostKeyUnverified(host: refusedHost), detail: detail, cause: cause)
        case .certificate:
            return SyncError(.untrustedCertificate, .untrustedCertificate(host: refusedHost ?? shown), detail: detail, cause: cause)
        case .notFound where syncedBefore && Household.localPath(url) != nil:
            return SyncError(.remoteMissing, .remoteMissing(remote: shown), detail: detail, cause: cause)
        case .notFound where syncedBefore:
            return SyncError(.noRepository, .repositoryGone(remote: shown), detail: detail, cause: cause)
        case .notFound:
            return SyncError(.noRepository, .noRepository(remote: shown), detail: detail, cause: cause)
        case .badURL:
            return SyncError(.badURL, .badURL(remote: shown), detail: detail, cause: cause)
        case .other:
            return SyncError(.unreachable, .failed(remote: shown, said: e.message), detail: detail, cause: cause)
        }
    }
}
