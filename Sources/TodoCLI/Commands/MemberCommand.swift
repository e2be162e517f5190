import TodoWording
import ArgumentParser
import TodoCore
import TodoStore

struct MemberCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "member",
        abstract: "Members who join, leave or go away; their details.",
        discussion: """
            A member is any name the household already uses: an assignee, a name in a rotation, \
            someone who made a change. Their details (email, how reminders reach them) are shared \
            with the household like a task, so the machine that runs `todo remind` can reach \
            everyone. Secrets (an SMTP password, a push token) never go here: see `todo remind`.

            Members come and go: `add` makes a new member explicit, `leave` takes someone out of \
            every rotation from tomorrow and hands their open tasks on, `away` gives their turns \
            in a window of days to a stand-in. Turns already announced (today's and earlier) \
            never move.

            Examples:
              todo member
              todo member add Sam
              todo member away Kim --from 2026-12-21 --until 2026-12-28
              todo member leave Bob --to Kim
              todo member set Kim --email kim@example.org --via mail
              todo member add Sam --key age1...
              todo member key remove Sam age1...
              todo member set Sam --via post --post-url https://ntfy.sh/our-family-sam
              todo member show Kim
            """,
        subcommands: [
            MemberListCommand.self, MemberAddCommand.self, MemberLeaveCommand.self, MemberAwayCommand.self,
            MemberSetCommand.self, MemberShowCommand.self, MemberKeyCommand.self,
        ],
        defaultSubcommand: MemberListCommand.self)
}

struct MemberListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Every member: active, away (with dates) or left, their details and device keys.")

    @OptionGroup var household: HouseholdOptions

    func run() throws {
        let h = try household.openForReading()
        let details = try h.memberDetails().details
        var byFold: [String: MemberDetails] = [:]
        for (name, d) in details { byFold[name.lowercased()] = d }
        let roster = try h.roster()
        let today = Env.today(h.clock)
        var keys: [String: [String]] = [:]
        for m in try h.keyRoster().members { keys[m.name.lowercased()] = m.recipients }
        var out = Output()
        for name in try h.memberNames() {
            out.line(
                MemberText.summary(name, byFold[name.lowercased()] ?? MemberDetails(), state: MemberText.state(roster.member(name), today: today))
                    + MemberKeyText.listed(keys[name.lowercased()] ?? []))
        }
        out.flush()
    }
}

struct MemberShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "One member's details.")

    @OptionGroup var household: HouseholdOptions
    @Argument(help: ArgumentHelp("The member.", valueName: "name")) var name: String

    func run() throws {
        let h = try household.openForReading()
        let member = try MemberText.known(h, name)
        let (details, problems) = try h.memberDetails()
        let d = details.first { $0.key.lowercased() == member.lowercased() }?.value ?? MemberDetails()
        var out = Output()
        out.line("Member:    \(Terminal.safe(member))")
        out.line("Email:     \(d.email.map(Terminal.safe) ?? "none")")
        out.line("Reminders: \(MemberText.how(d))")
        if let url = d.postURL { out.line("Post URL:  \(Terminal.safe(url))") }
        if let n = d.everyDays, n > 1 { out.line("Every:     \(n) days at most") }
        if let m = d.remindAt { out.line("Remind at: \(MemberInput.clock(m))") }
        // Shown only for a member who is not simply active.
        let state = MemberText.state(try h.roster().member(member), today: Env.today(h.clock))
        if state != "active" { out.line("State:     " + state) }
        for p in problems where p.member.lowercased() == member.lowercased() {
            out.line("Ignored:   \(Terminal.safe(RemindMessages.leftOut(p)))")
        }
        out.flush()
    }
}

