import Glibc
import CLibgit2
import Synchronization

/// ssh remotes through the system's ssh client, as git reaches them: libgit2's smart protocol
/// over the pipes of `ssh [-p PORT] [user@]host "git-upload-pack '/path'"` (or
/// `git-receive-pack`). The user's OpenSSH set-up applies: `~/.ssh/config` (aliases, ports,
/// users, keys, ProxyJump, ControlMaster), the agent, hardware keys, passphrase prompts on a
/// terminal, and OpenSSH's host key checking. Which program runs is git's choice:
/// `GIT_SSH_COMMAND`, `core.sshCommand`, `GIT_SSH`, else `ssh`.
///
/// Without a terminal to ask on (`RemoteCallbacks.allowPrompts` false) OpenSSH is told never
/// to ask (`-o BatchMode=yes`) and runs in a session of its own, so that no program it starts
/// can reach a terminal either; a refusal then fails the transfer at once instead of waiting
/// for an answer nobody gives. `RemoteCallbacks.shouldCancel` ends the child (and what it
/// started) at the caller's deadline.
enum SSHTransport {
    private static let registered = Mutex(false)

    /// Takes over libgit2's ssh schemes (scp-like addresses reach the `ssh` one); once per
    /// process, before the first ssh transfer.
    static func register() throws {
        try registered.withLock { (done: inout Bool) throws in
            if done { return }
            done = true
            for scheme in ["ssh", "ssh+git", "git+ssh"] {
                try check(git_transport_register(scheme, makeTransport, nil), call: "git_transport_register(\(scheme))")
            }
        }
    }
}

/// A smart-protocol transport whose subtransport runs ssh; the owning repository goes along
/// for its `core.sshCommand`.
private let makeTransport: git_transport_cb = { out, owner, _ in
    var definition = git_smart_subtransport_definition(
        callback: makeSubtransport, rpc: 0, param: owner.flatMap { git_remote_owner($0) }.map { UnsafeMutableRawPointer($0) })
    return git_transport_smart(out, owner, &definition)
}

private let makeSubtransport: git_smart_subtransport_cb = { out, owner, param in
    guard let out else { return -1 }
    let raw = UnsafeMutablePointer<todo_subtransport>.allocate(capacity: 1)
    raw.initialize(to: todo_subtransport())
    raw.pointee.parent.action = subtransportAction
    raw.pointee.parent.close = subtransportClose
    raw.pointee.parent.free = subtransportFree
    let repo = param.map { OpaquePointer($0) }
    raw.pointee.context = Unmanaged.passRetained(SSHSubtransport(owner: owner, repository: repo)).toOpaque()
    out.pointee = UnsafeMutableRawPointer(raw).assumingMemoryBound(to: git_smart_subtransport.self)
    return 0
}

private func subtransport(_ t: UnsafeMutablePointer<git_smart_subtransport>?) -> SSHSubtransport? {
    guard let t, let context = UnsafeMutableRawPointer(t).assumingMemoryBound(to: todo_subtransport.self).pointee.context else {
        return nil
    }
    return Unmanaged<SSHSubtransport>.fromOpaque(context).takeUnretainedValue()
}

private let subtransportAction:
    @convention(c) (
        UnsafeMutablePointer<UnsafeMutablePointer<git_smart_subtransport_stream>?>?, UnsafeMutablePointer<git_smart_subtransport>?,
        UnsafePointer<CChar>?, git_smart_service_t
    ) -> Int32 = { out, t, url, service in
        guard let out, let s = subtransport(t), let url else { return -1 }
        return s.action(out, url: String(cString: url), service: service)
    }

private let subtransportClose: @convention(c) (UnsafeMutablePointer<git_smart_subtransport>?) -> Int32 = { t in
    subtransport(t)?.close()
    return 0
}

private let subtransportFree: @convention(c) (UnsafeMutablePointer<git_smart_subtransport>?) -> Void = { t in
    guard let t else { return }
    let raw = UnsafeMutableRawPointer(t).assumingMemoryBound(to: todo_subtransport.self)
    if let context = raw.pointee.context {
        let s = Unmanaged<SSHSubtransport>.fromOpaque(context).takeRetainedValue()
        s.close()
    }
    raw.deallocate()
}

