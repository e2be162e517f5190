#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import GitKit

/// What a failed ssh connection means, read from what OpenSSH (or the server's git, through
/// it) wrote to standard error. OpenSSH exits with 255 for its own failures and passes on the
/// remote command's status otherwise (128 from git, 127 when the server has no git).
enum SSHProblem: Equatable {
    /// The server presented a key other than the one in known_hosts.
    case hostKeyChanged(host: String?, fingerprint: String?)
    /// No key is known for the host, and nobody could be (or was) asked.
    case hostKeyUnknown
    /// The server refused every key (wrong key, no agent, a passphrase nobody could type).
    case authentication(said: String)
    case unresolvable(host: String?)
    case refused(said: String)
    case timedOut(said: String)
    case noRepository
    case noGitOnServer(said: String)
    case other(said: String)

    /// The one place that matches OpenSSH's and git's messages (OpenSSH 8–9, git 2.x); each
    /// case has a test in `SSHFailureTests`. The most specific match comes first: a changed key's
    /// report also says "Host key verification failed".
    static func diagnose(status: Int32?, stderr: String) -> SSHProblem {
        let lines = stderr.split(whereSeparator: \.isNewline).map { String($0).trimmed }.filter { !$0.isEmpty }
        let text = lines.joined(separator: "\n").lowercased()
        let last = lines.last(where: { !$0.hasPrefix("@") && !$0.hasPrefix("debug") }) ?? ""
        if text.contains("remote host identification has changed") || text.contains("has changed and you have requested strict checking") {
            return .hostKeyChanged(host: changedHost(lines), fingerprint: lines.first(where: { $0.hasPrefix("SHA256:") }).map { String($0.dropLast($0.hasSuffix(".") ? 1 : 0)) })
        }
        if text.contains("host key verification failed") || text.contains("host key is known for") {
            return .hostKeyUnknown
        }
        if text.contains("could not resolve hostname") {
            return .unresolvable(host: resolveHost(lines))
        }
        if text.contains("permission denied (") || text.contains("too many authentication failures")
            || text.contains("no more authentication methods") || text.contains("agent refused operation")
            || text.contains("incorrect passphrase")
        {
            return .authentication(said: lines.last(where: { $0.lowercased().contains("permission denied") }) ?? last)
        }
        if text.contains("does not appear to be a git repository") || text.contains("not a git repository")
            || text.contains("repository not found") || text.contains("could not find repository")
        {
            return .noRepository
        }
        if status == 127 || text.contains("command not found") || text.contains("git-upload-pack: not found")
            || text.contains("git-receive-pack: not found")
        {
            return .noGitOnServer(said: last)
        }
        if text.contains("timed out") { return .timedOut(said: last) }
        if text.contains("connection refused") || text.contains("no route to host") || text.contains("network is unreachable")
            || text.contains("connection reset") || text.contains("connection closed") || text.contains("kex_exchange_identification")
            || text.contains("broken pipe") || text.contains("connection to") && text.contains("closed")
        {
            return .refused(said: last)
        }
        return .other(said: last)
    }

    /// `[127.0.0.1]:2222` from "Host key for [127.0.0.1]:2222 has changed and …".
    private static func changedHost(_ lines: [String]) -> String? {
        for line in lines where line.hasPrefix("Host key for ") {
            let rest = line.dropFirst("Host key for ".count)
            if let end = rest.firstIndex(of: " ") { return String(rest[..<end]) }
        }
        return nil
    }

    /// `nas` from "ssh: Could not resolve hostname nas: Name or service not known".
    private static func resolveHost(_ lines: [String]) -> String? {
        for line in lines {
            guard let r = line.lowercased().range(of: "could not resolve hostname ") else { continue }
            let start = line.index(line.startIndex, offsetBy: line.lowercased().distance(from: line.lowercased().startIndex, to: r.upperBound))
            let rest = line[start...]
            return String(rest.prefix { $0 != ":" })
        }
        return nil
    }
}

