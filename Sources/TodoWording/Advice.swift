public import TodoCore

/// What a person can do about a failure, as a value, not a sentence: each front end words it in
/// its own terms (docs/ARCHITECTURE.md, "Words"). The command line names the command, flag or
/// file that does it (`todo remote set URL`); a page says what the member can do there, or whom
/// to ask; a CalDAV answer gives a status and a short reason. A fact (`Worded.fact`,
/// `SyncMessages.fact`) is shown before it.
public enum Advice: Sendable, Equatable {
    // MARK: The household and its files

    /// No household by that name in `home` (the folder the households are in).
    case createHousehold(name: String, home: String)
    /// The household to create exists already, at `path`.
    case useOrRenameHousehold(path: String)
    /// `path` could not be written.
    case makeWritable(path: String)
    /// The file system holding `path` is mounted read-only.
    case mountWritable(path: String)
    /// The disk failed: look at it before trying again.
    case checkDisk
    /// Too many files are open: close some programs and try again.
    case closeProgramsAndRetry
    /// Busy for a moment: try again.
    case tryAgainSoon
    /// The disk is full.
    case freeSpace
    /// Task files in the repository at `repo` were changed by hand and not committed.
    case commitOrDiscard(repo: String)
    /// The same, found while syncing.
    case commitOrDiscardThenSync
    /// A task file cannot be read.
    case repairTaskFile
    /// Something nobody foresaw: what was committed is safe, the household can be checked.
    case checkHousehold

    // MARK: Tasks and chores

    /// An id matched nothing: the ids are listed with the tasks.
    case findTaskIDs
    /// An id prefix was too short: the list shows ids long enough.
    case shortIDsAreListed
    /// An id named the settings file: the settings have their own commands.
    case changeSettings
    /// This device's identity file (or, `folder`, its folder) at `path` is open to others:
    /// make it the owner's alone.
    case protectIdentity(path: String, folder: Bool)
    /// A conflict-log id matched nothing.
    case findConflictIDs
    /// The conflict-log entry holds raw bytes only, shown in the log's full form.
    case conflictBytes
    /// The task's page (or `todo show`) shows what was asked for.
    case showTask(String, TaskDetail)
    /// One change both checked and unchecked an item.
    case checkOrUncheck
    /// A task that is not a chore was treated as one.
    case makeChore(String)
    /// A chore's future occurrence was done: only the current one can be, `date`.
    case doCurrentOccurrence(task: String, date: CivilDate)
    /// A chore repeating from when it is done needs an interval rule (`task` nil: being added).
    case useIntervalOrCalendar(task: String?)
    /// A chore repeating from when it is done cannot catch up (`task` nil: being added).
    case followCalendarToCatchUp(task: String?)
    /// A chore has no rotation.
    case giveRotation(String)
    /// A member named is not in a chore's rotation.
    case joinRotation(String)

    // MARK: Sync

    case installSSH
    /// A host key that changed: compare it on the server, then replace it (`target`: what to
    /// pass to `ssh`).
    case compareChangedHostKey(host: String, target: String)
    /// A host key not known yet: connect once and compare.
    case recordHostKey(target: String)
    /// A host key libgit2's own transport could not verify.
    case verifyHostKey
    /// An ssh key that needs its passphrase and no terminal to ask: load it into the agent.
    case loadSSHKey(key: String)
    /// The ssh server refused the key: authorized_keys on the server, or which key ssh offers.
    case checkSSHKey(user: String?)
    /// ssh could not resolve a host name.
    case checkSSHHost
    case installGitOnServer
    /// An https server that offers only Kerberos.
    case usePasswordOrSSH
    /// An https server refused the password.
    case storePassword
    case trustCertificate
    /// A path remote that is missing: a drive or share to mount, or a URL to check.
    case mountOrCheckRemote
    /// A remote that held a repository and holds none now.
    case checkRemoteServer
    /// No repository at the remote: the URL to check or the repository to create.
    case checkOrCreateRemote
    /// No repository at the URL given to join.
    case checkJoinURL
    /// A remote URL not understood.
    case remoteURLForms
    /// The household has no remote.
    case setRemote
    /// The remote holds another household: fix the URL, or join that one and move the tasks.
    case joinOtherHousehold(remote: String, household: String)
    /// The histories share nothing.
    case checkRemoteURL
    /// The URL given to join is not a household's remote.
    case checkCloneURL
    /// A commit not yet sent adds what others refuse: a repair replaces the commits not sent.
    case repairUnsent
    /// A task file not yet sent cannot be read: a repair restores it.
    case repairUnsentFile
    /// An encrypted remote has no key for this device: a member grants its recipient.
    case askForGrant(recipient: String)
    /// This device has no usable identity file for an encrypted remote.
    case makeDeviceKey(path: String)
    /// No member has a device key for an encrypted remote.
    case grantAKey
}

/// What a task's page or `todo show` shows, for `Advice.showTask`.
public enum TaskDetail: Sendable, Equatable {
    case items
    case ruleAndDates
    case turns
}

/// Whether a message names places on this machine by their paths. A front end on the machine
/// that holds them (the command line) shows them; any other gets words instead ("the household
/// remote"), and this is the default, so that what TodoWording says can be shown anywhere.
public enum LocalPaths: Sendable {
    case shown
    case withheld
}

extension LocalPaths {
    /// `path` when shown, else `instead`.
    func name(_ path: String, _ instead: String) -> String { self == .shown ? safe(path) : instead }

    /// A remote as shown (credentials redacted): a remote that is a path on this machine is
    /// withheld like any path; a URL of another machine is not a local path and is kept.
    func remote(_ remote: String) -> String {
        self == .shown || !Self.isLocal(remote) ? "the household remote \(remote)" : "the household remote"
    }

    /// The remote alone ("ssh://host/h.git"), or "the household remote" when it is withheld.
    func remoteName(_ remote: String) -> String {
        self == .shown || !Self.isLocal(remote) ? remote : "the household remote"
    }

    /// A path, `file:` URL, or anything without a scheme or a host.
    static func isLocal(_ remote: String) -> Bool {
        remote.hasPrefix("/") || remote.hasPrefix("~") || remote.hasPrefix(".") || remote.hasPrefix("file:") || !remote.contains(":")
    }

    /// Another program's words (libgit2, ssh) with `remote` taken out when it is withheld.
    func said(_ said: String, remote: String) -> String {
        guard self == .withheld, Self.isLocal(remote), !remote.isEmpty else { return said }
        return said.replacing(remote, with: "the remote")
    }
}
