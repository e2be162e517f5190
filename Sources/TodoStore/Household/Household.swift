import Glibc
import GitKit
import TodoCore

/// One household: a git repository at `$TODO_HOME/<name>` on branch `main`.
public final class Household {
    public static let branch = "refs/heads/main"
    /// How long a command waits for another `todo` working on the same household.
    public static let lockTimeout = 10.0

    public let name: String
    /// The work tree, without a trailing slash.
    public let path: String
    let repo: Repository
    public let clock: WallClock
    /// `identity()`'s answer: one command reads the config once.
    private var knownIdentity: Identity?
    /// The member acting through another front end, if any (`open(…acting:)`).
    public let actor: Actor?

    init(name: String, path: String, repo: Repository, clock: WallClock, actor: Actor? = nil) {
        self.name = name
        self.path = path
        self.repo = repo
        self.clock = clock
        self.actor = actor
    }

    // MARK: Names and places

    /// Household names: letters, digits, `.`, `_`, `-`; not starting with `.`; at most 64 bytes.
    public static func validate(name: String) throws(StoreError) {
        let ok =
            !name.isEmpty && name.utf8.count <= 64 && !name.hasPrefix(".")
            && name.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E
                    || b == 0x5F || b == 0x2D
            }
        if !ok { throw .invalidHouseholdName(name) }
    }

    /// The households under `home`: directories that are git repositories, sorted.
    public static func list(home: String) -> [String] {
        listDirectory(home).filter { !$0.hasPrefix(".") && access("\(home)/\($0)/.git/HEAD", F_OK) == 0 }.sorted()
    }

    // MARK: Opening

    /// Declares this process one command that exits when its work is done, with no other
    /// thread opening households (the CLI): libgit2's process-wide shortcuts (no fsync of loose
    /// objects the store makes durable itself, no second hash of objects a clone has just
    /// indexed) may then be taken. A long-running front end never calls it and keeps them off.
    public static func declareOneCommandProcess() {
        GitLibrary.declareOneCommand()
    }

    /// Opens an existing household for reading: its queries, and no call that writes
    /// (`HouseholdReader`). Nothing is repaired or finished; a change a killed command left
    /// half done stays so (`hasInterruptedChange` tells it) until the next change finishes it.
    public static func openForReading(home: String, name: String, clock: WallClock = .system)
        throws(StoreError) -> HouseholdReader
    {
        HouseholdReader(try open(home: home, name: name, clock: clock))
    }

    /// Opens an existing household for a change: the one opening every front end's change goes
    /// through. The repository is opened once; a `member` acting through a front end is
    /// resolved on it (`ChangeMaker`); a merge driver whose program has gone (todo moved or
    /// reinstalled) is pointed at `driverCommand()`; a change a killed command left half done
    /// is finished first, when no other command holds the household.
    public static func openForChange(
        home: String, name: String, clock: WallClock = .system, by maker: ChangeMaker = .clone, searchPath: String?,
        driverCommand: () -> String
    ) throws(StoreError) -> Household {
        let plain = try open(home: home, name: name, clock: clock)
        let h: Household
        switch maker {
        case .clone: h = plain
        case .member(let typed, let replica):
            let actor = plain.actor(for: typed, replica: replica)
            try checkActor(actor, path: plain.path)
            h = Household(name: name, path: plain.path, repo: plain.repo, clock: plain.clock, actor: actor)
        }
        _ = h.repairStaleMergeDriver(searchPath: searchPath, replacement: driverCommand)
        h.finishInterruptedChangeIfFree()
        return h
    }

    /// The member `typed` as this household spells them, with the email from their details.
    private func actor(for typed: String, replica: String) -> Actor {
        // A household whose roster cannot be read still takes the member's change under the
        // name they signed in with (as before rosters existed); the transaction reports the
        // unreadable file itself.
        let spelled = spellingWithoutTasks(typed) ?? (try? knownMember(typed)) ?? typed
        let email = (try? memberEmail(spelled)) ?? nil  // no email recorded or readable: the placeholder below
        return Actor(name: spelled, email: email ?? Actor.placeholderEmail(member: spelled, household: name), replica: replica)
    }

    /// An actor's replica id goes into every stamp: a malformed one would make unreadable files.
    private static func checkActor(_ actor: Actor, path: String) throws(StoreError) {
        if actor.replica.utf8.count != 16 || !Stamp.isReplicaID(Substring(actor.replica)) {
            throw .internalError(path: path, cause: Cause(source: .other, path: nil, text: "the acting member's replica id \"\(actor.replica)\" is not 16 hex digits"))
        }
    }

    /// Opens an existing household as it is: nothing repaired, nothing finished, every call
    /// reachable. For `doctor`, which must see the setting as it is before it repairs, and
    /// for tests; a front end reads through `openForReading` and changes through
    /// `openForChange`. With `acting`, its changes are that member's (see `Actor`).
    public static func open(home: String, name: String, clock: WallClock = .system, acting: Actor? = nil)
        throws(StoreError) -> Household
    {
        try validate(name: name)
        let path = "\(home)/\(name)"
        guard access("\(path)/.git", F_OK) == 0 else { throw .householdNotFound(name: name, home: home) }
        if let acting { try checkActor(acting, path: path) }
        GitLibrary.start()
        do {
            let repo = try Repository.open(path: path)
            // Days follow the household's recorded zone, not this machine's (HouseholdZone.swift).
            return Household(
                name: name, path: path, repo: repo, clock: HouseholdZone.clock(clock, repo: repo), actor: acting)
        } catch {
            throw .notAHousehold(path: path, reason: "\(error)")
        }
    }

    /// Creates a household: the repository, its identity and replica id, the merge
    /// configuration, and a first commit holding `.gitattributes`.
    public static func create(
        home: String, name: String, identity: Identity, clock: WallClock = .system, driverCommand: String
    ) throws(StoreError) -> Household {
        do {
            return try make(home: home, name: name, identity: identity, clock: clock, driverCommand: driverCommand) {
                try $0.commitMergeSetup()
            }
        } catch {
            throw StoreError.from(error, path: "\(home)/\(name)")
        }
    }

    /// Makes a new household's repository and configuration, and lets `fill` give it its
    /// first commit. Nothing is left behind when either fails.
    static func make(
        home: String, name: String, identity: Identity, clock: WallClock, driverCommand: String,
        _ fill: (Household) throws -> Void
    ) throws -> Household {
        try validate(name: name)
        let path = "\(home)/\(name)"
        if access(path, F_OK) == 0 { throw StoreError.householdExists(name: name, path: path) }
        try makeDirectories(home)
        GitLibrary.start()
        do {
            let repo = try Repository.create(path: path)
            let household = Household(name: name, path: path, repo: repo, clock: clock)
            try household.configure(identity: identity, driverCommand: driverCommand)
            try fill(household)
            return household
        } catch {
            removeTree(path)
            if error is SyncError { throw error }
            throw StoreError.from(error, path: path)
        }
    }

    /// The first commit of a new household: the attributes that select todo's merge driver.
    func commitMergeSetup() throws {
        try update { _ in
            Household.Update(
                tasks: [], files: [(MergeSetup.attributesPath, Array(MergeSetup.attributes.utf8))],
                message: "init: household \(name)", value: ())
        }
    }

    /// Writes this clone's identity, replica id and merge-driver config to `.git/config`.
    func configure(identity: Identity, driverCommand: String) throws {
        try repo.setLocalConfig("user.name", identity.name)
        try repo.setLocalConfig("user.email", identity.email)
        if try repo.configString("todo.replica") == nil {
            var rng = IDSource.generator(for: "replica \(identity.name) \(name)")
            try repo.setLocalConfig("todo.replica", hex64(rng.next()))
        }
        try repo.setLocalConfig("merge.todo.name", "todo field-level merge")
        try repo.setLocalConfig("merge.todo.driver", driverCommand)
    }

    /// The member writing from this clone, read from git's config once per command (the
    /// actor, when one acts).
    public func identity() throws(StoreError) -> Identity {
        if let actor { return Identity(name: actor.name, email: actor.email) }
        if let knownIdentity { return knownIdentity }
        do {
            let name = try repo.configString("user.name") ?? Identity.loginName()
            let email = try repo.configString("user.email") ?? "\(Identity.loginName())@\(Identity.hostName())"
            knownIdentity = Identity(name: name, email: email)
            return Identity(name: name, email: email)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// This clone's replica id (created on first use if a plain `git clone` made the clone);
    /// the actor's, when one acts.
    public func replicaID() throws(StoreError) -> String {
        if let actor { return actor.replica }
        do {
            if let id = try repo.configString("todo.replica"), Stamp.isReplicaID(Substring(id)) { return id }
            var rng = IDSource.generator(for: "replica \(try identity().name) \(name)")
            let id = hex64(rng.next())
            try repo.setLocalConfig("todo.replica", id)
            return id
        } catch {
            throw StoreError.from(error, path: path)
        }
    }
}

/// The repository files that configure git's merge for task files.
public enum MergeSetup {
    public static let attributesPath = ".gitattributes"
    public static let attributes = "tasks/**/*.json merge=todo\n"
}

func makeDirectories(_ path: String) throws(StoreError) {
    var current = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
        current += "/\(part)"
        if mkdir(current, 0o755) != 0 && errno != EEXIST {
            throw .notWritable(path: current, cause: StoreError.systemCause(path: current, errno: errno))
        }
    }
}

/// Removes a directory tree (used only to undo a half-made household).
func removeTree(_ path: String) {
    var st = stat()
    guard lstat(path, &st) == 0 else { return }
    guard (st.st_mode & S_IFMT) == S_IFDIR else {
        unlink(path)
        return
    }
    for name in listDirectory(path) { removeTree("\(path)/\(name)") }
    rmdir(path)
}
