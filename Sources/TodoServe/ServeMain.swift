import Synchronization
import Glibc
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOSSL
import Logging
import NIOCore
import TodoCore
import TodoStore
import TodoWording

/// `todo-serve`: the server, and the `invite`, `app-password`, `revoke` and `devices` subcommands
/// (docs/SERVE.md, "Commands"). Arguments are parsed by hand: the server never links
/// ArgumentParser or TodoCLI.
public enum ServeMain {
    /// Exit codes, as README's table and todo(1) give them.
    enum Exit: Int32 {
        case ok = 0, usage = 64, noInput = 66, cantCreate = 73, tempFail = 75, config = 78
    }

    struct Failure: Error {
        let exit: Exit
        let message: String
    }

    static let usage = """
        usage: todo-serve [-H NAME] [--listen ADDR:PORT] [--base-url URL] [--host NAME]...
                          [--tls-cert PEM --tls-key PEM] [--trust-proxy ADDR]... [--sync-every DURATION] [--caldav-days N]
               todo-serve invite NAME [-H NAME] [--base-url URL] [--label TEXT]
               todo-serve app-password NAME [-H NAME] [--label TEXT] [--json] [--base-url URL]
               todo-serve revoke NAME [-H NAME] [--device ID | --feed]
               todo-serve devices [NAME] [-H NAME]
               todo-serve install [-H NAME] [--listen ADDR:PORT] [the server's other options]
               todo-serve --version
        """

