public import TodoCore

/// A household opened for reading (`Household.openForReading`): its queries and nothing that
/// writes. Every query command and every page a GET shows receives one, so that "reads never
/// write" is the compiler's rule, not a naming convention: the household it reads is not
/// reachable from it, and it has no transaction, no setter and no repair.
///
/// Reads may still refresh what docs/FORMAT.md lists as caches (the list cache); they never
/// touch the branch, the index, the work tree, the configuration or a state file.
public struct HouseholdReader {
    let household: Household

    init(_ household: Household) { self.household = household }

    public var name: String { household.name }
    /// The work tree, without a trailing slash.
    public var path: String { household.path }
    /// The household's clock: its days follow the household's recorded zone.
    public var clock: WallClock { household.clock }
    /// A change a killed command left half done: what is read is the last complete change.
    public var hasInterruptedChange: Bool { household.hasInterruptedChange }

    // MARK: The tasks and the roster

    public func snapshot() throws(StoreError) -> Snapshot { try household.snapshot() }
    public func headCommit() throws(StoreError) -> String? { try household.headCommit() }
    public func mainCommit() throws(StoreError) -> String? { try household.mainCommit() }
    public func identity() throws(StoreError) -> Identity { try household.identity() }
    public func roster() throws(StoreError) -> Roster { try household.roster() }
    public func standing(of name: String) throws(StoreError) -> Standing { try household.standing(of: name) }
    public func turnContext() throws(StoreError) -> TurnContext { try household.turnContext() }
    public func zone() throws(StoreError) -> HouseholdZone { try household.zone() }
    public func memberNames() throws(StoreError) -> [String] { try household.memberNames() }
    public func knownMember(_ name: String) throws(StoreError) -> String? { try household.knownMember(name) }
    public func memberEmail(_ name: String) throws(StoreError) -> String? { try household.memberEmail(name) }
    public func memberDetails() throws(StoreError) -> (details: [String: MemberDetails], problems: [MemberFieldProblem]) {
        try household.memberDetails()
    }

    // MARK: Queries

    public func status() throws(StoreError) -> HouseholdStatus { try household.status() }
    public func calendar(_ options: CalendarFeedOptions) throws(StoreError) -> Result<[UInt8], CalendarError> {
        try household.calendar(options)
    }
    public func log(of prefix: String?, limit: Int?, since: Due? = nil, author: String? = nil, withShortIDs: Bool)
        throws(StoreError) -> HouseholdLog
    {
        try household.log(of: prefix, limit: limit, since: since, author: author, withShortIDs: withShortIDs)
    }
    public func history(of id: TaskID? = nil, limit: Int? = nil, since: Int64? = nil, author: String? = nil)
        throws(StoreError) -> [HistoryEntry]
    {
        try household.history(of: id, limit: limit, since: since, author: author)
    }
    public func conflictLog(of prefix: String?, since: CivilDate?, withShortIDs: Bool) throws(StoreError) -> ConflictLogView {
        try household.conflictLog(of: prefix, since: since, withShortIDs: withShortIDs)
    }
    public func planReminders(
        members: [String]?, state: ReminderState, atTheirHour: Bool = false, word: (ReminderFacts) -> (subject: String, body: String)
    ) throws(StoreError) -> (today: CivilDate, plans: [ReminderPlan]) {
        try household.planReminders(members: members, state: state, atTheirHour: atTheirHour, word: word)
    }

    // MARK: Sync, as recorded

    public func remoteURL() throws(StoreError) -> String? { try household.remoteURL() }
    public func remoteIsEncrypted() throws(StoreError) -> Bool { try household.remoteIsEncrypted() }
    public func syncState() -> SyncState { household.syncState() }
    public func quietForSetting() -> String? { household.quietForSetting() }
    public func isWaitingForRemote() -> Bool { household.isWaitingForRemote() }
    public func lastSyncRange() -> (from: String?, to: String)? { household.lastSyncRange() }
    public func commitBefore(_ millis: Int64) throws(StoreError) -> String? { try household.commitBefore(millis) }
    public func receivedChanges(from old: String?, to new: String?, sinceMillis: Int64? = nil, viewer: Set<String>? = nil)
        throws(StoreError) -> [ReceivedChange]
    {
        try household.receivedChanges(from: old, to: new, sinceMillis: sinceMillis, viewer: viewer)
    }
    public func receivedChangeReport(from old: String?, to new: String?, sinceMillis: Int64? = nil, foldLeaves: Bool = true)
        throws(StoreError) -> ReceivedChanges
    {
        try household.receivedChangeReport(from: old, to: new, sinceMillis: sinceMillis, foldLeaves: foldLeaves)
    }

    // MARK: Health

    public func handEdits(_ snap: Snapshot, task id: TaskID) throws(StoreError) -> [String] { try household.handEdits(snap, task: id) }
    public func quickHandEdits(_ snap: Snapshot) throws(StoreError) -> [String] { try household.quickHandEdits(snap) }
    /// `doctor`'s checks without its repairs: `options.fix` is not taken.
    public func check(_ options: DoctorOptions) throws(StoreError) -> [DoctorFinding] {
        var checks = options
        checks.fix = false
        return try household.doctor(checks)
    }
    public func mergeDriver() -> String? { household.mergeDriver() }
    public func pathRemoteObjectsDirectory() -> String? { household.pathRemoteObjectsDirectory() }
    public func objectStores() -> [(place: String, isRemote: Bool, state: StorageState)] { household.objectStores() }
}

extension Household {
    /// This household's read view, for a reading helper a changing command shares.
    public var reader: HouseholdReader { HouseholdReader(self) }
}
