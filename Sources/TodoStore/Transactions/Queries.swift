import TodoCore

/// What `todo log` shows: commits newest first, and the short ids to name tasks by.
public struct HouseholdLog: Sendable {
    public let entries: [HistoryEntry]
    /// The task asked about, if one was.
    public let task: TaskID?
    /// Each task's shortest unique id prefix, by full id in hex (empty unless asked for).
    public let shortIDs: [String: String]
}

extension Household {
    /// The history of the household, or of the task whose id starts with `prefix`, newest first.
    public func log(of prefix: String?, limit: Int?, withShortIDs: Bool) throws(StoreError) -> HouseholdLog {
        let snap = try snapshot()
        let id = try prefix.map { p throws(StoreError) in try snap.resolve(p) }
        let entries = try history(of: id, limit: limit)
        let shorts = withShortIDs ? ShortIDs.map(try snap.loadAll().tasks.map(\.id.hex)) : [:]
        return HouseholdLog(entries: entries, task: id, shortIDs: shorts)
    }
}
