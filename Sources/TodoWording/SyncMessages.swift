import TodoStore

/// The sentences for every sync problem: what happened and what to do. The store reports the
/// facts (`SyncProblem`); this is the one place the front ends word them. The first line is
/// also what the sync log and `todo status` keep (the store records it through
/// `SyncOptions.describe`).
public enum SyncMessages {
    /// The whole message: the problem, then the note about changes waiting to be sent.
    public static func text(_ e: SyncError) -> String {
        var text = text(e.problem)
        if let unsent = e.unsent {
            let n = unsent.count
            // A household waiting for the remote's first history sends nothing until that exists.
            let when = unsent.waitingForRemote ? "on the first sync after the household's creator has synced" : "on the next sync"
            text += "\nYour \(n) change\(n == 1 ? " is" : "s are") saved and will be sent \(when)."
        }
        return text
    }

    /// One or two lines (more for a list of failures): what happened, then what to do.
    public static func text(_ problem: SyncProblem) -> String {
        switch problem {
        case .sshNotRunnable(let command, let reason):
            return "Could not run ssh for the household remote (\(command): \(reason)).\nInstall OpenSSH's client, or check GIT_SSH_COMMAND, git's core.sshCommand or GIT_SSH."
        case .hostKeyChanged(let host, let presented, let target):
            let presented = presented.map { " (it now presents \($0))" } ?? ""
            return """
                The ssh host key of \(host) has CHANGED since it was recorded in known_hosts\(presented). This may be an attack: another machine may be answering in the server's place. Nothing was fetched or sent.
                Check it before anything else: on the server itself, show its key's fingerprint with `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` and compare. Only if it matches (the server was reinstalled or its key renewed), remove the old key with `ssh-keygen -R '\(host)'` and connect once with `ssh \(target)` to record the new one.
                """
        case .hostKeyUnknown(let host, let target):
            return """
                The ssh host key of \(host) is not known yet (not in known_hosts), so the remote cannot be trusted yet. Nothing was fetched or sent.
                Connect once at a terminal with `ssh \(target)`: compare the fingerprint ssh shows with the server's own (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` on the server) and answer yes only if they match.
                """
        case .sshKeyLocked(let remote, let key):
            return """
                The household remote \(remote) did not accept your credentials: the ssh key \(key) needs its passphrase, and without a terminal (cron, --quiet) nobody can be asked for it, and ssh-agent does not hold it.
                Load it into ssh-agent with `ssh-add \(key)` so that sync can use it unattended, or run `todo sync` at a terminal to be asked.
                """
        case .sshCredentialsRefused(let remote, let said, let user):
            return """
                The household remote \(remote) did not accept your credentials (\(said)).
                Check that your public key is in the server's authorized_keys for \(user ?? "your user"), and that ssh finds the key: load it into ssh-agent (ssh-add), or name it with IdentityFile in ~/.ssh/config.
                """
        case .sshHostUnresolvable(let remote, let host):
            return """
                Could not find the host \(host) of the household remote \(remote): ssh could not resolve the name.
                If it is a Host alias, check that ~/.ssh/config defines it (with its HostName); if the host is on your home network, sync again when you are back on it.
                """
        case .noGitOnServer(let remote, let said):
            return "The server of \(remote) has no git for ssh logins (\(said)).\nInstall git there, or make git-upload-pack and git-receive-pack reachable on the PATH of non-interactive logins."
        case .sshFailed(let remote, let said):
            return "The ssh connection to \(remote) failed (\(said))."
        case .timedOut(let seconds, let step):
            return "The household remote did not answer within \(seconds) seconds (\(step))."
        case .unreachable(let remote, let said):
            return "Could not reach the household remote \(remote) (\(said))."
        case .hostNotFound(let remote, let said):
            return "Could not find the host of the household remote \(remote) (\(said))."
        case .remoteBusy(let said):
            return "The household remote is busy (\(said))."
        case .kerberosOnly(let remote):
            return "The household remote \(remote) asks for Kerberos sign-in (HTTP Negotiate), which todo does not offer.\nAsk for password sign-in on that server, or use an ssh remote."
        case .credentialsRefused(let remote):
            return "The household remote \(remote) did not accept your credentials.\nStore the password with a git credential helper."
        case .hostKeyUnverified(let host):
            return "The ssh host key of \(host ?? "the server") could not be verified, so the remote cannot be trusted yet.\nConnect once at a terminal with `ssh HOST` and compare the fingerprint it shows with the server's own."
        case .untrustedCertificate(let host):
            return "The https certificate of \(host) is not trusted.\nInstall its CA certificate in the system store (update-ca-certificates) or name it in git's http.sslCAInfo setting."
        case .remoteMissing(let remote):
            return "The household remote \(remote) is missing, though earlier syncs found it there.\nIf it is on a drive or a network share, check that it is mounted, and check the URL with `todo remote`. Do not create a new repository there: that would split the household."
        case .repositoryGone(let remote):
            return "There is no git repository at \(remote), though earlier syncs found one there.\nCheck that the server still serves it and the URL with `todo remote`. Do not create a new repository there: that would split the household."
        case .noRepository(let remote):
            return "There is no git repository at \(remote).\nCheck the URL with `todo remote`, or create the repository there (git init --bare)."
        case .noRepositoryToJoin(let remote):
            // There is no household yet to run `todo remote` in.
            return "There is no git repository at \(remote). Nothing was created.\nCheck the URL with whoever set up the household; to start a household there yourself, create the repository (git init --bare) and run `todo init --remote URL`."
        case .badURL(let remote):
            return "\(remote) is not a remote URL todo understands (use a path, file://, git://, ssh:// or https://)."
        case .failed(let remote, let said):
            return "The sync with \(remote) failed (\(said))."
        case .noRemote:
            return "This household has no remote. Set one with `todo remote set URL`."
        case .pushRaces(let rounds):
            return "Other members kept pushing while this sync ran (\(rounds) rounds). Your changes are saved and will be sent on the next sync."
        case .pushRefused(let remote, let reason):
            return "The household remote \(remote) refused the push of main (\(reason)).\nYour changes are saved; ask whoever runs the remote to allow pushes to main."
        case .anotherHousehold(let remote, let household):
            return "The remote's history has nothing in common with this household's, so it is another household. Nothing was merged or sent.\n"
                + anotherHouseholdAdvice(remote: remote, household: household)
        case .unrelatedHistories:
            return "The remote's history has nothing in common with this household's, so it is another household.\nNothing was merged; check the remote URL (todo remote)."
        case .notAHousehold(let remote):
            return "The main branch of \(remote) is not a todo household: it has neither a tasks/ folder nor todo's merge setup in .gitattributes. Nothing was created.\nCheck the URL: `todo clone` needs the remote a household syncs with (the URL its creator gave `todo init --remote`)."
        case .remoteData(let problem, let commit):
            return "The remote has \(violation(problem)) in commit \(commit.id) by \(author(commit)).\nNothing was merged; ask that member to remove it, or check the remote."
        case .remoteMainNotACommit(let commit):
            return "The remote's main points at \(commit), which is not a commit it holds.\nNothing was merged; check the remote."
        case .unsendablePath(let problem, let commit):
            return "Nothing was sent: this household has \(violation(problem))\(by(commit)), and other members' todo refuses every commit that adds it, even if a later one removes it.\nRepair it with `todo doctor --fix`: one new commit on the remote's main takes the place of the commits not yet sent, with every task as it is now and without that path; those commits, which nobody else has, are kept under refs/todo/set-aside/."
        case .unsendableFile(let path, let reason, let commit):
            return "Nothing was sent: the task file \(path) \(refusal(.unreadableTask(reason: reason)))\(by(commit)).\nRepair it with a new commit: `todo doctor --fix` restores its last readable version, or fix the file and commit it with git. Never rewrite history that others may have."
        case .diskFull:
            return "The disk is full. Nothing was lost; free some space and sync again."
        case .householdBusy:
            return "The household was busy for too long. Nothing was lost; sync again in a moment."
        case .handEdits(let paths):
            return "Task files were changed by hand and not committed (\(paths.prefix(3).joined(separator: ", "))).\nCommit or discard them with git, then sync again."
        case .mergeFailed(let failures):
            return failures.prefix(3).map(\.description).joined(separator: "\n") + "\nNothing was merged."
        case .repository(let said):
            return "The household repository could not be updated (\(said)). Nothing was lost."
        case .store(let error):
            return Worded(error).message
        }
    }