struct MemberSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Set a member's email and how reminders reach them.",
        discussion: """
            Makes one commit that sync sends to everyone. An empty value clears a field \
            (--email ""). --via: stdout (the output of `todo remind`, which cron mails), mail \
            (to --email), post (plain text POSTed to --post-url, as ntfy-style push services take). \
            --remind-at: the time of the household's day from which their reminder is sent, by \
            `todo serve` at that time or by the first `todo remind` run from cron at or after it \
            (default 07:00; `todo remind --now` sends regardless).
            """)

    @OptionGroup var household: HouseholdOptions
    @Argument(help: ArgumentHelp("The member, as the household spells them.", valueName: "name")) var name: String
    @Option(help: ArgumentHelp("Their email address.", valueName: "address")) var email: String?
    @Option(help: ArgumentHelp("How reminders reach them: stdout, mail or post.", valueName: "method")) var via: String?
    @Option(help: ArgumentHelp("The http:// or https:// URL reminders are POSTed to.", valueName: "url")) var postURL: String?
    @Option(help: ArgumentHelp("Remind them at most every N days (1 to 30; default 1, daily).", valueName: "N"))
    var everyDays: String?
    @Option(help: ArgumentHelp("The time from which they are reminded, HH:MM in the household's zone (default 07:00).", valueName: "HH:MM"))
    var remindAt: String?
    @Flag(help: "Add a member the household does not use yet.") var new = false

    func validate() throws {
        if email == nil && via == nil && postURL == nil && everyDays == nil && remindAt == nil {
            throw ValidationError("Nothing to set: give --email, --via, --post-url, --every-days or --remind-at.")
        }
        if let remindAt, !remindAt.isEmpty, MemberInput.minuteOfDay(remindAt) == nil {
            throw ValidationError("--remind-at must be a time of day HH:MM from 00:00 to 23:59; \"\(Terminal.safe(remindAt))\" is not.")
        }
        if let everyDays, !everyDays.isEmpty, MemberInput.everyDays(everyDays) == nil {
            throw ValidationError("--every-days must be a number of days from 1 to 30; \"\(Terminal.safe(everyDays))\" is not.")
        }
        if let email, !email.isEmpty, !MemberInput.isEmail(email) {
            throw ValidationError("--email must be an address like kim@example.org; \"\(Terminal.safe(email))\" is not.")
        }
        if let via, !via.isEmpty, Delivery(rawValue: via) == nil {
            throw ValidationError("--via must be stdout, mail or post; \"\(Terminal.safe(via))\" is not.")
        }
        if let postURL, !postURL.isEmpty, !MemberInput.isPostURL(postURL) {
            throw ValidationError(
                "--post-url must be an http:// or https:// URL with a host and no spaces or user name; \"\(Terminal.safe(postURL))\" is not.")
        }
        let trimmed = name.trimmingSpaces
        if trimmed.isEmpty || trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) || trimmed.utf8.count > 200 {
            throw ValidationError("The member's name must be 1 to 200 bytes without control characters.")
        }
    }

    func run() throws {
        let h = try household.open()
        let member: String
        if new {
            member = try h.knownMember(name.trimmingSpaces) ?? name.trimmingSpaces
        } else {
            member = try MemberText.known(h.reader, name)
        }
        let current = try h.memberDetails().details.first { $0.key.lowercased() == member.lowercased() }?.value ?? MemberDetails()
        let email = self.email ?? current.email
        let url = postURL ?? current.postURL
        let method = via.flatMap { $0.isEmpty ? nil : Delivery(rawValue: $0) } ?? current.via
        if method == .mail && (email ?? "").isEmpty {
            throw CLIError("\(Terminal.safe(member)) has no email: give --email with --via mail.", exit: .usage)
        }
        if method == .post && (url ?? "").isEmpty {
            throw CLIError("\(Terminal.safe(member)) has no URL to post to: give --post-url with --via post.", exit: .usage)
        }
        if try h.setMember(member, MemberChange(email: self.email, via: via, postURL: postURL, every: everyDays, remindAt: remindAt)) == nil {
            print("\(Terminal.safe(member)): unchanged.")
        } else {
            let d = try h.memberDetails().details.first { $0.key.lowercased() == member.lowercased() }?.value ?? MemberDetails()
            print("\(MemberText.summary(member, d)); members get it with their next sync.")
        }
    }
}

