public import Age
import AgeFormat
import FileKit
import Glibc
import SystemPackage

/// This device's age identity (docs/ENCRYPTION.md, "The household's keys"): one X25519 identity
/// per account, in the format `age-keygen` writes, so that stock `age -d -i FILE` opens what is
/// encrypted to it. Not passphrase-protected (cron and the hub sync unattended), so the file and
/// its folder must be the user's own and closed to everyone else; anything looser is refused.
public enum DeviceIdentity {
    /// `$XDG_CONFIG_HOME/todo/identity`, default `$HOME/.config/todo/identity`. A relative or
    /// empty `XDG_CONFIG_HOME` is ignored, as the XDG specification says.
    public static func defaultPath(home: String, configHome: String?) -> String {
        if let configHome, configHome.hasPrefix("/") { return configHome + "/todo/identity" }
        return home + "/.config/todo/identity"
    }

    /// The identity in `path`. Refused (`identityExposed`) when the file or its folder may be
    /// read or written by others than the user, and (`identityUnreadable`) when the file is not
    /// a regular file of the user's or holds no identity; a file that does not exist is
    /// `fileFailed` with ENOENT (`loadOrCreate` makes it instead). With `own` false (a file the
    /// user names, such as a recovery key given to `todo clone --identity`), who else may read
    /// it is the user's business: only its kind and content are checked.
    public static func load(path: String, own: Bool = true) throws(StoreError) -> AgeIdentity {
        if own { try checkFolder(of: path) }
        var st = stat()
        guard stat(path, &st) == 0 else {
            let e = Glibc.errno
            throw StoreError.byErrno(Errno(rawValue: e), path: path, cause: StoreError.systemCause(path: path, errno: e))
        }
        guard st.st_mode & S_IFMT == S_IFREG else { throw .identityUnreadable(path: path, reason: .notRegularFile) }
        guard !own || st.st_uid == getuid() else { throw .identityUnreadable(path: path, reason: .otherOwner) }
        guard !own || st.st_mode & 0o077 == 0 else { throw .identityExposed(path: path, folder: false) }
        let bytes: [UInt8]
        do {
            bytes = try WholeFile.read(path)
        } catch {
            throw StoreError.from(error, path: path)
        }
        guard bytes.count <= AgeIdentityFile.maxBytes else { throw .identityUnreadable(path: path, reason: .malformed("larger than an identity file")) }
        let identities: [AgeIdentity]
        do {
            identities = try AgeIdentity.parseFile(bytes)
        } catch {
            throw .identityUnreadable(path: path, reason: .malformed("\(error)"))
        }
        guard let first = identities.first else { throw .identityUnreadable(path: path, reason: .noIdentity) }
        return first
    }

    /// The identity in `path`; when there is no file there, a new identity written to it (its
    /// folder made 0700 as needed, the file 0600, `now` its `# created:` time in seconds) and
    /// `created` true. The file appears whole or not at all: it is written to a temporary file,
    /// fsynced and linked into place, never over a file another process made meanwhile (that
    /// one is read instead).
    public static func loadOrCreate(path: String, now: Int64) throws(StoreError) -> (AgeIdentity, created: Bool) {
        var st = stat()
        if lstat(path, &st) == 0 { return (try load(path: path), false) }
        guard Glibc.errno == ENOENT else { return (try load(path: path), false) }
        let folder = Self.folder(of: path)
        try makeFolders(folder)
        try checkFolder(of: path)
        let identity = AgeIdentity.generate()
        let tmp = path + ".tmp-\(getpid())"
        do {
            let fd = try WholeFile.open(tmp, .writeOnly, options: [.create, .exclusiveCreate], mode: 0o600)
            do throws(FileError) {
                defer { _ = try? fd.close() }  // the write's and fsync's outcomes are what count
                try WholeFile.writeAll(fd, identity.identityFile(created: now), path: tmp)
                try WholeFile.fsync(fd, path: tmp)
            } catch {
                unlink(tmp)
                throw error
            }
        } catch {
            throw StoreError.from(error, path: path)
        }
        let linked = link(tmp, path) == 0
        let linkErrno = Glibc.errno
        unlink(tmp)
        guard linked else {
            // Another `todo` made it first: theirs is the device's identity.
            if linkErrno == EEXIST { return (try load(path: path), false) }
            throw StoreError.byErrno(Errno(rawValue: linkErrno), path: path, cause: StoreError.systemCause(path: path, errno: linkErrno))
        }
        do {
            try WholeFile.syncFolder(of: path)
        } catch {
            throw StoreError.from(error, path: folder)
        }
        return (identity, true)
    }

    /// The recipient `age1…` of `identity` (for a caller that does not import Age).
    public static func recipient(of identity: AgeIdentity) -> String { identity.recipient.text }

    /// The folder holding `path`.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Refuses a folder of `path` that is not the user's or that others may read or write.
    static func checkFolder(of path: String) throws(StoreError) {
        let folder = folder(of: path)
        var st = stat()
        guard stat(folder, &st) == 0 else {
            let e = Glibc.errno
            throw StoreError.byErrno(Errno(rawValue: e), path: folder, cause: StoreError.systemCause(path: folder, errno: e))
        }
        guard st.st_uid == getuid(), st.st_mode & 0o077 == 0 else { throw .identityExposed(path: folder, folder: true) }
    }

    /// Makes `folder` and those above it that are missing, each 0700.
    static func makeFolders(_ folder: String) throws(StoreError) {
        var st = stat()
        if stat(folder, &st) == 0 { return }
        let parent = Self.folder(of: folder)
        if parent != folder && parent != "." && parent != "/" { try makeFolders(parent) }
        if mkdir(folder, 0o700) != 0 && Glibc.errno != EEXIST {
            let e = Glibc.errno
            throw StoreError.byErrno(Errno(rawValue: e), path: folder, cause: StoreError.systemCause(path: folder, errno: e))
        }
    }
}
