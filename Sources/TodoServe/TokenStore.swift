import Synchronization
import TodoCore

/// A signed-in device, as a request learns it from its cookie.
struct Session: Sendable, Equatable {
    let id: String
    let member: String
    /// The value every POST form of this session carries (`TokenHash.csrf`).
    let csrf: String
    /// Set when the cookie should be sent again (its 400 days renewed).
    let renew: Bool
    /// The id of the invite this session was made from (nil for sessions older than the field).
    var invite: String? = nil
    /// The membership the session was made in (`TokenRecord.membership`).
    var membership: String? = nil
}

/// Why a sign-in link did not sign in.
enum SignInRefusal: Error, Equatable {
    /// Unknown, used, revoked or expired: all the same to the person holding it.
    case invalid
    /// The invite's member's standing refuses it (they left): not a guess at a token.
    case memberLeft
}

/// `tokens.json`: invites, sessions, feed tokens and app passwords, by their SHA-256 only. Read again when
/// the file changed (a `todo serve revoke` from a shell holds from the next request); every
/// change is a read-modify-write under `tokens.lock`.
final class TokenStore: Sendable {
    static let inviteLife: Int64 = 7 * 86_400_000
    static let sessionLife: Int64 = 400 * 86_400_000
    /// `lastUsed` is written at most this often per token, so a page view writes nothing.
    static let touchEvery: Int64 = 3_600_000

    let folder: StateFolder
    private let cache = Mutex<(signature: [Int], records: [TokenRecord])>(([], []))

    init(folder: StateFolder) { self.folder = folder }

    /// The records, read again when the file changed since the last read.
    func records() throws(StateError) -> [TokenRecord] {
        let sig = folder.signature("tokens.json")
        if let cached = cache.withLock({ $0.signature == sig && !sig.isEmpty ? $0.records : nil }) { return cached }
        let records = try readFile()
        cache.withLock { $0 = (sig, records) }
        return records
    }

    private func readFile() throws(StateError) -> [TokenRecord] {
        // A damaged tokens file holds no tokens: everyone signs in again, as when the state folder is lost (docs/SERVE.md); nothing else is affected.
        guard let bytes = try folder.read("tokens.json"), case .object(let top)? = try? JSONParser.parse(bytes),
            case .array(let list)? = top.first(where: { $0.0 == "tokens" })?.1
        else { return [] }
        return list.compactMap(TokenRecord.init)
    }

    /// Changes the records under the lock, from the file as it is now, and writes them back.
    private func change<T>(_ body: (inout [TokenRecord]) throws(StateError) -> T) throws(StateError) -> T {
        try folder.withLock { () throws(StateError) -> T in
            var records = try readFile()
            let before = records
            let value = try body(&records)
            if records != before {
                let doc = JSONValue.object([("tokens", .array(records.map(\.json)))])
                try folder.replace("tokens.json", with: JSONWriter.document(doc))
            }
            cache.withLock { $0 = (folder.signature("tokens.json"), records) }
            return value
        }
    }

    // MARK: Invites and sign-in

    /// A new invite for `member`; the token is returned once and stored only as its hash.
    /// `membership`: the member's standing's (`Standing.member`), which the invite and the
    /// session made from it belong to.
    func invite(member: String, membership: String? = nil, label: String, now: Int64) throws(StateError) -> IssuedToken {
        let token = IssuedToken.make()
        try change { (records: inout [TokenRecord]) throws(StateError) in
            records.removeAll { $0.expires.map { $0 <= now } ?? false }
            records.append(
                TokenRecord(
                    id: token.id, kind: .invite, member: member, label: label, sha256: TokenHash.sha256(token.secret),
                    created: now, lastUsed: nil, expires: now + Self.inviteLife, membership: membership))
        }
        return token
    }

    /// The invite `token` names, if it is live (for the sign-in page, which changes nothing).
    func liveInvite(_ token: String, now: Int64) throws(StateError) -> TokenRecord? {
        try find(token, kind: .invite, now: now)
    }

