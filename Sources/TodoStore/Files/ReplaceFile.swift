import Glibc
import GitKit

/// Why `replaceFile` failed: the step, the errno of its system call, and the temporary file
/// it wrote (already removed).
public struct ReplaceFileFailure: Error, Sendable {
    public enum Step: String, Sendable { case create, write, fsync, rename }
    public let step: Step
    public let errno: Int32
    public let temporary: String
}

/// Replaces the file at `path` whole, for a front end's own files (a calendar feed, the server's
/// tokens): the bytes go to a temporary file beside it (`suffix`, created with `mode`), which is
/// fsynced and renamed over `path`; then the folder is fsynced, so the rename is on disk too. A
/// crash leaves the old file or the new one; a failure removes the temporary file and leaves
/// the old one.
public func replaceFile(_ path: String, with bytes: [UInt8], mode: mode_t, suffix: String) throws(ReplaceFileFailure) {
    let tmp = path + suffix
    func failure(_ step: ReplaceFileFailure.Step, _ err: Int32) -> ReplaceFileFailure {
        unlink(tmp)
        return ReplaceFileFailure(step: step, errno: err, temporary: tmp)
    }
    let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard fd >= 0 else { throw ReplaceFileFailure(step: .create, errno: errno, temporary: tmp) }
    do {
        try writeAll(fd, bytes, what: tmp)
    } catch {
        close(fd)
        // writeAll fails only on a system call, and says its errno.
        throw failure(.write, (error as? GitError)?.errno?.rawValue ?? EIO)
    }
    if fsync(fd) != 0 {
        let e = errno
        close(fd)
        throw failure(.fsync, e)
    }
    close(fd)
    if rename(tmp, path) != 0 { throw failure(.rename, errno) }
    let slash = path.lastIndex(of: "/")
    let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
    let dir = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if dir >= 0 {
        fsync(dir)
        close(dir)
    }
}
