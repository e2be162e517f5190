import FileKit
import Glibc
import SystemPackage

// File-system helpers GitKit needs for pack files, refs and the index, and the store for its
// own folders.

/// The names in a directory, without `.` and `..`; empty when it cannot be read.
public func listDirectory(_ path: String) -> [String] {
    guard let dir = opendir(path) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafePointer(to: entry.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// Makes a directory's entries durable.
public func syncDirectory(_ path: String) {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return }
    fsync(fd)
    close(fd)
}

// The loops themselves are FileKit's (`WholeFile`); GitKit's callers keep their raw
// descriptors and get its failures as `GitError.system`.

/// Writes all of `buffer` to `fd` (`what` names the file in the error), retrying short writes
/// and EINTR; any other failure is thrown with its errno.
public func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, what: String) throws {
    do throws(FileError) {
        try WholeFile.writeAll(FileDescriptor(rawValue: fd), buffer, path: what)
    } catch {
        throw GitError.system(errno: error.errno.rawValue, call: "write \(what)")
    }
}

public func writeAll(_ fd: Int32, _ bytes: [UInt8], what: String) throws {
    try bytes.withUnsafeBytes { try writeAll(fd, $0, what: what) }
}

/// Reads from `fd` into `buffer` until it is full or the file ends (`what` names the file in the
/// error), retrying short reads and EINTR; any other failure is thrown with its errno, never
/// taken as the end. Returns how many bytes were read: fewer than the buffer holds only when
/// the file ended.
public func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, what: String) throws -> Int {
    do throws(FileError) {
        return try WholeFile.readFully(FileDescriptor(rawValue: fd), into: buffer, path: what)
    } catch {
        throw GitError.system(errno: error.errno.rawValue, call: "read \(what)")
    }
}

/// The whole file; nil when it does not exist or cannot be read, also when a read fails part
/// way (never a truncated file as if whole). For git's own files (the index); the store's files
/// use `WholeFile`, which says why a read failed.
public func readBytes(_ path: String) -> [UInt8]? {
    try? WholeFile.read(path)  // no reason wanted here (callers that need one use WholeFile)
}

/// A file mapped read-only and privately, unmapped with the value. For files that are replaced
/// by rename and never rewritten in place (git's index), so the mapping keeps what was read.
final class MappedFile {
    let bytes: UnsafeRawBufferPointer

    /// The first `size` bytes of the file open at `fd`; nil when it cannot be mapped.
    init?(_ fd: Int32, size: Int) {
        guard size > 0, let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else { return nil }
        bytes = UnsafeRawBufferPointer(start: base, count: size)
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count) }
}
