public import TodoStore

/// The facts of every sync problem, in words any front end can show, and what a person can do
/// about it as a value (`Advice`) that each front end words. The store reports the facts
/// (`SyncProblem`); this is the one place they are put in words. The first line is also what
/// the sync log and the household's sync state keep (`SyncOptions.describe`), and any front end
/// shows it whichever ran the sync: it names no command and no path on this machine.
public enum SyncMessages {
    /// The problem's facts, then the note about changes waiting to be sent.
    public static func fact(_ e: SyncError, paths: LocalPaths = .withheld) -> String {
        fact(e.problem, paths: paths) + (unsentNote(e).map { "\n" + $0 } ?? "")
    }

    /// "Your 3 changes are saved and will be sent on the next sync.", when changes wait.
    public static func unsentNote(_ e: SyncError) -> String? {
        guard let unsent = e.unsent else { return nil }
        let n = unsent.count
        // A household waiting for the remote's first history sends nothing until that exists.
        let when = unsent.waitingForRemote ? "on the first sync after the household's creator has synced" : "on the next sync"
        return "Your \(n) change\(n == 1 ? " is" : "s are") saved and will be sent \(when)."
    }

    /// What to say in the sync log and the sync state: the fact's first line, no path.
    public static func describe(_ e: SyncError) -> String {
        String(fact(e.problem).split(separator: "\n", maxSplits: 1).first ?? "")
    }

