#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import GitKit
import TodoCore

/// What went wrong in a household operation, in terms a person can act on. The command layer
/// turns each case into a message and an exit code (see docs/EXIT-CODES in the README).
public enum StoreError: Error, Sendable {
    case invalidHouseholdName(String)
    case householdNotFound(name: String, home: String)
    case householdExists(name: String, path: String)
    case notWritable(path: String, reason: String)
    case diskFull(path: String)
    case taskNotFound(String)
    case conflictNotFound(String)
    case nothingToRestore(String)
    case ambiguousID(String, candidates: [String])
    case malformedTask(path: String, reason: String)
    case handEdits(repo: String, paths: [String])
    case locked(repo: String, seconds: Int)
    case notAHousehold(path: String, reason: String)
    case mergeFailed([MergeFailure])
    case unrelatedHistories
    case git(GitError)
}

extension StoreError {
    /// Maps a libgit2 failure to a store error, recognising a full disk and permission problems.
    static func from(_ error: Error, path: String) -> StoreError {
        if let e = error as? StoreError { return e }
        if let s = error as? SystemError {
            switch s.errno {
            case ENOSPC, EDQUOT: return .diskFull(path: path)
            default: return .notWritable(path: path, reason: s.description)
            }
        }
        guard let g = error as? GitError else { return .notWritable(path: path, reason: "\(error)") }
        let m = g.message.lowercased()
        if m.contains("no space left") || m.contains("disk quota") { return .diskFull(path: path) }
        if m.contains("permission denied") || m.contains("read-only file system") {
            return .notWritable(path: path, reason: g.message)
        }
        return .git(g)
    }
}
