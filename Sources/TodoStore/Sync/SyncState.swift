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
    /// When the failures since the last success began (nil after a success).
    public var failingSince: Int64?
    /// When a quiet sync last told a person that syncs keep failing.
    public var notifiedAt: Int64?
    /// The remote (as shown, credentials redacted) the last successful sync exchanged with.
    public var lastRemote: String?
}

extension Household {
    var syncStatePath: String { repo.gitDirectory + "todo/sync-state" }

    func recordSync(at time: Int64, error: SyncError?, remote: String? = nil) {
        var state = syncState()
        state.lastAttempt = time
        if let error {
            state.lastError = error.message.split(separator: "\n").first.map(String.init)
            state.lastErrorClass = error.kind.rawValue
            state.failingSince = state.failingSince ?? time
        } else {
            state.lastSuccess = time
            state.lastError = nil
            state.lastErrorClass = nil
            state.failingSince = nil
            state.notifiedAt = nil
            state.lastRemote = remote
        }
        writeSyncState(state)
    }

    func writeSyncState(_ state: SyncState) {
        var text = ""
        if let v = state.lastSuccess { text += "lastSuccess=\(v)\n" }
        if let v = state.lastAttempt { text += "lastAttempt=\(v)\n" }
        if let v = state.lastErrorClass { text += "lastErrorClass=\(v)\n" }
        if let v = state.lastError { text += "lastError=\(v)\n" }
        if let v = state.failingSince { text += "failingSince=\(v)\n" }
        if let v = state.notifiedAt { text += "notifiedAt=\(v)\n" }
        if let v = state.lastRemote { text += "lastRemote=\(v)\n" }
        mkdir(repo.gitDirectory + "todo", 0o755)
        try? writeFile(syncStatePath, text, sync: false)
    }

    /// For `todo sync --quiet` after a failure to try again later: when the failures began, if
    /// they have gone on for at least `quietFor` milliseconds and nobody was told within the last
    /// `quietFor`; nil while the failure is still to be kept quiet. A non-nil answer is recorded
    /// as told, so a person hears of a lasting failure once per period, not on every run.
    public func failureToReport(quietFor: Int64) -> Int64? {
        var state = syncState()
        guard let since = state.failingSince else { return nil }
        let now = clock.nowMillis()
        let (failingFor, overflow) = now.subtractingReportingOverflow(since)
        guard !overflow, failingFor >= quietFor else { return nil }
        if let told = state.notifiedAt {
            let (sinceTold, overflow) = now.subtractingReportingOverflow(told)
            if !overflow && sinceTold >= 0 && sinceTold < quietFor { return nil }
        }
        state.notifiedAt = now
        writeSyncState(state)
        return since
    }

    /// The household's `todo.quietFor` setting (git config), as written.
    public func quietForSetting() -> String? {
        (try? repo.configString("todo.quietFor")) ?? nil
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
            case "failingSince": s.failingSince = Int64(value)
            case "notifiedAt": s.notifiedAt = Int64(value)
            case "lastRemote": s.lastRemote = value
            default: break
            }
        }
        return s
    }
}