struct MemberAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add a member to the household (or bring back one who left).",
        discussion: """
            Names the household already uses (an assignee, a rotation, who made a change) are \
            members already: adding one (compared without case) changes nothing. Someone who \
            left is a member again from tomorrow; their old page sessions and feed addresses \
            stay ended. Add them to a chore with `todo edit ID --rotate ...`.

            --key grants a device's key (what `todo key` prints on that device) to NAME, new or \
            already a member (docs/ENCRYPTION.md).
            """)

    @OptionGroup var household: HouseholdOptions
    @Argument(help: ArgumentHelp("The member's name.", valueName: "name")) var name: String
    @Option(help: ArgumentHelp("A device key (age1...) to grant them.", valueName: "recipient")) var key: String?

    func validate() throws { try MemberText.checkName(name) }

    func run() throws {
        let h = try household.open()
        if let key {
            try MemberKeyText.grant(h, key.trimmingSpaces, to: name.trimmingSpaces)
            return
        }
        let (member, commit) = try h.addMember(name.trimmingSpaces)
        if commit == nil {
            print("\(Terminal.safe(member)) is already a member of household \"\(h.name)\": nothing to add.")
        } else {
            print("Added \(Terminal.safe(member)) to household \"\(h.name)\" from \(Env.today(h.clock).adding(days: 1)).")
        }
    }
}

struct MemberLeaveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leave", abstract: "A member leaves: out of every rotation from tomorrow, their tasks handed on.",
        discussion: """
            One commit: from the next household day NAME is out of every rotation (today's \
            turns stay), swaps and passes to them go back to the rotation, their open tasks \
            and chores without a rotation go to --to (or become unassigned), reminders to them \
            stop, and `todo serve` ends their sessions and feed addresses at its next sync. \
            Their history and credits stay.

            Example:
              todo member leave Bob --to Kim
            """)

    @OptionGroup var household: HouseholdOptions
    @Argument(help: ArgumentHelp("The member who leaves.", valueName: "name")) var name: String
    @Option(help: ArgumentHelp("Who takes their open tasks (default: nobody).", valueName: "other")) var to: String?

    func run() throws {
        let h = try household.open()
        let o = try h.leaveMember(name.trimmingSpaces, to: to?.trimmingSpaces)
        var out = Output()
        guard o.changed else {
            print("\(Terminal.safe(o.member)) has already left household \"\(h.name)\": nothing changed.")
            return
        }
        out.line("\(Terminal.safe(o.member)) leaves household \"\(h.name)\" from \(o.from).")
        for t in o.rotations { out.line("    \(t.short) \(Terminal.safe(t.task.title)): out of the rotation") }
        let whom = o.to.map { "to \(Terminal.safe($0))" } ?? "unassigned"
        for t in o.reassigned { out.line("    \(t.short) \(Terminal.safe(t.task.title)): \(whom)") }
        out.flush()
    }
}

