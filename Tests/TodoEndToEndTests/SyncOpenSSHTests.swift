import Glibc
import Foundation
import Testing

/// ssh remotes through the system's OpenSSH client, set up as people set it up: Host aliases
/// in `~/.ssh/config`, keys with passphrases in an agent, known_hosts, and the failures each of
/// them can give. Members run without a terminal, as from cron.
@Suite(.timeLimit(.minutes(20)), .kit) struct SyncOpenSSHTests {
    /// The passphrase of the encrypted keys these tests make.
    static let passphrase = "correct horse"

    /// A `Host` alias that names the address, port, user and key: both URL forms reach it.
    @Test func aHostAliasInSSHConfig() throws {
        let host = try GitHost(.ssh)
        let path = try host.createRepository()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host)
        for m in [alice, bob] {
            // The key under a name ssh would not try unless told: only the alias names it.
            let key = m.sb.home + "/.ssh/household_key"
            try FileManager.default.moveItem(atPath: m.sb.home + "/.ssh/id_ed25519", toPath: key)
            try host.writeSSHConfig(
                in: m.sb,
                hosts: """
                    Host nas
                        HostName 127.0.0.1
                        Port \(host.port)
                        User \(loginName)
                        IdentityFile \(key)
                    """)
        }
        let url = "ssh://nas\(path)"
        try alice.create(remote: url)
        _ = try alice.add("From Alice")
        let first = try alice.sync()
        #expect(first.stdout == "Synced with \(url): received 0, sent 1.\n", "\(first)")

        // scp-like: a non-standard port can only come from the Host entry.
        let scp = "nas:\(path)"
        let joined = try bob.join(scp)
        #expect(joined.stdout == "Joined household \"home\" from \(scp) (1 task) as Bob.\n", "\(joined)")
        _ = try bob.add("From Bob")
        let sent = try bob.sync()
        #expect(sent.stdout == "Synced with \(scp): received 0, sent 1.\n", "\(sent)")
        try syncUntilQuiet([alice, bob])
        try expectConverged([alice, bob], host: host)
        #expect(Set(try alice.allTitles()) == ["From Alice", "From Bob"])
    }

    /// `ssh://user@host:port/path` takes its port from the URL, over a Host entry's.
    @Test func aPortInTheURLWinsOverTheConfig() throws {
        let host = try GitHost(.ssh)
        let path = try host.createRepository()
        let alice = try Member("Alice", host: host)
        try host.writeSSHConfig(in: alice.sb, hosts: "Host 127.0.0.1\n    Port 9\n")
        let url = "ssh://\(loginName)@127.0.0.1:\(host.port)\(path)"
        try alice.create(remote: url)
        _ = try alice.add("Through the URL's port")
        let r = try alice.sync()
        #expect(r.stdout == "Synced with \(url): received 0, sent 1.\n", "\(r)")
        #expect(try host.git("household.git", "log", "-1", "--format=%s", "refs/heads/main").stdout.contains("Through the URL's port"))
    }

    /// git's core.sshCommand, set in the household alone, picks the ssh configuration (here
    /// the one that defines the alias of the URL).
    @Test func gitsCoreSSHCommand() throws {
        let host = try GitHost(.ssh)
        let path = try host.createRepository()
        let alice = try Member("Alice", host: host)
        let command = try #require(alice.env["GIT_SSH_COMMAND"])
        alice.env["GIT_SSH_COMMAND"] = nil
        // A name no real configuration defines.
        let alias = "todo-test-nas-\(host.port)"
        try host.writeSSHConfig(in: alice.sb, hosts: "Host \(alias)\n    HostName 127.0.0.1\n    Port \(host.port)\n    User \(loginName)\n")
        let url = "ssh://\(alias)\(path)"
        try alice.create(remote: url)
        #expect(try alice.git("config", "core.sshCommand", command).exitCode == 0)
        _ = try alice.add("Through core.sshCommand")
        let first = try alice.sync()
        #expect(first.exitCode == 0, "\(first)")
        // A second member's change makes the next sync fetch as well as push.
        let bob = try Member("Bob", host: host)
        try bob.join(host.url())
        _ = try bob.add("From Bob")
        try bob.sync()
        _ = try alice.add("Second")
        let second = try alice.sync()
        #expect(second.stdout.hasPrefix("Synced with \(url): received 1, sent 1, merged.\n"), "\(second)")
        // Without the setting, ssh does not know the alias.
        #expect(try alice.git("config", "--unset", "core.sshCommand").exitCode == 0)
        let without = try alice.todo("sync")
        #expect(without.exitCode == 75 && without.stderr.contains("Could not find the host \(alias)"), "\(without)")
    }

    /// A key with a passphrase, unlocked once in ssh-agent: sync never asks.
    @Test func anEncryptedKeyServedByAnAgent() throws {
        let host = try GitHost(.ssh)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let key = try encryptedKey(for: host, in: alice)
        let socket = alice.sb.root + "/agent.sock"
        let (agent, _) = try ServerProcess.start(
            "ssh-agent", try requireProgram("ssh-agent"), ["-D", "-a", socket], environment: alice.sb.baseEnvironment, ready: "SSH_AUTH_SOCK=")
        defer { agent.stop() }
        let askpass = alice.sb.root + "/askpass"
        try writeBytes(askpass, Array("#!/bin/sh\necho '\(Self.passphrase)'\n".utf8))
        chmod(askpass, 0o755)
        let added = try runProgram(
            try requireProgram("ssh-add"), [key], env: ["SSH_AUTH_SOCK": socket, "SSH_ASKPASS": askpass, "SSH_ASKPASS_REQUIRE": "force"],
            in: alice.sb)
        try #require(added.exitCode == 0, "\(added)")
        alice.env["SSH_AUTH_SOCK"] = socket

        try alice.create(remote: host.url())
        _ = try alice.add("Through the agent")
        let r = try alice.todo("sync", "--quiet")
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        #expect(try host.git("household.git", "log", "-1", "--format=%s", "refs/heads/main").stdout.contains("Through the agent"))
    }

    /// The same key with no agent and no terminal: 77 at once, naming the key and the cure.
    @Test func anEncryptedKeyWithoutAnAgent() throws {
        let host = try GitHost(.ssh)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let key = try encryptedKey(for: host, in: alice)
        try alice.create(remote: host.url())
        _ = try alice.add("Waits for the key")
        let before = try LocalState(alice)
        for args in [["sync"], ["sync", "--quiet"]] {
            let r = try alice.todo(args)
            #expect(r.exitCode == 77, "\(r)")
            #expect(r.stderr.contains("the ssh key \(key) needs its passphrase"), "\(r)")
            #expect(r.stderr.contains("ssh-add \(key)"), "\(r)")
            try expectUntouched(alice, since: before, pending: ["Waits for the key"])
        }
        let r = try alice.todo("sync", "--quiet")
        #expect(r.exitCode == 77, "\(r)")
    }

    /// At a terminal ssh asks for the passphrase there (once per connection: the fetch and the
    /// push, as `git pull` and `git push` each ask), and the sync goes through.
    @Test func anEncryptedKeyAtATerminal() throws {
        let host = try GitHost(.ssh)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        _ = try encryptedKey(for: host, in: alice)
        try alice.create(remote: host.url())
        _ = try alice.add("Typed for")
        // A terminal of its own for `todo sync`: answer each passphrase prompt, give up after 60 s.
        let driver = """
            import os, pty, select, sys, time
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[1], sys.argv[1:])
            seen, answered, deadline = b"", 0, time.time() + 60
            while time.time() < deadline:
                ready, _, _ = select.select([fd], [], [], 1)
                if not ready:
                    continue
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    break
                if not data:
                    break
                seen += data
                # ssh turns echo off (flushing what was typed before) and then shows the prompt.
                while seen.count(b"Enter passphrase") > answered:
                    os.write(fd, os.environ["PASSPHRASE"].encode() + b"\\n")
                    answered += 1
            else:
                os.kill(pid, 9)
            _, status = os.waitpid(pid, 0)
            sys.stdout.write(seen.decode(errors="replace"))
            sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 99)
            """
        var env = alice.sb.todoEnvironment(alice.env)
        env["PASSPHRASE"] = Self.passphrase
        let (out, err) = alice.sb.nextIO()
        let r = try spawn(
            try requireProgram("python3"), ["-c", driver, todoBinary, "sync"], environment: env, stdinPath: alice.sb.root + "/io/empty",
            stdoutPath: out, stderrPath: err
        ).wait()
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stdout.contains("Enter passphrase for key") && r.stdout.contains("received 0, sent 1."), "\(r)")
        #expect(try host.git("household.git", "log", "-1", "--format=%s", "refs/heads/main").stdout.contains("Typed for"))
    }

    /// Another key answers for the host: 78, "changed", a warning of an attack, how to check,
    /// and nothing fetched or sent.
    @Test func aChangedHostKey() throws {
        let host = try GitHost(.ssh)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host)
        try alice.create(remote: host.url())
        _ = try alice.add("Shared")
        try alice.sync()
        try bob.join(host.url())
        _ = try bob.add("Bob's, on the remote only")
        try bob.sync()
        _ = try alice.add("Alice's, not sent")
        let before = try LocalState(alice)
        let remoteBefore = try host.git("household.git", "rev-parse", "refs/heads/main").stdout

        let impostor = host.box.root + "/impostor_key"
        try host.makeKey(impostor, comment: "impostor")
        try writeBytes(alice.sb.home + "/.ssh/known_hosts", Array(try host.knownHostsLine(key: impostor + ".pub").utf8))
        let r = try alice.todo("sync")
        #expect(r.exitCode == 78, "\(r)")
        #expect(r.stderr.contains("The ssh host key of [127.0.0.1]:\(host.port) has CHANGED"), "\(r)")
        #expect(r.stderr.contains("This may be an attack") && r.stderr.contains("Nothing was fetched or sent."), "\(r)")
        #expect(r.stderr.contains("ssh-keygen -lf") && r.stderr.contains("ssh-keygen -R '[127.0.0.1]:\(host.port)'"), "\(r)")
        #expect(!r.stderr.contains("ssh-keyscan") && !r.stderr.contains("known_hosts >>"), "\(r)")
        try expectUntouched(alice, since: before, pending: ["Alice's, not sent"])
        #expect(!(try alice.allTitles()).contains("Bob's, on the remote only"))
        #expect(try host.git("household.git", "rev-parse", "refs/heads/main").stdout == remoteBefore)
        let status = try alice.todo("status")
        #expect(status.stdout.contains("CHANGED"), "\(status)")
    }

    /// At the deadline the ssh child and everything it started end; nothing is left running.
    @Test func theDeadlineEndsSSHAndWhatItStarted() throws {
        let box = try Sandbox()
        let (silent, port) = try startHTTPServer(["--silent"], home: box.home)
        defer { silent.stop() }
        let alice = try Member("Alice", host: nil)
        try alice.change("init", "--name", "Alice", "--email", alice.email)
        _ = try alice.add("Not sent")
        // A wrapper as people write them: a shell that starts ssh and waits for it.
        let pids = alice.sb.root + "/pids"
        let wrapper = alice.sb.root + "/ssh-wrapper"
        try writeBytes(
            wrapper,
            Array("#!/bin/sh\necho $$ >> \(pids)\nssh -F /dev/null -o UserKnownHostsFile=/dev/null \"$@\" &\necho $! >> \(pids)\nwait $!\n".utf8))
        chmod(wrapper, 0o755)
        alice.env["GIT_SSH"] = wrapper
        alice.env["GIT_SSH_VARIANT"] = "ssh"
        try alice.change("remote", "set", "ssh://\(loginName)@127.0.0.1:\(port)/srv/household.git")
        let r = try alice.todo("sync", "--timeout", "2")
        #expect(r.exitCode == 75 && r.stderr.contains("did not answer within 2 seconds"), "\(r)")
        let started = String(decoding: readBytes(pids) ?? [], as: UTF8.self).split(separator: "\n").compactMap { pid_t($0) }
        #expect(started.count == 2, "\(started)")
        for pid in started {
            #expect(!isRunning(pid), "process \(pid) was left running")
        }
    }

    /// A program that is not OpenSSH gets no port, as in git: a URL with one is a set-up error.
    @Test func aPortForAProgramThatTakesNone() throws {
        let alice = try Member("Alice", host: nil)
        try alice.change("init", "--name", "Alice", "--email", alice.email)
        _ = try alice.add("Not sent")
        alice.env["GIT_SSH"] = "/usr/bin/plink"
        try alice.change("remote", "set", "ssh://nas:2222/srv/household.git")
        let r = try alice.todo("sync")
        #expect(r.exitCode == 78 && r.stderr.contains("does not support setting port 2222"), "\(r)")
    }

    // MARK: Helpers

    /// Makes an ed25519 key with a passphrase as the member's `~/.ssh/id_ed25519`, authorised on
    /// the host; returns its path.
    func encryptedKey(for host: GitHost, in m: Member) throws -> String {
        let key = m.sb.home + "/.ssh/id_ed25519"
        for suffix in ["", ".pub"] { try? FileManager.default.removeItem(atPath: key + suffix) }
        let r = try runProgram(try requireProgram("ssh-keygen"), ["-q", "-t", "ed25519", "-N", Self.passphrase, "-C", "locked", "-f", key], in: m.sb)
        try #require(r.exitCode == 0, "\(r)")
        let authorized = host.sshDirectory + "/authorized_keys"
        try writeBytes(authorized, (readBytes(authorized) ?? []) + (readBytes(key + ".pub") ?? []))
        return key
    }

    /// Whether `pid` exists and is not a zombie (a zombie has ended; only its parent can reap it).
    func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = readBytes("/proc/\(pid)/stat") else { return false }
        let text = String(decoding: stat, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return false }
        let state = text[text.index(after: close)...].dropFirst().first
        return state != "Z" && state != "X"
    }
}
