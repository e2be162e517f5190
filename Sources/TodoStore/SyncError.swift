import GitKit

/// Why a sync failed, by what the user can do about it. Each class has its exit code
/// (README "Exit codes").
public struct SyncError: Error, Sendable {
    public enum Class: String, Sendable {
        /// Try again later: connection refused or reset, DNS, timeout, server busy, push race.
        case transient
        /// Wrong key or password, no agent.
        case authentication
        /// No remote, repository not found, bad URL, unknown host key or untrusted certificate.
        case configuration
        /// Unrelated history, or content from the remote that the format does not allow.
        case data
        /// Disk full, household busy.
        case local
    }

    public let kind: Class
    /// One or two plain sentences: what happened and what to do.
    public let message: String
    /// libgit2's class, code and message, for `--verbose`.
    public let detail: String?

    public init(_ kind: Class, _ message: String, detail: String? = nil) {
        self.kind = kind
        self.message = message
        self.detail = detail
    }
}

/// Recognises libgit2's failure shapes (see the libgit2 notes: they differ by transport).
enum FailureShape {
    case timeout, refused, dns, busy, auth, certificate, hostKey, notFound, badURL, rejected, other

    static func of(_ e: GitError, timedOut: Bool) -> FailureShape {
        if timedOut { return .timeout }
        let m = e.message.lowercased()
        if e.isCertificate {
            return m.contains("hostkey") || m.contains("host key") || e.isSSHClass
                ? .hostKey : .certificate
        }
        if e.isAuth || m.contains("authentication") || m.contains("401") || m.contains("403")
            || m.contains("permission denied") || m.contains("username/publickey")
        {
            return .auth
        }
        if m.contains("unsupported url protocol") || m.contains("malformed url") || m.contains("invalid url")
            || m.contains("unknown scheme")
        {
            return m.contains("unsupported url protocol") && !m.contains("://") ? .notFound : .badURL
        }
        if m.contains("not appear to be a git repository") || m.contains("repository not found")
            || m.contains("404") || m.contains("could not find repository") || m.contains("not found")
            || m.contains("no such file or directory") || m.contains("not a git repository")
            || m.contains("not exported")  // git daemon: "access denied or repository not exported"
        {
            return .notFound
        }
        if m.contains("failed to resolve") || m.contains("name or service not known")
            || e.isNetClass && m.contains("resolve")
        {
            return .dns
        }
        if m.contains("50") && m.contains("status code") { return .busy }
        if m.contains("connection refused") || m.contains("connection reset") || m.contains("timed out")
            || m.contains("broken pipe") || m.contains("early eof") || m.contains("failed to connect")
            || m.contains("unexpected eof") || m.contains("failed to send") || m.contains("failed to receive")
            || e.isOSError || e.isNetClass
            || e.isSSHClass
        {
            return .refused
        }
        return .other
    }
}
