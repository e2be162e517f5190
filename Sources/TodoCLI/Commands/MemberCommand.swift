import ArgumentParser
import TodoCore
import TodoStore

struct MemberCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "member",
        abstract: "Show or set members' contact details for reminders.",
        discussion: """
            A member is any name the household already uses: an assignee, a name in a rotation, \
            someone who made a change. Their details (email, how reminders reach them) are shared \
            with the household like a task, so the machine that runs `todo remind` can reach \
            everyone. Secrets (an SMTP password, a push token) never go here: see `todo remind`.

            Examples:
              todo member
              todo member set Kim --email kim@example.org --via mail
              todo member set Sam --via post --post-url https://ntfy.sh/our-family-sam
              todo member show Kim
            """,
        subcommands: [MemberListCommand.self, MemberSetCommand.self, MemberShowCommand.self],
        defaultSubcommand: MemberListCommand.self)
}

struct MemberListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Every member and their details.")

    @OptionGroup var household: HouseholdOptions

    func run() throws {
        let h = try household.openForReading()
        let details = try h.memberDetails().details
        var byFold: [String: MemberDetails] = [:]
        for (name, d) in details { byFold[name.lowercased()] = d }
        var out = Output()
        for name in try h.memberNames() {
            out.line(MemberText.summary(name, byFold[name.lowercased()] ?? MemberDetails()))
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
            (to --email), post (plain text POSTed to --post-url, as ntfy-style push services take).
            """)

    @OptionGroup var household: HouseholdOptions
    @Argument(help: ArgumentHelp("The member, as the household spells them.", valueName: "name")) var name: String
    @Option(help: ArgumentHelp("Their email address.", valueName: "address")) var email: String?
    @Option(help: ArgumentHelp("How reminders reach them: stdout, mail or post.", valueName: "method")) var via: String?
    @Option(help: ArgumentHelp("The http:// or https:// URL reminders are POSTed to.", valueName: "url")) var postURL: String?
    @Option(help: ArgumentHelp("Remind them at most every N days (1 to 30; default 1, daily).", valueName: "N"))
    var everyDays: String?
    @Flag(help: "Add a member the household does not use yet.") var new = false

    func validate() throws {
        if email == nil && via == nil && postURL == nil && everyDays == nil {
            throw ValidationError("Nothing to set: give --email, --via, --post-url or --every-days.")
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
            member = try MemberText.known(h, name)
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
        if try h.setMember(member, MemberChange(email: self.email, via: via, postURL: postURL, every: everyDays)) == nil {
            print("\(Terminal.safe(member)): unchanged.")
        } else {
            let d = try h.memberDetails().details.first { $0.key.lowercased() == member.lowercased() }?.value ?? MemberDetails()
            print("\(MemberText.summary(member, d)); members get it with their next sync.")
        }
    }
}

enum MemberText {
    static func how(_ d: MemberDetails) -> String {
        switch d.delivery {
        case .stdout: return "standard output" + (d.via == nil ? " (no email or method set)" : "")
        case .mail: return "mail" + (d.email.map { " to \(Terminal.safe($0))" } ?? " (no email set: cannot be sent)")
        case .post: return "POST" + (d.postURL.map { " to \(Terminal.safe($0))" } ?? " (no URL set: cannot be sent)")
        }
    }

    static func summary(_ name: String, _ d: MemberDetails) -> String {
        var text = Terminal.safe(name)
        if let e = d.email { text += " <\(Terminal.safe(e))>" }
        text += ": reminders by " + how(d)
        if let n = d.everyDays, n > 1 { text += ", every \(n) days at most" }
        return text
    }

    /// The household's spelling of `name`, or exit 66 naming the members it has.
    static func known(_ h: Household, _ name: String) throws -> String {
        let wanted = name.trimmingSpaces
        if let hit = try h.knownMember(wanted) { return hit }
        let names = try h.memberNames()
        let list = names.isEmpty ? "none yet" : names.prefix(20).map { Terminal.safe($0) }.joined(separator: ", ")
        throw CLIError(
            "No member \"\(Terminal.safe(wanted))\" in household \"\(h.name)\": no task, rotation or change names them. Members: \(list). (`todo member set NAME --new …` adds someone new.)",
            exit: .notFound)
    }
}
