public import Glibc
import GitKit
import FileKit
import TodoCore

/// How a maintenance run is told what to do (docs/FORMAT.md, "Housekeeping").
public struct MaintenanceOptions: Sendable {
    /// The automatic run: only the repositories above the thresholds, quietly skipped when
    /// another maintenance runs.
    public var auto = false
    /// The path remote too, when the household has one.
    public var includeRemote = true
    /// Unreachable loose objects younger than this (seconds) are kept.
    public var grace: Double = Household.maintenanceGrace
    /// Tests only: count every loose object and compare with this, instead of sampling.
    public var exactThreshold: Int?
    /// The lower loose-object threshold that applies right after a sync.
    public var afterSync = false
    /// Tests only: called at the points `Repository.packEverything` names.
    public var checkpoint: @Sendable (String) -> Void = { _ in }
    /// The bytes the packs may weigh beyond 1.5 times the last full repack's before an
    /// automatic run packs everything (`Household.fullRepackSlack`; tests set less).
    public var fullRepackSlack = Household.fullRepackSlack

    public init() {}
}

/// What an object store holds: loose objects, packs, and their bytes.
public struct StorageState: Sendable, Equatable {
    public var looseObjects: Int
    public var packs: Int
    public var bytes: Int

    public init(looseObjects: Int, packs: Int, bytes: Int) {
        self.looseObjects = looseObjects
        self.packs = packs
        self.bytes = bytes
    }

    init(_ state: ObjectStoreState) {
        looseObjects = state.looseObjects
        packs = state.packs
        bytes = state.bytes
    }
}

/// What maintenance did to one repository.
public struct MaintenancePart: Sendable {
    /// The git directory (the household's `.git`, or the path remote's).
    public let place: String
    public let isRemote: Bool
    public var before: StorageState
    public var after: StorageState
    public var objectsPacked = 0
    public var looseRemoved = 0
    public var packsRemoved = 0
    /// Unreachable loose objects removed (older than the grace period).
    public var unreachableRemoved = 0
    /// Unreachable loose objects left (younger than the grace period, in a path remote, or the
    /// household was busy).
    public var unreachableKept = 0
    /// Nothing to do (already one pack, nothing loose) or another maintenance ran.
    public var skipped = false
    /// Another maintenance held the lock.
    public var busy = false
}

public struct MaintenanceReport: Sendable {
    public var parts: [MaintenancePart] = []
    /// The path remote could not be opened (moved, unmounted): nothing was done there.
    public var remoteMissing: String?
    public var busy: Bool { parts.contains { $0.busy } }
}

extension Household {
    /// Unreachable loose objects younger than this are never removed: git's `gc.pruneExpire`.
    public static let maintenanceGrace: Double = 14 * 86_400
    /// Above this many loose objects (estimated from `maintenanceSamples`), maintenance runs.
    public static let autoLooseLimit = 2_000
    /// Right after a sync, above this many: what others receive and a new member clones is
    /// then packed.
    public static let autoLooseLimitAfterSync = 256
    /// Above this many packs, maintenance runs; also when the packs other than the largest
    /// hold more than half its bytes (a sync's packs have no deltas against the rest).
    public static let autoPackLimit = 16
    /// A geometric run that leaves more loose objects than this goes on to a full repack,
    /// which decides which of them anything reaches.
    public static let geometricLooseLeftLimit = 1_000
    /// An automatic run packs everything when the packs weigh more than 1.5 times what the last
    /// full repack wrote, plus this; and when no full repack was recorded (docs/FORMAT.md,
    /// "Geometric packing").
    public static let fullRepackSlack = 1_000_000
    /// ... when those other packs hold more than this many bytes; and when a pack larger than
    /// this holds its objects whole (`Repository.isWrittenWhole`).
    public static let autoPackBytes = 1_000_000
    /// An object store smaller than this is packed in the command that found it due, at its
    /// end (about 0.1 s), rather than detached: nothing runs on after the command has returned.
    public static let inlineMaintenanceBytes = 4_000_000
    /// The fan-out folders sampled: 2 of 256.
    static let maintenanceSamples = ["17", "e4"]

    /// The bytes of packs the last full repack left (`todo/full-repack`, `todo-full-repack` in a
    /// path remote); nil when none is recorded or the record cannot be read.
    static func fullRepackBytes(_ path: String) -> Int? {
        // No record, or an unreadable one: the next automatic run packs everything and writes it.
        guard let bytes = try? WholeFile.read(path), bytes.count <= 32 else { return nil }
        return Int(String(decoding: bytes, as: UTF8.self).trimmingSpaces)
    }

