import Glibc
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

    /// Records a sync's outcome: a failure with the first line of its wording (`said`).
    func recordSync(at time: Int64, error: SyncError?, said: String? = nil, remote: String? = nil) {
        var state = syncState()
        state.lastAttempt = time
        if let error {
            state.lastError = said
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
        let fields: [(String, String?)] = [
            ("lastSuccess", state.lastSuccess.map { "\($0)" }), ("lastAttempt", state.lastAttempt.map { "\($0)" }),
            ("lastErrorClass", state.lastErrorClass), ("lastError", state.lastError),
            ("failingSince", state.failingSince.map { "\($0)" }), ("notifiedAt", state.notifiedAt.map { "\($0)" }),
            ("lastRemote", state.lastRemote),
        ]
        let text = KeyValueText.render(fields.compactMap { k, v in v.map { (k, $0) } })
        mkdir(repo.gitDirectory + "todo", 0o755)
        // Last sync's time and error are a record for status: the sync's own outcome is already reported.
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
        // An unreadable setting is no setting: the documented default applies.
        (try? repo.configString("todo.quietFor")) ?? nil
    }

    /// When the last sync succeeded and, if the last attempt failed, why.
    public func syncState() -> SyncState {
        let v = KeyValueText.parse(readFile(syncStatePath) ?? "")
        return SyncState(
            lastSuccess: v["lastSuccess"].flatMap { Int64($0) }, lastAttempt: v["lastAttempt"].flatMap { Int64($0) },
            lastError: v["lastError"], lastErrorClass: v["lastErrorClass"], failingSince: v["failingSince"].flatMap { Int64($0) },
            notifiedAt: v["notifiedAt"].flatMap { Int64($0) }, lastRemote: v["lastRemote"])
    }
}

extension Household {
    /// The first line of a front end's wording: what the sync log and the sync state keep.
    static func firstLine(_ text: String) -> String {
        text.split(separator: "\n").first.map(String.init) ?? ""
    }
}
