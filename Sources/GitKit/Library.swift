import CInterposers
import CLibgit2
import Synchronization

/// Process-wide libgit2 set-up: call once at start-up, before any concurrency.
public enum GitLibrary {
    private struct State: Sendable {
        var started = false
        var certificatesLoaded = false
        var certificateFile: String?
        var fsyncing = false
        /// Declared by a process that runs one command and exits (the CLI): only such a process
        /// may turn libgit2's process-wide checks off for a while (`withoutFsync`,
        /// `verifyObjectsOnRead`); in any other, another thread may be writing or reading a
        /// repository at that moment, so they stay on.
        var oneCommand = false
    }

    /// Process-wide, so behind a lock: a long-running process may start transfers from
    /// several threads.
    private static let state = Mutex(State())

    /// Initialises libgit2 and turns on fsync of the git directory, so that an acknowledged
    /// commit survives power loss. TLS, which libgit2 would set up here, and the system's CA
    /// bundle, which it would parse, are left for `loadCertificates` (see CInterposers): most
    /// commands never use TLS.
    public static func start(fsync: Bool = true) {
        state.withLock { s in
            if s.started { return }
            s.started = true
            todo_library_starting(1)
            git_libgit2_init()
            todo_library_starting(0)
            s.fsyncing = fsync
            _ = todo_git_set_mwindow(packWindowBytes, packMappingLimitBytes)
            _ = todo_git_set_tree_cache_limit(treeCacheLimitBytes)
            _ = todo_git_enable_fsync(fsync ? 1 : 0)
        }
    }

    /// How much of a pack libgit2 maps at a time, and how much of all packs it keeps mapped
    /// before it unmaps the least recently used windows (a soft limit). Its defaults on 64-bit
    /// (1 GiB windows, 8 GiB in all) map every pack whole: repacking a 100,000-task import read
    /// 86 MB of pack and wrote 22 MB, and every page of both stayed resident (207 MB peak, where
    /// `git repack -a -d -f` takes 161 MB). With these the same repack peaks at 128 MB, and a
    /// household's usual packs (2 MB at 10,000 tasks) still fit one window.
    static let packWindowBytes = 32 << 20
    static let packMappingLimitBytes = 64 << 20

    /// The largest tree libgit2 keeps in its object cache once read (its default: 4 KB). At
    /// 100,000 tasks each `tasks/xx` folder's tree is about 15 KB: walking commits (a repack,
    /// the packbuilder's walk, which reads every subtree of each commit before it asks whether it
    /// has seen it) read and undeltified the same 256 trees for every commit again, 0.2 s a
    /// commit. Kept, they cost about 4 MB.
    static let treeCacheLimitBytes = 256 << 10

    /// Declares this process one command that ends with its work, with no other thread using
    /// libgit2 (`todo`'s CLI): see `State.oneCommand`.
    public static func declareOneCommand() {
        state.withLock { $0.oneCommand = true }
    }

    /// Whether libgit2's process-wide switches may be turned for one step (`declareOneCommand`).
    static var mayToggle: Bool { state.withLock { $0.oneCommand } }

    /// Whether libgit2 fsyncs what it writes to the git directory.
    public static var fsyncs: Bool { state.withLock { $0.fsyncing } }

    /// Runs `body` with libgit2's fsync of loose objects turned off: for a caller that orders
    /// and makes durable its writes itself (see `Repository.moveBranch`). libgit2 reads the
    /// setting at each loose object it writes; a ref database reads it once, when a repository
    /// handle first touches references, so refs written through an existing handle still fsync.
    /// In a process that has not declared itself one command, fsync stays on (slower, and as
    /// durable).
    public static func withoutFsync<T>(_ body: () throws -> T) rethrows -> T {
        if !fsyncs || !mayToggle { return try body() }
        _ = todo_git_enable_fsync(0)
        defer { _ = todo_git_enable_fsync(1) }
        return try body()
    }

    /// Trust the CA certificates in `file` instead of the system's bundle (git's
    /// `http.sslCAInfo`); call before the first transfer.
    public static func useCertificates(from file: String) {
        state.withLock { $0.certificateFile = file }
    }

    /// Parses the CA bundle (the system's, whose parse `start` put off, or the one named by
    /// `useCertificates`); called before any http(s) transfer.
    public static func loadCertificates() throws {
        start()
        // TLS itself was put off too (CInterposers/deferred_tls.c); its set-up names the bundle.
        try check(todo_tls_set_up(), call: "git_mbedtls_stream_global_init")
        let file: String? = state.withLock { s in
            if s.certificatesLoaded { return nil }
            s.certificatesLoaded = true
            return s.certificateFile ?? todo_deferred_certificate_file().map { String(cString: $0) }
        }
        guard let file else { return }
        try check(todo_git_set_certificate_file(file), call: "git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS)")
    }
}

extension GitLibrary {
    /// Whether every object read is hashed again and compared with its id (libgit2's default,
    /// on). Process-wide: only a one-shot command that has just written every object it will
    /// read, through code that computed their ids (a clone's copy of a pack through the indexer),
    /// may turn it off for its reading.
    /// Ignored (checks stay on) in a process that has not declared itself one command.
    public static func verifyObjectsOnRead(_ on: Bool) {
        if !on && !mayToggle { return }
        _ = todo_git_strict_hash_verification(on ? 1 : 0)
    }

    /// Runs `body` without libgit2's check that what a new tree or commit refers to is in the
    /// object database, for a caller that writes trees over blobs it hashed itself and has not
    /// stored yet (`PackSpool`). Returns nil, without running `body`, in a process that has not
    /// declared itself one command: there the check stays, and the caller stores the blobs first.
    public static func withoutObjectChecks<T>(_ body: () throws -> T) rethrows -> T? {
        guard mayToggle else { return nil }
        _ = todo_git_strict_object_creation(0)
        defer { _ = todo_git_strict_object_creation(1) }
        return try body()
    }

    /// Runs `body` with at most `limit` bytes of pack files mapped at a time, in windows of a
    /// quarter of it, instead of the limits set at start (`packMappingLimitBytes`): mapped pack
    /// pages count as the process's memory, and a step that writes and reads back one large
    /// pack (a large import) holds less with a tighter limit. Only the mapping changes, not what
    /// is read. Process-wide: in a process that has not declared itself one command, the limits
    /// set at start stay.
    public static func withPackMapping<T>(limitedTo limit: Int, _ body: () throws -> T) rethrows -> T {
        var (window, mapped) = (0, 0)
        guard mayToggle, todo_git_get_mwindow(&window, &mapped) == 0 else { return try body() }
        _ = todo_git_set_mwindow(max(limit / 4, 1 << 20), limit)
        defer { _ = todo_git_set_mwindow(window, mapped) }
        return try body()
    }
}
