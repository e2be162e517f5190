import CLibgit2

/// Where an ssh remote is, read from its URL as git reads it: `ssh://[user@]host[:port]/path`
/// (also `ssh+git://` and `git+ssh://`), or scp-like `[user@]host:path`, in which a port can
/// only be given in brackets: `[user@host:port]:path`. In the scp-like form everything after
/// the first colon is the path: `host:2222/srv/x.git` is the path `2222/srv/x.git` on port 22.
public struct SSHAddress: Equatable, Sendable {
    public var user: String?
    public var host: String
    public var port: String?
    /// The path as the remote's git receives it (`~` forms kept for the server's shell).
    public var path: String

    public init(user: String?, host: String, port: String?, path: String) {
        self.user = user
        self.host = host
        self.port = port
        self.path = path
    }

    /// `user@host` or `host`, as ssh takes it.
    public var destination: String { user.map { "\($0)@\(host)" } ?? host }

    /// Parses `url`; nil when it is not an ssh address. Like git, a user, host or path that ssh
    /// would take for an option (a leading `-`) is refused: it could make ssh run a command.
    public static func parse(_ url: String) -> SSHAddress? {
        let address: SSHAddress?
        if let scheme = url.range(of: "://") {
            let name = url[..<scheme.lowerBound].lowercased()
            guard ["ssh", "ssh+git", "git+ssh"].contains(name) else { return nil }
            address = parseURL(url[scheme.upperBound...])
        } else {
            address = parseSCP(Substring(url))
        }
        guard let address, !address.host.isEmpty, !address.path.isEmpty else { return nil }
        if address.host.hasPrefix("-") || address.user?.hasPrefix("-") == true || address.path.hasPrefix("-") { return nil }
        if let port = address.port, port.isEmpty || !port.allSatisfy(\.isASCIIDigit) { return nil }
        return address
    }

    private static func parseURL(_ rest: Substring) -> SSHAddress? {
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<slash]
        var path = String(rest[slash...])
        // `ssh://host/~user/x` names a path relative to a home directory, as in git.
        if path.hasPrefix("/~") { path.removeFirst() }
        var user: String?
        if let at = authority.lastIndex(of: "@") {
            user = String(authority[..<at])
            authority = authority[authority.index(after: at)...]
        }
        let (host, port) = splitHostPort(authority)
        return SSHAddress(user: user, host: host, port: port, path: path)
    }

    private static func parseSCP(_ url: Substring) -> SSHAddress? {
        var hostPart: Substring
        var path: Substring
        if url.hasPrefix("[") {
            // `[user@host:port]:path` or `[host]:path`.
            guard let close = url.firstIndex(of: "]") else { return nil }
            let after = url[url.index(after: close)...]
            guard after.hasPrefix(":") else { return nil }
            hostPart = url[url.index(after: url.startIndex)..<close]
            path = after.dropFirst()
            var user: String?
            if let at = hostPart.lastIndex(of: "@") {
                user = String(hostPart[..<at])
                hostPart = hostPart[hostPart.index(after: at)...]
            }
            // An IPv6 address alone has several colons and no port.
            if hostPart.filter({ $0 == ":" }).count > 1 {
                return SSHAddress(user: user, host: String(hostPart), port: nil, path: String(path))
            }
            let (host, port) = splitHostPort(hostPart)
            return SSHAddress(user: user, host: host, port: port, path: String(path))
        }
        guard let colon = url.firstIndex(of: ":") else { return nil }
        if let slash = url.firstIndex(of: "/"), slash < colon { return nil }
        hostPart = url[..<colon]
        path = url[url.index(after: colon)...]
        var user: String?
        if let at = hostPart.lastIndex(of: "@") {
            user = String(hostPart[..<at])
            hostPart = hostPart[hostPart.index(after: at)...]
        }
        return SSHAddress(user: user, host: String(hostPart), port: nil, path: String(path))
    }

    /// `host`, `host:port`, `[v6]`, `[v6]:port`.
    private static func splitHostPort(_ s: Substring) -> (String, String?) {
        if s.hasPrefix("["), let close = s.firstIndex(of: "]") {
            let host = String(s[s.index(after: s.startIndex)..<close])
            let after = s[s.index(after: close)...]
            return (host, after.hasPrefix(":") ? String(after.dropFirst()) : nil)
        }
        if let colon = s.lastIndex(of: ":") { return (String(s[..<colon]), String(s[s.index(after: colon)...])) }
        return (String(s), nil)
    }
}

