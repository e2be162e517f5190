import TodoWording
import Synchronization
import Glibc
import ArgumentParser
import TodoCore
import TodoStore

extension SyncOptions {
    static func fromEnvironment(timeout: Double, quiet: Bool, json: Bool = false) -> SyncOptions {
        var o = SyncOptions()
        o.timeout = timeout
        o.home = Env.userHome
        o.certificateFile = Env.get("GIT_SSL_CAINFO")
        o.identityFile = Env.identityPath
        o.logDirectory = (Env.get("XDG_STATE_HOME").map(Env.trimSlash) ?? Env.trimSlash(Env.userHome) + "/.local/state") + "/todo"
        o.describe = { SyncMessages.describe($0) }
        o.interactive = !quiet && Terminal.stderrIsTTY && isatty(STDIN_FILENO) == 1
        if !quiet && (json || Terminal.stderrIsTTY) {
            let printer = ProgressPrinter(json: json)
            o.progress = { printer.report($0) }
        }
        return o
    }
}

/// Where a transfer's progress goes once it has taken longer than a moment (a second): with
/// --json, JSON lines on standard output (`{"progress":"receiving","done":450,"total":1000}`,
/// at most four a second, and the one that reaches the total), before the command's own JSON
/// line; else a line on the terminal (standard error), written over and cleared at the end.
final class ProgressPrinter: Sendable {
    let json: Bool
    let started = ContinuousClock.now
    /// When a JSON line was last printed, and the progress last shown.
    private let shown = Mutex<(printed: ContinuousClock.Instant?, last: TransferProgress?)>((nil, nil))

    init(json: Bool) { self.json = json }

    func report(_ p: TransferProgress) {
        let now = ContinuousClock.now
        guard now - started > .seconds(1) else { return }
        let json = self.json
        shown.withLock { shown in
            guard p != shown.last else { return }
            if !json {
                shown.last = p
                printProgress(SyncMessages.progress(p))
                return
            }
            let (step, done, total) =
                switch p {
                case .receiving(let done, let total): ("receiving", done, total)
                case .sending(let done, let total): ("sending", done, total)
                case .checking(let done, let total): ("checking", done, total)
                case .writing(let done, let total): ("writing", done, total)
                }
            guard done >= total || shown.printed.map({ now - $0 >= .milliseconds(250) }) ?? true else { return }
            shown.last = p
            shown.printed = now
            print(JSONWriter.compact(.object([
                ("progress", .string(step)), ("done", .number("\(done)")), ("total", .number("\(total)")),
            ])))
            fflush(nil)
        }
    }
}

func printProgress(_ line: String) {
    let text = "\r\u{1B}[K" + line
    _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}

