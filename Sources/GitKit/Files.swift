import Glibc

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

/// Writes all of `buffer` to `fd` (`what` names the file in the error): the one write loop,
/// retrying short writes and EINTR; any other failure is thrown with its errno.
public func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, what: String) throws {
    var offset = 0
    while offset < buffer.count {
        let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
        if n < 0 {
            if errno == EINTR { continue }
            throw GitError.system(errno: errno, call: "write \(what)")
        }
        offset += n
    }
}

public func writeAll(_ fd: Int32, _ bytes: [UInt8], what: String) throws {
    try bytes.withUnsafeBytes { try writeAll(fd, $0, what: what) }
}

/// Reads from `fd` into `buffer` until it is full or the file ends (`what` names the file in the
/// error): the one read loop, retrying short reads and EINTR; any other failure is thrown with its
/// errno, never taken as the end. Returns how many bytes were read: fewer than the buffer holds
/// only when the file ended.
public func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, what: String) throws -> Int {
    var got = 0
    while got < buffer.count {
        let n = read(fd, buffer.baseAddress! + got, buffer.count - got)
        if n < 0 {
            if errno == EINTR { continue }
            throw GitError.system(errno: errno, call: "read \(what)")
        }
        if n == 0 { break }
        got += n
    }
    return got
}

/// The whole file; nil when it does not exist or cannot be read, also when a read fails part
/// way (never a truncated file as if whole).
public func readBytes(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        guard let n = try? chunk.withUnsafeMutableBytes({ try readFully(fd, into: $0, what: path) }) else { return nil }
        out.append(contentsOf: chunk[0..<n])
        if n < chunk.count { return out }
    }
}
