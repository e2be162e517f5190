import TodoWording
import TodoStore

/// The command line's words for what a person can do (`Advice`): the command, flag or file that
/// does it. TodoWording states the fact in words any front end can show; the command line adds
/// this after it (docs/ARCHITECTURE.md, "Words").
enum AdviceText {
    /// `fact`, then the advice on a line of its own.
    static func message(_ fact: String, _ advice: Advice?) -> String {
        advice.map { fact + "\n" + text($0) } ?? fact
    }

    static func text(_ advice: Advice) -> String {
        switch advice {
        case .createHousehold(let name, _):
            return "Run `todo init\(name == "home" ? "" : " --household \(name)")` to create it."
        case .useOrRenameHousehold:
            return "Use it as it is, or choose another name with --household."
        case .makeWritable:
            return "Check its permissions, or set TODO_HOME to a writable directory."
        case .mountWritable:
            return "Mount it writable, or set TODO_HOME to a writable directory."
        case .checkDisk:
            return "Check the disk (the system log names the device) before running the command again."
        case .closeProgramsAndRetry:
            return "Close some programs and try again."
        case .tryAgainSoon:
            return "Try again in a moment."
        case .freeSpace:
            return "Free some space and run the command again."
        case .commitOrDiscard(let repo):
            let r = Terminal.safe(repo)
            return "Commit them (git -C \(r) commit -a) or discard them (git -C \(r) checkout -- .), then try again."
        case .commitOrDiscardThenSync:
            return "Commit or discard them with git, then sync again."
        case .repairTaskFile:
            return "Repair or remove it with git in the household repository."
        case .checkHousehold:
            return "`todo doctor` checks the household."
        case .findTaskIDs:
            return "Run `todo list --all` to see the ids."
        case .shortIDsAreListed:
            return "`todo list` shows them."
        case .changeSettings:
            return "Change the settings with `todo timezone` or `todo member`; run `todo list --all` to see the task ids."
        case .protectIdentity(let path, let folder):
            return "Make it yours alone with `chmod \(folder ? "700" : "600") \(Terminal.safe(path))`\(folder ? "" : " (and `chmod 700` its folder)"); if others may have read it, have a member remove this device's key (`todo member key remove NAME RECIPIENT`) and make a new one."
        case .findConflictIDs:
            return "Run `todo conflicts` to see the entries."
        case .conflictBytes:
            return "Its raw bytes are in `todo conflicts --json`."
        case .showTask(let task, let detail):
            let what =
                switch detail {
                case .items: "its items and their numbers"
                case .ruleAndDates: "its rule and dates"
                case .turns: "whose turns come next"
                }
            return "Run `todo show \(Terminal.safe(task))` to see \(what)."
        case .checkOrUncheck:
            return "Give the item to --check or to --uncheck, not to both."
        case .makeChore(let task):
            return "Make it a chore with `todo edit \(Terminal.safe(task)) --every RULE`."
        case .doCurrentOccurrence(let task, let date):
            return "Its current occurrence is \(date): `todo done \(Terminal.safe(task))` completes it."
        case .useIntervalOrCalendar(let task?):
            return "Give it such a rule, or make it follow the calendar with `todo edit \(Terminal.safe(task)) --no-after-done`."
        case .useIntervalOrCalendar(nil):
            return "Use such a rule with --after-done, or leave --after-done out."
        case .followCalendarToCatchUp(let task?):
            return "Make it follow the calendar first with `todo edit \(Terminal.safe(task)) --no-after-done`."
        case .followCalendarToCatchUp(nil):
            return "Use either --after-done or --catch-up."
        case .giveRotation(let task):
            return "Give it one with `todo edit \(Terminal.safe(task)) --rotate A,B,...`."
        case .joinRotation(let task):
            return "Name one of them, or add them with `todo edit \(Terminal.safe(task)) --rotate ...`."
        case .installSSH:
            return "Install OpenSSH's client, or check GIT_SSH_COMMAND, git's core.sshCommand or GIT_SSH."
        case .compareChangedHostKey(let host, let target):
            return "Check it before anything else: on the server itself, show its key's fingerprint with `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` and compare. Only if it matches (the server was reinstalled or its key renewed), remove the old key with `ssh-keygen -R '\(host)'` and connect once with `ssh \(target)` to record the new one."
        case .recordHostKey(let target):
            return "Connect once at a terminal with `ssh \(target)`: compare the fingerprint ssh shows with the server's own (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` on the server) and answer yes only if they match."
        case .verifyHostKey:
            return "Connect once at a terminal with `ssh HOST` and compare the fingerprint it shows with the server's own."
        case .loadSSHKey(let key):
            return "Load it into ssh-agent with `ssh-add \(key)` so that sync can use it unattended (cron, --quiet), or run `todo sync` at a terminal to be asked."
        case .checkSSHKey(let user):
            return "Check that your public key is in the server's authorized_keys for \(user ?? "your user"), and that ssh finds the key: load it into ssh-agent (ssh-add), or name it with IdentityFile in ~/.ssh/config."
        case .checkSSHHost:
            return "If it is a Host alias, check that ~/.ssh/config defines it (with its HostName); if the host is on your home network, sync again when you are back on it."
        case .installGitOnServer:
            return "Install git there, or make git-upload-pack and git-receive-pack reachable on the PATH of non-interactive logins."
        case .usePasswordOrSSH:
            return "Ask for password sign-in on that server, or use an ssh remote."
        case .askForGrant(let recipient):
            return "Send this device's key, \(recipient) (`todo key` prints it), to a member of the household, who runs `todo member add YOURNAME --key \(recipient)` and then `todo sync`; then run this again."
        case .makeDeviceKey(let path):
            return "Run `todo key` to create this device's key\(path.isEmpty ? "" : " (\(path))"), or make its file readable by you alone (`chmod 600`, its folder `chmod 700`); a member then grants it."
        case .grantAKey:
            return "Grant a device key first: `todo member add NAME --key age1…` (`todo key` prints this device's)."
        case .storePassword:
            return "Store the password with a git credential helper."
        case .trustCertificate:
            return "Install its CA certificate in the system store (update-ca-certificates) or name it in git's http.sslCAInfo setting."
        case .mountOrCheckRemote:
            return "If it is on a drive or a network share, check that it is mounted, and check the URL with `todo remote`."
        case .checkRemoteServer:
            return "Check that the server still serves it and the URL with `todo remote`."
        case .checkOrCreateRemote:
            return "Check the URL with `todo remote`, or create the repository there (git init --bare)."
        case .checkJoinURL:
            // There is no household yet to run `todo remote` in.
            return "Check the URL with whoever set up the household; to start a household there yourself, create the repository (git init --bare) and run `todo init --remote URL`."
        case .remoteURLForms:
            return "Use a path, file://, git://, ssh:// or https://."
        case .setRemote:
            return "Set one with `todo remote set URL`."
        case .joinOtherHousehold(let remote, let household):
            return """
                If the remote's URL is wrong, set the right one with `todo remote set URL`.
                If this household was made on its own and you mean to join the one on the remote, clone that one under a new name and move your tasks over: `todo clone \(remote) --household NEW`, then `todo -H \(household) list --all --json | todo -H NEW import -`.
                """
        case .checkRemoteURL:
            return "Check the remote URL (todo remote)."
        case .checkCloneURL:
            return "Check the URL: `todo clone` needs the remote a household syncs with (the URL its creator gave `todo init --remote`)."
        case .repairUnsent:
            return "Repair it with `todo doctor --fix`: one new commit on the remote's main takes the place of the commits not yet sent, with every task as it is now and without that path; those commits, which nobody else has, are kept under refs/todo/set-aside/."
        case .repairUnsentFile:
            return "Repair it with a new commit: `todo doctor --fix` restores its last readable version, or fix the file and commit it with git. Never rewrite history that others may have."
        }
    }
}