func clearProgress() {
    if Terminal.stderrIsTTY { _ = "\r\u{1B}[K".withCString { write(STDERR_FILENO, $0, strlen($0)) } }
}

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Fetch, merge field by field, and push.",
        discussion: """
            Fetches the remote's main, merges it with the field-level rules (no conflict to \
            resolve by hand; see `todo conflicts`), commits the merge, and pushes. Safe to run \
            from cron:

              */15 * * * * todo sync --quiet

            With --quiet, a failure to try again later (exit 75: the remote unreachable, a \
            laptop away from home) prints nothing until syncs have been failing for longer than \
            --quiet-for (default 24h, or the household's `todo.quietFor` git setting); then one \
            message says since when, once per such period. Failures that need a person \
            (credentials, configuration, data, a full disk) are always printed. A sync that \
            finds another one of the same household running does nothing and exits 0. Every \
            run is logged in $XDG_STATE_HOME/todo/sync.log.

            Exit status: 0 done (or skipped: another sync is running; or waiting: the household \
            was cloned from an empty remote that is still empty, see `todo clone --help`); 75 try again later \
            (unreachable, timeout, busy); 77 credentials refused; 78 configuration (no remote, \
            no repository, unknown host key); 65 the remote sent data the format does not allow; \
            73 local disk full.
            """)

    @OptionGroup var household: HouseholdOptions
    @Flag(help: "Print nothing when all is well (for cron).") var quiet = false
    @Option(
        name: .customLong("quiet-for"),
        help: ArgumentHelp(
            "With --quiet, how long failures to reach the remote stay unreported (like 90m, 24h, 2d; 0 reports every one).",
            valueName: "duration"))
    var quietFor: String?
    @Option(help: "Seconds allowed for the network (default 60).") var timeout: Double = 60
    @OptionGroup var output: JSONFlag

    /// How long failures stay quiet when no option or setting says otherwise.
    static let defaultQuietFor: Int64 = 24 * 3_600_000

    func validate() throws {
        if !(timeout > 0 && timeout <= 86_400) { throw ValidationError("--timeout must be between 0 and 86400 seconds.") }
        if let quietFor, DurationInput.milliseconds(quietFor) == nil {
            throw ValidationError("--quiet-for takes a duration like 90m, 24h or 2d (or 0).")
        }
    }

    func run() throws {
        let h = try household.open()
        let report: SyncReport
        let before = try? h.headCommit()  // no commit yet, or unreadable: no summary of what came in afterwards
        do {
            report = try h.sync(.fromEnvironment(timeout: timeout, quiet: quiet, json: output.json))
        } catch {
            clearProgress()
            let failure = CLIError(error)
            if quiet && failure.exit == .busy {
                guard let since = h.failureToReport(quietFor: try quietPeriod(h)) else { throw CLIError.silent(failure.exit) }
                throw CLIError(
                    "Syncing household \"\(h.name)\" has failed since \(Render.localTime(since, h.clock)).\n" + failure.message,
                    exit: failure.exit, detail: failure.detail)
            }
            throw failure
        }
        clearProgress()
        let received = receivedSummary(h, before: before)
        if report.skipped {
            if !quiet && !output.json {
                printError("todo: Another sync of this household is running; this one did nothing. Changes made after that sync pushed go with the next one.")
            }
            if output.json { print(JSONWriter.compact(.object([("skipped", .bool(true))]))) }
            return
        }
        let conflicts = report.conflicts.count
        for w in report.merge?.warnings ?? [] { printError("todo: warning: " + Terminal.safe(MergeWording.text(w))) }
        if report.remoteRewritten {
            printError("todo: warning: the remote's history was rewritten since the last sync; it was merged field by field and nothing local was lost.")
        }
        if report.remoteWentBack {
            printError("todo: the remote went back to an older state since the last sync (restored from a backup?); what it lost was sent to it again and nothing local was lost.")
        }
        for who in Set((report.merge?.futureWrites ?? []).map(\.member)).sorted() {
            printError("todo: warning: \(Terminal.safe(who.isEmpty ? "a member" : who))'s clock looks wrong: their changes are stamped more than a day ahead of this machine's clock. It all merged; ask them to check their clock.")
        }
        if output.json {
            print(JSONWriter.compact(.object([
                ("received", .number("\(report.received)")), ("sent", .number("\(report.sent)")),
                ("commitsSent", .number("\(report.commitsSent)")),
                ("merged", .bool(report.merge?.kind == .merged)), ("conflicts", .number("\(conflicts)")),
                ("remoteWasEmpty", .bool(report.remoteWasEmpty)), ("remoteWentBack", .bool(report.remoteWentBack)),
                ("remoteRewritten", .bool(report.remoteRewritten)), ("rounds", .number("\(report.rounds)")),
                ("skipped", .bool(false)), ("waiting", .bool(report.waiting)), ("joined", .bool(report.joined)),
            ])))
            return
        }
        if quiet { return }
        if report.waiting {
            print("Waiting for the household's first history: \(Terminal.safe(report.remote)) has none yet, so nothing was sent. Tasks added here are kept and join it on the first sync after the household's creator has synced.")
            return
        }
        if report.joined { print("Joined the household's history on \(Terminal.safe(report.remote)); what was added here while waiting is on top of it.") }
        if report.received == 0 && report.sent == 0 && report.commitsSent == 0 && report.merge?.kind != .merged {
            print("Up to date with \(Terminal.safe(report.remote)).")
            return
        }
        // Commits that change no task (a new household's first one, a repair) were still sent.
        let onlyCommits = report.sent == 0 && report.commitsSent > 0
        let sent = onlyCommits ? "sent 0 tasks in \(report.commitsSent) commit\(report.commitsSent == 1 ? "" : "s")" : "sent \(report.sent)"
        var parts = ["received \(report.received)", sent]
        if report.merge?.kind == .merged { parts.append("merged") }
        if conflicts > 0 { parts.append("\(conflicts) conflict\(conflicts == 1 ? "" : "s") (see `todo conflicts`)") }
        print("Synced with \(Terminal.safe(report.remote)): " + parts.joined(separator: ", ") + ".")
        for line in received { print(line) }
    }
}

