import Glibc
import Foundation
import Testing

// A household's shared remote as the sync tests serve it: bare repositories and, for the
// network transports, a server of their own on a free loopback port.

/// How members reach the household's bare repository.
enum Transport: String, CaseIterable, Sendable, CustomStringConvertible {
    /// A plain path to the bare repository.
    case path
    /// A `file://` URL.
    case file
    /// `git daemon` with receive-pack enabled.
    case git
    /// sshd, with the member's key in `~/.ssh/id_ed25519`.
    case ssh
    /// sshd, with the member's key only in ssh-agent.
    case sshAgent
    /// git's smart HTTP behind basic auth, the password from a git credential helper.
    case http

    var description: String { rawValue }
}

/// Where a household's bare repositories live and the server that makes them reachable over a
/// transport, on a free loopback port of its own; its files in a sandbox of its own.
final class GitHost {
    let transport: Transport
    let box: Sandbox
    private(set) var servers: [ServerProcess] = []
    private(set) var port: UInt16 = 0
    /// Whether the http server speaks TLS (with a self-signed certificate).
    let tls: Bool
    /// What the http server's 401 offers besides basic auth.
    enum Kerberos { case no, first, only }
    /// Whether the http server's 401 offers Kerberos (Negotiate): not at all, before basic
    /// auth, or instead of it.
    let kerberos: Kerberos
    let httpUser = "member"
    /// Characters that need percent-encoding in a credential URL, on purpose.
    let httpPassword = "s3cret p@ss"
    private var agentSocket: String?

    var repositories: String { box.root + "/repos" }
    var sshDirectory: String { box.root + "/ssh" }
    var userKey: String { sshDirectory + "/member_key" }
    var busyFile: String { box.root + "/busy" }

    /// `gitAccessHook`: a shell script git daemon runs before serving each connection, with the
    /// service and the repository's path as its first arguments.
    init(_ transport: Transport, tls: Bool = false, kerberos: Kerberos = .no, gitAccessHook: String? = nil) throws {
        self.transport = transport
        self.tls = tls
        self.kerberos = kerberos
        box = try Sandbox()
        try FileManager.default.createDirectory(atPath: repositories, withIntermediateDirectories: true)
        switch transport {
        case .path, .file: break
        case .git: try startGitDaemon(accessHook: gitAccessHook)
        case .ssh, .sshAgent: try startSSH()
        case .http: try startHTTP()
        }
    }

    /// Creates an empty bare repository (as a household's shared remote is made) and returns its path.
    @discardableResult
    func createRepository(_ name: String = "household.git") throws -> String {
        let path = repositories + "/" + name
        let r = try box.gitRun(["init", "-q", "--bare", path])
        try #require(r.exitCode == 0, "\(r)")
        return path
    }

    func url(_ name: String = "household.git") -> String {
        switch transport {
        case .path: return repositories + "/" + name
        case .file: return "file://" + repositories + "/" + name
        case .git: return "git://127.0.0.1:\(port)/\(name)"
        case .ssh, .sshAgent: return "ssh://\(loginName)@127.0.0.1:\(port)\(repositories)/\(name)"
        case .http: return "\(tls ? "https" : "http")://127.0.0.1:\(port)/\(name)"
        }
    }

    /// Runs the git CLI in the bare repository `name`.
    func git(_ name: String = "household.git", _ args: String...) throws -> Run {
        try box.gitRun(["-C", repositories + "/" + name] + args)
    }

    /// Sets a member up to reach this host, as a person would: ssh keys and known_hosts, or a
    /// git credential helper holding the password. Returns what the member's environment needs.
    func admit(_ sb: Sandbox) throws -> [String: String] {
        switch transport {
        case .path, .file, .git:
            return [:]
        case .ssh, .sshAgent:
            let dot = sb.home + "/.ssh"
            try FileManager.default.createDirectory(atPath: dot, withIntermediateDirectories: true)
            chmod(dot, 0o700)
            try writeBytes(dot + "/known_hosts", Array(try knownHostsLine().utf8))
            try writeSSHConfig(in: sb)
            if transport == .ssh {
                try installUserKey(in: sb)
                return sshEnvironment(sb)
            }
            return sshEnvironment(sb).merging(["SSH_AUTH_SOCK": agentSocket ?? ""]) { _, new in new }
        case .http:
            try writeBytes(sb.home + "/.gitconfig", Array("[credential]\n\thelper = store\n".utf8))
            try storeCredentials(in: sb, password: httpPassword)
            return [:]
        }
    }

