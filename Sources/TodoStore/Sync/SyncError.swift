import GitKit

/// Why a sync failed: a code a caller can switch on, the class it belongs to (by what the user
/// can do about it; each class has its exit code, README "Exit codes"), the problem with its
/// facts, and the underlying cause. The front end words the problem (`SyncProblem`).
public struct SyncError: Error, Sendable {
    public enum Class: String, Sendable {
        /// Try again later: connection refused or reset, DNS, timeout, server busy, push race.
        case transient
        /// Wrong key or password, no agent; an encrypted remote with no key for this device.
        case authentication
        /// No remote, repository not found, bad URL, unknown host key or untrusted certificate;
        /// no device key for an encrypted remote.
        case configuration
        /// Unrelated history, a remote that is not a household, or content from the remote that
        /// the format does not allow.
        case data
        /// Disk full, household busy.
        case local
    }

    public enum Code: String, Sendable {
        // transient
        case timeout, unreachable, hostNotFound, remoteBusy, pushRaces, remoteMissing, stopped
        // authentication
        case credentialsRefused, notGranted
        // configuration
        case noRemote, unknownHostKey, untrustedCertificate, noRepository, badURL, pushRefused, noDeviceKey, noRecipients
        // data
        case remoteData, unrelatedHistories, mergeFailed, unsendable, notAHousehold, remoteEncryption
        // local
        case diskFull, householdBusy, handEdits, repository
        /// A failure without a code of its own; its class says what to do.
        case unspecified

        /// The class each code belongs to; nil for `unspecified`.
        var kind: Class? {
            switch self {
            case .timeout, .unreachable, .hostNotFound, .remoteBusy, .pushRaces, .remoteMissing, .stopped: return .transient
            case .credentialsRefused, .notGranted: return .authentication
            case .noRemote, .unknownHostKey, .untrustedCertificate, .noRepository, .badURL, .pushRefused, .noDeviceKey, .noRecipients:
                return .configuration
            case .remoteData, .unrelatedHistories, .mergeFailed, .unsendable, .notAHousehold, .remoteEncryption: return .data
            case .diskFull, .householdBusy, .handEdits, .repository: return .local
            case .unspecified: return nil
            }
        }
    }

    public let code: Code
    public let kind: Class
    /// What happened, with its facts.
    public let problem: SyncProblem
    /// Set on a failure to try again later while changes wait to be sent: they are safe.
    public private(set) var unsent: Unsent?
    /// libgit2's class, code and message, for `--verbose`.
    public let detail: String?
    /// The failure underneath, when there is one.
    public let cause: Cause?

    /// Changes that wait to be sent, and when they will be.
    public struct Unsent: Sendable {
        public let count: Int
        /// The household waits for the remote's first history (Join.swift): they go on the
        /// first sync after the household's creator has synced, not simply on the next one.
        public let waitingForRemote: Bool
    }

    public init(_ code: Code, _ problem: SyncProblem, detail: String? = nil, cause: Cause? = nil) {
        self.code = code
        self.kind = code.kind ?? .local
        self.problem = problem
        self.detail = detail
        self.cause = cause
    }

    /// The same failure, noting the changes that wait to be sent.
    func noting(unsent: Unsent) -> SyncError {
        var e = self
        e.unsent = unsent
        return e
    }

    /// A failure known only by its class.
    public init(_ kind: Class, _ problem: SyncProblem, detail: String? = nil) {
        self.code = .unspecified
        self.kind = kind
        self.problem = problem
        self.detail = detail
        self.cause = nil
    }
}

/// What a failed network step amounts to, decided from libgit2's error class and code, and
/// only where those say nothing better, from the facts GitKit read in its message (`GitError.facts`).
enum FailureShape {
    case timeout, refused, dns, busy, auth, certificate, hostKey, notFound, badURL, other

    static func of(_ e: GitError, timedOut: Bool) -> FailureShape {
        if timedOut { return .timeout }
        let facts = e.facts
        if e.isCertificate {
            // libgit2 1.5's ssh transport reports an unknown host key as a certificate failure.
            return e.isSSHClass || facts.contains(.hostKey) ? .hostKey : .certificate
        }
        if e.isAuth || facts.contains(.authentication) || facts.contains(.permissionDenied) { return .auth }
        if facts.contains(.unsupportedProtocol) || facts.contains(.malformedURL) {
            // A path that does not exist is "unsupported URL protocol" too, without a scheme.
            return facts.contains(.unsupportedProtocol) && !facts.contains(.quotesScheme) ? .notFound : .badURL
        }
        if facts.contains(.noRepository) { return .notFound }
        if facts.contains(.hostNotFound) || e.isNetClass && facts.contains(.mentionsResolve) { return .dns }
        if facts.contains(.serverError) { return .busy }
        if facts.contains(.connectionFailed) || e.isOSError || e.isNetClass || e.isSSHClass { return .refused }
        return .other
    }
}
