import Testing

@testable import GitKit
@testable import TodoStore

/// What OpenSSH 9 and git write when an ssh transfer fails, one case each, and what it means.
@Suite(.timeLimit(.minutes(20))) struct SSHFailureTests {
    static let changed = """
        @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
        @    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @
        @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
        IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!
        Someone could be eavesdropping on you right now (man-in-the-middle attack)!
        It is also possible that a host key has just been changed.
        The fingerprint for the ED25519 key sent by the remote host is
        SHA256:/i7gBK/Rk1PV7yOm6qTSXHvB/n4yaQuqLt9Ji8H1Ya8.
        Please contact your system administrator.
        Add correct host key in /home/alice/.ssh/known_hosts to get rid of this message.
        Offending ED25519 key in /home/alice/.ssh/known_hosts:1
          remove with:
          ssh-keygen -f "/home/alice/.ssh/known_hosts" -R "[nas.local]:2222"
        Host key for [nas.local]:2222 has changed and you have requested strict checking.
        Host key verification failed.

        """

    @Test func aChangedHostKey() {
        #expect(
            SSHProblem.diagnose(status: 255, stderr: Self.changed)
                == .hostKeyChanged(host: "[nas.local]:2222", fingerprint: "SHA256:/i7gBK/Rk1PV7yOm6qTSXHvB/n4yaQuqLt9Ji8H1Ya8"))
    }

    @Test func anUnknownHostKey() {
        // BatchMode, and without a terminal to ask on.
        let batch = "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\r\nHost key verification failed.\r\n"
        #expect(SSHProblem.diagnose(status: 255, stderr: batch) == .hostKeyUnknown)
        #expect(SSHProblem.diagnose(status: 255, stderr: "Host key verification failed.\n") == .hostKeyUnknown)
    }

    @Test func aRefusedKey() {
        #expect(
            SSHProblem.diagnose(status: 255, stderr: "alice@nas.local: Permission denied (publickey).\n")
                == .authentication(said: "alice@nas.local: Permission denied (publickey)."))
        #expect(
            SSHProblem.diagnose(status: 255, stderr: "Received disconnect from 10.0.0.2 port 22:2: Too many authentication failures\n")
                == .authentication(said: "Received disconnect from 10.0.0.2 port 22:2: Too many authentication failures"))
        #expect(
            SSHProblem.diagnose(status: 255, stderr: "sign_and_send_pubkey: signing failed for ED25519 \"/k\" from agent: agent refused operation\nalice@nas: Permission denied (publickey).\n")
                == .authentication(said: "alice@nas: Permission denied (publickey)."))
    }

    @Test func anUnresolvableName() {
        #expect(
            SSHProblem.diagnose(status: 255, stderr: "ssh: Could not resolve hostname nas: Name or service not known\n")
                == .unresolvable(host: "nas"))
        #expect(
            SSHProblem.diagnose(status: 255, stderr: "ssh: Could not resolve hostname nas.local: Temporary failure in name resolution\n")
                == .unresolvable(host: "nas.local"))
    }

    @Test func aRefusedOrLostConnection() {
        let refused = "ssh: connect to host 127.0.0.1 port 2222: Connection refused"
        #expect(SSHProblem.diagnose(status: 255, stderr: refused + "\n") == .refused(said: refused))
        let closed = "kex_exchange_identification: Connection closed by remote host"
        #expect(SSHProblem.diagnose(status: 255, stderr: closed + "\n") == .refused(said: closed))
        let unreachable = "ssh: connect to host 10.1.1.1 port 22: No route to host"
        #expect(SSHProblem.diagnose(status: 255, stderr: unreachable) == .refused(said: unreachable))
    }

    @Test func aTimeout() {
        let said = "ssh: connect to host 10.1.1.1 port 22: Connection timed out"
        #expect(SSHProblem.diagnose(status: 255, stderr: said + "\n") == .timedOut(said: said))
        let banner = "Connection timed out during banner exchange"
        #expect(SSHProblem.diagnose(status: 255, stderr: banner) == .timedOut(said: banner))
    }

    @Test func noRepositoryThere() {
        let said = "fatal: '/srv/git/home.git' does not appear to be a git repository\n"
        #expect(SSHProblem.diagnose(status: 128, stderr: said) == .noRepository)
    }

    @Test func noGitOnTheServer() {
        let said = "bash: line 1: git-upload-pack: command not found"
        #expect(SSHProblem.diagnose(status: 127, stderr: said + "\n") == .noGitOnServer(said: said))
    }

    @Test func anythingElse() {
        #expect(SSHProblem.diagnose(status: 255, stderr: "") == .other(said: ""))
        #expect(SSHProblem.diagnose(status: 1, stderr: "something odd\n") == .other(said: "something odd"))
    }
}

