import TodoCore
import TodoStore
import TodoWording

/// `todo-serve invite`, `app-password`, `revoke` and `devices`: the owner's commands for who
/// may sign in.
enum Subcommands {
    typealias Exit = ServeMain.Exit
    typealias Failure = ServeMain.Failure

    /// What `invite` and `app-password` take: `NAME [-H NAME] [--base-url URL] [--listen ADDR]
    /// [--label TEXT]`, and `--json` where `json` is allowed.
    private struct LinkArguments {
        var household: String
        var name: String?
        var base: BaseURL?
        var listen: String?
        var label: String?
        var json = false

        init(_ arguments: [String], environment: ServeEnvironment, allowJSON: Bool) throws {
            household = environment.get("TODO_HOUSEHOLD") ?? "home"
            var args = Arguments(arguments)
            while let arg = args.next() {
                switch arg {
                case "-H", "--household": household = try args.value(for: arg)
                case "--base-url":
                    guard let url = BaseURL.parse(try args.value(for: arg)) else {
                        throw UsageError("--base-url takes an http:// or https:// address with an optional path.")
                    }
                    base = url
                case "--listen": listen = try args.value(for: arg)
                case "--label": label = try args.value(for: arg)
                case "--json" where allowJSON: json = true
                default:
                    if arg.hasPrefix("-") || name != nil { throw UsageError("unknown argument \"\(arg)\".") }
                    name = arg
                }
            }
            // The roster's rule for a member's name, and what a commit's author may hold: a
            // name with <, > or a line break would sign in and then fail every change.
            if let name, !Self.isMemberName(name) {
                throw UsageError(
                    "a member's name is 1 to 200 bytes without <, > or control characters (line breaks included); \"\(DisplayText.escaped(name))\" is not.")
            }
        }

