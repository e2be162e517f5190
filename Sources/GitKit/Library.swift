import CInterposers
import CLibgit2

/// Process-wide libgit2 set-up: call once at start-up, before any concurrency.
public enum GitLibrary {
    nonisolated(unsafe) private static var started = false
    nonisolated(unsafe) private static var certificatesLoaded = false
    nonisolated(unsafe) private static var certificateFile: String?
    nonisolated(unsafe) private static var fsyncing = false

    /// Initialises libgit2 and turns on fsync of the git directory, so that an acknowledged
    /// commit survives power loss. The system's CA bundle, which libgit2 would parse here, is
    /// left for `loadCertificates` (see CInterposers): most commands never use TLS.
    public static func start(fsync: Bool = true) {
        if started { return }
        started = true
        todo_library_starting(1)
        git_libgit2_init()
        todo_library_starting(0)
        fsyncing = fsync
        _ = todo_git_enable_fsync(fsync ? 1 : 0)
    }

    /// Whether libgit2 fsyncs what it writes to the git directory.
    public static var fsyncs: Bool { fsyncing }

    /// Runs `body` with libgit2's fsync of loose objects turned off: for a caller that orders
    /// and makes durable its writes itself (see `Repository.moveBranch`). libgit2 reads the
    /// setting at each loose object it writes; a ref database reads it once, when a repository
    /// handle first touches references, so refs written through an existing handle still fsync.
    public static func withoutFsync<T>(_ body: () throws -> T) rethrows -> T {
        if !fsyncing { return try body() }
        _ = todo_git_enable_fsync(0)
        defer { _ = todo_git_enable_fsync(1) }
        return try body()
    }

    /// Trust the CA certificates in `file` instead of the system's bundle (git's
    /// `http.sslCAInfo`); call before the first transfer.
    public static func useCertificates(from file: String) {
        certificateFile = file
    }

    /// Parses the CA bundle (the system's, whose parse `start` put off, or the one named by
    /// `useCertificates`); called before any http(s) transfer.
    public static func loadCertificates() throws {
        start()
        if certificatesLoaded { return }
        certificatesLoaded = true
        guard let file = certificateFile ?? todo_deferred_certificate_file().map({ String(cString: $0) }) else { return }
        try check(todo_git_set_certificate_file(file), call: "git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS)")
    }
}
