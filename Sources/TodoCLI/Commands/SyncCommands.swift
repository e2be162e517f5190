#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import ArgumentParser
import TodoCore
import TodoStore

extension SyncOptions {
    static func fromEnvironment(timeout: Double, quiet: Bool) -> SyncOptions {
        var o = SyncOptions()
        o.timeout = timeout
        o.home = Env.userHome
        o.agentSocket = Env.get("SSH_AUTH_SOCK")
        o.certificateFile = Env.get("GIT_SSL_CAINFO")
        o.logDirectory = (Env.get("XDG_STATE_HOME").map(Env.trimSlash) ?? Env.trimSlash(Env.userHome) + "/.local/state") + "/todo"
        o.interactive = !quiet && Terminal.stderrIsTTY && isatty(STDIN_FILENO) == 1
        if !quiet && Terminal.stderrIsTTY {
            let started = monotonicNow()
            o.progress = { line in
                // Only transfers that take longer than a moment get a progress line.
                if monotonicNow() - started > 1 { printProgress(line) }
            }
        }
        return o
    }
}

func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
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

            Exit status: 0 done; 75 try again later (unreachable, timeout, busy); 77 credentials \
            refused; 78 configuration (no remote, no repository, unknown host key); 65 the remote \
            sent data the format does not allow; 73 local disk full.
            """)

    @OptionGroup var household: HouseholdOptions
    @Flag(help: "Print nothing when all is well (for cron).") var quiet = false
    @Option(help: "Seconds allowed for the network (default 60).") var timeout: Double = 60
    @OptionGroup var output: JSONFlag

    func validate() throws {
        if !(timeout > 0 && timeout <= 86_400) { throw ValidationError("--timeout must be between 0 and 86400 seconds.") }
    }

    func run() throws {
        let h = try household.open()
        let report: SyncReport
        let before = try? h.headCommit()
        do {
            report = try h.sync(.fromEnvironment(timeout: timeout, quiet: quiet))
        } catch {
            clearProgress()
            throw CLIError(error)
        }
        clearProgress()
        let received = receivedSummary(h, before: before)
        let conflicts = report.conflicts.count
        for w in report.merge?.warnings ?? [] { printError("todo: warning: " + Terminal.safe(w.description)) }
        if report.remoteRewritten {
            printError("todo: warning: the remote's history was rewritten since the last sync; it was merged field by field and nothing local was lost.")
        }
        for who in Set((report.merge?.futureStamps ?? []).map(\.member)).sorted() {
            printError("todo: warning: \(Terminal.safe(who.isEmpty ? "a member" : who))'s clock looks wrong: their changes are stamped more than a day ahead of this machine's clock. It all merged; ask them to check their clock.")
        }
        if output.json {
            print(JSONWriter.compact(.object([
                ("received", .number("\(report.received)")), ("sent", .number("\(report.sent)")),
                ("merged", .bool(report.merge?.kind == .merged)), ("conflicts", .number("\(conflicts)")),
                ("remoteWasEmpty", .bool(report.remoteWasEmpty)), ("rounds", .number("\(report.rounds)")),
            ])))
            return
        }
        if quiet { return }
        if report.received == 0 && report.sent == 0 && report.merge?.kind != .merged {
            print("Up to date with \(Terminal.safe(report.remote)).")
            return
        }
        var parts = ["received \(report.received)", "sent \(report.sent)"]
        if report.merge?.kind == .merged { parts.append("merged") }
        if conflicts > 0 { parts.append("\(conflicts) conflict\(conflicts == 1 ? "" : "s") (see `todo conflicts`)") }
        print("Synced with \(Terminal.safe(report.remote)): " + parts.joined(separator: ", ") + ".")
        for line in received { print(line) }
    }
}

struct RemoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "Show or change the household's remote.",
        discussion: """
            Remotes: a path or file:// URL to a bare repository, git://, ssh://user@host/path, \
            user@host:path, http:// or https://. Passwords in URLs are never shown.
            """,
        subcommands: [RemoteShowCommand.self, RemoteSetCommand.self, RemoteRemoveCommand.self],
        defaultSubcommand: RemoteShowCommand.self)
}

struct RemoteShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the remote (the default).")
    @OptionGroup var household: HouseholdOptions

    func run() throws {
        let h = try household.open()
        if let url = try h.remoteURL() {
            print(Terminal.safe(redactedURL(url)))
        } else {
            printError("No remote. Set one with `todo remote set URL`.")
        }
    }
}

struct RemoteSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "set", abstract: "Set the remote URL.")
    @OptionGroup var household: HouseholdOptions
    @Argument(help: "The remote URL.") var url: String

    func run() throws {
        let trimmed = url.trimmingSpaces
        if trimmed.isEmpty || trimmed.unicodeScalars.contains(where: Terminal.isUnsafe) {
            throw CLIError("That is not a usable remote URL.", exit: .usage)
        }
        let h = try household.open()
        try h.setRemote(trimmed)
        print("Remote set to \(Terminal.safe(redactedURL(trimmed))).")
    }
}

struct RemoteRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove the remote (work offline).")
    @OptionGroup var household: HouseholdOptions

    func run() throws {
        let h = try household.open()
        try h.setRemote(nil)
        print("Remote removed.")
    }
}

struct CloneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clone",
        abstract: "Join a household from its remote.",
        discussion: "Example: todo clone ssh://nas.local/srv/git/home.git --name Bob --email bob@example.org")

    @OptionGroup var household: HouseholdOptions
    @Argument(help: "The remote URL.") var url: String
    @Option(help: "Your name as other members see it.") var name: String?
    @Option(help: "Your email address, for commits.") var email: String?
    @Option(help: "Seconds allowed for the network (default 60).") var timeout: Double = 60

    func run() throws {
        if let name, name.trimmingSpaces.isEmpty { throw CLIError("The name is empty.", exit: .usage) }
        let identity = Identity.resolve(name: name?.trimmingSpaces, email: email)
        do {
            let h = try Household.clone(
                home: Env.home, name: household.name, url: url.trimmingSpaces, identity: identity, clock: Env.clock,
                driverCommand: "'\(Env.executablePath)' merge-driver %O %A %B %P",
                options: .fromEnvironment(timeout: timeout, quiet: false))
            clearProgress()
            let count = (try? h.snapshot().loadAllIDs().count) ?? 0
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
        let h = try household.open()
        let s = try h.status()
        let snap = try h.snapshot()
        let shorts = try snap.shortIDs(s.unsent.map(\.id))
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
            ])))
            return
        }
        var out = Output()
        out.line("Household: \(h.name) (\(Terminal.safe(h.path)))")
        out.line("Remote:    \(s.remote.map { Terminal.safe(redactedURL($0)) } ?? "none (todo remote set URL)")")
        out.line("Last sync: \(s.sync.lastSuccess.map { Render.localTime($0, h.clock) } ?? "never")")
        if let e = s.sync.lastError { out.line("Last error: \(Terminal.safe(e))") }
        out.line("Not sent:  \(s.unsent.count) task\(s.unsent.count == 1 ? "" : "s")")
        for t in s.unsent.prefix(10) { out.line("  \(shorts[t.id] ?? String(t.id.hex.prefix(4)))  \(Terminal.safe(t.title))") }
        if s.unsent.count > 10 { out.line("  ... and \(s.unsent.count - 10) more") }
        if s.unmerged > 0 { out.line("Fetched, not merged: \(s.unmerged) task\(s.unmerged == 1 ? "" : "s")") }
        if s.newConflicts > 0 { out.line("New conflicts: \(s.newConflicts) (see `todo conflicts`)") }
        out.flush()
    }
}
