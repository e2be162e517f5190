#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import GitKit

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
        switch exit.problem {
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