        static func isMemberName(_ name: String) -> Bool {
            let trimmed = name.trimmed()
            return !trimmed.isEmpty && trimmed.utf8.count <= 200
                && !trimmed.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == "<" || $0 == ">" }
        }
    }

    /// `invite NAME [--base-url URL] [--label TEXT]`: the sign-in link, as the last line.
    static func invite(_ arguments: [String], environment: ServeEnvironment) throws -> Exit {
        let a = try LinkArguments(arguments, environment: environment, allowJSON: false)
        let (household, name, base, listen, label) = (a.household, a.name, a.base, a.listen, a.label)
        guard let name else { throw UsageError("invite needs the member's name, like: todo serve invite Kim") }
        let (member, membership) = try currentMember(name, household: household, environment: environment)
        if let label, label.count > 200 { throw UsageError("--label is longer than 200 characters.") }
        let state = try prepared(household, environment: environment)
        let start = try linkStart(base: base, listen: listen, state: state)
        let token: IssuedToken
        do {
            token = try TokenStore(folder: state).invite(
                member: member, membership: membership, label: label ?? "\(member)'s device", now: environment.clock.nowMillis())
        } catch {
            throw ServeMain.stateFailure(error)
        }
        print("Sign-in link for \(DisplayText.escaped(member)): it works once, on one device, for 7 days.")
        print("\(start.text)/i/\(token.text)")
        return .ok
    }

    /// Where links start: `--base-url`, else `--listen` given, else what the server recorded
    /// when it last started (its TLS, port and prefix), else `http://127.0.0.1:8080`.
    private static func linkStart(base: BaseURL?, listen: String?, state: StateFolder) throws -> BaseURL {
        if let base { return base }
        if listen == nil {
            do {
                if let recorded = try state.recordedBase() { return recorded }
            } catch {
                throw ServeMain.stateFailure(error)
            }
        }
        guard let (host, port) = splitHostPort(listen ?? "127.0.0.1:8080"), let port, !host.isEmpty else {
            throw UsageError("--listen takes ADDRESS:PORT.")
        }
        return BaseURL(scheme: "http", host: host, port: port, path: "")
    }

    /// `app-password NAME [--label TEXT] [--json] [--base-url URL]`: a new app password for a
    /// phone's task app (CalDAV), shown once: the address, the user name and the password, as
    /// three lines or one JSON object. `output` takes each line of standard output.
    static func appPassword(
        _ arguments: [String], environment: ServeEnvironment, output: (String) -> Void = { print($0) }
    ) throws -> Exit {
        let a = try LinkArguments(arguments, environment: environment, allowJSON: true)
        let (household, name, base, listen, label, json) = (a.household, a.name, a.base, a.listen, a.label ?? "phone", a.json)
        guard let name else { throw UsageError("app-password needs the member's name, like: todo serve app-password Kim") }
        if label.count > 200 { throw UsageError("--label is longer than 200 characters.") }
        let (member, membership) = try currentMember(name, household: household, environment: environment)
        let state = try prepared(household, environment: environment)
        let start = try linkStart(base: base, listen: listen, state: state)
        let made: (user: String, password: String)
        do {
            made = try TokenStore(folder: state).appPassword(
                member: member, membership: membership, label: label, now: environment.clock.nowMillis())
        } catch {
            throw ServeMain.stateFailure(error)
        }
        let url = start.text + "/dav/"
        if start.scheme != "https", !DAVAuth.isLoopback(start.host), start.host != "localhost" {
            printError(
                "todo-serve: note: phones send app passwords only over HTTPS; \(url) is plain HTTP, so the server refuses them from other machines. Give the https address with --base-url.")
        }
        if json {
            output(JSONWriter.compact(.object([("url", .string(url)), ("user", .string(made.user)), ("password", .string(made.password))])))
        } else {
            output("Address: \(url)")
            output("User: \(made.user)")
            output("Password: \(made.password)")
        }
        return .ok
    }

    /// `revoke NAME [--device ID | --feed]`.
    static func revoke(_ arguments: [String], environment: ServeEnvironment, output: (String) -> Void = { print($0) }) throws -> Exit {
        var household = environment.get("TODO_HOUSEHOLD") ?? "home"
        var name: String?
        var device: String?
        var feed = false
        var args = Arguments(arguments)
        while let arg = args.next() {
            switch arg {
            case "-H", "--household": household = try args.value(for: arg)
            case "--device": device = try args.value(for: arg)
            case "--feed": feed = true
            default:
                if arg.hasPrefix("-") || name != nil { throw UsageError("unknown argument \"\(arg)\".") }
                name = arg
            }
        }
        guard let name else { throw UsageError("revoke needs the member's name, like: todo serve revoke Kim") }
        if feed && device != nil { throw UsageError("--device and --feed do not go together.") }
        let member = try knownMember(name, household: household, environment: environment)
        let state = try prepared(household, environment: environment)
        let n: Int
        do {
            n = try TokenStore(folder: state).revoke(member: member, device: device, feedOnly: feed)
        } catch {
            throw ServeMain.stateFailure(error)
        }
        let what = feed ? "feed address" : device != nil ? "device" : "sign-in links, devices, app passwords and feed addresses"
        output(n == 0 ? "Nothing to revoke for \(DisplayText.escaped(member))." : "Revoked \(DisplayText.escaped(member))'s \(what) (\(n)).")
        return .ok
    }

    /// `devices [NAME]`: id, kind (an app password's with its user name), member, label, last use.
    static func devices(_ arguments: [String], environment: ServeEnvironment, output: (String) -> Void = { print($0) }) throws -> Exit {
        var household = environment.get("TODO_HOUSEHOLD") ?? "home"
        var name: String?
        var args = Arguments(arguments)
        while let arg = args.next() {
            switch arg {
            case "-H", "--household": household = try args.value(for: arg)
            default:
                if arg.hasPrefix("-") || name != nil { throw UsageError("unknown argument \"\(arg)\".") }
                name = arg
            }
        }
        try ServeMain.checkHousehold(household, environment: environment)
        let state = try prepared(household, environment: environment)
        let records: [TokenRecord]
        do {
            records = try TokenStore(folder: state).records()
        } catch {
            throw ServeMain.stateFailure(error)
        }
        // The roster as `main` holds it now, whether or not a server has run since: a token
        // its member's standing refuses opens nothing, so it is not listed.
        let snap: Snapshot
        do {
            snap = try Household.openForReading(home: environment.home, name: household, clock: environment.clock).snapshot()
        } catch {
            throw Failure(exit: .config, message: Worded(error, paths: .shown).fact)
        }
        var standings: [String: Standing] = [:]
        func opens(_ r: TokenRecord) -> Bool {
            let key = r.member.lowercased()
            let standing = standings[key] ?? snap.standing(of: r.member)
            standings[key] = standing
            return Site.verdict(membership: r.membership, standing: standing).keep
        }
        let now = environment.clock.nowMillis()
        for r in records where (name == nil || r.member.lowercased() == name!.lowercased()) && opens(r) {
            if let e = r.expires, e <= now { continue }
            let used = r.lastUsed.map { TaskPage.localTime($0 / 1000, offsetMinutes: 0) + " UTC" } ?? "never"
            let kind = r.kind == .app ? "app: \(r.user ?? "")" : r.kind.rawValue
            output("\(r.id)  \(kind)  \(DisplayText.escaped(r.member))  \(DisplayText.escaped(r.label))  last used \(used)")
        }
        return .ok
    }

    private static func knownMember(_ name: String, household: String, environment: ServeEnvironment) throws -> String {
        try ServeMain.checkHousehold(household, environment: environment)
        let spelled: String?
        do {
            spelled = try Household.openForReading(home: environment.home, name: household, clock: environment.clock).knownMember(name)
        } catch {
            throw Failure(exit: .config, message: Worded(error, paths: .shown).fact)
        }
        guard let spelled else {
            throw Failure(
                exit: .noInput,
                message: "the household \"\(household)\" has no member \"\(DisplayText.escaped(name))\" (no task, rotation, change or member detail names them). Check the spelling, or record them with `todo member set \(DisplayText.escaped(name)) --email …`.")
        }
        return spelled
    }

    /// `knownMember`, for a new invite or app password: refused (exit 66) when the member's
    /// latest roster entry is `left`; with the membership the new token belongs to.
    private static func currentMember(_ name: String, household: String, environment: ServeEnvironment) throws -> (String, String) {
        let member = try knownMember(name, household: household, environment: environment)
        let standing: Standing
        do {
            standing = try Household.openForReading(home: environment.home, name: household, clock: environment.clock).standing(of: member)
        } catch {
            throw Failure(exit: .config, message: Worded(error, paths: .shown).fact)
        }
        switch standing {
        case .member(let membership): return (member, membership)
        case .left:
            let shown = DisplayText.escaped(member)
            throw Failure(
                exit: .noInput,
                message: "\(shown) has left the household \"\(household)\" (their latest roster entry is \"left\"), so they can have no sign-in link or app password. If they are back, record that first with `todo member add \(shown)`.")
        }
    }

    private static func prepared(_ household: String, environment: ServeEnvironment) throws -> StateFolder {
        let state = StateFolder.forHousehold(household, environment: environment)
        do {
            try state.prepare()
        } catch {
            throw ServeMain.stateFailure(error)
        }
        return state
    }
}