private func streamOwner(_ stream: UnsafeMutablePointer<git_smart_subtransport_stream>?) -> SSHSubtransport? {
    guard let stream, let context = UnsafeMutableRawPointer(stream).assumingMemoryBound(to: todo_subtransport_stream.self).pointee.context
    else { return nil }
    return Unmanaged<SSHSubtransport>.fromOpaque(context).takeUnretainedValue()
}

private let streamRead:
    @convention(c) (UnsafeMutablePointer<git_smart_subtransport_stream>?, UnsafeMutablePointer<CChar>?, Int, UnsafeMutablePointer<Int>?) ->
    Int32 = { stream, buffer, size, bytesRead in
        guard let s = streamOwner(stream), let buffer, let bytesRead else { return -1 }
        return s.read(into: buffer, count: size, bytesRead: bytesRead)
    }

private let streamWrite: @convention(c) (UnsafeMutablePointer<git_smart_subtransport_stream>?, UnsafePointer<CChar>?, Int) -> Int32 = {
    stream, buffer, length in
    guard let s = streamOwner(stream), let buffer else { return -1 }
    return s.write(buffer, count: length)
}

/// libgit2 frees the stream when it resets its connection; the process ends in `close`.
private let streamFree: @convention(c) (UnsafeMutablePointer<git_smart_subtransport_stream>?) -> Void = { stream in
    guard let stream else { return }
    streamOwner(stream)?.streamFreed()
    UnsafeMutableRawPointer(stream).assumingMemoryBound(to: todo_subtransport_stream.self).deallocate()
}

/// One ssh connection of a transfer: the ssh child of the current service.
private final class SSHSubtransport {
    let owner: UnsafeMutablePointer<git_transport>?
    let repository: OpaquePointer?
    private var child: SSHChild?
    private var stream: UnsafeMutablePointer<todo_subtransport_stream>?
    private var callbacks: RemoteCallbacks?
    private var started: (address: SSHAddress, command: SSHCommand, batch: Bool)?
    private var reported = false

    init(owner: UnsafeMutablePointer<git_transport>?, repository: OpaquePointer?) {
        self.owner = owner
        self.repository = repository
    }

    func action(_ out: UnsafeMutablePointer<UnsafeMutablePointer<git_smart_subtransport_stream>?>, url: String, service: git_smart_service_t)
        -> Int32
    {
        switch service {
        case GIT_SERVICE_UPLOADPACK_LS, GIT_SERVICE_RECEIVEPACK_LS:
            close()
            let program = service == GIT_SERVICE_UPLOADPACK_LS ? "git-upload-pack" : "git-receive-pack"
            if let failure = start(program, url: url) { return failure }
        case GIT_SERVICE_UPLOADPACK, GIT_SERVICE_RECEIVEPACK:
            // The same conversation goes on (libgit2 also asks for it to say goodbye).
            guard child != nil else { return fail(GIT_ERROR_NET, "ssh: no connection for \(service)") }
        default:
            return fail(GIT_ERROR_NET, "ssh: unknown service \(service)")
        }
        out.pointee = UnsafeMutableRawPointer(makeStream()).assumingMemoryBound(to: git_smart_subtransport_stream.self)
        return 0
    }

    private func makeStream() -> UnsafeMutablePointer<todo_subtransport_stream> {
        if let stream { return stream }
        let s = UnsafeMutablePointer<todo_subtransport_stream>.allocate(capacity: 1)
        s.initialize(to: todo_subtransport_stream())
        s.pointee.parent.read = streamRead
        s.pointee.parent.write = streamWrite
        s.pointee.parent.free = streamFree
        s.pointee.context = Unmanaged.passUnretained(self).toOpaque()
        stream = s
        return s
    }

    func streamFreed() { stream = nil }

    /// Starts ssh for `program`; nil, or libgit2's error code.
    private func start(_ program: String, url: String) -> Int32? {
        callbacks = remoteCallbacks()
        reported = false
        guard let address = SSHAddress.parse(url) else {
            return fail(GIT_ERROR_NET, "invalid url: \(url) is not an ssh address todo can use")
        }
        let command = SSHCommand.choose(
            environment: { getenv($0).map { String(cString: $0) } },
            coreSSHCommand: callbacks?.sshCommand ?? configString("core.sshCommand"), variantSetting: configString("ssh.variant"))
        let batch = !(callbacks?.allowPrompts ?? false)
        started = (address, command, batch)
        let argv: [String]
        do {
            argv = command.argv(try command.arguments(service: program, address: address, batch: batch))
        } catch {
            // A setting that cannot work (a port for a program that takes none).
            record(status: nil, stderr: "", notStarted: error.message, stopped: false)
            return fail(GIT_ERROR_SSH, error.message)
        }
        let cancel = callbacks?.shouldCancel ?? { false }
        do {
            child = try SSHChild(argv: argv, ownSession: batch, shouldCancel: cancel)
        } catch {
            record(status: nil, stderr: "", notStarted: error.message, stopped: false)
            return fail(GIT_ERROR_SSH, "could not run \(command.command): \(error.message)")
        }
        return nil
    }

