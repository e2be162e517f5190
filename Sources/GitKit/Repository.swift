import Glibc
import CLibgit2

/// An open git repository. Owns its libgit2 handle and frees it when released.
public final class Repository {
    let handle: OpaquePointer
    /// The index as `IndexFile` last read or wrote it (see `loadIndexFile`).
    var indexFile: IndexFile?

    private init(handle: OpaquePointer) { self.handle = handle }

    deinit { git_repository_free(handle) }

    /// Opens the repository whose work tree (or git dir) is exactly `path`; no discovery upwards.
    public static func open(path: String) throws -> Repository {
        var repo: OpaquePointer?
        try check(
            git_repository_open_ext(&repo, path, UInt32(GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue), nil),
            call: "git_repository_open_ext")
        guard let repo else { throw GitError.missing("git_repository_open_ext") }
        return Repository(handle: repo)
    }

    /// Creates a repository at `path` whose unborn HEAD points at `refs/heads/<branch>`. Without
    /// `durableReferences`, its references are written without fsync (a scratch repository that
    /// is thrown away after a crash; objects are still made durable as the library does).
    public static func create(
        path: String, bare: Bool = false, initialBranch: String = "main", durableReferences: Bool = true
    ) throws -> Repository {
        if durableReferences { return try create(path: path, bare: bare, initialBranch: initialBranch) }
        return try GitLibrary.withoutFsync {
            let repo = try create(path: path, bare: bare, initialBranch: initialBranch)
            // libgit2 reads the fsync setting once, when the handle first opens its references.
            var refdb: OpaquePointer?
            try check(git_repository_refdb(&refdb, repo.handle), call: "git_repository_refdb")
            git_refdb_free(refdb)
            return repo
        }
    }

    private static func create(path: String, bare: Bool, initialBranch: String) throws -> Repository {
        var opts = git_repository_init_options()
        try check(
            git_repository_init_options_init(&opts, UInt32(GIT_REPOSITORY_INIT_OPTIONS_VERSION)),
            call: "git_repository_init_options_init")
        opts.flags = UInt32(GIT_REPOSITORY_INIT_MKPATH.rawValue)
        if bare { opts.flags |= UInt32(GIT_REPOSITORY_INIT_BARE.rawValue) }
        var repo: OpaquePointer?
        try initialBranch.withCString { branch in
            opts.initial_head = branch
            try check(git_repository_init_ext(&repo, path, &opts), call: "git_repository_init_ext")
        }
        guard let repo else { throw GitError.missing("git_repository_init_ext") }
        return Repository(handle: repo)
    }

    /// A handle given to another thread, which alone uses it from then on (a libgit2
    /// repository is for one thread at a time; each thread of a parallel job opens its own).
    public struct Handoff: @unchecked Sendable {  // the receiving thread alone uses the handle from then on
        public let repo: Repository
        public init(_ repo: Repository) { self.repo = repo }
    }

    /// Lets go of what libgit2 keeps for this repository between calls: its object cache and
    /// its open object database, whose packs are mapped (mapped pages count as the process's
    /// memory). The next read opens them again.
    public func releaseCaches() {
        _ = git_repository__cleanup(handle)
    }

    /// The git directory, with a trailing slash.
    public var gitDirectory: String { String(cString: git_repository_path(handle)) }

    /// The work tree, with a trailing slash; nil for a bare repository.
    public var workDirectory: String? { git_repository_workdir(handle).map { String(cString: $0) } }

    // MARK: Config

    /// A value from the repository's config (local, then global, then system); nil when unset.
    public func configString(_ key: String) throws -> String? {
        var config: OpaquePointer?
        try check(git_repository_config_snapshot(&config, handle), call: "git_repository_config_snapshot")
        defer { git_config_free(config) }
        var value: UnsafePointer<CChar>?
        let rc = git_config_get_string(&value, config, key)
        if rc == GIT_ENOTFOUND.rawValue { return nil }
        try check(rc, call: "git_config_get_string")
        return value.map { String(cString: $0) }
    }

    /// A boolean from the repository's config, as git reads one (`true`, `yes`, `on`, `1`...);
    /// nil when unset.
    public func configBool(_ key: String) throws -> Bool? {
        var config: OpaquePointer?
        try check(git_repository_config_snapshot(&config, handle), call: "git_repository_config_snapshot")
        defer { git_config_free(config) }
        var value: Int32 = 0
        let rc = git_config_get_bool(&value, config, key)
        if rc == GIT_ENOTFOUND.rawValue { return nil }
        try check(rc, call: "git_config_get_bool")
        return value != 0
    }

