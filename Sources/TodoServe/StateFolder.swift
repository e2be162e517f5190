import SystemPackage
import FileKit
import Glibc
import TodoStore

/// Why the server's state folder cannot be used (docs/SERVE.md, "State outside the repository").
enum StateError: Error, Equatable {
    /// The folder or a file in it is not private to this user: exit 78.
    case notPrivate(path: String)
    /// The folder or a file cannot be made, read or written: exit 73.
    case unwritable(path: String, errno: Int32)
    /// Another server holds `serve.lock`: exit 75.
    case serverRunning(path: String)
}

/// `$XDG_STATE_HOME/todo/serve/<household>/`: tokens, visits, the server's replica id and its
/// lock. Folder 0700, files 0600, each replaced whole (temporary file, fsync, rename, fsync of
/// the folder). Nothing here is synced.
struct StateFolder: Sendable {
    let path: String

    init(path: String) { self.path = path }

    /// The folder for `household`, from `XDG_STATE_HOME` (else `~/.local/state`).
    static func forHousehold(_ household: String, environment: ServeEnvironment) -> StateFolder {
        StateFolder(path: "\(environment.stateHome)/todo/serve/\(household)")
    }

    /// Makes the folder (and its parents) when missing; refuses one that others can read.
    func prepare() throws(StateError) {
        var built = ""
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            built += "/" + part
            if mkdir(built, 0o700) != 0 && errno != EEXIST { throw .unwritable(path: built, errno: errno) }
        }
        try checkPrivate(path, directory: true)
        for name in ["tokens.json", "visits.json", "replica", "tokens.lock", "serve.lock", "base-url", "reminder-links.key"] {
            let file = "\(path)/\(name)"
            if access(file, F_OK) == 0 { try checkPrivate(file, directory: false) }
        }
    }

    /// Owned by this user, and no access for group or others.
    private func checkPrivate(_ file: String, directory: Bool) throws(StateError) {
        var st = stat()
        guard lstat(file, &st) == 0 else { throw .unwritable(path: file, errno: errno) }
        let isDirectory = (st.st_mode & S_IFMT) == S_IFDIR
        let isFile = (st.st_mode & S_IFMT) == S_IFREG
        guard st.st_uid == getuid(), st.st_mode & 0o077 == 0, directory ? isDirectory : isFile else {
            throw .notPrivate(path: file)
        }
    }

    // MARK: Files

    func file(_ name: String) -> String { "\(path)/\(name)" }

    /// The whole file, or nil when it does not exist.
    func read(_ name: String) throws(StateError) -> [UInt8]? {
        do throws(FileError) {
            return try WholeFile.readIfPresent(file(name))
        } catch {
            throw .unwritable(path: error.path, errno: error.errno.rawValue)
        }
    }

    /// Replaces the file whole (`WholeFile.replace`): a temporary file written and fsynced,
    /// renamed over it, then the folder fsynced. A crash leaves the old file or the new one.
    func replace(_ name: String, with bytes: [UInt8]) throws(StateError) {
        do throws(FileError) {
            try WholeFile.replace(file(name), with: bytes, mode: 0o600, suffix: ".tmp.\(getpid())")
        } catch {
            throw .unwritable(path: error.path, errno: error.errno.rawValue)
        }
    }

    /// Change time, size and inode of a file: whether it changed since it was last read.
    func signature(_ name: String) -> [Int] {
        var st = stat()
        guard stat(file(name), &st) == 0 else { return [] }
        return [Int(st.st_ino), Int(st.st_size), Int(st.st_mtim.tv_sec), Int(st.st_mtim.tv_nsec)]
    }

    // MARK: Locks

    /// Runs `body` holding `tokens.lock` (flock, waiting): every read-modify-write of the
    /// token and visit files goes through here, across processes (`todo serve invite` while
    /// a server runs).
    func withLock<T>(_ body: () throws(StateError) -> T) throws(StateError) -> T {
        let lock = file("tokens.lock")
        let fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .unwritable(path: lock, errno: errno) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR { throw .unwritable(path: lock, errno: errno) }
        }
        return try body()
    }

    /// Takes `serve.lock` for the life of the process; refuses when another server holds it.
    /// The descriptor is left open on purpose: the lock goes with the process.
    func holdServerLock() throws(StateError) {
        let lock = file("serve.lock")
        let fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .unwritable(path: lock, errno: errno) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let e = errno
            close(fd)
            if e == EWOULDBLOCK { throw .serverRunning(path: lock) }
            throw .unwritable(path: lock, errno: e)
        }
    }

    /// Records where the running server's links start (`ServeConfig.base`: scheme, host, port
    /// and path prefix), so that `invite` and `app-password` print working links without the
    /// server's flags repeated.
    func recordBase(_ base: String) throws(StateError) {
        try withLock { () throws(StateError) in try replace("base-url", with: Array((base + "\n").utf8)) }
    }

    /// The base the server last recorded; nil when none was, or it does not parse.
    func recordedBase() throws(StateError) -> BaseURL? {
        guard let bytes = try read("base-url") else { return nil }
        return BaseURL.parse(String(decoding: bytes, as: UTF8.self).trimmed(of: [" ", "\n"]))
    }

    /// The server's own replica id (16 hex digits), made at first start.
    func replica() throws(StateError) -> String {
        try withLock { () throws(StateError) -> String in
            if let bytes = try read("replica") {
                let text = String(decoding: bytes, as: UTF8.self).trimmed(of: [" ", "\n"])
                if text.utf8.count == 16, text.utf8.allSatisfy(isLowerHex) { return text }
            }
            var rng = SystemRandomNumberGenerator()
            let id = hex16(rng.next())
            try replace("replica", with: Array((id + "\n").utf8))
            return id
        }
    }
}

func isLowerHex(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) }

/// 16 lowercase hex digits.
func hex16(_ v: UInt64) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: 16 - s.count) + s
}

extension String {
    func trimmed(of set: Set<Character>) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}
