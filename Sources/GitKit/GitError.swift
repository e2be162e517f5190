import CLibgit2
public import SystemPackage

/// A failed libgit2 call: its return code, libgit2's error class and message, and the C function.
public struct GitError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let errorClass: Int32
    public let message: String
    public let function: String
    /// The errno of a failed system call, kept as the number: set for `system(errno:call:)`.
    let systemErrno: Int32?

    public init(code: Int32, errorClass: Int32, message: String, function: String) {
        self.init(code: code, errorClass: errorClass, message: message, function: function, systemErrno: nil)
    }

    init(code: Int32, errorClass: Int32, message: String, function: String, systemErrno: Int32?) {
        self.code = code
        self.errorClass = errorClass
        self.message = message
        self.function = function
        self.systemErrno = systemErrno
    }

    /// What the failure's message states, where libgit2 1.5 gives it no other way
    /// (`LibgitText`); empty for a failed system call, which has its errno.
    public var facts: Set<LibgitText.Fact> { systemErrno == nil ? LibgitText.facts(in: message) : [] }

    /// The errno behind the failure: the system call's own, or, for an operating-system failure
    /// inside libgit2's own writes (a full disk), the one its message names, for the errnos the
    /// store acts on.
    public var errno: Errno? {
        if let systemErrno { return Errno(rawValue: systemErrno) }
        return LibgitText.errno(in: message)
    }

    public var description: String {
        "\(function) failed: \(message) (code \(code), class \(errorClass))"
    }

    public var isNotFound: Bool { code == GIT_ENOTFOUND.rawValue }
    public var isExists: Bool { code == GIT_EEXISTS.rawValue }
    /// A compare-and-swap ref update found the ref moved.
    public var isModified: Bool { code == GIT_EMODIFIED.rawValue }
    public var isLocked: Bool { code == GIT_ELOCKED.rawValue }
    public var isUnmerged: Bool { code == GIT_EUNMERGED.rawValue }
    /// libgit2 reports "no space left" and other write failures as OS-class errors.
    public var isOSError: Bool { errorClass == Int32(GIT_ERROR_OS.rawValue) }
    public var isSSHClass: Bool { errorClass == Int32(GIT_ERROR_SSH.rawValue) }
    public var isNetClass: Bool { errorClass == Int32(GIT_ERROR_NET.rawValue) }
    public var isHTTPClass: Bool { errorClass == Int32(GIT_ERROR_HTTP.rawValue) }
    public var isNonFastForward: Bool { code == GIT_ENONFASTFORWARD.rawValue }
    public var isAuth: Bool { code == GIT_EAUTH.rawValue }
    public var isCertificate: Bool { code == GIT_ECERTIFICATE.rawValue }
}

/// The one gate every libgit2 return code passes through.
@discardableResult
func check(_ code: Int32, _ function: StaticString = #function) throws -> Int32 {
    if code >= 0 { return code }
    throw lastError(code, "\(function)")
}

func check(_ code: Int32, call: String) throws {
    if code < 0 { throw lastError(code, call) }
}

/// Reads libgit2's per-thread last error; must be called right after the failing call.
func lastError(_ code: Int32, _ function: String) -> GitError {
    if let err = git_error_last() {
        let message = err.pointee.message.map { String(cString: $0) } ?? "unknown error"
        return GitError(code: code, errorClass: err.pointee.klass, message: message, function: function)
    }
    return GitError(code: code, errorClass: 0, message: "unknown error", function: function)
}