    /// Consumes the invite and makes a session for the same member, label and membership;
    /// `admits` decides, under the lock, whether the invite's member may still sign in (an
    /// invite it refuses is kept, unused, and refused as `memberLeft`).
    func signIn(invite token: String, now: Int64, admits: (TokenRecord) -> Bool = { _ in true }) throws(StateError)
        -> Result<(IssuedToken, TokenRecord), SignInRefusal>
    {
        guard let (id, secret) = IssuedToken.parse(token) else { return .failure(.invalid) }
        return try change { (records: inout [TokenRecord]) throws(StateError) -> Result<(IssuedToken, TokenRecord), SignInRefusal> in
            guard let i = records.firstIndex(where: { $0.id == id && $0.kind == .invite }),
                TokenHash.constantTimeEqual(records[i].sha256, TokenHash.sha256(secret)),
                (records[i].expires ?? .max) > now
            else { return .failure(.invalid) }
            guard admits(records[i]) else { return .failure(.memberLeft) }
            let invite = records.remove(at: i)
            let session = IssuedToken.make()
            let record = TokenRecord(
                id: session.id, kind: .session, member: invite.member, label: invite.label,
                sha256: TokenHash.sha256(session.secret), created: now, lastUsed: now, expires: now + Self.sessionLife,
                invite: invite.id, membership: invite.membership)
            records.append(record)
            return .success((session, record))
        }
    }

    /// The session a cookie names, if live; its `lastUsed` and expiry are renewed at most hourly.
    func session(cookie: String, now: Int64) throws(StateError) -> Session? {
        guard let record = try find(cookie, kind: .session, now: now), let (_, secret) = IssuedToken.parse(cookie) else { return nil }
        var renew = false
        if now - (record.lastUsed ?? record.created) >= Self.touchEvery {
            renew = true
            try change { (records: inout [TokenRecord]) throws(StateError) in
                if let i = records.firstIndex(where: { $0.id == record.id && $0.kind == .session }) {
                    records[i].lastUsed = now
                    records[i].expires = now + Self.sessionLife
                }
            }
        }
        return Session(
            id: record.id, member: record.member, csrf: TokenHash.csrf(sessionSecret: secret), renew: renew, invite: record.invite,
            membership: record.membership)
    }

    func signOut(session id: String) throws(StateError) {
        try change { (records: inout [TokenRecord]) throws(StateError) in records.removeAll { $0.id == id && $0.kind == .session } }
    }

    // MARK: Feeds

    /// A new feed token for `member`, replacing the old one.
    func newFeed(member: String, membership: String? = nil, now: Int64) throws(StateError) -> IssuedToken {
        let token = IssuedToken.make()
        try change { (records: inout [TokenRecord]) throws(StateError) in
            records.removeAll { $0.kind == .feed && $0.member.lowercased() == member.lowercased() }
            records.append(
                TokenRecord(
                    id: token.id, kind: .feed, member: member, label: "calendar feed",
                    sha256: TokenHash.sha256(token.secret), created: now, lastUsed: nil, expires: nil, membership: membership))
        }
        return token
    }

    /// The live feed record `token` names.
    func feed(_ token: String, now: Int64) throws(StateError) -> TokenRecord? {
        try find(token, kind: .feed, now: now)
    }

    func hasFeed(member: String) throws(StateError) -> Bool {
        try records().contains { $0.kind == .feed && $0.member.lowercased() == member.lowercased() }
    }

    // MARK: App passwords

    /// A new app password for `member`: the user name (unique among the records) and the
    /// password, returned once; only the password's hash is kept.
    func appPassword(member: String, membership: String? = nil, label: String, now: Int64) throws(StateError) -> (user: String, password: String) {
        let password = AppPassword.makePassword()
        let id = IssuedToken.make().id
        let user = try change { (records: inout [TokenRecord]) throws(StateError) -> String in
            records.removeAll { $0.expires.map { $0 <= now } ?? false }
            var user = AppPassword.makeUser(member: member)
            while records.contains(where: { $0.user == user }) { user = AppPassword.makeUser(member: member) }
            records.append(
                TokenRecord(
                    id: id, kind: .app, member: member, label: label, sha256: TokenHash.sha256(password), created: now,
                    lastUsed: nil, expires: nil, user: user, membership: membership))
            return user
        }
        return (user, password)
    }