    /// Whether the object store at `objectsDirectory` is above the thresholds. Reads three
    /// folders and stats the packs (no libgit2), or, with `exact` (tests only), counts every
    /// loose object and nothing else.
    public static func maintenanceDue(objectsDirectory: String, exact: Int? = nil, afterSync: Bool = false) -> Bool {
        if let exact { return Repository.looseObjects(in: objectsDirectory).count > exact }
        let names = Repository.packNames(in: objectsDirectory)
        let packs = Repository.packSizes(names, in: objectsDirectory).sorted()
        if packs.count > autoPackLimit { return true }
        // The packs besides the largest: worth merging only once they weigh something (a
        // small household's few sync packs cost nothing to keep), and only when they are not
        // already the geometric progression a run would leave (docs/FORMAT.md, "Geometric packing").
        let rest = packs.dropLast().reduce(0, +)
        if packs.count >= 2, rest > autoPackBytes, !GeometricSplit.isProgression(Repository.packObjectCounts(names, in: objectsDirectory)) {
            return true
        }
        // A bulk write's pack (an import, a large push to a path remote) holds its objects
        // whole: git's repack of it is five to six times smaller. Read only for packs that
        // weigh something (the first bytes of each).
        if packs.last ?? 0 > autoPackBytes, !Repository.packsWrittenWhole(in: objectsDirectory, largerThan: autoPackBytes).isEmpty {
            return true
        }
        let sampled = Repository.looseObjectCount(in: objectsDirectory, sampling: maintenanceSamples)
        return sampled * (256 / maintenanceSamples.count) > (afterSync ? autoLooseLimitAfterSync : autoLooseLimit)
    }

    /// `maintenanceDue` for household `name` under `home`, without opening it.
    public static func maintenanceDue(home: String, name: String, exact: Int? = nil, afterSync: Bool = false) -> Bool {
        maintenanceDue(objectsDirectory: "\(home)/\(name)/.git/objects", exact: exact, afterSync: afterSync)
    }

    /// The objects folder of the household's path remote; nil without a remote, for a network
    /// remote, or when it cannot be opened.
    public func pathRemoteObjectsDirectory() -> String? {
        // No remote, a network remote or one that cannot be opened have no objects folder here (see the doc comment).
        guard let url = try? remoteURL(), let remotePath = Self.localPath(url),
            let remote = try? Repository.open(path: remotePath)  // cannot be opened: none
        else { return nil }
        return remote.gitDirectory + "objects"
    }

    /// What the household's object store (and its path remote's) holds now.
    public func objectStores() -> [(place: String, isRemote: Bool, state: StorageState)] {
        var out = [(repo.gitDirectory, false, StorageState(Repository.objectStoreState(repo.gitDirectory + "objects")))]
        if let remote = pathRemoteObjectsDirectory() {
            out.append((String(remote.dropLast("objects".count)), true, StorageState(Repository.objectStoreState(remote))))
        }
        return out
    }