/// ssh addresses read as git reads them, and the command lines git would run.
@Suite(.timeLimit(.minutes(20))) struct SSHAddressTests {
    @Test func urls() {
        #expect(SSHAddress.parse("ssh://alice@nas:2222/srv/home.git") == SSHAddress(user: "alice", host: "nas", port: "2222", path: "/srv/home.git"))
        #expect(SSHAddress.parse("ssh+git://nas/srv/home.git") == SSHAddress(user: nil, host: "nas", port: nil, path: "/srv/home.git"))
        #expect(SSHAddress.parse("git+ssh://nas/~alice/home.git") == SSHAddress(user: nil, host: "nas", port: nil, path: "~alice/home.git"))
        #expect(SSHAddress.parse("ssh://[::1]:22/x.git") == SSHAddress(user: nil, host: "::1", port: "22", path: "/x.git"))
        #expect(SSHAddress.parse("https://nas/x.git") == nil)
        #expect(SSHAddress.parse("ssh://nas:22x/x.git") == nil)
    }

    @Test func scpLikeAddresses() {
        #expect(SSHAddress.parse("alice@nas:srv/home.git") == SSHAddress(user: "alice", host: "nas", port: nil, path: "srv/home.git"))
        // As in git: no port here; the digits are part of the path.
        #expect(SSHAddress.parse("alice@nas:2222/srv/home.git") == SSHAddress(user: "alice", host: "nas", port: nil, path: "2222/srv/home.git"))
        #expect(SSHAddress.parse("[alice@nas:2222]:/srv/home.git") == SSHAddress(user: "alice", host: "nas", port: "2222", path: "/srv/home.git"))
        #expect(SSHAddress.parse("[::1]:x.git") == SSHAddress(user: nil, host: "::1", port: nil, path: "x.git"))
        #expect(SSHAddress.parse("./a:b") == nil)
    }

    @Test func whatSSHWouldTakeForAnOptionIsRefused() {
        #expect(SSHAddress.parse("ssh://-oProxyCommand=touch%20x/y") == nil)
        #expect(SSHAddress.parse("-oProxyCommand=x:path") == nil)
        #expect(SSHAddress.parse("nas:-x") == nil)
    }

    @Test func commandLines() throws {
        let none: (String) -> String? = { _ in nil }
        let plain = SSHCommand.choose(environment: none, coreSSHCommand: nil, variantSetting: nil)
        #expect(plain == SSHCommand(command: "ssh", throughShell: false, variant: .openSSH))
        let address = SSHAddress(user: "alice", host: "nas", port: "2222", path: "/srv/it's.git")
        #expect(
            try plain.argv(plain.arguments(service: "git-upload-pack", address: address, batch: true))
                == ["ssh", "-o", "BatchMode=yes", "-p", "2222", "alice@nas", "git-upload-pack '/srv/it'\\''s.git'"])
        // git's order: GIT_SSH_COMMAND, core.sshCommand, GIT_SSH.
        let env = ["GIT_SSH_COMMAND": "ssh -F /cfg", "GIT_SSH": "/usr/bin/plink"]
        let shell = SSHCommand.choose(environment: { env[$0] }, coreSSHCommand: "ssh -i k", variantSetting: nil)
        #expect(shell == SSHCommand(command: "ssh -F /cfg", throughShell: true, variant: .openSSH))
        #expect(shell.argv(["nas", "x"]) == ["/bin/sh", "-c", "ssh -F /cfg \"$@\"", "ssh -F /cfg", "nas", "x"])
        let core = SSHCommand.choose(environment: { $0 == "GIT_SSH" ? env[$0] : nil }, coreSSHCommand: "ssh -i k", variantSetting: nil)
        #expect(core == SSHCommand(command: "ssh -i k", throughShell: true, variant: .openSSH))
        let other = SSHCommand.choose(environment: { $0 == "GIT_SSH" ? env[$0] : nil }, coreSSHCommand: nil, variantSetting: nil)
        #expect(other == SSHCommand(command: "/usr/bin/plink", throughShell: false, variant: .simple))
        #expect(throws: GitError.self) { try other.arguments(service: "git-upload-pack", address: address, batch: true) }
        #expect(try other.arguments(service: "git-upload-pack", address: SSHAddress(user: nil, host: "nas", port: nil, path: "/x"), batch: true) == ["nas", "git-upload-pack '/x'"])
    }
}
