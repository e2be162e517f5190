import Glibc
import GitKit

extension Network {
    /// The sync error for a failed transfer over ssh; nil to classify it like any other
    /// transport (a deadline that stopped ssh is a timeout).
    func sshError(_ exit: SSHExit, _ e: GitError, what: String) -> SyncError? {
        if exit.stopped { return nil }
        let shown = redactedURL(url)
        let detail = "\(e.description)\n" + exit.stderr
        if let why = exit.notStarted {
            return SyncError(.configuration, .sshNotRunnable(command: exit.command.command, reason: why), detail: detail)
        }
        let target = exit.address.port.map { "-p \($0) \(exit.address.destination)" } ?? exit.address.destination
        switch exit.problem {
        case .hostKeyChanged(let host, let fingerprint):
            return SyncError(
                .configuration, .hostKeyChanged(host: host ?? exit.address.host, presented: fingerprint, target: target), detail: detail)
        case .hostKeyUnknown:
            return SyncError(.configuration, .hostKeyUnknown(host: exit.address.host, target: target), detail: detail)
        case .authentication(let said):
            let locked = exit.batch ? Self.lockedKeys(exit) : []
            if let key = locked.first {
                return SyncError(.authentication, .sshKeyLocked(remote: shown, key: key), detail: detail)
            }
            return SyncError(
                .authentication,
                .sshCredentialsRefused(remote: shown, said: said.hasSuffix(".") ? String(said.dropLast()) : said, user: exit.address.user),
                detail: detail)
        case .unresolvable(let host):
            return SyncError(.transient, .sshHostUnresolvable(remote: shown, host: host ?? exit.address.host), detail: detail)
        case .refused(let said), .timedOut(let said):
            return SyncError(.transient, .unreachable(remote: shown, said: said), detail: detail)
        case .noRepository:
            return classify(.notFound, e, what: what, refusedHost: nil)
        case .noGitOnServer(let said):
            return SyncError(.configuration, .noGitOnServer(remote: shown, said: said), detail: detail)
        case .other(let said):
            guard exit.status == 255 else { return nil }
            return SyncError(.transient, .sshFailed(remote: shown, said: said), detail: detail)
        }
    }

    /// The identity files OpenSSH would offer for this address (`ssh -G`) that need a
    /// passphrase, as `~/…` where they are in the home directory.
    static func lockedKeys(_ exit: SSHExit) -> [String] {
        guard exit.command.variant == .openSSH,
            // Which keys are locked is advice: without ssh's options the message names no key.
            let options = try? exit.command.options(address: exit.address, batch: true),
            let config = runProgram(exit.command.argv(options + ["-G", exit.address.destination]), input: "", deadline: .now + .seconds(10))
        else { return [] }
        let home = passwordHome()
        var keys: [String] = []
        for line in config.split(separator: "\n") where line.hasPrefix("identityfile ") {
            var path = String(line.dropFirst("identityfile ".count))
            if path.hasPrefix("~/"), let home { path = home + path.dropFirst(1) }
            guard access(path, R_OK) == 0 else { continue }
            // ssh-keygen fails to read a key that needs a passphrase when given an empty one.
            if runProgram(["ssh-keygen", "-y", "-P", "", "-f", path], input: "", deadline: .now + .seconds(10)) == nil {
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
