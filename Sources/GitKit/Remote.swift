import CLibgit2

/// Credentials a transport can use. (ssh authenticates in OpenSSH's own process, see
/// `SSHTransport`, so libgit2 never asks for an ssh key.)
public enum Credential: Sendable {
    case userPass(user: String, password: String)
    case username(String)
}

/// Credential types a server will accept, as libgit2 reports them.
public struct CredentialTypes: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let userPass = CredentialTypes(rawValue: GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue)
    public static let username = CredentialTypes(rawValue: GIT_CREDENTIAL_USERNAME.rawValue)
}

/// Progress of a transfer.
public struct TransferProgress: Sendable {
    public let receivedObjects: Int
    public let totalObjects: Int
    public let receivedBytes: Int

    public init(receivedObjects: Int, totalObjects: Int, receivedBytes: Int) {
        self.receivedObjects = receivedObjects
        self.totalObjects = totalObjects
        self.receivedBytes = receivedBytes
    }
}

/// What the network code asks of its caller. Every closure runs on the calling thread, inside
/// the libgit2 call.
public final class RemoteCallbacks {
    /// Returns the next credential to try, or nil to give up (libgit2 calls again after every
    /// failure, so the closure must count its attempts).
    public var credentials: (_ url: String, _ userFromURL: String?, _ allowed: CredentialTypes) -> Credential? = { _, _, _ in nil }
    /// Decides about a host whose certificate or host key libgit2 could not verify itself:
    /// return true to accept. Called only when libgit2 found it not valid.
    public var acceptInvalidCertificate: (_ host: String) -> Bool = { _ in false }
    public var transferProgress: (TransferProgress) -> Void = { _ in }
    public var pushProgress: (_ current: Int, _ total: Int, _ bytes: Int) -> Void = { _, _, _ in }
    /// Returns true to abort the transfer at the next callback (and, over ssh, to end the ssh
    /// process at once).
    public var shouldCancel: () -> Bool = { false }
    /// Whether ssh may ask questions on the terminal (passphrases, unknown host keys); when
    /// false it runs in batch mode and a question fails the transfer (see `SSHTransport`).
    public var allowPrompts = false
    /// git's `core.sshCommand` as the caller's repository sets it; nil: read it from the
    /// repository the transfer runs in.
    public var sshCommand: String?

    /// Server-side rejections reported during a push: ref name and the server's reason.
    public private(set) var rejections: [PushRejection] = []
    /// The last credential failure or certificate refusal, for error messages.
    public private(set) var certificateRefused: String?
    /// How the ssh process of a failed ssh transfer ended.
    public private(set) var sshExit: SSHExit?

    public init() {}

    fileprivate func record(rejection ref: String, _ reason: String) { rejections.append(PushRejection(ref: ref, reason: reason)) }
    fileprivate func refused(_ host: String) { certificateRefused = host }
    func record(ssh: SSHExit) { sshExit = ssh }
}

/// A remote's advertised reference.
public struct RemoteHead: Sendable {
    public let name: String
    public let id: ObjectID
}

extension Repository {
    /// Fetches `refspecs` from `url` into this repository (anonymous remote: no config is read or
    /// written). Tags are not fetched.
    public func fetch(url: String, refspecs: [String], callbacks: RemoteCallbacks) throws {
        try withRemote(url) { remote in
            var opts = git_fetch_options()
            try check(git_fetch_options_init(&opts, UInt32(GIT_FETCH_OPTIONS_VERSION)), call: "git_fetch_options_init")
            opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
            opts.update_fetchhead = 0
            try withCallbacks(callbacks) { cbs in
                opts.callbacks = cbs
                try withStrArray(refspecs) { specs in
                    var s = specs
                    try check(git_remote_fetch(remote, &s, &opts, "fetch"), call: "git_remote_fetch")
                }
            }
        }
    }

    /// Pushes `refspecs` to `url`. Server-side rejections are in `callbacks.rejections`
    /// (libgit2 reports them only there); a client-side non-fast-forward throws.
    public func push(url: String, refspecs: [String], callbacks: RemoteCallbacks) throws {
        try withRemote(url) { remote in
            var opts = git_push_options()
            try check(git_push_options_init(&opts, UInt32(GIT_PUSH_OPTIONS_VERSION)), call: "git_push_options_init")
            try withCallbacks(callbacks) { cbs in
                opts.callbacks = cbs
                try withStrArray(refspecs) { specs in
                    var s = specs
                    try check(git_remote_push(remote, &s, &opts), call: "git_remote_push")
                }
            }
        }
    }

