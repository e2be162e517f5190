import CLibgit2

/// Writes many objects into memory and stores them as one pack file: thousands of objects cost
/// one pack and one fsync instead of one loose file (and fsync) each.
///
/// It uses its own repository handle, so objects written through `repository` go to memory
/// until `flush()`; nothing else in the process is affected.
public final class BulkWriter {
    public let repository: Repository
    private let backend: OpaquePointer

    public init(path: String) throws {
        repository = try Repository.open(path: path)
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, repository.handle), call: "git_repository_odb")
        defer { git_odb_free(odb) }
        var mempack: OpaquePointer?
        try check(git_mempack_new(&mempack), call: "git_mempack_new")
        guard let mempack else { throw GitError.missing("git_mempack_new") }
        // The odb owns the backend from here on and frees it with the repository.
        try check(git_odb_add_backend(odb, mempack, 999), call: "git_odb_add_backend")
        backend = mempack
    }

    /// Writes everything held in memory as one pack into the repository and clears memory.
    public func flush() throws {
        var buf = git_buf()
        defer { git_buf_dispose(&buf) }
        let mempack = backend
        try check(git_mempack_dump(&buf, repository.handle, mempack), call: "git_mempack_dump")
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, repository.handle), call: "git_repository_odb")
        defer { git_odb_free(odb) }
        var writepack: UnsafeMutablePointer<git_odb_writepack>?
        try check(git_odb_write_pack(&writepack, odb, nil, nil), call: "git_odb_write_pack")
        guard let writepack else { throw GitError.missing("git_odb_write_pack") }
        defer { writepack.pointee.free(writepack) }
        var stats = git_indexer_progress()
        try check(writepack.pointee.append(writepack, buf.ptr, buf.size, &stats), call: "git_odb_writepack.append")
        try check(writepack.pointee.commit(writepack, &stats), call: "git_odb_writepack.commit")
        try check(git_mempack_reset(mempack), call: "git_mempack_reset")
    }
}
