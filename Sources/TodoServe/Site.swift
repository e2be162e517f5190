import Dispatch
import Glibc
import Mustache
import Synchronization
import TodoCore
import TodoStore

/// One running server for one household: what every request needs. Nothing of libgit2 is
/// kept here: each request opens the household fresh (docs/SERVE.md, "Fresh on every request").
final class Site: Sendable {
    let config: ServeConfig
    let environment: ServeEnvironment
    let state: StateFolder
    let tokens: TokenStore
    let workers = Workers()
    let limiter: RateLimiter
    let templates: MustacheLibrary
    /// The server's replica id: its stamps never collide with the CLI's on the same clone.
    let replica: String
    /// The port actually listened on (for links when `--base-url` is not given), known once
    /// the server is listening (`--listen …:0` picks one).
    let listeningPort: Atomic<Int>
    var port: Int { listeningPort.load(ordering: .relaxed) }
    /// Set once the background sync runs; a change asks it for a sync soon.
    let syncer: BackgroundSync
    private let taskCache = Mutex<(commit: String, tasks: [Task])?>(nil)

    init(config: ServeConfig, environment: ServeEnvironment, state: StateFolder, replica: String, port: Int,
        limits: RateLimiter.Limits = RateLimiter.Limits()
    ) throws {
        self.limiter = RateLimiter(limits: limits)
        self.config = config
        self.environment = environment
        self.state = state
        self.tokens = TokenStore(folder: state)
        self.replica = replica
        self.listeningPort = Atomic(port)
        var templates: [String: MustacheTemplate] = [:]
        for (name, text) in Templates.all { templates[name] = try MustacheTemplate(string: text) }
        self.templates = MustacheLibrary(templates: templates)
        self.syncer = BackgroundSync(every: config.syncEvery)
        syncer.attach(self)
    }

    var home: String { environment.home }
    var household: String { config.household }
    var clock: WallClock { environment.clock }
    func now() -> Int64 { clock.nowMillis() }
    /// Where links start: scheme, host, port and path prefix.
    var base: String { config.base(port: port) }
    /// The path prefix of every route ("" or "/todo").
    var prefix: String { config.prefix }

    // MARK: The household

    /// Opens the household for reading, fresh.
    func openForReading() throws(StoreError) -> Household {
        try Household.open(home: home, name: household, clock: clock)
    }

    /// Opens the household for a change by `member`, acting as them: commits' author and
    /// committer and every stamp's member are theirs (the name as the household spells it, the
    /// email from their details, else the placeholder), the replica the server's own. A stale
    /// merge driver is pointed at `todo` (never at `todo-serve`), and a change a killed command
    /// left half done is finished first, as the CLI's `HouseholdOptions.open` does.
    func openForChange(member: String) throws(StoreError) -> Household {
        let plain = try Household.open(home: home, name: household, clock: clock)
        let name = (try? plain.knownMember(member)) ?? member
        let email = (try? plain.memberEmail(name)) ?? nil
        let actor = Actor(
            name: name, email: email ?? Actor.placeholderEmail(member: name, household: household), replica: replica)
        let h = try Household.open(home: home, name: household, clock: clock, acting: actor)
        _ = h.repairStaleMergeDriver(searchPath: environment.get("PATH")) {
            MergeDriverConfig.command(for: environment.todoProgram, searchPath: environment.get("PATH"))
        }
        h.finishInterruptedChangeIfFree()
        return h
    }

    /// Opens the household for the background sync: as the clone, no member acting.
    func openForSync() throws(StoreError) -> Household {
        let h = try Household.open(home: home, name: household, clock: clock)
        _ = h.repairStaleMergeDriver(searchPath: environment.get("PATH")) {
            MergeDriverConfig.command(for: environment.todoProgram, searchPath: environment.get("PATH"))
        }
        h.finishInterruptedChangeIfFree()
        return h
    }

    /// After a change: asks for a sync soon, and starts `todo maintenance --auto` detached
    /// when the household's object store is past the thresholds (as the CLI's `AutoMaintenance`).
    func afterChange(commit: String?) {
        guard commit != nil else { return }
        syncer.changed()
        maintainIfDue(afterSync: false)
    }

    func maintainIfDue(afterSync: Bool) {
        let setting = environment.get("TODO_MAINTENANCE_THRESHOLD")
        if setting == "off" { return }
        guard Household.maintenanceDue(home: home, name: household, exact: setting.flatMap { Int($0) }, afterSync: afterSync)
        else { return }
        startDetached(
            environment.todoProgram, ["maintenance", "--auto"] + (afterSync ? ["--after-sync"] : []) + ["-H", household])
    }

    /// Every task of `h`'s `main`, parsed: kept in memory keyed by the commit, so page views
    /// between two commits parse nothing; another commit (this server's, the CLI's, a sync's)
    /// rebuilds it from the list cache, as `todo list` does.
    func tasks(_ h: Household) throws -> [Task] {
        let snap = try store { () throws(StoreError) in try h.snapshot() }
        let commit = snap.commit?.hex ?? ""
        if let cached = taskCache.withLock({ $0?.commit == commit ? $0?.tasks : nil }) { return cached }
        let (tasks, _) = try store { () throws(StoreError) in try snap.loadAll() }
        taskCache.withLock { $0 = (commit, tasks) }
        return tasks
    }

    // MARK: Pages

    func render(_ template: String, _ context: [String: Any]) -> String {
        templates.render(context, withTemplate: template) ?? ""
    }
}

/// A reference back to the site that does not keep it alive.
final class WeakSite: @unchecked Sendable {
    weak var site: Site?
    init(_ site: Site) { self.site = site }
}

/// Runs `program` with `arguments` in a session of its own, input and output on /dev/null,
/// and does not wait for it.
func startDetached(_ program: String, _ arguments: [String]) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // POSIX_SPAWN_SETSID (glibc 2.26), which Swift's Glibc module does not import.
    posix_spawnattr_setflags(&attributes, 0x80)
    let argv = ([program] + arguments).map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var pid: pid_t = 0
    if posix_spawn(&pid, program, &actions, &attributes, argv, environ) == 0 {
        // Reaped by a thread of its own, so no zombie is left behind.
        let child = pid
        DispatchQueue.global().async {
            var status: Int32 = 0
            waitpid(child, &status, 0)
        }
    }
}