    /// Writes `key = value` to the repository's own `.git/config`.
    public func setLocalConfig(_ key: String, _ value: String) throws {
        try withLocalConfig { try check(git_config_set_string($0, key, value), call: "git_config_set_string") }
    }

    /// Removes `key` from `.git/config`; no error when it was not set.
    public func removeLocalConfig(_ key: String) throws {
        try withLocalConfig {
            let rc = git_config_delete_entry($0, key)
            if rc != GIT_ENOTFOUND.rawValue { try check(rc, call: "git_config_delete_entry") }
        }
    }

    private func withLocalConfig(_ body: (OpaquePointer?) throws -> Void) throws {
        var config: OpaquePointer?
        try check(git_repository_config(&config, handle), call: "git_repository_config")
        defer { git_config_free(config) }
        var local: OpaquePointer?
        try check(
            git_config_open_level(&local, config, GIT_CONFIG_LEVEL_LOCAL), call: "git_config_open_level")
        defer { git_config_free(local) }
        try body(local)
    }

    // MARK: References

    /// The commit a reference points at (following symbolic refs); nil when it does not exist.
    public func resolve(reference name: String) throws -> ObjectID? {
        var oid = git_oid()
        let rc = git_reference_name_to_id(&oid, handle, name)
        if rc == GIT_ENOTFOUND.rawValue { return nil }
        try check(rc, call: "git_reference_name_to_id(\(name))")
        return ObjectID(oid)
    }

    /// Points `name` at `target` only if it still points at `expected` (nil: only if it does not
    /// exist). Throws a GitError with `isModified`/`isExists` when someone else moved it first.
    /// With `force`, the reference is set whatever it points at now.
    public func updateReference(
        _ name: String, to target: ObjectID, expected: ObjectID?, force: Bool = false, message: String
    ) throws {
        var ref: OpaquePointer?
        var newID = target.raw
        if force {
            try check(git_reference_create(&ref, handle, name, &newID, 1, message), call: "git_reference_create")
        } else if var old = expected?.raw {
            try check(
                git_reference_create_matching(&ref, handle, name, &newID, 1, &old, message),
                call: "git_reference_create_matching")
        } else {
            try check(git_reference_create(&ref, handle, name, &newID, 0, message), call: "git_reference_create")
        }
        git_reference_free(ref)
    }

    /// Deletes a reference; no error when it does not exist.
    public func deleteReference(_ name: String) throws {
        var ref: OpaquePointer?
        let rc = git_reference_lookup(&ref, handle, name)
        if rc == GIT_ENOTFOUND.rawValue { return }
        try check(rc, call: "git_reference_lookup")
        defer { git_reference_free(ref) }
        try check(git_reference_delete(ref), call: "git_reference_delete")
    }

    /// Points HEAD at a branch (which may not exist yet).
    public func setHead(_ refName: String) throws {
        try check(git_repository_set_head(handle, refName), call: "git_repository_set_head")
    }

    /// The reference HEAD names (`refs/heads/…`), whether or not that branch exists; nil when
    /// HEAD is detached or missing.
    public func headTarget() throws -> String? {
        var ref: OpaquePointer?
        let rc = git_reference_lookup(&ref, handle, "HEAD")
        if rc == GIT_ENOTFOUND.rawValue { return nil }
        try check(rc, call: "git_reference_lookup(HEAD)")
        defer { git_reference_free(ref) }
        guard git_reference_type(ref) == GIT_REFERENCE_SYMBOLIC, let target = git_reference_symbolic_target(ref) else { return nil }
        return String(cString: target)
    }
}

extension GitError {
    static func missing(_ function: String) -> GitError {
        GitError(code: -1, errorClass: 0, message: "libgit2 returned no object", function: function)
    }

    /// A failed system call made by GitKit itself, shaped like libgit2's OS-class errors.
    static func system(errno err: Int32, call: String) -> GitError {
        GitError(code: -1, errorClass: Int32(GIT_ERROR_OS.rawValue), message: String(cString: strerror(err)), function: call, systemErrno: err)
    }
}

extension Repository {
    /// A value from the user's global/system git config (no repository involved); nil when unset.
    public static func defaultConfigString(_ key: String) -> String? {
        GitLibrary.start()
        var config: OpaquePointer?
        guard git_config_open_default(&config) == 0 else { return nil }
        defer { git_config_free(config) }
        var snapshot: OpaquePointer?
        guard git_config_snapshot(&snapshot, config) == 0 else { return nil }
        defer { git_config_free(snapshot) }
        var value: UnsafePointer<CChar>?
        guard git_config_get_string(&value, snapshot, key) == 0, let value else { return nil }
        return String(cString: value)
    }
}