    func read(into buffer: UnsafeMutablePointer<CChar>, count: Int, bytesRead: UnsafeMutablePointer<Int>) -> Int32 {
        guard let child else { return fail(GIT_ERROR_NET, "ssh: not connected") }
        switch child.read(into: buffer, count: count) {
        case .done(let n):
            bytesRead.pointee = n
            return 0
        case let other:
            return ended(other)
        }
    }

    func write(_ buffer: UnsafePointer<CChar>, count: Int) -> Int32 {
        guard let child else { return fail(GIT_ERROR_NET, "ssh: not connected") }
        switch child.write(buffer, count: count) {
        case .done: return 0
        case let other: return ended(other)
        }
    }

    /// The conversation broke off: the child's output ended, a write failed, or the caller
    /// cancelled. Waits for the child's status and reports how it ended.
    private func ended(_ outcome: SSHChild.Outcome) -> Int32 {
        guard let child else { return -1 }
        if case .cancelled = outcome { child.stop() } else { child.waitForExit() }
        let status = child.exitStatus
        let text = child.stderrText
        record(status: status, stderr: text, notStarted: nil, stopped: child.stopped)
        if child.stopped { return fail(GIT_ERROR_NET, "the ssh connection was stopped (timed out)") }
        if case .failed(let e) = outcome { return fail(GIT_ERROR_OS, "ssh connection: \(String(cString: strerror(e)))") }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        let said = lines.suffix(3).joined(separator: " ")
        let how = status.map { "exit status \($0)" } ?? "killed by a signal"
        return fail(GIT_ERROR_SSH, "\(started?.command.command ?? "ssh") ended (\(how))" + (said.isEmpty ? "" : ": \(said)"))
    }

    /// Ends the child (after a finished conversation it exits by itself).
    func close() {
        child?.finish()
        child = nil
    }

    /// The first failure of a connection goes to the caller.
    private func record(status: Int32?, stderr: String, notStarted: String?, stopped: Bool) {
        guard !reported, let started, let callbacks else { return }
        reported = true
        callbacks.record(
            ssh: SSHExit(
                address: started.address, command: started.command, batch: started.batch, status: status, stderr: stderr,
                notStarted: notStarted, stopped: stopped))
    }

    private func fail(_ errorClass: git_error_t, _ message: String) -> Int32 {
        git_error_set_str(Int32(errorClass.rawValue), message)
        return -1
    }

    /// The caller's callbacks, from the connect options libgit2 holds for this transfer.
    private func remoteCallbacks() -> RemoteCallbacks? {
        guard let owner else { return nil }
        var options = git_remote_connect_options()
        guard git_remote_connect_options_init(&options, UInt32(GIT_REMOTE_CONNECT_OPTIONS_VERSION)) == 0,
            git_transport_remote_connect_options(&options, owner) == 0
        else { return nil }
        // The copy's own allocations (libgit2 1.5 exports no function to dispose of it).
        defer {
            git_strarray_dispose(&options.custom_headers)
            free(UnsafeMutableRawPointer(mutating: options.proxy_opts.url))
        }
        return options.callbacks.payload.map { Unmanaged<RemoteCallbacks>.fromOpaque($0).takeUnretainedValue() }
    }

    private func configString(_ key: String) -> String? {
        guard let repository else { return nil }
        var config: OpaquePointer?
        guard git_repository_config_snapshot(&config, repository) == 0, let config else { return nil }
        defer { git_config_free(config) }
        var value: UnsafePointer<CChar>?
        guard git_config_get_string(&value, config, key) == 0, let value else { return nil }
        return String(cString: value)
    }
}

extension Error {
    fileprivate var message: String {
        if let e = self as? GitError { return e.message }
        if let e = self as? SpawnFailure { return e.message }
        return "\(self)"
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" }).reversed().drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" }).reversed())
    }
}
