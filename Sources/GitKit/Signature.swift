import CLibgit2

/// Who made a commit and when (seconds since the epoch, offset in minutes).
public struct Signature: Sendable, Equatable {
    public var name: String
    public var email: String
    public var time: Int64
    public var offsetMinutes: Int32

    public init(name: String, email: String, time: Int64, offsetMinutes: Int32 = 0) {
        self.name = name
        self.email = email
        self.time = time
        self.offsetMinutes = offsetMinutes
    }

    init(_ sig: UnsafePointer<git_signature>) {
        name = String(cString: sig.pointee.name)
        email = String(cString: sig.pointee.email)
        time = sig.pointee.when.time
        offsetMinutes = sig.pointee.when.offset
    }

    /// Calls `body` with a libgit2 signature that lives only for the call.
    func withGitSignature<T>(_ body: (UnsafePointer<git_signature>) throws -> T) throws -> T {
        var sig: UnsafeMutablePointer<git_signature>?
        try check(git_signature_new(&sig, name, email, time, offsetMinutes), call: "git_signature_new")
        defer { git_signature_free(sig) }
        guard let sig else { throw GitError(code: -1, errorClass: 0, message: "no signature", function: "git_signature_new") }
        return try body(sig)
    }
}
