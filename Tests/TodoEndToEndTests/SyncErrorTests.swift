import Foundation
import Testing

/// Every class of sync failure, each produced for real: the exit code, a message that says
/// what happened and what to do, and nothing local touched (same commits, a clean and sound
/// repository, the unsent change still there).
@Suite(.timeLimit(.minutes(30)), .kit) struct SyncErrorTests {
    static let pending = "Not sent yet"

    /// Alice's household, synced once with `url`, then one change that waits to be sent.
    func household(_ host: GitHost?, url: String?) throws -> (Member, LocalState) {
        let alice = try Member("Alice", host: host)
        if let url {
            try alice.create(remote: url)
            _ = try alice.add("Synced before")
            try alice.sync()
        } else {
            try alice.change("init", "--name", "Alice", "--email", alice.email)
        }
        _ = try alice.add(Self.pending)
        return (alice, try LocalState(alice))
    }

    /// Exit 75 and the promise that the change is kept.
    func expectTransient(_ r: Run, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.exitCode == 75, "\(r)", sourceLocation: sourceLocation)
        #expect(r.stderr.contains(what), "\(r)", sourceLocation: sourceLocation)
        #expect(r.stderr.contains("Your 1 change is saved and will be sent on the next sync."), "\(r)", sourceLocation: sourceLocation)
        #expect(r.stdout.isEmpty, "\(r)", sourceLocation: sourceLocation)
    }

    @Test(arguments: [Transport.git, .ssh, .http])
    func aStoppedServerRefusesTheConnection(over transport: Transport) throws {
        let host = try GitHost(transport)
        try host.createRepository()
        let (alice, before) = try household(host, url: host.url())
        host.stopServers()
        let r = try alice.todo("sync")
        expectTransient(r, "Could not reach the household remote \(host.url())")
        #expect(r.stderr.lowercased().contains("connection refused"), "\(r)")
        try expectUntouched(alice, since: before, pending: [Self.pending])
    }

    /// A server that accepts the connection and then says nothing: only `--timeout` ends it.
    @Test(arguments: ["http", "git", "ssh"])
    func aSilentServerTimesOut(scheme: String) throws {
        let box = try Sandbox()
        let (silent, port) = try startHTTPServer(["--silent"], home: box.home)
        defer { silent.stop() }
        let url = scheme == "ssh" ? "ssh://\(loginName)@127.0.0.1:\(port)/srv/household.git" : "\(scheme)://127.0.0.1:\(port)/household.git"
        let (alice, before) = try household(nil, url: nil)
        try alice.change("remote", "set", url)
        let r = try alice.todo("sync", "--timeout", "2")
        expectTransient(r, "The household remote did not answer within 2 seconds")
        #expect(silent.output.count(containing: "accepted connection") >= 1, "\(silent.output.text)")
        try expectUntouched(alice, since: before, pending: [Self.pending])
    }

    /// 503 for fewer requests than the retries: the sync gets through. 503 for longer: 75.
    @Test func aBusyServerIsRetried() throws {
        let host = try GitHost(.http)
        try host.createRepository()
        let (alice, _) = try household(host, url: host.url())
        try host.setBusy(2)
        let through = try alice.sync()
        #expect(through.stdout == "Synced with \(host.url()): received 0, sent 1.\n", "\(through)")
        #expect(host.busyLeft == 0, "both 503s were met")
        #expect(try host.git("household.git", "log", "-1", "--format=%s", "refs/heads/main").stdout.contains(Self.pending))

        _ = try alice.add("Second change")
        let before = try LocalState(alice)
        try host.setBusy(1000)
        let r = try alice.todo("sync")
        #expect(r.exitCode == 75, "\(r)")
        #expect(r.stderr.contains("The household remote is busy") && r.stderr.contains("503"), "\(r)")
        #expect(r.stderr.contains("Your 1 change is saved and will be sent on the next sync."), "\(r)")
        #expect(1000 - host.busyLeft >= 2, "retried before giving up: \(1000 - host.busyLeft) requests")
        try expectUntouched(alice, since: before, pending: [Self.pending, "Second change"])
        try host.setBusy(0)
        try alice.sync()
    }

    @Test func aWrongOrMissingSSHKeyIsRefused() throws {
        let host = try GitHost(.ssh)
        try host.createRepository()
        let (alice, before) = try household(host, url: host.url())
        let stranger = host.box.root + "/stranger_key"
        try host.makeKey(stranger, comment: "stranger")
        try host.installUserKey(in: alice.sb, from: stranger)
        let wrong = try alice.todo("sync")
        #expect(wrong.exitCode == 77, "\(wrong)")
        #expect(wrong.stderr.contains("did not accept your credentials") && wrong.stderr.contains("ssh-agent"), "\(wrong)")
        try expectUntouched(alice, since: before, pending: [Self.pending])

        // No key file and an agent without keys.
        for suffix in ["", ".pub"] { try FileManager.default.removeItem(atPath: alice.sb.home + "/.ssh/id_ed25519" + suffix) }
        let none = try alice.todo("sync")
        #expect(none.exitCode == 77, "\(none)")
        try expectUntouched(alice, since: before, pending: [Self.pending])
    }

    @Test func aWrongOrMissingPasswordIsRefused() throws {
        let host = try GitHost(.http)
        try host.createRepository()
        let (alice, before) = try household(host, url: host.url())
        try host.storeCredentials(in: alice.sb, password: "not the password")
        let wrong = try alice.todo("sync")
        #expect(wrong.exitCode == 77, "\(wrong)")
        #expect(wrong.stderr.contains("did not accept your credentials") && wrong.stderr.contains("credential helper"), "\(wrong)")
        try expectUntouched(alice, since: before, pending: [Self.pending])

        // Nothing stored at all: no prompt (no terminal), 77.
        try FileManager.default.removeItem(atPath: alice.sb.home + "/.git-credentials")
        let none = try alice.todo("sync")
        #expect(none.exitCode == 77, "\(none)")
        try expectUntouched(alice, since: before, pending: [Self.pending])
    }

    /// A server whose 401 offers Kerberos (HTTP Negotiate) before basic auth: todo offers no
    /// Kerberos ticket, and the stored password gets in; a wrong one is refused as from any
    /// server. A server that offers Kerberos only is refused with a message that says so.
    @Test func aServerOfferingKerberosTakesThePasswordOrSaysWhatItWants() throws {
        let host = try GitHost(.http, kerberos: .first)
        try host.createRepository()
        let (alice, before) = try household(host, url: host.url())
        try host.storeCredentials(in: alice.sb, password: "not the password")
        let wrong = try alice.todo("sync")
        #expect(wrong.exitCode == 77, "\(wrong)")
        #expect(wrong.stderr.contains("did not accept your credentials"), "\(wrong)")
        try expectUntouched(alice, since: before, pending: [Self.pending])
        try host.storeCredentials(in: alice.sb, password: host.httpPassword)
        let right = try alice.todo("sync")
        #expect(right.exitCode == 0, "\(right)")
        #expect(try host.git("household.git", "log", "-1", "--format=%s", "refs/heads/main").stdout.contains(Self.pending))

        let only = try GitHost(.http, kerberos: .only)
        try only.createRepository()
        let bob = try Member("Bob", host: only)
        try bob.create(remote: only.url())
        _ = try bob.add(Self.pending)
        let kept = try LocalState(bob)
        let refused = try bob.todo("sync")
        #expect(refused.exitCode == 77, "\(refused)")
        #expect(refused.stderr.contains("asks for Kerberos sign-in (HTTP Negotiate), which todo does not offer"), "\(refused)")
        #expect(refused.stderr.contains("Ask for password sign-in on that server, or use an ssh remote."), "\(refused)")
        try expectUntouched(bob, since: kept, pending: [Self.pending])
    }

    @Test func anUnknownOrChangedSSHHostKeyIsNotTrusted() throws {
        let host = try GitHost(.ssh)
        try host.createRepository()
        let (alice, before) = try household(host, url: host.url())
        let knownHosts = alice.sb.home + "/.ssh/known_hosts"
        try writeBytes(knownHosts, [])
        let unknown = try alice.todo("sync")
        #expect(unknown.exitCode == 78, "\(unknown)")
        #expect(unknown.stderr.contains("is not known yet (not in known_hosts)"), "\(unknown)")
        #expect(unknown.stderr.contains("Connect once at a terminal with `ssh -p \(host.port) \(loginName)@127.0.0.1`"), "\(unknown)")
        #expect(!unknown.stderr.contains("ssh-keyscan"), "never advice to trust a key unseen: \(unknown)")
        try expectUntouched(alice, since: before, pending: [Self.pending])

        // Another key recorded for this host and port: a different server answers.
        let impostor = host.box.root + "/impostor_key"
        try host.makeKey(impostor, comment: "impostor")
        try writeBytes(knownHosts, Array(try host.knownHostsLine(key: impostor + ".pub").utf8))
        let changed = try alice.todo("sync")
        #expect(changed.exitCode == 78, "\(changed)")
        try expectUntouched(alice, since: before, pending: [Self.pending])

        // Joining through an unknown host creates nothing.
        let bob = try Member("Bob", host: host)
        try writeBytes(bob.sb.home + "/.ssh/known_hosts", [])
        let clone = try bob.todo("clone", host.url())
        #expect(clone.exitCode == 78 && clone.stderr.contains("ssh -p \(host.port) \(loginName)@127.0.0.1"), "\(clone)")
        #expect(!FileManager.default.fileExists(atPath: bob.repo), "a failed clone leaves no household")
    }

    @Test(arguments: Transport.allCases)
    func noRepositoryAtTheURL(over transport: Transport) throws {
        let host = try GitHost(transport)
        let url = host.url("missing.git")
        let (alice, before) = try household(host, url: nil)
        try alice.change("remote", "set", url)
        let r = try alice.todo("sync")
        #expect(r.exitCode == 78, "\(r)")
        #expect(r.stderr.contains("There is no git repository at \(url)."), "\(r)")
        try expectUntouched(alice, since: before, pending: [Self.pending])

        let bob = try Member("Bob", host: host)
        let clone = try bob.todo("clone", url, "--name", "Bob")
        #expect(clone.exitCode == 78 && clone.stderr.contains("There is no git repository at \(url)."), "\(clone)")
        #expect(!FileManager.default.fileExists(atPath: bob.repo), "a failed clone leaves no household")
    }

    /// A server that refuses the update of `main` itself (here a pre-receive hook, as a forge's
    /// protected branch would): no retry, the server's reason shown, exit 78.
    @Test(arguments: [Transport.git, .http])
    func aRemoteThatRefusesThePushSaysWhy(over transport: Transport) throws {
        let host = try GitHost(transport)
        let remote = try host.createRepository()
        let (alice, _) = try household(host, url: host.url())
        let hook = remote + "/hooks/pre-receive"
        try writeBytes(hook, Array("#!/bin/sh\necho 'main is protected' >&2\nexit 1\n".utf8))
        chmod(hook, 0o755)
        let before = try LocalState(alice)
        let r = try alice.todo("sync")
        #expect(r.exitCode == 78, "\(r)")
        #expect(r.stderr.contains("The household remote \(host.url()) refused the push of main (pre-receive hook declined)."), "\(r)")
        #expect(r.stderr.contains("Your changes are saved"), "\(r)")
        // Received the empty fetch, merged nothing, kept the change; the remote still has the old main.
        try expectUntouched(alice, since: before, pending: [Self.pending])
        #expect(try host.git("household.git", "log", "-1", "--format=%s", "refs/heads/main").stdout.hasPrefix("add: Synced before ("))
    }

    @Test func noRemoteSet() throws {
        let (alice, before) = try household(nil, url: nil)
        let r = try alice.todo("sync")
        #expect(r.exitCode == 78, "\(r)")
        #expect(r.stderr.contains("no remote") && r.stderr.contains("todo remote set URL"), "\(r)")
        try expectUntouched(alice, since: before, pending: [Self.pending])
        let shown = try alice.todo("remote")
        #expect(shown.stdout.isEmpty && shown.stderr.contains("No remote"), "\(shown)")
    }

    @Test func badRemoteURLs() throws {
        let host = try GitHost(.path)
        let path = try host.createRepository()
        let (alice, before) = try household(host, url: nil)
        // Text no URL can hold is refused when set, and the remote stays as it was.
        for bad in ["", "   ", "/srv/a\nb.git", "http://127.0.0.1/x\u{1B}[2J.git"] {
            let r = try alice.todo("remote", "set", bad)
            #expect(r.exitCode == 64 && r.stderr.contains("not a usable remote URL"), "\(r)")
            let shown = try alice.todo("remote")
            #expect(shown.stdout.isEmpty && shown.stderr.contains("No remote"), "\(shown)")
            expectNoTerminalControls(r)
        }
        // A URL todo cannot speak: the sync says so, with 78.
        for bad in ["bogus://127.0.0.1/household.git", "http://exa mple/household.git"] {
            try alice.change("remote", "set", bad)
            let r = try alice.todo("sync")
            #expect(r.exitCode == 78 && r.stderr.contains("is not a remote URL todo understands"), "\(r)")
            try expectUntouched(alice, since: before, pending: [Self.pending])
        }
        // Mended, the next sync delivers.
        try alice.change("remote", "set", path)
        try alice.sync()
        #expect(try host.git("household.git", "log", "-1", "--format=%s", "refs/heads/main").stdout.contains(Self.pending))
    }

    @Test func aSelfSignedHTTPSCertificateIsNotTrusted() throws {
        let host = try GitHost(.http, tls: true)
        try host.createRepository()
        let url = host.url()
        #expect(url.hasPrefix("https://"))
        let (alice, before) = try household(host, url: nil)
        try alice.change("remote", "set", url)
        let r = try alice.todo("sync")
        #expect(r.exitCode == 78, "\(r)")
        #expect(r.stderr.contains("certificate") && r.stderr.contains("not trusted"), "\(r)")
        try expectUntouched(alice, since: before, pending: [Self.pending])

        let bob = try Member("Bob", host: host)
        let clone = try bob.todo("clone", url)
        #expect(clone.exitCode == 78 && clone.stderr.contains("not trusted"), "\(clone)")
        #expect(!FileManager.default.fileExists(atPath: bob.repo), "a failed clone leaves no household")
    }

    /// The same server is trusted once its certificate is named as a CA the way git takes
    /// one: `GIT_SSL_CAINFO` for a clone, git's `http.sslCAInfo` setting for a household.
    @Test func anHTTPSCertificateTrustedThroughGitsSettingsIsAccepted() throws {
        let host = try GitHost(.http, tls: true)
        try host.createRepository()
        // By name: libgit2's TLS library (mbedTLS 2) matches host names only, not the IP
        // address the certificate also lists. The server still listens on 127.0.0.1 only.
        let url = host.url().replacingOccurrences(of: "https://127.0.0.1:", with: "https://localhost:")
        let ca = host.box.root + "/cert.pem"
        let alice = try Member("Alice", host: host)
        alice.env["GIT_SSL_CAINFO"] = ca
        try alice.create(remote: url)
        _ = try alice.add("Over https")
        try alice.sync()

        let bob = try Member("Bob", host: host)
        bob.env["GIT_SSL_CAINFO"] = ca
        try bob.join(url)
        bob.env["GIT_SSL_CAINFO"] = nil
        #expect(try bob.todo("sync").exitCode == 78, "without the CA the certificate is not trusted")
        #expect(try bob.git("config", "http.sslCAInfo", ca).exitCode == 0)
        _ = try bob.add("From Bob")
        try bob.sync()
        try alice.sync()
        try expectConverged([alice, bob], host: host)
    }
}