/// The program that carries git's protocol to the server, chosen as git chooses it.
public struct SSHCommand: Equatable, Sendable {
    /// How the program takes its arguments.
    public enum Variant: String, Sendable {
        /// OpenSSH: `-p PORT`, `-o Option=value`, `-G`.
        case openSSH = "ssh"
        /// Anything else: only the destination and the command, as git's "simple" variant.
        case simple
    }

    /// The command as configured: a shell command (`GIT_SSH_COMMAND`, `core.sshCommand`) or a
    /// program's path (`GIT_SSH`, or `ssh`).
    public let command: String
    /// Whether `command` is run through `sh -c` (git does so for the first two).
    public let throughShell: Bool
    public let variant: Variant

    public init(command: String, throughShell: Bool, variant: Variant) {
        self.command = command
        self.throughShell = throughShell
        self.variant = variant
    }

    /// git's order: `GIT_SSH_COMMAND`, then `core.sshCommand`, then `GIT_SSH`, then `ssh` from
    /// `PATH`. The variant comes from `GIT_SSH_VARIANT` or `ssh.variant` when set to `ssh` or
    /// `simple`, else from the program's name.
    public static func choose(environment: (String) -> String?, coreSSHCommand: String?, variantSetting: String?) -> SSHCommand {
        let chosen: (String, Bool)
        if let c = environment("GIT_SSH_COMMAND"), !c.isEmpty {
            chosen = (c, true)
        } else if let c = coreSSHCommand, !c.isEmpty {
            chosen = (c, true)
        } else if let c = environment("GIT_SSH"), !c.isEmpty {
            chosen = (c, false)
        } else {
            chosen = ("ssh", false)
        }
        let variant: Variant
        switch (environment("GIT_SSH_VARIANT") ?? variantSetting)?.lowercased() {
        case "ssh": variant = .openSSH
        case "simple", "plink", "putty", "tortoiseplink": variant = .simple
        default:
            let program = chosen.1 ? (chosen.0.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? "") : chosen.0
            let name = program.split(separator: "/").last.map(String.init) ?? program
            variant = name == "ssh" || name == "ssh.exe" ? .openSSH : .simple
        }
        return SSHCommand(command: chosen.0, throughShell: chosen.1, variant: variant)
    }

    /// The argument vector that runs the command with `arguments`: git's `sh -c 'CMD "$@"' CMD
    /// ARGS...` for shell commands.
    public func argv(_ arguments: [String]) -> [String] {
        throughShell ? ["/bin/sh", "-c", command + " \"$@\"", command] + arguments : [command] + arguments
    }

    /// Arguments for `service` (`git-upload-pack`, `git-receive-pack`) at `address`. `batch`
    /// turns off every question OpenSSH could ask (passphrases, unknown host keys).
    public func arguments(service: String, address: SSHAddress, batch: Bool) throws -> [String] {
        try options(address: address, batch: batch) + [address.destination, "\(service) \(Self.quoted(address.path))"]
    }

    /// Options before the destination (also for `-G`, which prints what OpenSSH would use).
    public func options(address: SSHAddress, batch: Bool) throws -> [String] {
        var args: [String] = []
        switch variant {
        case .openSSH:
            if batch { args += ["-o", "BatchMode=yes"] }
            if let port = address.port { args += ["-p", port] }
        case .simple:
            if let port = address.port {
                throw GitError(
                    code: -1, errorClass: Int32(GIT_ERROR_SSH.rawValue), message: "ssh variant 'simple' does not support setting port \(port)",
                    function: "ssh")
            }
        }
        return args
    }

    /// `'path'` with each `'` and `!` escaped, as git quotes the path for the remote shell.
    static func quoted(_ path: String) -> String {
        var out = "'"
        for c in path {
            if c == "'" || c == "!" {
                out += "'\\\(c)'"
            } else {
                out.append(c)
            }
        }
        return out + "'"
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension StringProtocol {
    fileprivate func range(of needle: String) -> Range<Index>? {
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(needle) { return i..<index(i, offsetBy: needle.count) }
            i = index(after: i)
        }
        return nil
    }
}