    /// The references `url` advertises (connecting for fetch).
    public func listRemote(url: String, callbacks: RemoteCallbacks) throws -> [RemoteHead] {
        try withRemote(url) { remote in
            try withCallbacks(callbacks) { cbs in
                var c = cbs
                try check(git_remote_connect(remote, GIT_DIRECTION_FETCH, &c, nil, nil), call: "git_remote_connect")
                defer { git_remote_disconnect(remote) }
                var heads: UnsafeMutablePointer<UnsafePointer<git_remote_head>?>?
                var count = 0
                try check(git_remote_ls(&heads, &count, remote), call: "git_remote_ls")
                var out: [RemoteHead] = []
                for i in 0..<count {
                    guard let h = heads?[i], let name = h.pointee.name else { continue }
                    out.append(RemoteHead(name: String(cString: name), id: ObjectID(h.pointee.oid)))
                }
                return out
            }
        }
    }

    private func withRemote<T>(_ url: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        if url.lowercased().hasPrefix("http") { try GitLibrary.loadCertificates() }
        try SSHTransport.register()
        var remote: OpaquePointer?
        try check(git_remote_create_anonymous(&remote, handle, url), call: "git_remote_create_anonymous")
        defer { git_remote_free(remote) }
        guard let remote else { throw GitError.missing("git_remote_create_anonymous") }
        return try body(remote)
    }
}

/// Builds libgit2's callback table around `callbacks` for the duration of `body`.
func withCallbacks<T>(_ callbacks: RemoteCallbacks, _ body: (git_remote_callbacks) throws -> T) throws -> T {
    var cbs = git_remote_callbacks()
    try check(git_remote_init_callbacks(&cbs, UInt32(GIT_REMOTE_CALLBACKS_VERSION)), call: "git_remote_init_callbacks")
    cbs.payload = Unmanaged.passUnretained(callbacks).toOpaque()
    cbs.credentials = { out, url, user, allowed, payload in
        guard let payload, let out else { return GIT_PASSTHROUGH.rawValue }
        let cb = Unmanaged<RemoteCallbacks>.fromOpaque(payload).takeUnretainedValue()
        if cb.shouldCancel() { return GIT_EUSER.rawValue }
        let urlText = url.map { String(cString: $0) } ?? ""
        let userText = user.map { String(cString: $0) }
        guard let credential = cb.credentials(urlText, userText, CredentialTypes(rawValue: allowed)) else {
            // No more to try: an authentication error, not a loop.
            return GIT_EAUTH.rawValue
        }
        switch credential {
        case .userPass(let u, let p): return git_credential_userpass_plaintext_new(out, u, p)
        case .username(let u): return git_credential_username_new(out, u)
        }
    }
    cbs.certificate_check = { _, valid, host, payload in
        guard let payload else { return GIT_PASSTHROUGH.rawValue }
        let cb = Unmanaged<RemoteCallbacks>.fromOpaque(payload).takeUnretainedValue()
        if valid != 0 { return 0 }
        let h = host.map { String(cString: $0) } ?? ""
        if cb.acceptInvalidCertificate(h) { return 0 }
        cb.refused(h)
        return GIT_ECERTIFICATE.rawValue
    }
    cbs.transfer_progress = { stats, payload in
        guard let payload, let stats else { return 0 }
        let cb = Unmanaged<RemoteCallbacks>.fromOpaque(payload).takeUnretainedValue()
        if cb.shouldCancel() { return -1 }
        cb.transferProgress(
            TransferProgress(
                receivedObjects: Int(stats.pointee.received_objects), totalObjects: Int(stats.pointee.total_objects),
                receivedBytes: Int(stats.pointee.received_bytes)))
        return 0
    }
    cbs.sideband_progress = { _, _, payload in
        guard let payload else { return 0 }
        return Unmanaged<RemoteCallbacks>.fromOpaque(payload).takeUnretainedValue().shouldCancel() ? -1 : 0
    }
    cbs.push_transfer_progress = { current, total, bytes, payload in
        guard let payload else { return 0 }
        let cb = Unmanaged<RemoteCallbacks>.fromOpaque(payload).takeUnretainedValue()
        if cb.shouldCancel() { return -1 }
        cb.pushProgress(Int(current), Int(total), Int(bytes))
        return 0
    }
    cbs.push_update_reference = { ref, status, payload in
        guard let payload else { return 0 }
        if let status {
            let cb = Unmanaged<RemoteCallbacks>.fromOpaque(payload).takeUnretainedValue()
            cb.record(rejection: ref.map { String(cString: $0) } ?? "", String(cString: status))
        }
        return 0
    }
    return try withExtendedLifetime(callbacks) { try body(cbs) }
}

/// A ref the server refused to update during a push, and its reason (free text from the server).
public struct PushRejection: Sendable {
    public let ref: String
    public let reason: String

    /// The server refused because someone else updated the ref first (the caller fetches and
    /// merges again), as `LibgitText` reads the reason.
    public var isRefUpdateRace: Bool { LibgitText.facts(in: reason).contains(.refUpdateRace) }
}
