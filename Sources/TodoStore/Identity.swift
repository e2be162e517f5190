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
