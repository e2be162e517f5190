import GitKit
public import TodoCore

/// What went wrong in a sync, as facts: one case per situation, with what a front end needs
/// to say it (the remote as shown, credentials redacted; the host, the key, the commit...).
/// The store writes no sentence about it; each front end words every case in one place (for
/// the command line, `SyncMessages.swift`). docs/ARCHITECTURE.md, "A second front end".
public enum SyncProblem: Sendable {
    // MARK: ssh (SSHFailure.swift)

    /// ssh could not be started: the command tried and why.
    case sshNotRunnable(command: String, reason: String)
    /// The server's host key differs from the one in known_hosts. `target` is what to pass to
    /// `ssh` to connect (`-p PORT user@host` or `user@host`).
    case hostKeyChanged(host: String, presented: String?, target: String)
    /// The server's host key is not in known_hosts yet.
    case hostKeyUnknown(host: String, target: String)
    /// Refused without a terminal because the key needs its passphrase, and ssh-agent lacks it.
    case sshKeyLocked(remote: String, key: String)
    /// The ssh server refused the credentials; `user` is the login ssh used, if known.
    case sshCredentialsRefused(remote: String, said: String, user: String?)
    /// ssh could not resolve the host name.
    case sshHostUnresolvable(remote: String, host: String)
    /// The server has no git for ssh logins.
    case noGitOnServer(remote: String, said: String)
    /// ssh failed for a reason it stated.
    case sshFailed(remote: String, said: String)

    // MARK: Network (Network.swift)

    /// No answer within the sync's time limit, during `step` (`fetch`, `push`).
    case timedOut(seconds: Int, step: String)
    /// The program running the sync asked it to stop (`SyncOptions.stop`: a server shutting
    /// down), during or before `step`.
    case stopped(step: String)
    /// The connection failed (refused, reset, no route).
    case unreachable(remote: String, said: String)
    /// The host name could not be resolved.
    case hostNotFound(remote: String, said: String)
    /// The server answered with an error of its own.
    case remoteBusy(said: String)
    /// An https server that offers only Kerberos sign-in (HTTP Negotiate).
    case kerberosOnly(remote: String)
    /// An https server refused the credentials.
    case credentialsRefused(remote: String)
    /// A host key that libgit2's own transport could not verify; the host if known.
    case hostKeyUnverified(host: String?)
    /// An https certificate not trusted: the host, or the remote as shown.
    case untrustedCertificate(host: String)
    /// A path remote that earlier syncs found is missing (unmounted drive or share).
    case remoteMissing(remote: String)
    /// No repository any more where earlier syncs found one.
    case repositoryGone(remote: String)
    /// No repository at the remote.
    case noRepository(remote: String)
    /// No repository at the URL given to clone: nothing was created.
    case noRepositoryToJoin(remote: String)
    /// A URL todo does not understand.
    case badURL(remote: String)
    /// Another network failure, as libgit2 said it.
    case failed(remote: String, said: String)

    // MARK: The sync (Sync.swift, Join.swift, Clone.swift)

    case noRemote
    /// Others kept pushing first for this many rounds.
    case pushRaces(rounds: Int)
    /// The remote refused to update `main`, for the reason it gave.
    case pushRefused(remote: String, reason: String)
    /// The remote's history is another household's (found while merging, remote known).
    case anotherHousehold(remote: String, household: String)
    /// The histories share nothing (no remote known to name).
    case unrelatedHistories
    /// The main branch of the URL given to clone is not a household's.
    case notAHousehold(remote: String)

    // MARK: Content (Validate.swift, Outgoing.swift, PathRemote.swift)

    /// The remote holds something the format does not allow, added by `commit`.
    case remoteData(FormatViolation, commit: CommitFacts)
    /// The remote's `main` names an object that is not a commit it holds.
    case remoteMainNotACommit(commit: String)
    /// A commit not yet sent adds a path the format does not allow.
    case unsendablePath(FormatViolation, commit: CommitFacts?)
    /// A task file not yet sent cannot be read as a task, for the reader's `reason`.
    case unsendableFile(path: String, reason: String, commit: CommitFacts?)

    // MARK: An encrypted remote (docs/ENCRYPTION.md; Encrypted/)

    /// The encrypted remote holds what no member's todo writes, at remote commit `commit`
    /// (its first 10 hex digits).
    case encryptedRemote(EncryptedFault, commit: String)
    /// No key file on the encrypted remote is for this device (`recipient`): it was never
    /// granted.
    case notGranted(recipient: String)
    /// The key files since this clone's last sync are not for this device: its key was removed,
    /// or its member left.
    case noLongerGranted(recipient: String)
    /// This device has no identity to open the encrypted remote with (`path`), or it cannot be
    /// used (`error`: missing, open to others, not an identity file).
    case noDeviceKey(path: String, error: StoreError?)
    /// No member of the household has a device key granted, so a push could be read by nobody.
    case noRecipients

    // MARK: This machine

    case diskFull
    case householdBusy
    /// Task files changed by hand and not committed.
    case handEdits(paths: [String])
    /// Task files that could not be merged.
    case mergeFailed([MergeFailure])
    /// The household repository could not be updated: libgit2's message.
    case repository(said: String)
    /// Another store failure.
    case store(StoreError)
}

/// What is wrong on an encrypted remote (docs/ENCRYPTION.md, "Refusals and exit codes").
public enum EncryptedFault: Sendable, Equatable {
    /// Its `main` names an object that is not a commit.
    case notACommit
    /// A commit with more than one parent.
    case mergeCommit
    /// A file other than `data.age` and `key.age`, or one that is not a plain file.
    case unexpectedContent(String)
    /// A commit without `data.age`.
    case noDataFile
    /// The first commit opens no key epoch.
    case noKeyFile
    /// A file larger than any household's.
    case tooLarge(file: String)
    /// A file that is not an age file, is damaged or fails its MAC: age's words.
    case undecryptable(file: String, reason: String)
    /// A key file that opens but is not one todo writes.
    case badKeyFile
    /// A key file whose epoch does not follow the one before.
    case keyOutOfSequence(expected: Int, found: Int)
    /// A key file whose proof was not made by a holder of the epoch before it.
    case badProof(epoch: Int)
    /// A key file whose identity of an earlier epoch differs from the one known.
    case identitiesDiffer(epoch: Int)
    /// A data file under the key of an epoch other than the one in force.
    case retiredKey
    /// A data file under a key the household never had.
    case unknownKey
    /// A data file whose bundle does not follow the one before or is not a bundle of `main`.
    case badBundle(String)
}

/// A commit named in a problem: its id and author.
public struct CommitFacts: Sendable {
    /// The first 10 hex digits.
    public let id: String
    /// All 40 (or as many as were given).
    public let fullID: String
    public let authorName: String
    public let authorEmail: String

    public init(id: String, authorName: String, authorEmail: String) {
        self.id = String(id.prefix(10))
        fullID = id
        self.authorName = authorName
        self.authorEmail = authorEmail
    }

    init(_ info: CommitInfo) {
        self.init(id: info.id.hex, authorName: info.author.name, authorEmail: info.author.email)
    }
}
