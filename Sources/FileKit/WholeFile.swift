public import Glibc
public import SystemPackage

/// The one file layer for files that are not git objects (the household's state files, the
/// list cache, reminders' state, the server's tokens, calendar feeds): a whole-file read, a
/// whole-file write and an atomic replace, each failing with a `FileError` that keeps the call,
/// the path and the errno. Reads and writes go round EINTR and short counts.
/// docs/FORMAT.md ("Files that are not git objects") states the replace's order of calls.
public enum WholeFile {
    /// The whole file. A file that does not exist is `FileError` with ENOENT (`readIfPresent`
    /// says nil instead); a read that fails part way is a failure, never a short file.
    /// The buffer is the file's size when opened (one allocation, no copy as it grows); a file
    /// that grows or shrinks while it is read is still read to its end.
    public static func read(_ path: String) throws(FileError) -> [UInt8] {
        let fd = try open(path, .readOnly)
        defer { _ = try? fd.close() }  // closing a file only read: nothing of it is lost
        var info = stat()
        let regular = Glibc.fstat(fd.rawValue, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        return try readAll(fd, path: path, expected: regular ? Int(info.st_size) : 0)
    }

    /// The whole file, or nil when it does not exist (any other failure is thrown).
    public static func readIfPresent(_ path: String) throws(FileError) -> [UInt8]? {
        do throws(FileError) {
            return try read(path)
        } catch where error.operation == .open && error.errno == .noSuchFileOrDirectory {
            return nil
        }
    }

    /// Creates or truncates `path` and writes `bytes` into it, fsyncing it with `sync`. Not
    /// atomic: for files that are complete or ignored as a whole (a record of the change puts a
    /// half-written one right), and for scratch files nobody else reads.
    public static func write(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644, sync: Bool = false) throws(FileError) {
        let fd = try open(path, .writeOnly, options: [.create, .truncate], mode: mode)
        defer { _ = try? fd.close() }  // a failed close after a failed write: that write's error is the one reported
        try writeAll(fd, bytes, path: path)
        if sync { try fsync(fd, path: path) }
    }

    /// Replaces the file at `path` whole, atomically: the bytes go to a temporary file in the
    /// same folder (`path` + `suffix`, created with `mode`), written whole; with `durable`, the
    /// temporary file is fsynced; it is renamed over `path`; with `durable`, the folder is then
    /// fsynced, so that the rename is on disk too. Any failure before the rename removes the
    /// temporary file and leaves the old file as it was; a failed fsync of the folder comes after
    /// the rename and leaves the new file, whole (its rename perhaps not yet on disk).
    public static func replace(
        _ path: String, with bytes: [UInt8], mode: mode_t = 0o644, durable: Bool = true, suffix: String = ".tmp-\(getpid())"
    ) throws(FileError) {
        let tmp = path + suffix
        let fd = try open(tmp, .writeOnly, options: [.create, .truncate], mode: mode)
        do throws(FileError) {
            defer { _ = try? fd.close() }  // closing on the way out of a failure: the failure is the one reported
            try writeAll(fd, bytes, path: tmp)
            if durable { try fsync(fd, path: tmp) }
            try FileFaults.check(.rename, path)
            if Glibc.rename(tmp, path) != 0 { throw FileError(.rename, path: path, errno: Errno(rawValue: Glibc.errno)) }
        } catch {
            unlink(tmp)
            throw error
        }
        if durable { try syncFolder(of: path) }
    }

    /// Appends all of `bytes` to `path`, creating it with `mode` when it is not there (a log
    /// line: other writers' lines are never overwritten, O_APPEND).
    public static func append(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644) throws(FileError) {
        let fd = try open(path, .writeOnly, options: [.create, .append], mode: mode)
        defer { _ = try? fd.close() }  // a failed close after the write: the write's own outcome is what counts
        try writeAll(fd, bytes, path: path)
    }

    /// fsyncs the folder holding `path`: its entries (a rename, a new file) are on disk.
    public static func syncFolder(of path: String) throws(FileError) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let fd = try open(folder, .readOnly, options: [.directory])
        defer { _ = try? fd.close() }  // closing a folder only read: nothing of it is lost
        try fsync(fd, path: folder)
    }