    /// Packs the household's objects, and its path remote's, into one pack each and removes
    /// what the new packs hold (docs/FORMAT.md, "Housekeeping"). Never waits: another
    /// maintenance holding a repository's lock makes that part `busy`.
    public func maintain(_ options: MaintenanceOptions) throws(StoreError) -> MaintenanceReport {
        var report = MaintenanceReport()
        do {
            // File times are the real clock's, whatever clock the household's stamps use.
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let started = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
            let local = repo.gitDirectory
            if !options.auto
                || Self.maintenanceDue(objectsDirectory: local + "objects", exact: options.exactThreshold, afterSync: options.afterSync)
            {
                try makeDirectories(local + "todo")
                report.parts.append(
                    try maintainRepository(repo, lockPath: local + "todo/maintenance.lock", isRemote: false, started: started, options: options))
            }
            if options.includeRemote, let url = try remoteURL(), let remotePath = Self.localPath(url) {
                // A path remote that cannot be opened is reported as missing (remoteMissing), not as a failure.
                guard let remote = try? Repository.open(path: remotePath) else {
                    report.remoteMissing = remotePath
                    return report
                }
                let git = remote.gitDirectory
                if !options.auto
                    || Self.maintenanceDue(objectsDirectory: git + "objects", exact: options.exactThreshold, afterSync: options.afterSync)
                {
                    report.parts.append(
                        try maintainRepository(remote, lockPath: git + "todo-maintenance.lock", isRemote: true, started: started, options: options))
                }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.from(error, path: path)
        }
        return report
    }

    private func maintainRepository(
        _ target: Repository, lockPath: String, isRemote: Bool, started: Double, options: MaintenanceOptions
    ) throws -> MaintenancePart {
        let git = target.gitDirectory
        let before = StorageState(Repository.objectStoreState(git + "objects"))
        var part = MaintenancePart(place: git, isRemote: isRemote, before: before, after: before)
        // On a share where flock does not work this only keeps two runs of this machine apart;
        // nothing here relies on it for safety.
        // Held by another run: this part is skipped and says so (part.skipped).
        guard let lock = try? FileLock.acquire(path: lockPath, timeout: 0) else {
            part.skipped = true
            part.busy = true
            return part
        }
        defer { withExtendedLifetime(lock) {} }
        if before.looseObjects == 0 && before.packs <= 1
            && Repository.packsWrittenWhole(in: git + "objects", largerThan: Self.autoPackBytes).isEmpty
        {
            // Already one pack with deltas and nothing loose: writing the same pack again would
            // gain nothing; what killed writers left still goes.
            part.skipped = true
            target.finishPackRemoval()
            if !isRemote, let writers = lockIfFree() {
                Repository.removeLeftovers(in: git + "objects")
                withExtendedLifetime(writers) {}
            }
            return part
        }
        // Automatic runs pack geometrically; by hand, or when that would roll up every pack or
        // leave many loose objects it cannot judge, everything is packed; and when the packs
        // outgrow the last full repack's bytes by half and the slack, or none was recorded.
        let record = isRemote ? git + "todo-full-repack" : git + "todo/full-repack"
        let lastFull = Self.fullRepackBytes(record)
        var geometric = options.auto && lastFull != nil ? try target.packGeometrically(checkpoint: options.checkpoint) : nil
        if let run = geometric, run.looseLeft > Self.geometricLooseLeftLimit { geometric = nil }
        if geometric != nil, let lastFull,
            Repository.objectStoreState(git + "objects").packBytes > lastFull + lastFull / 2 + options.fullRepackSlack
        {
            geometric = nil
        }
        let outcome = try geometric ?? target.packEverything(removingTemporariesOlderThan: started - options.grace, checkpoint: options.checkpoint)
        part.objectsPacked = outcome.objectsPacked
        part.looseRemoved = outcome.looseRemoved
        part.packsRemoved = outcome.packsRemoved
        let old = outcome.unreachable.filter { $0.modified < started - options.grace }
        part.unreachableKept = outcome.unreachable.count
        // The lock this todo's writers take: the household's, or in a path remote the one
        // pushes take (other pushers there retry a folder that vanished, as git does, or fail
        // and send again at the next sync).
        // Busy writers: no loose objects are removed this time (see below); nothing is lost.
        let writers = isRemote ? try? FileLock.acquire(path: git + "todo-push.lock", timeout: 0) : lockIfFree()
        if let writers {
            if !isRemote, !old.isEmpty, let references = outcome.references, try target.referenceState() == references {
                // No todo change is in flight, and no reference and not the index moved since
                // the pack was computed: nothing refers to these now.
                for object in old where unlink(object.path) == 0 { part.unreachableRemoved += 1 }
                part.unreachableKept -= part.unreachableRemoved
            }
            // Not in a path remote: a plain `git push` there takes no lock of ours, and git
            // 2.39's receive-pack fails ("unable to migrate objects to permanent storage") when
            // a folder it just made vanishes before it moves an object in.
            if !isRemote { Repository.removeLeftovers(in: git + "objects") }
            withExtendedLifetime(writers) {}
        }
        let after = Repository.objectStoreState(git + "objects")
        part.after = StorageState(after)
        if geometric == nil {
            // Only a bound for later automatic runs: without it the next one packs everything again.
            try? WholeFile.replace(record, with: Array("\(after.packBytes)\n".utf8))
        }
        return part
    }
}

extension Household {
    /// The doctor's `storage` lines: loose objects, packs and bytes of the household and its
    /// path remote; above the thresholds, advice to run `todo maintenance` (with `fix`, it runs).
    func checkStorage(fix: Bool) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        var fixedReport: MaintenanceReport?
        if fix, objectStores().contains(where: { Self.maintenanceDue(objectsDirectory: $0.place + "objects") }) {
            var options = MaintenanceOptions()
            options.auto = true
            // doctor --fix packs when it can; a failure here leaves the storage finding as it was reported.
            fixedReport = try? maintain(options)
        }
        for store in objectStores() {
            if let part = fixedReport?.parts.first(where: { $0.place == store.place }), !part.skipped {
                findings.append(
                    DoctorFinding("storage", .fixed, .storagePacked(remote: store.isRemote, objects: part.objectsPacked, after: part.after)))
            } else if Self.maintenanceDue(objectsDirectory: store.place + "objects") {
                findings.append(DoctorFinding("storage", .ok, .storage(remote: store.isRemote, state: store.state), advice: .runMaintenance))
            } else {
                findings.append(DoctorFinding("storage", .ok, .storage(remote: store.isRemote, state: store.state)))
            }
        }
        return findings
    }

}

extension Household {
    /// Runs `program` with `arguments` in a session of its own, its input and output on
    /// `/dev/null`, and does not wait for it: how a front end starts `todo maintenance --auto`
    /// for a large store. Returns the child's pid (a long-running caller reaps it), nil when it
    /// could not be started.
    @discardableResult
    public static func startDetached(_ program: String, _ arguments: [String]) -> pid_t? {
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
        return posix_spawn(&pid, program, &actions, &attributes, argv, environ) == 0 ? pid : nil
    }
}
