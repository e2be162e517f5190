/// An identity file as `age-keygen` writes it and `age -i` reads it: lines of X25519
/// identities (`AGE-SECRET-KEY-1…`), with comment lines (`#` first) and blank lines between;
/// a line may end in CR LF. `age-keygen` writes two comments above the identity:
///
///     # created: 2026-11-29T10:36:51Z
///     # public key: age1…
///     AGE-SECRET-KEY-1…
public struct AgeIdentityFile: Equatable, Sendable {
    /// The largest file read: a key file is a few hundred bytes.
    public static let maxBytes = 1 << 20
    public static let maxIdentities = 1024
    static let publicKeyComment = "# public key: "

    /// The secret keys of the identity lines, in file order.
    public let identities: [[UInt8]]
    /// The recipients that `# public key: ` comments name, as written (a comment: not checked
    /// against the identities).
    public let publicKeyComments: [String]

    /// The identities of `bytes`; a line that is neither blank, a comment nor an X25519
    /// identity is refused, as is a file without any identity.
    public static func parse(_ bytes: [UInt8]) throws(AgeFormatError) -> AgeIdentityFile {
        guard bytes.count <= maxBytes else { throw .overLimit(.identityFile, limit: maxBytes, at: maxBytes) }
        var identities: [[UInt8]] = []
        var comments: [String] = []
        var start = 0
        while start < bytes.count {
            let newline = bytes[start...].firstIndex(of: 10) ?? bytes.count
            var end = newline
            if end > start, bytes[end - 1] == 13 { end -= 1 }
            let line = bytes[start..<end]
            defer { start = newline + 1 }
            if line.isEmpty { continue }
            if line.first == UInt8(ascii: "#") {
                if line.starts(with: publicKeyComment.utf8) {
                    comments.append(String(decoding: line.dropFirst(publicKeyComment.utf8.count), as: UTF8.self))
                }
                continue
            }
            guard identities.count < maxIdentities else { throw .overLimit(.identityFile, limit: maxIdentities, at: start) }
            do {
                identities.append(try AgeKeyText.parseIdentity(String(decoding: line, as: UTF8.self)))
            } catch {
                switch error {
                case .invalid(let part, let problem, let at): throw .invalid(part, problem, at: start + at)
                case .overLimit(let part, let limit, let at): throw .overLimit(part, limit: limit, at: start + at)
                case .truncated(let part, let at): throw .truncated(part, at: start + at)
                }
            }
        }
        guard !identities.isEmpty else { throw .invalid(.identityFile, .noIdentity, at: bytes.count) }
        return AgeIdentityFile(identities: identities, publicKeyComments: comments)
    }

    /// The file `age-keygen` writes for `identity` (`AGE-SECRET-KEY-1…`) and its `recipient`
    /// (`age1…`), made at `created` (seconds since 1970, written in UTC).
    public static func encode(identity: String, recipient: String, created: Int64) -> [UInt8] {
        Array("# created: \(rfc3339(created))\n\(publicKeyComment)\(recipient)\n\(identity)\n".utf8)
    }

    /// `seconds` since 1970 as RFC 3339 in UTC, `2026-11-29T10:36:51Z` (years 1 to 9999).
    static func rfc3339(_ seconds: Int64) -> String {
        let clamped = min(max(seconds, -62_135_596_800), 253_402_300_799)
        let days = clamped >= 0 ? clamped / 86_400 : (clamped - 86_399) / 86_400
        let secondOfDay = clamped - days * 86_400
        // Civil date from days since 1970-01-01 (the proleptic Gregorian calendar).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let yearText = String(repeating: "0", count: max(0, 4 - "\(year)".count)) + "\(year)"
        return "\(yearText)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }
}
