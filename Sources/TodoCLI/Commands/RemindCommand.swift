import TodoWording
import ArgumentParser
import TodoCore
import TodoStore

struct RemindCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remind",
        abstract: "Remind members of what is due, overdue or new.",
        discussion: """
            For each member (or --member NAME): what is overdue, what is due today and what became \
            theirs since their last reminder, in the household's time zone; at most once per \
            household day per member, until the chore is done or skipped. A member's reminder \
            waits until the household's time reaches their --remind-at (`todo member set`, \
            default 07:00): a run before that leaves them to a later run, so cron runs it \
            hourly; --now sends regardless. Nothing to say: prints nothing, exits 0. Each member's reminder goes the way `todo member set --via` chose \
            (standard output, mail, or a POST); --via overrides it for this run.

            One machine sends for the household: what it sent is kept there, in \
            $XDG_STATE_HOME/todo/reminders/HOUSEHOLD.state, never in the household. Mail goes \
            through sendmail, or SMTP when smtp.host is set in $XDG_CONFIG_HOME/todo/remind (a \
            file only its owner may read; see todo(1), FILES). SMTP and POSTs are sent by \
            todo-serve (installed beside todo); without it they fail with exit 78. A failed \
            delivery is tried again on the next run and told once a day on standard error (exit \
            75; 78 when refused).

            Examples:
              todo remind --dry-run
              todo remind --member Kim --via stdout
              todo remind --now
              crontab: 0 * * * * todo sync --quiet; todo remind
            """)

    @OptionGroup var household: HouseholdOptions
    @Option(help: ArgumentHelp("Only this member.", valueName: "name")) var member: String?
    @Option(help: ArgumentHelp("Deliver every reminder this way for this run: stdout, mail or post.", valueName: "method"))
    var via: String?
    @Flag(help: "Print what would be sent and to whom; send nothing, record nothing.") var dryRun = false
    @Flag(help: "Send every member's reminder now, even before their --remind-at.") var now = false
    @Option(help: ArgumentHelp("Give up on a delivery after this many seconds (1 to 600, default 30).", valueName: "seconds"))
    var timeout = 30

    func validate() throws {
        if let via, Delivery(rawValue: via) == nil {
            throw ValidationError("--via must be stdout, mail or post; \"\(Terminal.safe(via))\" is not.")
        }
        if let member, member.trimmingSpaces.isEmpty { throw ValidationError("--member needs a name.") }
        if timeout < 1 || timeout > 600 { throw ValidationError("--timeout must be from 1 to 600 seconds.") }
    }

    static var stateFolder: String {
        (Env.get("XDG_STATE_HOME").map(Env.trimSlash) ?? Env.trimSlash(Env.userHome) + "/.local/state") + "/todo/reminders"
    }

    static var settingsPath: String {
        (Env.get("XDG_CONFIG_HOME").map(Env.trimSlash) ?? Env.trimSlash(Env.userHome) + "/.config") + "/todo/remind"
    }

    func run() throws {
        let h = try household.openForReading()
        let members = try member.map { [try MemberText.known(h, $0)] }
        let statePath = Self.stateFolder + "/\(h.name).state"
        var state: ReminderState
        let settings: ReminderSettings
        let lock: (any AnyObject & Sendable)?
        do {
            lock = dryRun ? nil : try ReminderState.lock(statePath)
            state = try ReminderState.load(statePath)
            settings = try ReminderSettings.load(path: Self.settingsPath) { Env.get($0) }
        } catch {
            throw RemindMessages.config(error)
        }
        let (today, plans) = try h.planReminders(members: members, state: state, atTheirHour: !now, word: RemindMessages.reminder)
        let override = via.flatMap(Delivery.init(rawValue:))
        let from = (try? h.identity().email) ?? "todo@localhost"  // no email recorded for this clone: the placeholder sender
        var sender = ReminderSender(
            settings: settings, defaultFrom: from, networkHelper: ServeCommand.find(beside: Env.executablePath), nowMillis: h.clock.nowMillis())
        sender.timeoutSeconds = timeout
        defer { withExtendedLifetime(lock) {} }
        var out = Output()
        var worst: Exit = .ok
        for plan in plans {
            let key = plan.member.lowercased()
            guard var message = plan.message else {
                // Nothing to say: what is theirs is noted, so that it is not "new" later.
                if !dryRun, !plan.remindedToday, state.members[key]?.theirs != plan.theirs {
                    state.members[key, default: .init()].theirs = plan.theirs
                    try save(state, statePath)
                }
                continue
            }
            let how = override ?? plan.details.delivery
            if dryRun {
                out.line("To \(Terminal.safe(plan.member)) by \(Self.describe(how, plan.details)):")
                out.line("Subject: \(Terminal.safe(message.subject))")
                out.line("Message-ID: <\(message.messageID)>")
                for line in message.body.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
                    out.line(Terminal.safe(String(line)))
                }
                out.line()
                continue
            }
            if how != .stdout, state.beginSending(&message, member: plan.member, nowMillis: sender.nowMillis) {
                try save(state, statePath)
            }
            do {
                try deliver(message, how: how, details: plan.details, sender: sender, out: &out)
                state.members[key] = .init(day: today.description, theirs: plan.theirs, failing: nil)
                try save(state, statePath)
            } catch let failure as DeliveryFailure {
                let exit: Exit
                switch failure {
                case .transient: exit = .busy
                case .refused: exit = .configuration
                }
                if worst == .ok || exit == .configuration { worst = exit }
                if state.members[key]?.failing != today.description {
                    printError("todo: " + RemindMessages.deliveryFailed(member: plan.member, how: how, failure))
                    state.members[key, default: .init()].failing = today.description
                    try save(state, statePath)
                }
            }
        }
        out.flush()
        if worst != .ok { throw CLIError.silent(worst) }
    }

    private func deliver(_ message: ReminderMessage, how: Delivery, details: MemberDetails, sender: ReminderSender, out: inout Output) throws {
        switch how {
        case .stdout:
            if !out.text.isEmpty { out.line() }
            out.line(Terminal.safe(message.subject))
            out.line()
            for line in message.body.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
                out.line(Terminal.safe(String(line)))
            }
        case .mail:
            guard let email = details.email else {
                throw DeliveryFailure.refused(.noEmail(member: message.member))
            }
            try sender.mail(message, to: email)
        case .post:
            guard let url = details.postURL else {
                throw DeliveryFailure.refused(.noPostURL(member: message.member))
            }
            try sender.post(message, url: url)
        }
    }

    private func save(_ state: ReminderState, _ path: String) throws {
        do { try state.save(path) } catch { throw RemindMessages.config(error) }
    }

    static func describe(_ how: Delivery, _ d: MemberDetails) -> String {
        switch how {
        case .stdout: return "standard output"
        case .mail: return "mail to " + (d.email.map(Terminal.safe) ?? "(no email set)")
        case .post: return "POST to " + (d.postURL.map(Terminal.safe) ?? "(no URL set)")
        }
    }
}
