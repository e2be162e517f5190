import CInterposers
import CLibgit2

/// Process-wide libgit2 set-up: call once at start-up, before any concurrency.
public enum GitLibrary {
    nonisolated(unsafe) private static var started = false
    nonisolated(unsafe) private static var certificatesLoaded = false
    nonisolated(unsafe) private static var certificateFile: String?

    /// Initialises libgit2 and turns on fsync of the git directory, so that an acknowledged
    /// commit survives power loss. The system's CA bundle, which libgit2 would parse here, is
    /// left for `loadCertificates` (see CInterposers): most commands never use TLS.
    public static func start(fsync: Bool = true) {
        if started { return }
        started = true
        todo_defer_certificates(1)
        git_libgit2_init()
        todo_defer_certificates(0)
        _ = todo_git_enable_fsync(fsync ? 1 : 0)
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