    // MARK: Descriptors

    /// Opens `path` (close-on-exec always).
    public static func open(
        _ path: String, _ access: FileDescriptor.AccessMode, options: FileDescriptor.OpenOptions = [], mode: mode_t = 0o644
    ) throws(FileError) -> FileDescriptor {
        try FileFaults.check(.open, path)
        do {
            return try FileDescriptor.open(
                FilePath(path), access, options: options.union(.closeOnExec),
                permissions: options.contains(.create) ? FilePermissions(rawValue: mode) : nil)
        } catch {
            throw FileError(.open, path: path, errno: error as? Errno ?? .ioError)
        }
    }

    /// Writes all of `buffer` to `fd` (`path` names it in the error): retries short writes and
    /// EINTR; any other failure is thrown with its errno.
    public static func writeAll(_ fd: FileDescriptor, _ buffer: UnsafeRawBufferPointer, path: String) throws(FileError) {
        var offset = 0
        while offset < buffer.count {
            try FileFaults.check(.write, path)
            do {
                offset += try fd.write(UnsafeRawBufferPointer(rebasing: buffer[offset...]), retryOnInterrupt: true)
            } catch {
                throw FileError(.write, path: path, errno: error as? Errno ?? .ioError)
            }
        }
    }

    public static func writeAll(_ fd: FileDescriptor, _ bytes: [UInt8], path: String) throws(FileError) {
        // withUnsafeBytes rethrows untyped: the failure is carried out as a Result.
        try bytes.withUnsafeBytes { b in Result { () throws(FileError) in try writeAll(fd, b, path: path) } }.get()
    }

    /// Reads from `fd` into `buffer` until it is full or the file ends (`path` names it in the
    /// error): retries short reads and EINTR; any other failure is thrown with its errno, never
    /// taken as the end. Returns how many bytes were read: fewer than the buffer holds only when
    /// the file ended.
    public static func readFully(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(FileError) -> Int {
        var got = 0
        while got < buffer.count {
            try FileFaults.check(.read, path)
            let n: Int
            do {
                n = try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[got...]), retryOnInterrupt: true)
            } catch {
                throw FileError(.read, path: path, errno: error as? Errno ?? .ioError)
            }
            if n == 0 { break }
            got += n
        }
        return got
    }

    /// Reads `fd` to its end, or until more than `limit` bytes are read (the caller sees the
    /// count and refuses). `expected` is how long the file is thought to be: that much (and one
    /// byte more, to see the end) is read into a buffer of that size; past it, the rest comes in
    /// chunks, so a wrong guess costs time, never bytes.
    public static func readAll(_ fd: FileDescriptor, path: String, limit: Int = .max, expected: Int = 0) throws(FileError) -> [UInt8] {
        var out: [UInt8] = []
        if expected > 0 {
            let first = min(expected, limit, Int.max - 1) + 1
            var failure: FileError?
            out = [UInt8](unsafeUninitializedCapacity: first) { buffer, count in
                do throws(FileError) {
                    count = try readFully(fd, into: UnsafeMutableRawBufferPointer(buffer), path: path)
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            if out.count < first { return out }
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while out.count <= limit {
            let n = try chunk.withUnsafeMutableBytes { b in Result { () throws(FileError) in try readFully(fd, into: b, path: path) } }.get()
            out.append(contentsOf: chunk[0..<n])
            if n < chunk.count { break }
        }
        return out
    }

    /// fsyncs `fd`: its content is on disk.
    public static func fsync(_ fd: FileDescriptor, path: String) throws(FileError) {
        try FileFaults.check(.fsync, path)
        if Glibc.fsync(fd.rawValue) != 0 { throw FileError(.fsync, path: path, errno: Errno(rawValue: Glibc.errno)) }
    }
}