    /// A progress line: "Receiving objects: 45% (450/1000)".
    public static func progress(_ p: TransferProgress) -> String {
        switch p {
        case .receiving(let done, let total): return "Receiving objects: \(done * 100 / total)% (\(done)/\(total))"
        case .sending(let done, let total): return "Sending objects: \(done * 100 / total)% (\(done)/\(total))"
        case .checking(let done, let total): return "Checking commits: \(done * 100 / total)% (\(done)/\(total))"
        case .writing(let done, let total): return "Writing files: \(done * 100 / total)% (\(done)/\(total))"
        }
    }

    /// What to do when the remote holds another household's history: the two ways out (also
    /// the doctor's advice).
    public static func anotherHouseholdAdvice(remote: String, household: String) -> String {
        """
        If the remote's URL is wrong, set the right one with `todo remote set URL`.
        If this household was made on its own and you mean to join the one on the remote, clone that one under a new name and move your tasks over: `todo clone \(remote) --household NEW`, then `todo -H \(household) list --all --json | todo -H NEW import -`.
        """
    }

    /// What the format does not allow, and where: "a symbolic link at "PATH"".
    public static func violation(_ v: FormatViolation) -> String { v.historyText }

    /// Why something may not be sent, following its path or "this household has".
    public static func refusal(_ r: SendRefusal) -> String {
        switch r {
        case .unreadableTask(let reason): return "cannot be read as a task (\(reason))"
        case .disallowed(let v): return violation(v)
        }
    }

    public static func author(_ c: CommitFacts) -> String { "\(c.authorName) <\(c.authorEmail)>" }

    /// " (commit ID by NAME <EMAIL>)", or nothing when the commit is not known.
    public static func by(_ c: CommitFacts?) -> String { c.map { " (commit \($0.id) by \(author($0)))" } ?? "" }
}
