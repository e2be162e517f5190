public import TodoCore

/// Issues stamps for this clone's writes.
public struct Stamper: Sendable {
    public let replica: String
    public let member: String
    public let clock: WallClock

    /// A stamp greater than every stamp already in `task` (so an edit made after seeing a write
    /// always wins over it) and at least the wall clock.
    public func stamp(after task: Task?) -> FieldStamp { stamp(after: [task]) }

    /// A stamp greater than every stamp in each of `tasks` (versions of one task, say).
    public func stamp(after tasks: [Task?]) -> FieldStamp {
        let newest = tasks.compactMap { $0?.maxStamp }.max()
        return FieldStamp(Stamp.next(now: clock.nowMillis(), after: newest, replica: replica), by: member)
    }
}

extension Household {
    /// The stamper for this clone's member.
    public func stamper() throws(StoreError) -> Stamper {
        Stamper(replica: try replicaID(), member: try identity().name, clock: clock)
    }
}
