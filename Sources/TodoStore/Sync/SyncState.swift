#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import GitKit

/// The record behind `todo status`: `.git/todo/sync-state`.
public struct SyncState: Sendable {
    public var lastSuccess: Int64?
    public var lastAttempt: Int64?
    public var lastError: String?
    public var lastErrorClass: String?
}

extension Household {
    var syncStatePath: String { repo.gitDirectory + "todo/sync-state" }

    func recordSync(at time: Int64, error: SyncError?) {
        var state = syncState()
        state.lastAttempt = time
        if let error {
            state.lastError = error.message.split(separator: "\n").first.map(String.init)
            state.lastErrorClass = error.kind.rawValue
        } else {
            state.lastSuccess = time
            state.lastError = nil
            state.lastErrorClass = nil
        }
        var text = ""
        if let v = state.lastSuccess { text += "lastSuccess=\(v)\n" }
        if let v = state.lastAttempt { text += "lastAttempt=\(v)\n" }
        if let v = state.lastErrorClass { text += "lastErrorClass=\(v)\n" }
        if let v = state.lastError { text += "lastError=\(v)\n" }
        mkdir(repo.gitDirectory + "todo", 0o755)
        try? writeFile(syncStatePath, text, sync: false)
    }

    /// When the last sync succeeded and, if the last attempt failed, why.
    public func syncState() -> SyncState {
        var s = SyncState()
        for line in (readFile(syncStatePath) ?? "").split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            let key = line[..<eq]
            let value = String(line[line.index(after: eq)...])
            switch key {
            case "lastSuccess": s.lastSuccess = Int64(value)
            case "lastAttempt": s.lastAttempt = Int64(value)
            case "lastErrorClass": s.lastErrorClass = value
            case "lastError": s.lastError = value
            default: break
            }
        }
        return s
    }
}
