import Glibc
import GitKit

/// The `merge.todo.driver` setting that lets plain `git merge` and `git pull` merge task files
/// field by field. It names the `todo` binary either as `todo` (found on `PATH` when git runs
/// it, so a reinstall or a move along `PATH` keeps it working) or by its absolute path.
public enum MergeDriverConfig {
    public static let key = "merge.todo.driver"
    static let arguments = " merge-driver %O %A %B %P"

    /// The setting that runs `program` (a word for the shell: `todo` or a quoted path).
    public static func command(program: String) -> String { program + arguments }

    /// The setting for the binary at `executable`: `todo` when that name on `searchPath`
    /// resolves to the same file, else the absolute path, quoted for the shell.
    public static func command(for executable: String, searchPath: String?) -> String {
        let me = canonical(executable)
        if let found = locate("todo", searchPath: searchPath), canonical(found) == me { return command(program: "todo") }
        return command(program: shellQuoted(me))
    }

    /// `path` in single quotes, safe for `sh -c`.
    public static func shellQuoted(_ path: String) -> String {
        "'" + path.replacingAll("'", with: "'\\''") + "'"
    }

    /// The binary a driver setting runs: its first shell word, looked up on `searchPath` when
    /// it has no slash; nil when the setting cannot be parsed or the program is not found.
    public static func program(of command: String, searchPath: String?) -> String? {
        guard let word = firstWord(command), !word.isEmpty else { return nil }
        if word.contains("/") { return word }
        return locate(word, searchPath: searchPath)
    }

    /// Whether the binary a setting names exists and can be run.
    static func isRunnable(_ command: String, searchPath: String?) -> Bool {
        guard let p = program(of: command, searchPath: searchPath) else { return false }
        return access(p, X_OK) == 0
    }

    /// The first word of a shell command line: quotes and backslashes as `sh` reads them.
    static func firstWord(_ command: String) -> String? {
        var word = ""
        var quote: Character?
        var escaped = false
        var started = false
        for c in command {
            if escaped {
                word.append(c)
                escaped = false
                continue
            }
            switch (quote, c) {
            case (nil, " "), (nil, "\t"):
                if started { return word }
            case (nil, "\\"): escaped = true; started = true
            case (nil, "'"), (nil, "\""): quote = c; started = true
            case ("'", "'"), ("\"", "\""): quote = nil
            case ("\"", "\\"): escaped = true
            default:
                word.append(c)
                started = true
            }
        }
        return quote == nil && !escaped ? word : nil
    }

    /// The first executable `name` in the colon-separated `searchPath`.
    static func locate(_ name: String, searchPath: String?) -> String? {
        for dir in (searchPath ?? "").split(separator: ":") where !dir.isEmpty {
            let candidate = dir + "/" + name
            var st = stat()
            if stat(candidate, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    static func canonical(_ path: String) -> String {
        guard let r = realpath(path, nil) else { return path }
        defer { free(r) }
        return String(cString: r)
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}

extension Household {
    /// The `merge.todo.driver` setting; nil when unset.
    public func mergeDriver() -> String? {
        // An unreadable setting is reported as not configured, which is what a merge would find.
        (try? repo.configString(MergeDriverConfig.key)).flatMap { $0 }
    }

    /// Points the merge driver at `command` (see `MergeDriverConfig.command(for:searchPath:)`).
    public func setMergeDriver(_ command: String) throws(StoreError) {
        do {
            try repo.setLocalConfig("merge.todo.name", "todo field-level merge")
            try repo.setLocalConfig(MergeDriverConfig.key, command)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// When the merge driver names, by its path, a binary that no longer exists (todo was
    /// moved or reinstalled elsewhere), points it at `replacement()`. One config read and one
    /// `access` when all is well. A setting that names `todo` without a path is left alone:
    /// git looks it up on its own `PATH`, which may differ from ours (cron's is short).
    /// True when the setting was rewritten.
    @discardableResult
    public func repairStaleMergeDriver(searchPath: String?, replacement: () -> String) -> Bool {
        guard let current = mergeDriver(), MergeDriverConfig.firstWord(current)?.contains("/") == true,
            !MergeDriverConfig.isRunnable(current, searchPath: searchPath)
        else { return false }
        let fresh = replacement()
        guard fresh != current else { return false }
        // Not updated: the caller reports the setting as it was.
        return (try? setMergeDriver(fresh)) != nil
    }
}
