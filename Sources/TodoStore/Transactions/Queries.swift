public import TodoCore

/// What `todo log` shows: commits newest first, and the short ids to name tasks by.
public struct HouseholdLog: Sendable {
    public let entries: [HistoryEntry]
    /// The task asked about, if one was.
    public let task: TaskID?
    /// Each task's shortest unique id prefix, by full id in hex (empty unless asked for).
    public let shortIDs: [String: String]
}

extension Household {
    /// The history of the household, or of the task whose id starts with `prefix`, newest first;
    /// with `since`, only commits made at or after that local date and time (midnight when it
    /// has none) in the household clock's zone.
    public func log(
        of prefix: String?, limit: Int?, since: Due? = nil, author: String? = nil, withShortIDs: Bool
    ) throws(StoreError) -> HouseholdLog {
        let snap = try snapshot()
        let id = try prefix.map { p throws(StoreError) in try snap.resolve(p) }
        let seconds = since.map { clock.millis(atLocal: $0) / 1000 }
        let entries = try history(of: id, limit: limit, since: seconds, author: author)
        let shorts = withShortIDs ? ShortIDs.map(try snap.loadAll().tasks.map(\.id.hex)) : [:]
        return HouseholdLog(entries: entries, task: id, shortIDs: shorts)
    }
}

/// What `todo conflicts` shows: entries newest first, and the short ids of their tasks.
public struct ConflictLogView: Sendable {
    public let entries: [LoggedConflict]
    /// The short ids of the entries' tasks (empty unless asked for).
    public let shortIDs: [TaskID: String]
}

extension Household {
    /// The conflict log, newest first: all of it, or the entries of the task whose id starts
    /// with `prefix`, from the household-local day `since` on. Marks what it returns as seen.
    public func conflictLog(of prefix: String?, since: CivilDate?, withShortIDs: Bool) throws(StoreError) -> ConflictLogView {
        let snap = try snapshot()
        var entries = try snap.conflicts()
        if let prefix {
            let id = try snap.resolve(prefix)
            entries = entries.filter { $0.task.id == id }
        }
        if let since {
            let offset = Int64(clock.offsetMinutes(clock.nowMillis())) * 60_000
            let from = Int64(since.daysSinceEpoch) * 86_400_000 - offset
            entries = entries.filter { $0.time >= from }
        }
        markConflictsSeen(upTo: entries.first?.time ?? 0)
        let shorts = withShortIDs && !entries.isEmpty ? try snap.shortIDs(Array(Set(entries.map(\.task.id)))) : [:]
        return ConflictLogView(entries: entries, shortIDs: shorts)
    }
}