    /// One line or more: what happened, and what it changed or did not.
    public static func fact(_ problem: SyncProblem, paths: LocalPaths = .withheld) -> String {
        switch problem {
        case .sshNotRunnable(let command, let reason):
            return "Could not run ssh for the household remote (\(paths.name(command, "ssh")): \(reason))."
        case .hostKeyChanged(let host, let presented, _):
            let presented = presented.map { " (it now presents \($0))" } ?? ""
            return "The ssh host key of \(host) has CHANGED since it was recorded in known_hosts\(presented). This may be an attack: another machine may be answering in the server's place. Nothing was fetched or sent."
        case .hostKeyUnknown(let host, _):
            return "The ssh host key of \(host) is not known yet (not in known_hosts), so the remote cannot be trusted yet. Nothing was fetched or sent."
        case .sshKeyLocked(let remote, let key):
            return "\(cap(paths.remote(remote))) did not accept your credentials: the ssh key \(paths.name(key, "it offered")) needs its passphrase, and without a terminal nobody can be asked for it, and ssh-agent does not hold it."
        case .sshCredentialsRefused(let remote, let said, _):
            return "\(cap(paths.remote(remote))) did not accept your credentials (\(paths.said(said, remote: remote)))."
        case .sshHostUnresolvable(let remote, let host):
            return "Could not find the host \(host) of \(paths.remote(remote)): ssh could not resolve the name."
        case .noGitOnServer(let remote, let said):
            return "The server of \(paths.remoteName(remote)) has no git for ssh logins (\(paths.said(said, remote: remote)))."
        case .sshFailed(let remote, let said):
            return "The ssh connection to \(paths.remoteName(remote)) failed (\(paths.said(said, remote: remote)))."
        case .timedOut(let seconds, let step):
            return "The household remote did not answer within \(seconds) seconds (\(step))."
        case .stopped(let step):
            return "The sync was stopped before it finished (\(step)), because the program running it is shutting down.\nNothing was lost: what waits to be sent goes with the next sync."
        case .unreachable(let remote, let said):
            return "Could not reach \(paths.remote(remote)) (\(paths.said(said, remote: remote)))."
        case .hostNotFound(let remote, let said):
            return "Could not find the host of \(paths.remote(remote)) (\(paths.said(said, remote: remote)))."
        case .remoteBusy(let said):
            return "The household remote is busy (\(said))."
        case .kerberosOnly(let remote):
            return "\(cap(paths.remote(remote))) asks for Kerberos sign-in (HTTP Negotiate), which todo does not offer."
        case .credentialsRefused(let remote):
            return "\(cap(paths.remote(remote))) did not accept your credentials."
        case .hostKeyUnverified(let host):
            return "The ssh host key of \(host ?? "the server") could not be verified, so the remote cannot be trusted yet."
        case .untrustedCertificate(let host):
            return "The https certificate of \(host) is not trusted."
        case .remoteMissing(let remote):
            return "\(cap(paths.remote(remote))) is missing, though earlier syncs found it there. Do not create a new repository there: that would split the household."
        case .repositoryGone(let remote):
            return "There is no git repository at \(paths.remoteName(remote)), though earlier syncs found one there. Do not create a new repository there: that would split the household."
        case .noRepository(let remote):
            return "There is no git repository at \(paths.remoteName(remote))."
        case .noRepositoryToJoin(let remote):
            return "There is no git repository at \(paths.remoteName(remote)). Nothing was created."
        case .badURL(let remote):
            return "\(cap(paths.remoteName(remote))) is not a remote URL todo understands."
        case .failed(let remote, let said):
            return "The sync with \(paths.remoteName(remote)) failed (\(paths.said(said, remote: remote)))."
        case .noRemote:
            return "This household has no remote."
        case .pushRaces(let rounds):
            return "Other members kept pushing while this sync ran (\(rounds) rounds). Your changes are saved and will be sent on the next sync."
        case .pushRefused(let remote, let reason):
            return "\(cap(paths.remote(remote))) refused the push of main (\(reason)).\nYour changes are saved; ask whoever runs the remote to allow pushes to main."
        case .anotherHousehold:
            return "The remote's history has nothing in common with this household's, so it is another household. Nothing was merged or sent."
        case .unrelatedHistories:
            return "The remote's history has nothing in common with this household's, so it is another household.\nNothing was merged."
        case .notAHousehold(let remote):
            return "The main branch of \(paths.remoteName(remote)) is not a todo household: it has neither a tasks/ folder nor todo's merge setup in .gitattributes. Nothing was created."
        case .remoteData(let problem, let commit):
            return "The remote has \(violation(problem)) in commit \(commit.id) by \(author(commit)).\nNothing was merged; ask that member to remove it, or check the remote."
        case .remoteMainNotACommit(let commit):
            return "The remote's main points at \(commit), which is not a commit it holds.\nNothing was merged; check the remote."
        case .unsendablePath(let problem, let commit):
            return "Nothing was sent: this household has \(violation(problem))\(by(commit)), and other members' todo refuses every commit that adds it, even if a later one removes it."
        case .unsendableFile(let path, let reason, let commit):
            return "Nothing was sent: the task file \(path) \(refusal(.unreadableTask(reason: reason)))\(by(commit))."
        case .encryptedRemote(let fault, let commit):
            return "The encrypted remote has \(encrypted(fault)) (remote commit \(commit)). No member's todo writes that: it was changed by someone else, or damaged.\nNothing was merged or sent."
        case .notGranted(let recipient):
            return "The household's remote is encrypted, and none of its keys is for this device (\(recipient)). Nothing was taken from it or sent to it."
        case .noLongerGranted(let recipient):
            return "The household's keys no longer include this device (\(recipient)): its key was removed, or its member left. Nothing was merged or sent; what this clone holds stays here."
        case .noDeviceKey(let path, let error):
            let why = error.map { " " + Worded($0, paths: paths).fact } ?? ""
            return "The household's remote is encrypted, and this device's key\(path.isEmpty ? "" : " (\(paths.name(path, "its identity file")))") cannot be used.\(why) Nothing was fetched or sent."
        case .noRecipients:
            return "The household's remote is encrypted, and no member has a device key, so nobody could read what would be sent. Nothing was sent."
        case .diskFull:
            return "The disk is full. Nothing was lost; free some space and sync again."
        case .householdBusy:
            return "The household was busy for too long. Nothing was lost; sync again in a moment."
        case .handEdits(let paths):
            return "Task files were changed by hand and not committed (\(paths.prefix(3).joined(separator: ", ")))."
        case .mergeFailed(let failures):
            return failures.prefix(3).map(MergeWording.text).joined(separator: "\n") + "\nNothing was merged."
        case .repository(let said):
            return "The household repository could not be updated\(paths == .shown ? " (\(said))" : ""). Nothing was lost."
        case .store(let error):
            return Worded(error, paths: paths).fact
        }
    }

