#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import CLibgit2

extension Repository {
    /// Paths whose index or work-tree state differs from HEAD, including untracked files,
    /// limited to `pathspec` (e.g. `["tasks/"]`).
    /// With `exact`, the pathspec entries are literal paths rather than patterns.
    public func dirtyPaths(pathspec: [String], exact: Bool = false) throws -> [String] {
        var opts = git_status_options()
        try check(git_status_options_init(&opts, UInt32(GIT_STATUS_OPTIONS_VERSION)), call: "git_status_options_init")
        opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR
        opts.flags =
            GIT_STATUS_OPT_INCLUDE_UNTRACKED.rawValue | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS.rawValue
            | GIT_STATUS_OPT_EXCLUDE_SUBMODULES.rawValue
        if exact { opts.flags |= GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH.rawValue }
        return try withStrArray(pathspec) { specs in
            opts.pathspec = specs
            var list: OpaquePointer?
            try check(git_status_list_new(&list, handle, &opts), call: "git_status_list_new")
            defer { git_status_list_free(list) }
            var paths: [String] = []
            for i in 0..<git_status_list_entrycount(list) {
                guard let entry = git_status_byindex(list, i) else { continue }
                if let d = entry.pointee.index_to_workdir ?? entry.pointee.head_to_index,
                    let p = d.pointee.new_file.path ?? d.pointee.old_file.path
                {
                    paths.append(String(cString: p))
                }
            }
            return paths
        }
    }

    /// Makes the index and work tree match `tree` at exactly these paths, discarding anything else
    /// there. A path absent from `tree` is removed.
    public func checkout(tree: ObjectID, paths: [String]) throws {
        guard !paths.isEmpty else { return }
        var opts = git_checkout_options()
        try check(git_checkout_options_init(&opts, UInt32(GIT_CHECKOUT_OPTIONS_VERSION)), call: "git_checkout_options_init")
        opts.checkout_strategy =
            GIT_CHECKOUT_FORCE.rawValue | GIT_CHECKOUT_REMOVE_UNTRACKED.rawValue
            | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH.rawValue
        try withStrArray(paths) { specs in
            opts.paths = specs
            try withObject(tree) { obj in
                try check(git_checkout_tree(handle, obj, &opts), call: "git_checkout_tree")
            }
        }
    }

    /// Sets the index entries of `paths` to what `commit` has (removing those it lacks), like
    /// `git reset COMMIT -- PATHS`; the work tree is left alone.
    public func resetIndex(to commit: ObjectID, paths: [String]) throws {
        guard !paths.isEmpty else { return }
        try withStrArray(paths) { specs in
            try withObject(commit) { obj in
                var array = specs
                try check(git_reset_default(handle, obj, &array), call: "git_reset_default")
            }
        }
    }

    /// Makes the index and the whole work tree match `tree`, discarding local changes.
    public func checkoutAll(tree: ObjectID) throws {
        var opts = git_checkout_options()
        try check(git_checkout_options_init(&opts, UInt32(GIT_CHECKOUT_OPTIONS_VERSION)), call: "git_checkout_options_init")
        opts.checkout_strategy = GIT_CHECKOUT_FORCE.rawValue
        try withObject(tree) { obj in
            try check(git_checkout_tree(handle, obj, &opts), call: "git_checkout_tree")
        }
    }

    /// Stages the work-tree file at `path` (which must already hold the committed bytes).
    public func stage(paths: [String]) throws {
        var index: OpaquePointer?
        try check(git_repository_index(&index, handle), call: "git_repository_index")
        defer { git_index_free(index) }
        for path in paths {
            try check(git_index_add_bypath(index, path), call: "git_index_add_bypath")
        }
        try check(git_index_write(index), call: "git_index_write")
    }

    func withObject<T>(_ id: ObjectID, _ body: (OpaquePointer) throws -> T) throws -> T {
        var obj: OpaquePointer?
        var oid = id.raw
        try check(git_object_lookup(&obj, handle, &oid, GIT_OBJECT_ANY), call: "git_object_lookup")
        defer { git_object_free(obj) }
        guard let obj else { throw GitError.missing("git_object_lookup") }
        return try body(obj)
    }
}

/// Calls `body` with a git_strarray whose strings live only for the call.
func withStrArray<T>(_ strings: [String], _ body: (git_strarray) throws -> T) throws -> T {
    let cStrings: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    defer { cStrings.forEach { free($0) } }
    var mutable = cStrings
    return try mutable.withUnsafeMutableBufferPointer { buf in
        try body(git_strarray(strings: buf.baseAddress, count: strings.count))
    }
}
