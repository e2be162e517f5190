import CLibgit2
import GitFormats
import Glibc

/// Blobs (and the trees and commit over them) written one at a time into a pack that only a file holds until `finish`: each is
/// encoded (whole, as `PackWriter` writes objects) into a temporary file in the repository's
/// `objects/pack`, removed from the folder as soon as it is opened, so that a killed process
/// leaves nothing behind; `finish` streams that file through libgit2's indexer into the
/// repository as one pack. Memory stays at a chunk and an id per blob, whatever their number:
/// for a change of many files (a large import), which `BulkWriter` would hold in memory twice.
public final class PackSpool {
    private let repository: Repository
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var count = 0
    private var added = Set<ObjectID>()

    public init(repository: Repository) throws {
        self.repository = repository
        let template = repository.gitDirectory + "objects/pack/tmp_todo_spool_XXXXXX"
        var name = Array(template.utf8CString)
        let fd = name.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd < 0 { throw GitError.system(errno: errno, call: "mkstemp \(template)") }
        unlink(name)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        self.fd = fd
    }

    deinit { close(fd) }

    /// The id `bytes` have as a blob.
    public static func blobID(_ bytes: [UInt8]) throws -> ObjectID {
        var oid = git_oid()
        try bytes.withUnsafeBytes { try check(git_odb_hash(&oid, $0.baseAddress, $0.count, GIT_OBJECT_BLOB), call: "git_odb_hash") }
        return ObjectID(oid)
    }

    /// Adds `bytes` as the blob `id` (`blobID`), once however often it is added.
    public func add(_ bytes: [UInt8], as id: ObjectID) throws {
        guard added.insert(id).inserted else { return }
        bytes.withUnsafeBufferPointer { PackWriter.encode(type: UInt8(GIT_OBJECT_BLOB.rawValue), $0, into: &buffer) }
        try counted()
    }

    /// Counts the object just encoded into `buffer`, and writes the buffer out once it holds a chunk.
    private func counted() throws {
        count += 1
        if buffer.count >= PackWriter.chunk { try flush() }
    }

    /// Adds the objects `ids` names that were not added yet, read from `source` (trees and
    /// commits made in memory over the blobs added here).
    public func add(_ ids: [ObjectID], from source: Repository) throws {
        try source.withODB { odb in
            for id in ids where added.insert(id).inserted {
                try Repository.read(id, from: odb) { type, content in PackWriter.encode(type: UInt8(truncatingIfNeeded: type.rawValue), content, into: &buffer) }
                try counted()
            }
        }
    }

    private func flush() throws {
        try writeAll(fd, buffer, what: "a pack being made")
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes the objects added since the last `finish` into the repository as one pack,
    /// indexed and fsynced by libgit2 (`Repository.writePack`); nothing when none was added.
    public func finish() throws {
        try flush()
        if count == 0 { return }
        try repository.withODB { odb in
            try Repository.writePack(into: odb, count: count) { pack in
                var chunk = [UInt8](repeating: 0, count: PackWriter.chunk)
                if lseek(fd, 0, SEEK_SET) != 0 { throw GitError.system(errno: errno, call: "lseek (a pack being made)") }
                while case let n = try chunk.withUnsafeMutableBytes({ try readFully(fd, into: $0, what: "a pack being made") }), n > 0 {
                    try pack.appendEncoded(chunk[0..<n])
                }
            }
        }
        // The next `finish` writes only what is added after this one.
        if ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0 { throw GitError.system(errno: errno, call: "ftruncate (a pack being made)") }
        count = 0
    }
}
