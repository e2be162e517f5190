import SystemPackage

/// What libgit2's English messages say, where libgit2 1.5 says it no other way.
///
/// libgit2 1.5 gives many failures only the generic code -1 with a class that covers several
/// causes: an operating-system failure underneath a write (class OS) names its errno only as
/// `strerror` text; a missing repository, a bad URL, an unresolvable host and a refused
/// connection differ only in the message; an HTTP status is only in the message; and a server's
/// reason for refusing a pushed ref is free text. This is the one place that reads them, at
/// GitKit's boundary with libgit2: `GitError.facts`, `GitError.errno` and
/// `PushRejection.isRefUpdateRace` carry what it finds upward, so nothing above GitKit reads an
/// error's text. Each phrase has a test (`LibgitTextTests`).
public enum LibgitText {
    public enum Fact: Hashable, CaseIterable, Sendable {
        /// ENOSPC, EDQUOT, EACCES, EROFS, as `strerror` words them.
        case noSpace, diskQuota, permissionDenied, readOnlyFileSystem
        /// The server or transport refused the credentials.
        case authentication
        /// An ssh host key, not an https certificate, failed the check.
        case hostKey
        /// The URL is not one any transport handles.
        case unsupportedProtocol, malformedURL
        /// The message quotes a URL with a scheme.
        case quotesScheme
        /// No repository at that place.
        case noRepository
        /// The host name could not be resolved (`mentionsResolve`: resolving is mentioned at all).
        case hostNotFound, mentionsResolve
        /// An HTTP 5xx status.
        case serverError
        /// The connection could not be made, or broke.
        case connectionFailed
        /// A server refused a ref update because someone else updated it first.
        case refUpdateRace
    }

    /// Phrases, lower-cased, and the fact each states.
    public static let phrases: [(String, Fact)] = [
        ("no space left", .noSpace),
        ("disk quota", .diskQuota),
        ("permission denied", .permissionDenied),
        ("read-only file system", .readOnlyFileSystem),
        ("hostkey", .hostKey),
        ("host key", .hostKey),
        ("authentication", .authentication),
        ("username/publickey", .authentication),
        ("unsupported url protocol", .unsupportedProtocol),
        ("malformed url", .malformedURL),
        ("invalid url", .malformedURL),
        ("unknown scheme", .malformedURL),
        ("://", .quotesScheme),
        ("not appear to be a git repository", .noRepository),
        ("repository not found", .noRepository),
        ("could not find repository", .noRepository),
        ("not found", .noRepository),
        ("no such file or directory", .noRepository),
        ("not a git repository", .noRepository),
        ("not exported", .noRepository),  // git daemon: "access denied or repository not exported"
        ("failed to resolve", .hostNotFound),
        ("name or service not known", .hostNotFound),
        ("resolve", .mentionsResolve),
        ("connection refused", .connectionFailed),
        ("connection reset", .connectionFailed),
        ("timed out", .connectionFailed),
        ("broken pipe", .connectionFailed),
        ("early eof", .connectionFailed),
        ("failed to connect", .connectionFailed),
        ("unexpected eof", .connectionFailed),
        ("failed to send", .connectionFailed),
        ("failed to receive", .connectionFailed),
        ("non-fast-forward", .refUpdateRace),
        ("fetch first", .refUpdateRace),
        ("stale info", .refUpdateRace),
        ("failed to lock", .refUpdateRace),
        ("cannot lock", .refUpdateRace),
        ("failed to update ref", .refUpdateRace),
    ]

    /// Every fact `message` states.
    static func facts(in message: String) -> Set<Fact> {
        let m = message.lowercased()
        var facts = Set(phrases.filter { m.contains($0.0) }.map(\.1))
        // "unexpected http status code: 503". Only a status libgit2 names as one counts: a
        // number elsewhere (a path or host such as /srv/nas-401/home.git) says nothing.
        switch httpStatus(in: m) {
        case 401?, 403?, 407?: facts.insert(.authentication)
        case 404?: facts.insert(.noRepository)
        case let s? where (500...599).contains(s): facts.insert(.serverError)
        default: break
        }
        return facts
    }

    /// The three digits after "status code" (and an optional colon and spaces), if any.
    static func httpStatus(in lowered: String) -> Int? {
        let bytes = Array(lowered.utf8)
        let key = Array("status code".utf8)
        guard bytes.count >= key.count else { return nil }
        for start in 0...(bytes.count - key.count) where bytes[start..<(start + key.count)].elementsEqual(key) {
            var i = start + key.count
            while i < bytes.count, bytes[i] == UInt8(ascii: ":") || bytes[i] == UInt8(ascii: " ") { i += 1 }
            var value = 0
            var n = 0
            while i < bytes.count, n < 4, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                value = value * 10 + Int(bytes[i] - 0x30)
                i += 1
                n += 1
            }
            return n == 3 ? value : nil
        }
        return nil
    }

    /// The errno an operating-system failure's message names, for the errnos the store acts on.
    static func errno(in message: String) -> Errno? {
        let facts = facts(in: message)
        if facts.contains(.noSpace) { return .noSpace }
        if facts.contains(.diskQuota) { return .diskQuotaExceeded }
        if facts.contains(.permissionDenied) { return .permissionDenied }
        if facts.contains(.readOnlyFileSystem) { return .readOnlyFileSystem }
        return nil
    }
}
