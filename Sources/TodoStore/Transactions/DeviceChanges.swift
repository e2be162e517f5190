import TodoCore

/// The changes a device sends over CalDAV (docs/CALDAV.md, "Changes from a client"): each is
/// one commit by the signed-in member, through the same transaction, lock and durability as
/// every other change; the front end says which fields the device changed, this applies them.
extension Household {
    /// Applies a device's change to task `id`, as a merge between two members would
    /// (docs/CALDAV.md, "The base of a PUT"): `apply` writes the device's changes into the
    /// version the device started from (`base`; nil: the current one), stamped now and after
    /// every stamp of both; when the task changed since that base, the result is merged with
    /// the current task by docs/MERGE.md's rules, the base as ancestor, so another member's
    /// change of another field survives and a lost value of the same field is logged. `apply`
    /// returns the fields it wrote (empty: nothing to commit). `today` is the household day.
    public func deviceChange(
        _ id: TaskID, base: Task?, verb: String,
        apply: (inout Task, FieldStamp, TurnContext, CivilDate) throws(StoreError) -> [String]
    ) throws(StoreError) -> ChangeOutcome {
        let stamper = try stamper()
        let today = clock.today
        var context = TurnContext.plain
        let (result, commit) = try transact { (snap: Snapshot) throws -> Update<ChangedTask> in
            context = snap.turnContext(clock)
            guard let current = try snap.task(id) else { throw StoreError.taskNotFound(id.hex) }
            let stamp = stamper.stamp(after: [current, base])
            var device = base ?? current
            let fields = try apply(&device, stamp, context, today)
            if !fields.isEmpty { try Self.mustHoldDatesInBounds(device, before: base ?? current) }
            var result = current
            if !fields.isEmpty {
                if let base, base != current {
                    let outcome = TaskMerge.merge(
                        base: TaskCodec.encode(base), ours: TaskCodec.encode(current), theirs: TaskCodec.encode(device), path: id.path)
                    let bytes: [UInt8]
                    switch outcome {
                    case .merged(let b, _, _): bytes = b
                    case .failed(let failure): throw StoreError.mergeFailed([failure])
                    }
                    do {
                        result = try TaskCodec.decode(bytes, expectedID: id)
                    } catch {
                        throw StoreError.malformedTask(path: id.path, reason: "\(error)")
                    }
                } else {
                    result = device
                }
            }
            let short = try snap.shortIDs([id])[id] ?? String(id.hex.prefix(4))
            let changed = ChangedTask(task: result, short: short, fields: result == current ? [] : fields)
            return Update(tasks: changed.changed ? [result] : [], message: CommitText.list(verb, [changed]), value: changed)
        }
        return ChangeOutcome(tasks: [result], commit: commit, context: context)
    }
}

extension Task {
    /// A device's tick of occurrence `date`: a completion by `member`, credited for `day` (the
    /// household day of the device's COMPLETED time, as `done --on`). Nothing when the member
    /// already has a credit on that date.
    /// A turn after today that is not the current occurrence is not yet due, as for `done --on`.
    public mutating func deviceComplete(_ date: CivilDate, member: String, day: CivilDate, stamp: FieldStamp, context: TurnContext, today: CivilDate)
        throws(StoreError) -> Bool
    {
        guard let r = recurrence else { return false }
        let schedule = ChoreSchedule(self, recurrence: r, today: today, context: context)
        guard try schedule.takesCredit(on: date, by: member, task: String(id.hex.prefix(8))) else { return false }
        complete(date, member: member, day: day, stamp: stamp)
        return true
    }

    /// A device's un-tick of occurrence `date`: only `member`'s own credits on it are taken
    /// back; the occurrence is open again when no other credit stands on it.
    public mutating func deviceUncomplete(_ date: CivilDate, member: String, stamp: FieldStamp, context: TurnContext, today: CivilDate) -> Bool {
        guard let r = recurrence else { return false }
        let schedule = ChoreSchedule(self, recurrence: r, today: today, context: context)
        let credits = schedule.credits(on: date)
        let mine = credits.filter { $0.member == member }
        guard !mine.isEmpty else { return false }
        for c in mine { if let key = c.key { setCompletion(key, .undone, stamp: stamp) } }
        if mine.count == credits.count { setOccurrence(date, .open, stamp: stamp) }
        return true
    }
}