extension SyncCommand {
    /// `--quiet-for`, else the household's `todo.quietFor`, else a day.
    func quietPeriod(_ h: Household) throws -> Int64 {
        if let quietFor, let ms = DurationInput.milliseconds(quietFor) { return ms }
        guard let setting = h.quietForSetting() else { return Self.defaultQuietFor }
        guard let ms = DurationInput.milliseconds(setting) else {
            throw CLIError(
                "The household's todo.quietFor setting (\(Terminal.safe(setting))) is not a duration like 90m, 24h or 2d.\nFix it with: git -C \(Terminal.safe(h.path)) config todo.quietFor 24h",
                exit: .configuration)
        }
        return ms
    }
}

struct CloneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clone",
        abstract: "Join a household from its remote.",
        discussion: """
            When the remote has no history yet (its creator ran `todo init --remote` and has not \
            synced), the clone works and waits for that history: syncs send nothing meanwhile, \
            and the first sync that finds it takes it, with the tasks added here on top.

            An encrypted remote (docs/ENCRYPTION.md) is read with this device's key (`todo key`), \
            or with --identity FILE (a recovery key, or another device's); a member must have \
            granted it first (`todo member add NAME --key age1…`).

            Exit status: 0 joined (or waiting); 78 no repository at the URL; 65 the remote's \
            main is not a household, or holds what the format does not allow; 77 the remote \
            refused the credentials, or it is encrypted and no key of it is for this device. A \
            failed clone leaves nothing behind.

            Example: todo clone ssh://nas.local/srv/git/home.git --name Bob --email bob@example.org
            """)

    @OptionGroup var household: HouseholdOptions
    @Argument(help: "The remote URL.") var url: String
    @Option(help: "Your name as other members see it.") var name: String?
    @Option(help: "Your email address, for commits.") var email: String?
    @Option(help: "Seconds allowed for the network (default 60).") var timeout: Double = 60
    @Option(
        name: .customLong("identity"),
        help: ArgumentHelp("An identity file that opens an encrypted remote (a recovery key), instead of this device's.", valueName: "file"))
    var identityFile: String?
    @OptionGroup var output: JSONFlag

    func run() throws {
        if let name, name.trimmingSpaces.isEmpty { throw CLIError("The name is empty.", exit: .usage) }
        let identity = Identity.resolve(name: name?.trimmingSpaces, email: email)
        var options = SyncOptions.fromEnvironment(timeout: timeout, quiet: false, json: output.json)
        if let identityFile {
            options.identityFile = identityFile
            options.identityIsDevice = false
        }
        do {
            let h = try Household.clone(
                home: Env.home, name: household.name, url: url.trimmingSpaces, identity: identity, clock: Env.clock,
                driverCommand: Env.driverCommand, options: options)
            clearProgress()
            if output.json {
                let waiting = h.isWaitingForRemote()
                let count = waiting ? 0 : ((try? h.snapshot().loadAllIDs().count) ?? 0)  // a count for the report only: the sync's own outcome is what is reported
                print(JSONWriter.compact(.object([
                    ("household", .string(h.name)), ("path", .string(h.path)), ("remote", .string(redactedURL(url))),
                    ("member", .string(identity.name)), ("tasks", .number("\(count)")), ("waiting", .bool(waiting)),
                ])))
                return
            }
            if h.isWaitingForRemote() {
                print("Joined household \"\(h.name)\" from \(Terminal.safe(redactedURL(url))) as \(Terminal.safe(identity.name)), but the remote has no history yet: whoever created the household has not synced.\nTasks you add meanwhile are kept here, and join the household's history on the first sync after the creator has synced.")
                return
            }
            let count = (try? h.snapshot().loadAllIDs().count) ?? 0  // as above
            print("Joined household \"\(h.name)\" from \(Terminal.safe(redactedURL(url))) (\(count) task\(count == 1 ? "" : "s")) as \(Terminal.safe(identity.name)).")
        } catch let e as SyncError {
            clearProgress()
            throw CLIError(e)
        }
    }
}

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the remote and what waits to be synced.")

    @OptionGroup var household: HouseholdOptions
    @OptionGroup var output: JSONFlag

    func run() throws {
        let h = try household.openForReading()
        let s = try h.status()
        let shorts = s.unsentShortIDs
        let (edited, unreadable) = (s.handEdits, s.unreadable)
        HealthWarnings.handEdits(edited)
        HealthWarnings.unreadable(unreadable)
        if output.json {
            print(JSONWriter.compact(.object([
                ("household", .string(h.name)), ("path", .string(h.path)),
                ("remote", s.remote.map { .string(redactedURL($0)) } ?? .null),
                ("unsent", .array(s.unsent.map { .object([("id", .string($0.id.hex)), ("title", .string($0.title))]) })),
                ("unmerged", .number("\(s.unmerged)")),
                ("lastSync", s.sync.lastSuccess.map { .string(isoMillis($0)) } ?? .null),
                ("lastError", s.sync.lastError.map { .string($0) } ?? .null),
                ("lastErrorClass", s.sync.lastErrorClass.map { .string($0) } ?? .null),
                ("newConflicts", .number("\(s.newConflicts)")),
                ("unsentUnreadable", .array(s.unsentUnreadable.map { .string($0) })),
                ("blocked", s.blocked.map { b in .object([
                    ("path", .string(b.path)), ("problem", .string(SyncMessages.refusal(b.problem))),
                    ("commit", b.commit.map { .string($0.fullID) } ?? .null),
                ]) } ?? .null),
                ("waiting", .bool(s.waiting)),
                ("handEdits", .array(edited.map { .string($0) })),
                ("unreadable", .array(unreadable.map { .object([("path", .string($0.path)), ("reason", .string($0.reason))]) })),
                ("notChecked", .array(s.notChecked.map { .object([("check", .string($0.check.rawValue)), ("reason", .string(Worded($0.error).sentence))]) })),
            ] + (try KeyStatusText.json(h)))))
            return
        }
        var out = Output()
        out.line("Household: \(h.name) (\(Terminal.safe(h.path)))")
        out.line("Remote:    \(s.remote.map { Terminal.safe(redactedURL($0)) } ?? "none (todo remote set URL)")")
        if let keys = try KeyStatusText.line(h) { out.line(keys) }
        if s.waiting {
            out.line("Waiting:   for the remote's first history; tasks added here join it on the first sync after the household's creator has synced")
        }
        out.line("Last sync: \(s.sync.lastSuccess.map { Render.localTime($0, h.clock) } ?? "never")")
        if let e = s.sync.lastError { out.line("Last error: \(Terminal.safe(e))") }
        let brokenFiles = s.unsentUnreadable.isEmpty
            ? "" : ", \(s.unsentUnreadable.count) file\(s.unsentUnreadable.count == 1 ? "" : "s") that cannot be read as a task"
        out.line("Not sent:  \(s.unsent.count) task\(s.unsent.count == 1 ? "" : "s")\(brokenFiles)")
        if let b = s.blocked {
            let by = b.commit.map { " (commit \($0.id) by \(Terminal.safe($0.authorName)))" } ?? ""
            let problem = Terminal.safe(SyncMessages.refusal(b.problem))
            let what = b.path.isEmpty ? "this household has \(problem)" : "\(Terminal.safe(b.path)) \(problem)"
            out.line("Blocked:   nothing can be sent: \(what)\(by).")
            out.line("           Repair it with `todo doctor --fix`, then `todo sync`.")
        }
        for t in s.unsent.prefix(10) { out.line("  \(shorts[t.id] ?? String(t.id.hex.prefix(4)))  \(Terminal.safe(t.title))") }
        if s.unsent.count > 10 { out.line("  ... and \(s.unsent.count - 10) more") }
        if s.unmerged > 0 { out.line("Fetched, not merged: \(s.unmerged) task\(s.unmerged == 1 ? "" : "s")") }
        if s.newConflicts > 0 { out.line("New conflicts: \(s.newConflicts) (see `todo conflicts`)") }
        for n in s.notChecked {
            let what = n.check == .handEdits ? "files changed by hand" : "whether every task file can be read"
            out.line("Not checked: \(what), because: \(Terminal.safe(Worded(n.error).sentence))")
        }
        out.flush()
    }
}
