import CLibgit2

/// Writes the objects of a change to memory first, then stores the new ones in the household:
/// a few as loose objects, more as one pack (one fsync instead of one each).
///
/// It uses its own repository handle, so objects written through `repository` go to memory
/// until `flush`; reads through it see memory and the repository on disk alike.
public final class BulkWriter {
    public let repository: Repository
    private let backend: OpaquePointer

    public init(path: String) throws {
        repository = try Repository.open(path: path)
        var mempack: OpaquePointer?
        try check(git_mempack_new(&mempack), call: "git_mempack_new")
        guard let mempack else { throw GitError.missing("git_mempack_new") }
        // The odb owns the backend from here on and frees it with the repository.
        try repository.withODB { try check(git_odb_add_backend($0, mempack, 999), call: "git_odb_add_backend") }
        backend = mempack
    }

    /// Stores in `target` (a handle on the same repository without the memory) the objects
    /// that `tips` need and `haves` do not give, then clears memory.
    public func flush(into target: Repository, reaching tips: [ObjectID], from haves: [ObjectID]) throws {
        try store(try objects(reaching: tips, from: haves, missingFrom: target), into: target)
    }

    /// The objects that `tips` need and neither `haves` give nor `target` holds: what `store`
    /// will write, known before anything is written.
    public func objects(reaching tips: [ObjectID], from haves: [ObjectID], missingFrom target: Repository) throws -> [ObjectID] {
        try repository.objectsMissing(reaching: tips, from: haves).filter { try !target.contains($0) }
    }

    /// Writes `objects` (from memory) into `target`, then clears memory: loose with `loose`,
    /// else loose up to `Repository.looseLimit` and one pack above. With `synced: false` loose
    /// objects are written without fsync, whatever the library's setting: for a caller that
    /// makes them durable before anything points at them (`Repository.moveBranch`).
    public func store(_ objects: [ObjectID], into target: Repository, loose: Bool = false, synced: Bool = true) throws {
        try repository.copy(objects, to: target, looseLimit: loose ? Int.max : Repository.looseLimit, synced: synced)
        try check(git_mempack_reset(backend), call: "git_mempack_reset")
    }
}
