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
    /// What CalDAV derives from a commit and day (docs/CALDAV.md).
    let davViews = DAVViews()
    /// What a POST made that its next page shows once (a new feed address), by session.
    let shownOnce = ShownOnce()
    /// The secret of the reminders' Done links, read (or made) once at start: the scheduler
    /// signs with it and the `/r/` routes check with it; nil when the state folder cannot keep it.
    let reminderLinks: ReminderLinks?
    private let taskCache = Mutex<(commit: String, tasks: [Task], bad: [BadFile])?>(nil)
    /// Each member's standing, by the commit of `main` it was read at (`standing(of:)`).
    private let standings = Mutex<[String: (commit: String?, standing: Standing)]>([:])
    private let agendaCache = BoundedCache<Agenda>(limit: 64)
    private let pageCache = BoundedCache<String>(limit: 64)

    init(config: ServeConfig, environment: ServeEnvironment, state: StateFolder, replica: String, port: Int,
        limits: RateLimiter.Limits = RateLimiter.Limits()
    ) throws {
        // The templates first, before any stored property is set: a throw after the Atomic
        // below is initialised makes Swift 6.3's release optimiser crash (CopyPropagation).
        var templates: [String: MustacheTemplate] = [:]
        for (name, text) in Templates.all { templates[name] = try MustacheTemplate(string: text) }
        self.limiter = RateLimiter(limits: limits)
        self.config = config
        self.environment = environment
        self.state = state
        self.reminderLinks = ReminderLinks.forServer(state)
        self.tokens = TokenStore(folder: state)
        self.replica = replica
        self.listeningPort = Atomic(port)
        self.templates = MustacheLibrary(templates: templates)
        self.syncer = BackgroundSync(every: config.syncEvery, debounce: config.syncDebounce)
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

    /// Opens the household for reading, fresh: its read view, which has no writing call. The
    /// first call of a request takes the reader its token check opened (`RequestReading`), so
    /// a signed-in request opens the household once, as before the check.
    func openForReading() throws(StoreError) -> HouseholdReader {
        if let opened = RequestReading.current?.take() { return opened }
        return try Household.openForReading(home: home, name: household, clock: clock)
    }

    /// Opens the household for a change by `member`, acting as them (`Household.openForChange`,
    /// as the CLI's `HouseholdOptions.open`): commits' author and committer and every stamp's
    /// member are theirs, the replica the server's own; a stale merge driver is pointed at
    /// `todo` (never at `todo-serve`).
    func openForChange(member: String) throws(StoreError) -> Household {
        try openForChange(by: .member(member, replica: replica))
    }

    /// Opens the household for the background sync: as the clone, no member acting.
    func openForSync() throws(StoreError) -> Household { try openForChange(by: .clone) }

    private func openForChange(by maker: ChangeMaker) throws(StoreError) -> Household {
        let path = environment.get("PATH")
        return try Household.openForChange(home: home, name: household, clock: clock, by: maker, searchPath: path) {
            MergeDriverConfig.command(for: environment.todoProgram, searchPath: path)
        }
    }

    /// After a change: asks for a sync soon, and starts `todo maintenance --auto` detached
    /// when the household's object store is past the thresholds (as the CLI's `AutoMaintenance`).
    func afterChange(commit: String?) {
        guard commit != nil else { return }
        syncer.changed()
        maintainIfDue(afterSync: false)
    }

    /// Binds the tokens an older version wrote without a membership to their member's
    /// membership now, or to `ended` for a member who has left (docs/SERVE.md, "When a member
    /// leaves"), so that a later `member add` brings none of them back. Run after each sync;
    /// every request checks its token against the roster itself (`admits`).
    func bindMemberships() throws {
        let snap = try openForReading().snapshot()
        var standings: [String: Standing] = [:]
        try tokens.bindAll { record in
            let key = record.member.lowercased()
            let standing = standings[key] ?? snap.standing(of: record.member)
            standings[key] = standing
            return Self.verdict(membership: record.membership, standing: standing).bind
        }
    }

    /// What a token made in a membership that has ended is bound to: no standing has it.
    static let ended = "ended"

    /// Whether a token made in `membership` still opens for a member who stands so: never once
    /// their latest roster entry is `left`, nor in another membership than theirs now. A token
    /// an older version wrote without one is to be bound (`bind`) to the membership now, or to
    /// `ended`.
    static func verdict(membership: String?, standing: Standing) -> (keep: Bool, bind: String?) {
        switch standing {
        case .left: return (false, membership == nil ? ended : nil)
        case .member(let now): return membership.map { ($0 == now, nil) } ?? (true, now)
        }
    }

    /// Where `member` stands in the roster of `main` as it is now: read afresh for each
    /// request, so a leave counts from the first request after `main` holds it, whoever moved
    /// `main` there.
    func standing(of member: String) throws(StoreError) -> Standing {
        let open = { () throws(StoreError) in try Household.openForReading(home: self.home, name: self.household, clock: self.clock) }
        guard let request = RequestReading.current else { return try standing(of: member, open()) }
        return try request.open(open) { reader throws(StoreError) in try self.standing(of: member, reader) }
    }

    /// `member`'s standing in the roster of `main` as `reader` finds it, kept by `main`'s
    /// commit: a request whose `main` is the one seen before reads no roster.
    private func standing(of member: String, _ reader: HouseholdReader) throws(StoreError) -> Standing {
        let key = member.lowercased()
        let commit = try reader.mainCommit()
        if let kept = standings.withLock({ $0[key] }), kept.commit == commit { return kept.standing }
        let standing = try reader.standing(of: member)
        standings.withLock { all in
            if all.count >= 256 { all.removeAll() }
            all[key] = (commit, standing)
        }
        return standing
    }

    /// Checks a token at its use against its member's standing now; one without a membership
    /// is bound (`verdict`). A token refused is kept, so that a leaver's device asking again is
    /// answered the same, never as a guess at a token (`revoke` deletes it). The membership it
    /// opens for, nil when it no longer opens.
    func admits(id: String, kind: TokenKind, member: String, membership: String?) throws -> String? {
        let now = try store { () throws(StoreError) in try self.standing(of: member) }
        let verdict = Self.verdict(membership: membership, standing: now)
        if let bind = verdict.bind {
            do { try tokens.bind(id: id, kind: kind, membership: bind) } catch { throw error.page }
        }
        return verdict.keep ? membership ?? verdict.bind : nil
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
    /// The task files that cannot be read come along (`bad`): a page names them.
    func tasks(_ h: HouseholdReader) throws -> (tasks: [Task], bad: [BadFile]) {
        let all = try tasksAndCommit(h)
        return (all.tasks, all.bad)
    }

    func tasksAndCommit(_ h: HouseholdReader) throws -> (tasks: [Task], commit: String, bad: [BadFile]) {
        let snap = try store { () throws(StoreError) in try h.snapshot() }
        let commit = snap.commitHex
        if let cached = taskCache.withLock({ c in c?.commit == commit ? c : nil }) { return (cached.tasks, commit, cached.bad) }
        let (tasks, bad) = try store { () throws(StoreError) in try snap.loadAll() }
        taskCache.withLock { $0 = (commit, tasks, bad) }
        return (tasks, commit, bad)
    }

    /// A member's agenda (Mine), kept for the same commit, day and minute: working out every
    /// chore's current occurrence is most of what a view of Mine costs in a large household.
    func agenda(key: String, _ make: () -> Agenda) -> Agenda { agendaCache.value(key, make) }

    /// A page's HTML, kept for a key that names everything it shows (the commit, the day and
    /// minute, the session): rendering Mine's rows is most of what a view of it costs.
    func page(key: String, _ make: () throws -> String) rethrows -> String { try pageCache.value(key, make) }

    // MARK: Pages

    func render(_ template: String, _ context: [String: Any]) -> String {
        templates.render(context, withTemplate: template) ?? ""
    }
}

/// Values a POST made for the next page of the same session to show, once: taken by the first
/// read, gone after ten minutes or a restart (only a hash of a feed token is kept on disk).
final class ShownOnce: Sendable {
    private let values = Mutex<[String: (value: String, until: Int64)]>([:])
    static let life: Int64 = 600_000

    func put(_ key: String, _ value: String, now: Int64) {
        values.withLock { v in
            v = v.filter { $0.value.until > now }
            v[key] = (value, now + Self.life)
        }
    }

    func take(_ key: String, now: Int64) -> String? {
        values.withLock { v in
            guard let e = v.removeValue(forKey: key), e.until > now else { return nil }
            return e.value
        }
    }
}

/// A reference back to the site that does not keep it alive.
final class WeakSite: Sendable {
    weak let site: Site?
    init(_ site: Site) { self.site = site }
}

/// Starts `program` detached (`Household.startDetached`) and reaps it on a thread of its own
/// when it ends, so a long-running server leaves no zombie behind.
func startDetached(_ program: String, _ arguments: [String]) {
    guard let pid = Household.startDetached(program, arguments) else { return }
    DispatchQueue.global().async {
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}

/// The household a request's token check opened, kept for the request's first reading
/// (`Site.openForReading`): the check reads the roster of `main` as the request finds it,
/// without a second opening of the repository. `Guard` gives each request its own; a reader is
/// taken at most once, so no two tasks ever share one.
final class RequestReading: Sendable {
    @TaskLocal static var current: RequestReading?

    private let parked = Mutex<HouseholdReader?>(nil)

    /// Opens the household with `make`, answers `read` from it, and keeps the reader for the
    /// request's first reading (replacing one kept before).
    func open<T: Sendable>(
        _ make: () throws(StoreError) -> HouseholdReader, _ read: (HouseholdReader) throws(StoreError) -> T
    ) throws(StoreError) -> T {
        try parked.withLock { (kept: inout sending HouseholdReader?) throws(StoreError) -> T in
            let reader = try make()
            let answer = try read(reader)
            kept = reader
            return answer
        }
    }

    /// The reader kept, if any, no longer kept.
    func take() -> HouseholdReader? {
        parked.withLock { kept -> sending HouseholdReader? in
            var out: HouseholdReader?
            swap(&kept, &out)
            return out
        }
    }
}
