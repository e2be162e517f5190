/// What a failed ssh connection means, read from what OpenSSH (or the server's git, through
/// it) wrote to standard error. OpenSSH exits with 255 for its own failures and passes on the
/// remote command's status otherwise (128 from git, 127 when the server has no git).
public enum SSHProblem: Equatable, Sendable {
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

    /// The one place that matches OpenSSH's and git's messages (OpenSSH 8–9, git 2.x), at
    /// GitKit's boundary with the ssh program (`SSHExit.problem`); each case has a test in
    /// `SSHFailureTests`. The most specific match comes first: a changed key's
    /// report also says "Host key verification failed".
    public static func diagnose(status: Int32?, stderr: String) -> SSHProblem {
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
            let lower = line.lowercased()
            guard let r = lower.firstRange(of: "could not resolve hostname ") else { continue }
            // Offsets in characters: the lowered line has as many as the line (ASCII here).
            let offset = min(lower.distance(from: lower.startIndex, to: r.upperBound), line.count)
            let rest = line[line.index(line.startIndex, offsetBy: offset)...]
            return String(rest.prefix { $0 != ":" })
        }
        return nil
    }
}

extension SSHExit {
    /// What the ssh program's standard error and status say went wrong.
    public var problem: SSHProblem { SSHProblem.diagnose(status: status, stderr: stderr) }
}

extension String {
    fileprivate var trimmed: String {
        let space: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        return String(drop(while: space).reversed().drop(while: space).reversed())
    }
}
