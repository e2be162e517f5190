import CLibgit2

/// Process-wide libgit2 set-up: call once at start-up, before any concurrency.
public enum GitLibrary {
    nonisolated(unsafe) private static var started = false

    /// Initialises libgit2 and turns on fsync of the git directory, so that an acknowledged
    /// commit survives power loss.
    public static func start(fsync: Bool = true) {
        if started { return }
        started = true
        git_libgit2_init()
        _ = todo_git_enable_fsync(fsync ? 1 : 0)
    }
}
