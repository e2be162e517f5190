import Glibc
import GitKit

/// Who is writing: recorded as each commit's author and in each field's stamp.
public struct Identity: Sendable, Equatable {
    public var name: String
    public var email: String

    public init(name: String, email: String) {
        self.name = name
        self.email = email
    }

    /// From the flags, else git's `user.name`/`user.email`, else the login name and host.
    public static func resolve(name: String?, email: String?) -> Identity {
        let login = loginName()
        let host = hostName()
        let n = name ?? Repository.defaultConfigString("user.name") ?? login
        let e = email ?? Repository.defaultConfigString("user.email") ?? "\(login)@\(host)"
        return Identity(name: n, email: e)
    }

    static func loginName() -> String {
        if let pw = getpwuid(getuid()), let name = pw.pointee.pw_name { return String(cString: name) }
        return getenv("USER").map { String(cString: $0) } ?? "someone"
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

/// A member acting through another front end (the web page): who they are, and the replica id
/// their writes carry. Opened with one, a household writes every commit's author and committer
/// and every stamp's member and replica from it, not from the clone's git config.
public struct Actor: Sendable, Equatable {
    public var name: String
    public var email: String
    /// 16 lowercase hex digits: the front end's own, so its stamps never collide with the CLI's.
    public var replica: String

    public init(name: String, email: String, replica: String) {
        self.name = name
        self.email = email
        self.replica = replica
    }

    /// `<name>@<household>.todo.invalid` (lowercased; characters other than letters, digits, `.`,
    /// `_` and `-` made `-`): an address for a member without one, which can never deliver mail.
    public static func placeholderEmail(member: String, household: String) -> String {
        func part(_ s: String) -> String {
            String(s.lowercased().unicodeScalars.map { c in
                (c >= "a" && c <= "z") || (c >= "0" && c <= "9") || c == "." || c == "_" || c == "-" ? Character(c) : "-"
            })
        }
        return "\(part(member))@\(part(household)).todo.invalid"
    }
}

/// Who makes a change opened with `Household.openForChange`.
public enum ChangeMaker: Sendable, Equatable {
    /// This clone, under its git config's identity and replica id: the CLI, and a front end's
    /// background sync.
    case clone
    /// A member acting through another front end, under that front end's replica id: their
    /// name as the household spells it, their email from their details (else
    /// `Actor.placeholderEmail`).
    case member(String, replica: String)
}