extension Network {
    /// The sync error for a failed transfer over ssh; nil to classify it like any other
    /// transport (a deadline that stopped ssh is a timeout).
    func sshError(_ exit: SSHExit, _ e: GitError, what: String) -> SyncError? {
        if exit.stopped { return nil }
        let shown = redactedURL(url)
        let detail = "\(e.description)\n" + exit.stderr
        if let why = exit.notStarted {
            return SyncError(
                .configuration,
                "Could not run ssh for the household remote (\(exit.command.command): \(why)).\nInstall OpenSSH's client, or check GIT_SSH_COMMAND, git's core.sshCommand or GIT_SSH.",
                detail: detail)
        }
        let target = exit.address.port.map { "-p \($0) \(exit.address.destination)" } ?? exit.address.destination
        switch SSHProblem.diagnose(status: exit.status, stderr: exit.stderr) {
        case .hostKeyChanged(let host, let fingerprint):
            let name = host ?? exit.address.host
            let presented = fingerprint.map { " (it now presents \($0))" } ?? ""
            return SyncError(
                .configuration,
                """
                The ssh host key of \(name) has CHANGED since it was recorded in known_hosts\(presented). This may be an attack: another machine may be answering in the server's place. Nothing was fetched or sent.
                Check it before anything else: on the server itself, show its key's fingerprint with `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` and compare. Only if it matches (the server was reinstalled or its key renewed), remove the old key with `ssh-keygen -R '\(name)'` and connect once with `ssh \(target)` to record the new one.
                """,
                detail: detail)
        case .hostKeyUnknown:
            return SyncError(
                .configuration,
                """
                The ssh host key of \(exit.address.host) is not known yet (not in known_hosts), so the remote cannot be trusted yet. Nothing was fetched or sent.
                Connect once at a terminal with `ssh \(target)`: compare the fingerprint ssh shows with the server's own (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` on the server) and answer yes only if they match.
                """,
                detail: detail)
        case .authentication(let said):
            let locked = exit.batch ? Self.lockedKeys(exit) : []
            if let key = locked.first {
                return SyncError(
                    .authentication,
                    """
                    The household remote \(shown) did not accept your credentials: the ssh key \(key) needs its passphrase, and without a terminal (cron, --quiet) nobody can be asked for it, and ssh-agent does not hold it.
                    Load it into ssh-agent with `ssh-add \(key)` so that sync can use it unattended, or run `todo sync` at a terminal to be asked.
                    """,
                    detail: detail)
            }
            return SyncError(
                .authentication,
                """
                The household remote \(shown) did not accept your credentials (\(said.hasSuffix(".") ? String(said.dropLast()) : said)).
                Check that your public key is in the server's authorized_keys for \(exit.address.user ?? "your user"), and that ssh finds the key: load it into ssh-agent (ssh-add), or name it with IdentityFile in ~/.ssh/config.
                """,
                detail: detail)
        case .unresolvable(let host):
            return SyncError(
                .transient,
                """
                Could not find the host \(host ?? exit.address.host) of the household remote \(shown): ssh could not resolve the name.
                If it is a Host alias, check that ~/.ssh/config defines it (with its HostName); if the host is on your home network, sync again when you are back on it.
                """,
                detail: detail)
        case .refused(let said), .timedOut(let said):
            return SyncError(.transient, "Could not reach the household remote \(shown) (\(said)).", detail: detail)
        case .noRepository:
            return classify(.notFound, e, what: what, refusedHost: nil)
        case .noGitOnServer(let said):
            return SyncError(
                .configuration,
                "The server of \(shown) has no git for ssh logins (\(said)).\nInstall git there, or make git-upload-pack and git-receive-pack reachable on the PATH of non-interactive logins.",
                detail: detail)
        case .other(let said):
            guard exit.status == 255 else { return nil }
            return SyncError(.transient, "The ssh connection to \(shown) failed (\(said)).", detail: detail)
        }
    }

    /// The identity files OpenSSH would offer for this address (`ssh -G`) that need a
    /// passphrase, as `~/…` where they are in the home directory.
    static func lockedKeys(_ exit: SSHExit) -> [String] {
        guard exit.command.variant == .openSSH,
            let options = try? exit.command.options(address: exit.address, batch: true),
            let config = runProgram(exit.command.argv(options + ["-G", exit.address.destination]), input: "", deadline: monotonicSeconds() + 10)
        else { return [] }
        let home = passwordHome()
        var keys: [String] = []
        for line in config.split(separator: "\n") where line.hasPrefix("identityfile ") {
            var path = String(line.dropFirst("identityfile ".count))
            if path.hasPrefix("~/"), let home { path = home + path.dropFirst(1) }
            guard access(path, R_OK) == 0 else { continue }
            // ssh-keygen fails to read a key that needs a passphrase when given an empty one.
            if runProgram(["ssh-keygen", "-y", "-P", "", "-f", path], input: "", deadline: monotonicSeconds() + 10) == nil {
                keys.append(home.map { path.hasPrefix($0 + "/") ? "~" + path.dropFirst($0.count) : path } ?? path)
            }
        }
        return keys
    }

    /// The home directory ssh uses: the account's, from the password database (not `$HOME`).
    static func passwordHome() -> String? {
        guard let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir else { return nil }
        return String(cString: dir)
    }
}

extension String {
    fileprivate var trimmed: String {
        let space: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        return String(drop(while: space).reversed().drop(while: space).reversed())
    }
}