    /// What a person can do about `problem`, for the front end to word; nil when the fact says
    /// it all (try again later, ask a member).
    public static func advice(_ problem: SyncProblem) -> Advice? {
        switch problem {
        case .sshNotRunnable: .installSSH
        case .hostKeyChanged(let host, _, let target): .compareChangedHostKey(host: host, target: target)
        case .hostKeyUnknown(_, let target): .recordHostKey(target: target)
        case .sshKeyLocked(_, let key): .loadSSHKey(key: key)
        case .sshCredentialsRefused(_, _, let user): .checkSSHKey(user: user)
        case .sshHostUnresolvable: .checkSSHHost
        case .noGitOnServer: .installGitOnServer
        case .kerberosOnly: .usePasswordOrSSH
        case .credentialsRefused: .storePassword
        case .hostKeyUnverified: .verifyHostKey
        case .untrustedCertificate: .trustCertificate
        case .remoteMissing: .mountOrCheckRemote
        case .repositoryGone: .checkRemoteServer
        case .noRepository: .checkOrCreateRemote
        case .noRepositoryToJoin: .checkJoinURL
        case .badURL: .remoteURLForms
        case .noRemote: .setRemote
        case .anotherHousehold(let remote, let household): .joinOtherHousehold(remote: remote, household: household)
        case .unrelatedHistories: .checkRemoteURL
        case .notAHousehold: .checkCloneURL
        case .unsendablePath: .repairUnsent
        case .unsendableFile: .repairUnsentFile
        case .handEdits: .commitOrDiscardThenSync
        case .notGranted(let recipient), .noLongerGranted(let recipient): .askForGrant(recipient: recipient)
        case .noDeviceKey(let path, _): .makeDeviceKey(path: path)
        case .noRecipients: .grantAKey
        case .store(let error): Worded(error).advice
        case .sshFailed, .timedOut, .stopped, .unreachable, .hostNotFound, .remoteBusy, .failed, .pushRaces, .pushRefused,
            .remoteData, .remoteMainNotACommit, .diskFull, .householdBusy, .mergeFailed, .repository, .encryptedRemote:
            nil
        }
    }

    static func cap(_ s: String) -> String { s.prefix(1).uppercased() + s.dropFirst() }

    /// A progress line: "Receiving objects: 45% (450/1000)".
    public static func progress(_ p: TransferProgress) -> String {
        switch p {
        case .receiving(let done, let total): return "Receiving objects: \(done * 100 / total)% (\(done)/\(total))"
        case .sending(let done, let total): return "Sending objects: \(done * 100 / total)% (\(done)/\(total))"
        case .checking(let done, let total): return "Checking commits: \(done * 100 / total)% (\(done)/\(total))"
        case .writing(let done, let total): return "Writing files: \(done * 100 / total)% (\(done)/\(total))"
        }
    }

    /// What is wrong on an encrypted remote, after "The encrypted remote has".
    static func encrypted(_ f: EncryptedFault) -> String {
        switch f {
        case .notACommit: return "a main that is not a commit"
        case .mergeCommit: return "a merge commit"
        case .unexpectedContent(let name): return "a file todo does not write (\"\(safe(name))\")"
        case .noDataFile: return "a commit without its data file"
        case .noKeyFile: return "a first commit that opens no keys"
        case .tooLarge(let file): return "a \(file) larger than any household's"
        case .undecryptable(let file, let reason): return "a \(file) that does not open (\(reason))"
        case .badKeyFile: return "a key file todo does not write"
        case .keyOutOfSequence(let expected, let found): return "a key file for epoch \(found) where epoch \(expected) comes next"
        case .badProof(let epoch): return "a key file for epoch \(epoch) not written by a holder of the keys before it"
        case .identitiesDiffer(let epoch): return "a key file whose key of epoch \(epoch) differs from the one known"
        case .retiredKey: return "data encrypted under a retired key"
        case .unknownKey: return "data encrypted under a key the household never had"
        case .badBundle(let reason): return "data that is not the household's next history (\(reason))"
        }
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