    /// ssh reads `~/.ssh` of the account's home in the password database, never `$HOME`, so a
    /// sandbox's own `~/.ssh/config` reaches it through `GIT_SSH_COMMAND`, as a person would
    /// point git at another configuration.
    func sshEnvironment(_ sb: Sandbox) -> [String: String] {
        ["GIT_SSH_COMMAND": "ssh -F '\(sb.home)/.ssh/config'"]
    }

    /// The sandbox's `~/.ssh/config`: `hosts` (Host blocks, which come first and so win), then
    /// what a home directory's defaults would be: its known_hosts and its id_ed25519.
    func writeSSHConfig(in sb: Sandbox, hosts: String = "") throws {
        let dot = sb.home + "/.ssh"
        let text = hosts + """

            Host *
                UserKnownHostsFile \(dot)/known_hosts
                GlobalKnownHostsFile /dev/null
                IdentityFile \(dot)/id_ed25519

            """
        try writeBytes(dot + "/config", Array(text.utf8))
    }

    func installUserKey(in sb: Sandbox, from key: String? = nil) throws {
        let dot = sb.home + "/.ssh"
        try FileManager.default.createDirectory(atPath: dot, withIntermediateDirectories: true)
        for suffix in ["", ".pub"] {
            let target = dot + "/id_ed25519" + suffix
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: (key ?? userKey) + suffix, toPath: target)
            chmod(target, suffix.isEmpty ? 0o600 : 0o644)
        }
    }

    /// `~/.git-credentials` for `git credential-store`, as `git credential approve` writes it.
    func storeCredentials(in sb: Sandbox, password: String) throws {
        let encoded = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? password
        // For the address and, for the https tests that need a host name, for localhost.
        let lines = ["127.0.0.1", "localhost"].map { "\(tls ? "https" : "http")://\(httpUser):\(encoded)@\($0):\(port)\n" }
        try writeBytes(sb.home + "/.git-credentials", Array(lines.joined().utf8))
        chmod(sb.home + "/.git-credentials", 0o600)
    }

    /// The known_hosts line for this host's sshd, in the `[127.0.0.1]:PORT` form ssh uses for
    /// ports other than 22.
    func knownHostsLine(port: UInt16? = nil, key: String? = nil) throws -> String {
        let pub = try String(contentsOfFile: key ?? (sshDirectory + "/host_key.pub"), encoding: .utf8)
        let fields = pub.split(separator: " ")
        let p = port ?? self.port
        let host = p == 22 ? "127.0.0.1" : "[127.0.0.1]:\(p)"
        return "\(host) \(fields[0]) \(fields[1])\n"
    }

    /// Makes a new ed25519 key pair at `path` (and `path.pub`).
    func makeKey(_ path: String, comment: String) throws {
        let keygen = try requireProgram("ssh-keygen")
        let r = try runProgram(keygen, ["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path], in: box)
        try #require(r.exitCode == 0, "\(r)")
    }

    // MARK: Servers

    private func startGitDaemon(accessHook: String?) throws {
        try requireGitProgram("git-daemon")
        var options = [String]()
        if let accessHook {
            let path = box.root + "/access-hook"
            try writeBytes(path, Array(accessHook.utf8))
            chmod(path, 0o755)
            options.append("--access-hook=\(path)")
        }
        let (server, port) = try ServerProcess.onFreePort("git daemon") { port in
            try ServerProcess.start(
                "git daemon", gitBinary,
                [
                    "daemon", "--reuseaddr", "--listen=127.0.0.1", "--port=\(port)", "--base-path=\(repositories)",
                    "--export-all", "--enable=receive-pack", "--verbose",
                ] + options + [repositories],
                environment: serverEnvironment(home: box.home), ready: "Ready to rumble"
            ).0
        }
        servers.append(server)
        self.port = port
    }

    private func startSSH() throws {
        let sshd = try requireProgram("sshd")
        _ = try requireProgram("ssh")
        try FileManager.default.createDirectory(atPath: sshDirectory, withIntermediateDirectories: true)
        try makeKey(sshDirectory + "/host_key", comment: "test host")
        try makeKey(userKey, comment: "member")
        try FileManager.default.copyItem(atPath: userKey + ".pub", toPath: sshDirectory + "/authorized_keys")
        if geteuid() == 0 {
            // sshd's privilege separation directory, which a root sshd insists on.
            mkdir("/run/sshd", 0o755)
        }
        let (server, port) = try startSSHD(sshd, port: nil)
        servers.append(server)
        self.port = port
        if transport == .sshAgent { try startAgent() }
    }

    /// An sshd for this host's repositories on `port`, or on a free one.
    func startSSHD(_ sshd: String, port fixed: UInt16?) throws -> (ServerProcess, UInt16) {
        let launch = { (port: UInt16) throws -> ServerProcess in
            let config = self.sshDirectory + "/sshd_config.\(port)"
            var text = """
                ListenAddress 127.0.0.1
                Port \(port)
                HostKey \(self.sshDirectory)/host_key
                AuthorizedKeysFile \(self.sshDirectory)/authorized_keys
                PidFile \(self.sshDirectory)/sshd.\(port).pid
                StrictModes no
                UsePAM no
                PubkeyAuthentication yes
                PasswordAuthentication no
                KbdInteractiveAuthentication no
                HostbasedAuthentication no
                PrintMotd no
                AllowUsers \(loginName)

                """
            if geteuid() == 0 { text += "PermitRootLogin yes\n" }
            try writeBytes(config, Array(text.utf8))
            return try ServerProcess.start(
                "sshd", sshd, ["-D", "-e", "-f", config], environment: serverEnvironment(home: self.box.home),
                ready: "Server listening on 127.0.0.1 port \(port)"
            ).0
        }
        if let fixed { return (try launch(fixed), fixed) }
        return try ServerProcess.onFreePort("sshd", launch)
    }

    /// An ssh-agent of this host's own, holding the member key; members get its socket.
    private func startAgent() throws {
        let agent = try requireProgram("ssh-agent")
        let add = try requireProgram("ssh-add")
        let socket = box.root + "/agent.sock"
        let (server, _) = try ServerProcess.start(
            "ssh-agent", agent, ["-D", "-a", socket], environment: serverEnvironment(home: box.home),
            ready: "SSH_AUTH_SOCK=")
        servers.append(server)
        agentSocket = socket
        let r = try runProgram(add, [userKey], env: ["SSH_AUTH_SOCK": socket], in: box)
        try #require(r.exitCode == 0, "\(r)")
    }

    private func startHTTP() throws {
        var args = ["--root", repositories, "--user", httpUser, "--password", httpPassword, "--busy-file", busyFile]
        switch kerberos {
        case .no: break
        case .first: args.append("--negotiate")
        case .only: args.append("--negotiate-only")
        }
        if tls {
            let openssl = try requireProgram("openssl")
            let r = try runProgram(
                openssl,
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", box.root + "/key.pem",
                    "-out", box.root + "/cert.pem",
                ], in: box)
            try #require(r.exitCode == 0, "\(r)")
            args += ["--cert", box.root + "/cert.pem", "--key", box.root + "/key.pem"]
        }
        let (server, port) = try startHTTPServer(args, home: box.home)
        servers.append(server)
        self.port = port
    }

    /// Returns once the http server has finished every request it accepted so far: a client
    /// killed mid-push may have left git-http-backend still writing the repository. Other
    /// transports have no server-side work that outlives the client the tests kill.
    func quiesce() throws {
        guard transport == .http else { return }
        let script = """
            import ssl, sys, urllib.request
            context = ssl._create_unverified_context()
            urllib.request.urlopen(sys.argv[1], context=context, timeout=600).read()
            """
        let scheme = tls ? "https" : "http"
        let r = try runProgram(try requireProgram("python3"), ["-c", script, "\(scheme)://127.0.0.1:\(port)/_quiesce"], in: box)
        try #require(r.exitCode == 0, "\(r)")
    }

    /// The next `n` requests to the http server are answered with 503.
    func setBusy(_ n: Int) throws {
        try writeBytes(busyFile, Array("\(n)\n".utf8))
    }

    var busyLeft: Int {
        Int(String(decoding: readBytes(busyFile) ?? [], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Stops every server of this host (its port then refuses connections).
    func stopServers() {
        servers.forEach { $0.stop() }
    }

    /// The servers go before the directory they serve.
    deinit { stopServers() }
}