struct MemberAwayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "away", abstract: "A member is away for some days: a stand-in takes their turns.",
        discussion: """
            Each turn of NAME from --from through --until (inclusive) goes to the next present \
            member in the rotation; the order is otherwise unchanged. A window starting today \
            or earlier takes effect tomorrow (today's turn is already announced). Several \
            windows may be recorded; --clear removes those that have not ended.

            Examples:
              todo member away Kim --from 2026-12-21 --until 2026-12-28
              todo member away Kim --clear
            """)

    @OptionGroup var household: HouseholdOptions
    @Argument(help: ArgumentHelp("The member who is away.", valueName: "name")) var name: String
    @Option(help: ArgumentHelp("The first day away.", valueName: "date")) var from: String?
    @Option(help: ArgumentHelp("The last day away.", valueName: "date")) var until: String?
    @Flag(help: "Remove the windows that have not ended.") var clear = false

    func validate() throws {
        if clear && (from != nil || until != nil) { throw ValidationError("--clear takes no --from or --until.") }
        if !clear && (from == nil || until == nil) { throw ValidationError("Give --from DATE and --until DATE (or --clear).") }
    }

    func run() throws {
        let h = try household.open()
        let today = Env.today(h.clock)
        if clear {
            let (member, cleared, _) = try h.clearAway(name.trimmingSpaces)
            print(cleared == 0 ? "\(Terminal.safe(member)) has no absence to clear." : "Cleared \(cleared) absence\(cleared == 1 ? "" : "s") of \(Terminal.safe(member)).")
            return
        }
        let start = try Input.date(from ?? "", option: "--from", today: today)
        let end = try Input.date(until ?? "", option: "--until", today: today)
        let (member, first, commit) = try h.setAway(name.trimmingSpaces, from: start, until: end)
        let note = first != start ? " (today's turns stay as they are)" : ""
        print(commit == nil ? "\(Terminal.safe(member)) is already away from \(first) to \(end)." : "\(Terminal.safe(member)) is away from \(first) to \(end)\(note).")
    }
}

enum MemberText {
    /// "active", "left on 2026-12-01", or what is coming: "leaves 2026-12-01", "away 2026-12-21
    /// to 2026-12-28" (several joined with ", ").
    static func state(_ m: Roster.Member?, today: CivilDate) -> String {
        guard let m else { return "active" }
        if m.hasLeft(on: today) {
            let since = m.events.last { !$0.member && $0.date <= today }?.date
            return "left" + (since.map { " on \($0)" } ?? "")
        }
        var parts: [String] = []
        let coming = m.events.last(where: { $0.date > today })
        if let e = coming { parts.append(e.member ? "joins \(e.date)" : "leaves \(e.date)") }
        // Absences after a coming leave no longer matter.
        let end = coming.flatMap { $0.member ? nil : $0.date }
        for w in m.away where w.until >= today && end.map({ w.from < $0 }) ?? true { parts.append("away \(w.from) to \(w.until)") }
        return parts.isEmpty ? "active" : parts.joined(separator: ", ")
    }

    static func checkName(_ name: String) throws {
        let trimmed = name.trimmingSpaces
        if trimmed.isEmpty || trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) || trimmed.utf8.count > 200 {
            throw ValidationError("The member's name must be 1 to 200 bytes without control characters.")
        }
    }

    static func how(_ d: MemberDetails) -> String {
        switch d.delivery {
        case .stdout: return "standard output" + (d.via == nil ? " (no email or method set)" : "")
        case .mail: return "mail" + (d.email.map { " to \(Terminal.safe($0))" } ?? " (no email set: cannot be sent)")
        case .post: return "POST" + (d.postURL.map { " to \(Terminal.safe($0))" } ?? " (no URL set: cannot be sent)")
        }
    }

    static func summary(_ name: String, _ d: MemberDetails, state: String? = nil) -> String {
        var text = Terminal.safe(name)
        if let e = d.email { text += " <\(Terminal.safe(e))>" }
        text += ": " + (state.map { $0 + "; " } ?? "") + "reminders by " + how(d)
        if let n = d.everyDays, n > 1 { text += ", every \(n) days at most" }
        if let m = d.remindAt { text += ", at \(MemberInput.clock(m))" }
        return text
    }

    /// The household's spelling of `name`, or exit 66 naming the members it has.
    static func known(_ h: HouseholdReader, _ name: String) throws -> String {
        let wanted = name.trimmingSpaces
        if let hit = try h.knownMember(wanted) { return hit }
        let names = try h.memberNames()
        let list = names.isEmpty ? "none yet" : names.prefix(20).map { Terminal.safe($0) }.joined(separator: ", ")
        throw CLIError(
            "No member \"\(Terminal.safe(wanted))\" in household \"\(h.name)\": no task, rotation or change names them. Members: \(list). (`todo member set NAME --new …` adds someone new.)",
            exit: .notFound)
    }
}