    public static func run() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let environment = ServeEnvironment.process
        let code: Exit
        do {
            code = try await dispatch(arguments, environment: environment)
        } catch let f as Failure {
            printError("todo-serve: " + f.message)
            code = f.exit
        } catch let u as UsageError {
            printError("todo-serve: " + u.message + "\n" + usage)
            code = .usage
        } catch {
            printError("todo-serve: \(error)")
            code = .config
        }
        exit(code.rawValue)
    }

    static func dispatch(_ arguments: [String], environment: ServeEnvironment) async throws -> Exit {
        // The same line as `todo --version` (TodoCore's Version.swift).
        if arguments == ["--version"] {
            print(TodoVersion.text)
            return .ok
        }
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return .ok
        }
        switch arguments.first {
        case "invite": return try Subcommands.invite(Array(arguments.dropFirst()), environment: environment)
        case "app-password": return try Subcommands.appPassword(Array(arguments.dropFirst()), environment: environment)
        case "revoke": return try Subcommands.revoke(Array(arguments.dropFirst()), environment: environment)
        case "devices": return try Subcommands.devices(Array(arguments.dropFirst()), environment: environment)
        case "install": return try ServeInstall.run(Array(arguments.dropFirst()), environment: environment)
        default: return try await serve(arguments, environment: environment)
        }
    }

    // MARK: Serving

    static func parseServe(_ arguments: [String], environment: ServeEnvironment) throws -> ServeConfig {
        var config = ServeConfig(household: environment.get("TODO_HOUSEHOLD") ?? "home")
        var args = Arguments(arguments)
        while let arg = args.next() {
            switch arg {
            case "-H", "--household": config.household = try args.value(for: arg)
            case "--listen":
                let v = try args.value(for: arg)
                guard let (host, port) = splitHostPort(v), let port, !host.isEmpty else {
                    throw UsageError("--listen takes ADDRESS:PORT, like 127.0.0.1:8080 or [::1]:8080 (port 0 picks a free one).")
                }
                config.listenHost = host
                config.listenPort = port
            case "--base-url":
                let v = try args.value(for: arg)
                guard let url = BaseURL.parse(v) else {
                    throw UsageError("--base-url takes an http:// or https:// address with an optional path, like https://nas.example/todo.")
                }
                config.baseURL = url
            case "--host": config.extraHosts.append(try args.value(for: arg))
            case "--tls-cert": config.tlsCert = try args.value(for: arg)
            case "--tls-key": config.tlsKey = try args.value(for: arg)
            case "--trust-proxy": config.trustProxy.append(try args.value(for: arg))
            case "--sync-every":
                let v = try args.value(for: arg)
                guard let s = parseSeconds(v) else { throw UsageError("--sync-every takes a duration like 15m, 1h or 90s (0: never).") }
                config.syncEvery = s
            case "--caldav-days":
                let v = try args.value(for: arg)
                guard let n = Int(v), n >= 0, n <= 366 else { throw UsageError("--caldav-days takes a number of days from 0 to 366.") }
                config.caldavDays = n
            default: throw UsageError("unknown argument \"\(arg)\".")
            }
        }
        if (config.tlsCert == nil) != (config.tlsKey == nil) { throw UsageError("--tls-cert and --tls-key go together.") }
        if config.baseURL == nil && (config.isWildcard || !config.trustProxy.isEmpty) {
            throw UsageError(
                "--base-url is needed with \(config.isWildcard ? "a wildcard --listen address" : "--trust-proxy"): the address members' phones use, like https://nas.example/todo.")
        }
        return config
    }

    static func serve(_ arguments: [String], environment: ServeEnvironment) async throws -> Exit {
        let config = try parseServe(arguments, environment: environment)
        var tls: TLSConfiguration?
        if let cert = config.tlsCert, let key = config.tlsKey {
            do {
                tls = try TLSFiles.configuration(cert: cert, key: key)
            } catch {
                throw Failure(exit: .config, message: error.message)
            }
        }
        // The reader goes at the end of this line: nothing of libgit2 is kept open.
        if let warning = ZoneCheck.warning(try checkHousehold(config.household, environment: environment), household: config.household) {
            printError(warning)
        }
        let state = StateFolder.forHousehold(config.household, environment: environment)
        let replica: String
        do {
            try state.prepare()
            try state.holdServerLock()
            replica = try state.replica()
        } catch {
            throw stateFailure(error)
        }
        if !config.isLoopback && !config.usesTLS && config.trustProxy.isEmpty {
            printError(
                "todo-serve: warning: listening on \(config.listenHost) without TLS: sign-in links and cookies travel in clear on this network.")
        }
        let site = try Site(config: config, environment: environment, state: state, replica: replica, port: config.listenPort)
        let app = try makeApplication(site: site, tls: tls)
        do {
            try await app.runService()
        } catch {
            if let io = error as? IOError {
                if io.errnoCode == EADDRINUSE {
                    throw Failure(
                        exit: .tempFail,
                        message: "port \(config.listenPort) on \(config.listenHost) is in use. Choose another with --listen, or stop what uses it.")
                }
                if io.errnoCode == EADDRNOTAVAIL || io.errnoCode == EACCES {
                    throw Failure(
                        exit: .config,
                        message: "cannot listen on \(config.listenHost):\(config.listenPort) (\(String(cString: strerror(io.errnoCode)))).")
                }
            }
            throw Failure(exit: .config, message: "the server stopped: \(error)")
        }
        return .ok
    }

    /// The application: the router with every route, the background sync as a service, the
    /// connection limits (`ConnectionLimits`), and the listening line on stdout once the port is bound.
    static func makeApplication(site: Site, tls: TLSConfiguration? = nil) throws -> some ApplicationProtocol {
        let router = Routes.router()
        Routes(site: site).register(on: router)
        var logger = Logger(label: "todo-serve")
        logger.logLevel = .error
        let limits = site.config.connections
        let slots = site.limiter.connections
        let exempt = Set(site.config.trustProxy)
        // Each connection: at most `perClient` per address, a head sent within 5 s of its start
        // or of the previous answer (so a kept-alive connection with no new request goes after
        // 5 s), a body within 10 s of its head. Hummingbird's idle timeout stays as a backstop.
        let http = HTTPServerBuilder.http1(
            configuration: .init(
                additionalChannelHandlers: [ConnectionGuard(slots: slots, limits: limits, exempt: exempt)],
                idleTimeout: .seconds(10)))
        return Application(
            router: router,
            server: try tls.map { try HTTPServerBuilder.tls(http, tlsConfiguration: $0) } ?? http,
            configuration: .init(
                // Address reuse: a restart binds at once although connections the last run closed
                // wait out TIME_WAIT on the port (`systemctl restart`); a port another program
                // listens on is still refused (EADDRINUSE, exit 75), and the household lock still
                // allows one server per household.
                address: .hostname(site.config.listenHost, port: site.config.listenPort), serverName: nil, reuseAddress: true,
                availableConnectionsDelegate: MaximumAvailableConnections(limits.total)),
            services: [site.syncer, ReminderScheduler(site: site, links: site.reminderLinks)],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? site.config.listenPort
                site.listeningPort.store(port, ordering: .relaxed)
                do throws(StateError) {
                    try site.state.recordBase(site.base)
                } catch {
                    printError("todo-serve: warning: " + stateFailure(error).message + " `todo serve invite` will need --base-url.")
                }
                let host = site.config.listenHost.contains(":") ? "[\(site.config.listenHost)]" : site.config.listenHost
                // Straight to the descriptor: the line is there at once, whatever stdout buffers.
                let line = "todo-serve: listening on \(site.config.usesTLS ? "https" : "http")://\(host):\(port)/\n"
                _ = line.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
            },
            logger: logger)
    }

    /// Refuses a household that cannot be opened (66 when there is none); returns it for reading.
    @discardableResult
    static func checkHousehold(_ name: String, environment: ServeEnvironment) throws -> HouseholdReader {
        do {
            return try Household.openForReading(home: environment.home, name: name, clock: environment.clock)
        } catch {
            switch error {
            case .householdNotFound, .invalidHouseholdName:
                throw Failure(exit: .noInput, message: "no household \"\(name)\" in \(environment.home). Create it with `todo init`, or choose one with -H.")
            default: throw Failure(exit: .config, message: Worded(error, paths: .shown).fact)
            }
        }
    }

    static func stateFailure(_ error: StateError) -> Failure {
        switch error {
        case .notPrivate(let path):
            return Failure(exit: .config, message: "\(path) is not private to this user (it must be yours, with no access for group or others). Fix it with chmod go= and chown.")
        case .unwritable(let path, let e):
            return Failure(exit: .cantCreate, message: "cannot write \(path) (\(String(cString: strerror(e)))).")
        case .serverRunning:
            return Failure(exit: .tempFail, message: "another todo-serve runs for this household already.")
        }
    }
}

/// Arguments consumed one by one.
struct Arguments {
    private var rest: ArraySlice<String>
    init(_ a: [String]) { rest = a[...] }
    mutating func next() -> String? { rest.popFirst() }
    mutating func value(for flag: String) throws -> String {
        guard let v = rest.popFirst() else { throw UsageError("\(flag) needs a value.") }
        return v
    }
}

func printError(_ s: String) {
    let line = s + "\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}
