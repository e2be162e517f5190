import Crypto
import Glibc
import TodoCore

/// What a token opens (docs/THREAT-MODEL.md, "Controls").
enum TokenKind: String, Sendable {
    /// A sign-in link: one device, 7 days, consumed by the sign-in POST.
    case invite
    /// A signed-in device's cookie: 400 days, renewed on use.
    case session
    /// A member's calendar feed address: that feed and nothing else.
    case feed
    /// An app password: a phone's task app signs in with it over HTTP Basic (CalDAV), as
    /// `user`; no expiry, revocable like a session.
    case app
}

/// One invite, session, feed token or app password as stored: never the secret, only its
/// SHA-256.
struct TokenRecord: Sendable, Equatable {
    var id: String
    var kind: TokenKind
    var member: String
    var label: String
    var sha256: String
    var created: Int64
    var lastUsed: Int64?
    var expires: Int64?
    /// An app password's user name (`AppPassword.user`); nil for the other kinds.
    var user: String?
    /// A session's: the id of the invite it was made from, so that the device reopening that
    /// link is told it is signed in rather than refused.
    var invite: String?
    /// The membership the token was made in (`Standing.member`'s name for it): the token ends
    /// when the member's standing is anything else (they left, or left and were added again).
    /// Nil in a record an older version wrote: bound to the membership of the first check
    /// that finds the member in the household.
    var membership: String?

    var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("id", .string(id)), ("kind", .string(kind.rawValue)), ("member", .string(member)),
            ("label", .string(label)), ("sha256", .string(sha256)), ("created", .number("\(created)")),
            ("lastUsed", lastUsed.map { .number("\($0)") } ?? .null),
            ("expires", expires.map { .number("\($0)") } ?? .null),
        ]
        if let user { fields.append(("user", .string(user))) }
        if let invite { fields.append(("invite", .string(invite))) }
        if let membership { fields.append(("membership", .string(membership))) }
        return .object(fields)
    }

    init(
        id: String, kind: TokenKind, member: String, label: String, sha256: String, created: Int64, lastUsed: Int64?, expires: Int64?,
        user: String? = nil, invite: String? = nil, membership: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.member = member
        self.label = label
        self.sha256 = sha256
        self.created = created
        self.lastUsed = lastUsed
        self.expires = expires
        self.user = user
        self.invite = invite
        self.membership = membership
    }

    init?(_ v: JSONValue) {
        func number(_ key: String) -> Int64? {
            if case .number(let n)? = v[key] { return Int64(n) }
            return nil
        }
        guard let id = v["id"]?.stringValue, let kind = v["kind"]?.stringValue.flatMap(TokenKind.init),
            let member = v["member"]?.stringValue, let sha = v["sha256"]?.stringValue, let created = number("created")
        else { return nil }
        let user = v["user"]?.stringValue
        // An app password without a well-formed user name could never sign in: left out.
        if kind == .app, !(user.map(AppPassword.isUser) ?? false) { return nil }
        self.init(
            id: id, kind: kind, member: member, label: v["label"]?.stringValue ?? "", sha256: sha, created: created,
            lastUsed: number("lastUsed"), expires: number("expires"), user: kind == .app ? user : nil,
            invite: kind == .session ? v["invite"]?.stringValue : nil, membership: v["membership"]?.stringValue)
    }
}

/// An app password as handed out (docs/SERVE.md, "Phones' task apps"): the user name is the
/// device id `<slug>-<6 hex>`, the password 24 characters of `alphabet`, both ASCII so any
/// client can type or paste them.
enum AppPassword {
    /// a–z and 2–9 without the look-alikes i, l, o, 0 and 1.
    static let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789".utf8)
    static let length = 24
    static let maxSlug = 16

