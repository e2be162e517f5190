import HTTPTypes
import Hummingbird
import NIOCore

/// Who a CalDAV request acts as: the member an app password belongs to, and that password's
/// device id (its user name, `<slug>-<6 hex>`).
struct DAVIdentity: Sendable, Equatable {
    let member: String
    let device: String
}

/// A CalDAV request refused: plain text, with the headers a client needs (a 401's
/// `WWW-Authenticate`). `Guard` sends it as it is, with the security headers added; it never
/// becomes an HTML page, which a task app would show as gibberish or not at all.
struct DAVError: Error {
    var status: HTTPResponse.Status
    var headers: HTTPFields = [:]
    var text: String

    var response: Response {
        var headers = headers
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    /// 401 and the Basic challenge: the client asks for, or sends, the user name and password.
    static func challenge(household: String) -> DAVError {
        let realm = "todo \(household)".unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" }
        return DAVError(
            status: .unauthorized,
            headers: [.wwwAuthenticate: "Basic realm=\"\(String(String.UnicodeScalarView(realm)))\", charset=\"UTF-8\""],
            text: "Sign-in needed: the user name and app password made on the household's page, under Phone's task app.")
    }

    static let plainHTTP = DAVError(
        status: .forbidden,
        text:
            "App passwords are sent only over HTTPS, and this request came over plain HTTP from another machine. Use the server's https address; ask whoever runs the household's server for it.")
}

/// HTTP Basic with app passwords (docs/SERVE.md, "Phones' task apps"). Only over HTTPS (the
/// server's own TLS, or a `--trust-proxy` that says the client used https), or from this
/// machine; a request the in-process test client makes has no peer and counts as this machine,
/// since no network lies between them.
enum DAVAuth {
    /// At most this many characters of base64 after `Basic `: a user name and a 24-character
    /// password need far fewer; anything longer is refused without decoding it.
    static let maxEncoded = 1_024

    /// Whether the request's path is under `<prefix>/dav`.
    static func isDAVPath(_ path: String, prefix: String) -> Bool {
        path == prefix + "/dav" || path.hasPrefix(prefix + "/dav/")
    }

    /// A CalDAV request with Basic credentials: `Guard` counts it in the limiter's DAV budget
    /// instead of the page's (`RateLimiter.admit(dav:)`); its failed sign-ins still lock out.
    static func carriesCredentials(_ request: Request, prefix: String) -> Bool {
        guard isDAVPath(request.uri.path, prefix: prefix), let value = request.headers[.authorization] else { return false }
        return basicToken(value) != nil
    }

    /// The base64 after `Basic ` (the scheme in any case, spaces around the token), or nil for
    /// another scheme.
    static func basicToken(_ header: String) -> Substring? {
        let value = Substring(header).drop { $0 == " " || $0 == "\t" }
        guard value.utf8.count > 6, value.prefix(5).lowercased() == "basic", value.dropFirst(5).first == " " else { return nil }
        return Substring(value.dropFirst(6).trimmed())
    }

    /// The user name and password of a Basic token: split at the first colon; the user name
    /// printable ASCII, the password UTF-8. Nil for anything else, never a trap.
    static func credentials(_ token: Substring) -> (user: String, password: String)? {
        guard token.utf8.count <= maxEncoded, let bytes = base64Decode(token),
            let colon = bytes.firstIndex(of: UInt8(ascii: ":"))
        else { return nil }
        let userBytes = bytes[..<colon]
        guard !userBytes.isEmpty, userBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            let password = String(validating: bytes[(colon + 1)...], as: UTF8.self)
        else { return nil }
        return (String(decoding: userBytes, as: UTF8.self), password)
    }

    /// Standard base64 (RFC 4648 §4), with or without its `=` padding; nil for any other byte,
    /// a length no encoding has, or padding in the middle.
    static func base64Decode(_ text: Substring) -> [UInt8]? {
        var input = Array(text.utf8)
        var padding = 0
        while input.last == UInt8(ascii: "=") && padding < 2 {
            input.removeLast()
            padding += 1
        }
        if padding > 0 && (input.count + padding) % 4 != 0 { return nil }
        if input.count % 4 == 1 { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for c in input {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "/"): v = 63
            default: return nil
            }
            accumulator = (accumulator << 6 | v) & 0xFFFFFF
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((accumulator >> UInt32(bits)) & 0xFF))
            }
        }
        return out
    }

    /// 127.0.0.0/8, ::1, and 127.0.0.0/8 as an IPv4-mapped IPv6 address.
    static func isLoopback(_ address: String) -> Bool {
        let a = address.lowercased()
        return a == "::1" || a.hasPrefix("127.") || a.hasPrefix("::ffff:127.")
    }

    /// Whether Basic credentials may travel this way: over HTTPS, from this machine, or from
    /// the in-process client (`address` nil).
    static func transportAllowed(address: String?, secure: Bool) -> Bool {
        guard let address else { return true }
        return secure || isLoopback(address)
    }
}

extension Site {
    /// The member and device a CalDAV request signs in as, from `Authorization: Basic`. Reads
    /// the token store (and writes `lastUsed` at most hourly): call it on a worker, as a page's
    /// session check. Throws `DAVError`: 403 over plain HTTP from another machine; 401 with the
    /// challenge without credentials (not a failed attempt) or with wrong ones (a failed attempt
    /// for the client, `RateLimiter.failed`, as a wrong sign-in link).
    func davIdentity(_ request: Request, _ context: ServeContext) throws -> DAVIdentity {
        let authorization = request.headers[values: .authorization]
        return try davIdentity(
            authorization: authorization, address: context.peer == nil ? nil : context.client, secure: context.secure,
            client: context.client)
    }

    /// `davIdentity(_:_:)` from its parts: every `Authorization` value, where the request came
    /// from (the client address, nil for the in-process client), whether it came over HTTPS,
    /// and the client the limits count it under.
    func davIdentity(authorization: [String], address: String?, secure: Bool, client: String) throws -> DAVIdentity {
        guard DAVAuth.transportAllowed(address: address, secure: secure) else { throw DAVError.plainHTTP }
        let challenge = DAVError.challenge(household: household)
        let basics = authorization.compactMap(DAVAuth.basicToken)
        guard !basics.isEmpty else { throw challenge }
        guard basics.count == 1, authorization.count == 1, let (user, password) = DAVAuth.credentials(basics[0]),
            AppPassword.isUser(user.lowercased()), password.utf8.count <= 256
        else {
            limiter.failed(client)
            throw challenge
        }
        let found = try davState { () throws(StateError) in try tokens.appMember(user: user, password: password, now: now()) }
        guard let found else {
            limiter.failed(client)
            throw challenge
        }
        // A member whose latest roster entry is `left`, or whose membership has ended: the
        // challenge, not counted as a failed attempt (the password was right).
        let admitted: Bool
        do {
            admitted = try admits(id: found.id, kind: .app, member: found.member, membership: found.membership) != nil
        } catch {
            throw DAVError(status: .serviceUnavailable, text: "The server could not read the household's members. " + ServeWording.askOwner)
        }
        guard admitted else { throw challenge }
        return DAVIdentity(member: found.member, device: found.deviceID)
    }

    /// A token store call; a state folder that cannot be read or written is a plain 500.
    private func davState<T>(_ body: () throws(StateError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw DAVError(status: .internalServerError, text: "The server could not check the password. " + ServeWording.askOwner)
        }
    }
}