    /// The member and device id (the user name) an app password signs in, if it is live; the
    /// hashes are compared in constant time, and a hash is compared even for an unknown user,
    /// so the time does not tell whether the user exists. `lastUsed` is written at most hourly.
    /// With the record's id and membership, for the check of the member's standing.
    func appMember(user: String, password: String, now: Int64) throws(StateError)
        -> (member: String, deviceID: String, id: String, membership: String?)?
    {
        let key = user.lowercased()
        let given = TokenHash.sha256(password)
        let record = try records().first { $0.kind == .app && $0.user == key }
        let equal = TokenHash.constantTimeEqual(record?.sha256 ?? Self.noHash, given)
        guard let record, equal, let user = record.user else { return nil }
        if now - (record.lastUsed ?? 0) >= Self.touchEvery {
            try change { (records: inout [TokenRecord]) throws(StateError) in
                if let i = records.firstIndex(where: { $0.id == record.id && $0.kind == .app }) { records[i].lastUsed = now }
            }
        }
        return (record.member, user, record.id, record.membership)
    }

    /// What an unknown user's password is compared with: the length of a hash, equal to none.
    private static let noHash = String(repeating: "-", count: 64)

    /// `member`'s app passwords, oldest first.
    func appDevices(member: String) throws(StateError) -> [TokenRecord] {
        try records().filter { $0.kind == .app && $0.member.lowercased() == member.lowercased() }
    }

    // MARK: Devices

    /// Removes all of `member`'s tokens (app passwords included), one device's (by its id, or
    /// an app password's user name), or the feed; returns how many went.
    func revoke(member: String, device: String?, feedOnly: Bool) throws(StateError) -> Int {
        try change { (records: inout [TokenRecord]) throws(StateError) -> Int in
            let before = records.count
            records.removeAll { r in
                guard r.member.lowercased() == member.lowercased() else { return false }
                if feedOnly { return r.kind == .feed }
                if let device { return r.id == device || (r.kind == .app && r.user == device.lowercased()) }
                return true
            }
            return before - records.count
        }
    }

    /// Removes one of `member`'s app passwords by its user name (the page's Remove button);
    /// whether it was there.
    func revokeApp(member: String, user: String) throws(StateError) -> Bool {
        try change { (records: inout [TokenRecord]) throws(StateError) -> Bool in
            let before = records.count
            records.removeAll { $0.kind == .app && $0.member.lowercased() == member.lowercased() && $0.user == user.lowercased() }
            return records.count != before
        }
    }

    // MARK: Membership

    /// Records the membership of a record an older version wrote without one.
    func bind(id: String, kind: TokenKind, membership: String) throws(StateError) {
        try change { (records: inout [TokenRecord]) throws(StateError) in
            if let i = records.firstIndex(where: { $0.id == id && $0.kind == kind && $0.membership == nil }) {
                records[i].membership = membership
            }
        }
    }

    /// Binds every record without a membership to the one `membership` gives for it (nil:
    /// left as it is), under the lock.
    func bindAll(_ membership: (TokenRecord) -> String?) throws(StateError) {
        try change { (records: inout [TokenRecord]) throws(StateError) in
            for i in records.indices where records[i].membership == nil {
                if let m = membership(records[i]) { records[i].membership = m }
            }
        }
    }

    /// The live record a token names: right kind, hash equal (constant time), not expired.
    private func find(_ token: String, kind: TokenKind, now: Int64) throws(StateError) -> TokenRecord? {
        guard let (id, secret) = IssuedToken.parse(token) else { return nil }
        guard let record = try records().first(where: { $0.id == id && $0.kind == kind }) else { return nil }
        guard TokenHash.constantTimeEqual(record.sha256, TokenHash.sha256(secret)) else { return nil }
        if let expires = record.expires, expires <= now { return nil }
        return record
    }
}