    /// 24 characters, each drawn uniformly from `alphabet` by the system's random source.
    static func makePassword() -> String {
        var rng = SystemRandomNumberGenerator()
        var out: [UInt8] = []
        out.reserveCapacity(length)
        for _ in 0..<length { out.append(alphabet[Int.random(in: 0..<alphabet.count, using: &rng)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// A fresh user name for `member`: the slug, a dash and 6 random hex digits.
    static func makeUser(member: String) -> String {
        var rng = SystemRandomNumberGenerator()
        return slug(member) + "-" + String(hex16(rng.next()).prefix(6))
    }

    /// The member's name lowercased, ASCII letters and digits kept, anything else a dash,
    /// runs of dashes one, none at either end, at most 16 characters; "member" when nothing
    /// is left.
    static func slug(_ member: String) -> String {
        var out: [UInt8] = []
        for b in member.lowercased().utf8 {
            let keep = (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
            if keep {
                out.append(b)
            } else if out.last != 0x2D {
                // A multi-byte character is several bytes here, all of them one dash.
                out.append(0x2D)
            }
        }
        func trim() {
            while out.first == 0x2D { out.removeFirst() }
            while out.last == 0x2D { out.removeLast() }
        }
        trim()
        if out.count > maxSlug { out.removeLast(out.count - maxSlug) }
        trim()
        return out.isEmpty ? "member" : String(decoding: out, as: UTF8.self)
    }

    /// Whether `s` has the form of a user name: a slug, a dash, 6 lowercase hex digits.
    static func isUser(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count >= 8, b.count <= maxSlug + 7, b[b.count - 7] == 0x2D else { return false }
        let slugPart = b[..<(b.count - 7)]
        return b[(b.count - 6)...].allSatisfy(isLowerHex)
            && slugPart.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
            && slugPart.first != 0x2D && slugPart.last != 0x2D
    }
}

/// A token as handed out: `<id>.<secret>`, `id` 8 hex digits naming the record, `secret` 256
/// random bits in base64url.
struct IssuedToken: Sendable {
    let id: String
    let secret: String
    var text: String { "\(id).\(secret)" }

    static func make() -> IssuedToken {
        var rng = SystemRandomNumberGenerator()
        let id = String(hex16(rng.next()).prefix(8))
        var bytes: [UInt8] = []
        for _ in 0..<4 { withUnsafeBytes(of: rng.next() as UInt64) { bytes += $0 } }
        return IssuedToken(id: id, secret: base64url(bytes))
    }

    /// Splits `<id>.<secret>`; nil for anything else (no lookup is made for it).
    static func parse(_ text: String) -> (id: String, secret: String)? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count == 8, parts[0].utf8.allSatisfy(isLowerHex),
            parts[1].utf8.count == 43, parts[1].utf8.allSatisfy(isBase64url)
        else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}

enum TokenHash {
    /// SHA-256 of the secret, in hex.
    static func sha256(_ secret: String) -> String { Hex.encode(Array(SHA256.hash(data: Array(secret.utf8)))) }

    /// The session's CSRF value: derived from its secret (HMAC-SHA256), so it is stored
    /// nowhere and a copy of the token file gives none.
    static func csrf(sessionSecret: String) -> String {
        let key = SymmetricKey(data: Array(sessionSecret.utf8))
        return base64url(Array(HMAC<SHA256>.authenticationCode(for: Array("todo-serve csrf".utf8), using: key)))
    }

    /// Equal strings, in a time that depends only on their lengths.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<x.count { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}

private let base64urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

func isBase64url(_ b: UInt8) -> Bool { base64urlAlphabet.contains(b) }

/// Base64url without padding.
func base64url(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    var i = 0
    while i < bytes.count {
        let n = min(3, bytes.count - i)
        var v = UInt32(bytes[i]) << 16
        if n > 1 { v |= UInt32(bytes[i + 1]) << 8 }
        if n > 2 { v |= UInt32(bytes[i + 2]) }
        for k in 0..<(n + 1) { out.append(base64urlAlphabet[Int((v >> UInt32(18 - 6 * k)) & 63)]) }
        i += 3
    }
    return String(decoding: out, as: UTF8.self)
}
