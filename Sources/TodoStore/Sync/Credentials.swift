import Glibc
import GitKit

/// Hands libgit2 one credential after another, each at most once per network step, then gives
/// up: libgit2 asks again after every failure and would otherwise loop. Each step (a fetch, a
/// push, a retry) opens a connection of its own and starts the list afresh. Only https asks:
/// ssh runs OpenSSH, which finds keys and agents itself (`SSHTransport` in GitKit).
final class CredentialSource {
    let interactive: Bool
    /// When the sync's time is up: no helper runs past it.
    let deadline: ContinuousClock.Instant
    private var tried: [String] = []
    /// What `git credential fill` gave us, to approve or reject afterwards.
    private(set) var filled: [String: String]?
    private var reported = false
    /// Whether a server asked for nothing todo can give: only the Kerberos ticket of the
    /// logged-in user (HTTP "Negotiate"), which todo never offers.
    private(set) var askedOnlyForKerberos = false

    init(interactive: Bool, deadline: ContinuousClock.Instant) {
        self.interactive = interactive
        self.deadline = deadline
    }

    var attempts: Int { tried.count }

    /// A new connection: every credential may be offered once more. What a credential helper
    /// gave is kept, so the helper runs once per sync.
    func beginStep() {
        tried.removeAll()
    }

    func next(url: String, userFromURL: String?, allowed: CredentialTypes) -> Credential? {
        if allowed.contains(.userPass) {
            if let (u, p) = Self.userPass(inURL: url), once("url") { return .userPass(user: u, password: p) }
            if once("helper"), let f = filled ?? fill(url: url, user: userFromURL), let u = f["username"], let p = f["password"] {
                return .userPass(user: u, password: p)
            }
            return nil
        }
        if allowed.contains(.username) {
            return once("username") ? .username(userFromURL ?? Identity.loginName()) : nil
        }
        askedOnlyForKerberos = true
        return nil
    }

    private func once(_ what: String) -> Bool {
        if tried.contains(what) { return false }
        tried.append(what)
        return true
    }

    /// `user:password@` from an http(s) URL, if present.
    static func userPass(inURL url: String) -> (String, String)? {
        guard let scheme = url.range(of: "://") else { return nil }
        let rest = url[scheme.upperBound...]
        guard let at = rest.firstIndex(of: "@"), let slash = rest.firstIndex(of: "/") ?? Optional(rest.endIndex), at < slash else {
            return nil
        }
        let info = rest[..<at]
        guard let colon = info.firstIndex(of: ":") else { return nil }
        return (percentDecode(info[..<colon]), percentDecode(info[info.index(after: colon)...]))
    }

    /// A URL's user name or password percent-decoded as git decodes it (`credential_from_url`):
    /// `%XX` with two hex digits is the byte XX; any other `%`, and `+`, stay as they are. Bytes
    /// that are not UTF-8 become U+FFFD. The server decodes its forms and cookies through
    /// Hummingbird; this is the code base's one percent-decoder of its own.
    static func percentDecode(_ s: Substring) -> String {
        func digit(_ c: UInt8?) -> UInt8? {
            switch c {
            case let c? where c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case let c? where c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case let c? where c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        var rest = s.utf8[...]
        while let c = rest.popFirst() {
            if c == UInt8(ascii: "%"), let high = digit(rest.first), let low = digit(rest.dropFirst().first) {
                out.append(high << 4 | low)
                rest = rest.dropFirst(2)
            } else {
                out.append(c)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Asks git's credential helpers (`git credential fill`); never prompts unless interactive.
    private func fill(url: String, user: String?) -> [String: String]? {
        var input = "url=\(Self.stripCredentials(url))\n"
        if let user { input += "username=\(user)\n" }
        input += "\n"
        var env = ["GIT_TERMINAL_PROMPT": interactive ? "1" : "0"]
        if !interactive { env["GIT_ASKPASS"] = "true" }
        guard
            let out = runProgram(
                ["git", "credential", "fill"], input: input, environment: env, deadline: deadline, isolated: !interactive)
        else { return nil }
        let result = KeyValueText.parse(out)
        filled = result
        reported = false
        return result
    }

    /// Tells git's helpers whether the filled credential worked (`approve` / `reject`), once;
    /// a rejected one is forgotten.
    func report(success: Bool) {
        guard let filled, !reported else { return }
        let input = KeyValueText.render(filled.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }) + "\n"
        _ = runProgram(
            ["git", "credential", success ? "approve" : "reject"], input: input, environment: ["GIT_TERMINAL_PROMPT": "0"],
            deadline: deadline)
        reported = true
        if !success { self.filled = nil }
    }

    /// The URL without `user:password@` (for helpers and for showing).
    static func stripCredentials(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let hostEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let at = rest[..<hostEnd].lastIndex(of: "@") else { return url }
        return String(url[..<scheme.upperBound]) + String(rest[rest.index(after: at)...])
    }
}

extension String {
    func range(of needle: String) -> Range<String.Index>? {
        guard !needle.isEmpty else { return nil }
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(needle) { return i..<index(i, offsetBy: needle.count) }
            i = index(after: i)
        }
        return nil
    }
}

/// Shows a remote URL without its credentials: `https://alice:secret@host/x` becomes
/// `https://***@host/x` (a token may stand where a user name does, so all of it goes).
/// scp-like and ssh URLs carry only a user name, which is kept.
public func redactedURL(_ url: String) -> String {
    guard let scheme = url.range(of: "://") else { return url }
    let proto = url[..<scheme.lowerBound].lowercased()
    let rest = url[scheme.upperBound...]
    let hostEnd = rest.firstIndex(of: "/") ?? rest.endIndex
    guard let at = rest[..<hostEnd].lastIndex(of: "@") else { return url }
    if proto == "ssh" && !rest[..<at].contains(":") { return url }
    return String(url[..<scheme.upperBound]) + "***" + String(rest[at...])
}

/// `CredentialSource.percentDecode` for the other front ends (CalDAV's addresses): the code
/// base's one percent-decoder.
public func percentDecoded(_ s: Substring) -> String { CredentialSource.percentDecode(s) }
