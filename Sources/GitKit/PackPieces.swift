import CLibgit2
import GitFormats
import Glibc

/// libgit2's packbuilder for one run: single-threaded as every write here is (the machines
/// this runs on have two cores and other work), freed with the value.
final class PackBuilder {
    let handle: OpaquePointer?

    init(_ repository: Repository) throws {
        var builder: OpaquePointer?
        try check(git_packbuilder_new(&builder, repository.handle), call: "git_packbuilder_new")
        handle = builder
        _ = git_packbuilder_set_threads(builder, 0)
    }

    deinit { git_packbuilder_free(handle) }

    /// Objects inserted so far.
    var count: Int { Int(git_packbuilder_object_count(handle)) }

    /// Every object of the packs `names` (`pack-<sha1>` in `folder`), by id. A pack removed
    /// meanwhile (another run packed it) is skipped: its objects are in a pack this run leaves.
    func insertObjects(ofPacks names: [String], in folder: String, of repository: Repository) throws {
        for name in names {
            // Gone since listed: see the doc comment.
            guard let ids = try? repository.objects(inPackIndex: folder + name + ".idx") else { continue }
            for id in ids {
                var raw = id.raw
                try check(git_packbuilder_insert(handle, &raw, nil), call: "git_packbuilder_insert")
            }
        }
    }
}

/// Some packs, for asking whether one of them holds an object: an object database of their
/// indexes alone (binary searches in the `.idx` files; no object is read).
final class PackSet {
    private let odb: OpaquePointer?

    /// `indexes`: paths of `.idx` files.
    init(_ indexes: [String]) throws {
        var odb: OpaquePointer?
        try check(git_odb_new(&odb), call: "git_odb_new")
        self.odb = odb
        for index in indexes {
            var backend: OpaquePointer?
            try check(git_odb_backend_one_pack(&backend, index), call: "git_odb_backend_one_pack")
            // The odb owns the backend from here on.
            try check(git_odb_add_backend(odb, backend, 1), call: "git_odb_add_backend")
        }
    }

    deinit { git_odb_free(odb) }

    func contains(_ id: ObjectID) -> Bool {
        var raw = id.raw
        return git_odb_exists(odb, &raw) != 0
    }

    /// The ids of every object the packs hold.
    func ids() throws -> [ObjectID] {
        final class Collected { var ids: [ObjectID] = [] }
        let collected = Collected()
        let payload = Unmanaged.passUnretained(collected).toOpaque()
        try check(
            git_odb_foreach(
                odb,
                { oid, payload in
                    guard let oid, let payload else { return -1 }
                    Unmanaged<Collected>.fromOpaque(payload).takeUnretainedValue().ids.append(ObjectID(oid.pointee))
                    return 0
                }, payload), call: "git_odb_foreach")
        return withExtendedLifetime(collected) { collected.ids }
    }
}

/// Where a geometric repack splits the packs (docs/FORMAT.md, "Geometric packing"), by their
/// numbers of objects, as git's `repack --geometric` counts: the largest packs, each holding at
/// least `factor` times the objects of the next smaller, are kept; the rest, and any pack
/// written whole, are rolled up with the loose objects into one new pack, and a kept pack with
/// less than `factor` times what is rolled up is rolled up too.
public struct GeometricSplit: Equatable, Sendable {
    public struct Pack: Equatable, Sendable {
        public var name: String
        public var objects: Int
        public var writtenWhole: Bool

        public init(name: String, objects: Int, writtenWhole: Bool = false) {
            self.name = name
            self.objects = objects
            self.writtenWhole = writtenWhole
        }
    }

    public static let factor = 2
    /// Names, smallest first.
    public private(set) var rolled: [String] = []
    public private(set) var kept: [String] = []

    public init(packs: [Pack], looseObjects: Int) {
        let sorted = packs.sorted { ($0.objects, $0.name) < ($1.objects, $1.name) }
        let candidates = sorted.filter { !$0.writtenWhole }
        // The progression, from the largest down.
        var split = max(candidates.count - 1, 0)
        while split > 0, candidates[split - 1].objects * Self.factor <= candidates[split].objects { split -= 1 }
        var rolledObjects = looseObjects + sorted.filter(\.writtenWhole).reduce(0) { $0 + $1.objects }
            + candidates[..<split].reduce(0) { $0 + $1.objects }
        while split < candidates.count, candidates[split].objects < Self.factor * rolledObjects {
            rolledObjects += candidates[split].objects
            split += 1
        }
        let rolledNames = Set(candidates[..<split].map(\.name) + sorted.filter(\.writtenWhole).map(\.name))
        rolled = sorted.map(\.name).filter(rolledNames.contains)
        kept = candidates[split...].map(\.name)
    }

    /// Whether packs of these numbers of objects already form the progression (nothing but
    /// loose objects to roll up).
    public static func isProgression(_ sizes: [Int]) -> Bool {
        let sorted = sizes.sorted()
        return zip(sorted, sorted.dropFirst()).allSatisfy { $0 * factor <= $1 }
    }
}

extension Repository {
    /// The number of objects in the pack whose index is at `path`, from the index's fan-out
    /// table (its last entry); nil when it cannot be read or is not a pack index.
    public static func objectCount(packIndex path: String) -> Int? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return nil }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 8 + 256 * 4)
        let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n == head.count else { return nil }
        return head.withUnsafeBytes { bytes in
            do {
                return try PackIndex.objectCount(head: bytes)
            } catch {
                // Not a pack index: the caller counts it as unreadable.
                return nil
            }
        }
    }
}
