extension Task {
    /// The `schedule` field: calendar unless it says `catch-up`.
    public var scheduleMode: ChoreScheduleMode {
        extra["schedule"]?.stringValue.flatMap(ChoreScheduleMode.init) ?? .calendar
    }

    /// The `rotate` field: in order unless it says `fewest`.
    public var rotateMode: RotateMode {
        extra["rotate"]?.stringValue.flatMap(RotateMode.init) ?? .order
    }

    /// Every `completions` entry, undone ones included, by key.
    public var completions: [Completion] {
        guard case .object(let entries)? = extra["completions"] else { return [] }
        var out: [Completion] = []
        for (key, e) in entries {
            guard case .array(let a) = e, a.count == 4, let st = a[0].stringValue.flatMap(CompletionState.init),
                let member = a[1].stringValue, let day = a[2].stringValue.flatMap({ CivilDate(iso: Substring($0)) }),
                let s = a[3].stringValue.flatMap(FieldStamp.init)
            else { continue }
            out.append(Completion(key: key, state: st, member: member, day: day, stamp: s))
        }
        return out
    }

    /// The schedule of this chore on `today`; nil for a plain task.
    public func schedule(today: CivilDate, context: TurnContext) -> ChoreSchedule? {
        ChoreSchedule(self, today: today, context: context)
    }

    /// The rotation in force from each date on: the `rotations` entries in date order, and
    /// `rotation` when an older version wrote it after them (from the day after its stamp's
    /// day); `rotation` alone without entries (docs/FORMAT.md, "Turns").
    func rotationSegments(context: TurnContext) -> [(from: CivilDate, names: [String])] {
        let entries = rotationEntries
        let field = rotation
        guard !entries.isEmpty else { return [(CivilDate(daysSinceEpoch: -719_162), field)] }
        var out = entries.sorted { $0.key < $1.key }.map { (from: $0.key, names: $0.value.names) }
        if let fieldStamp = stamps["rotation"], entries.values.allSatisfy({ FieldStamp.precedes($0.stamp, fieldStamp) }),
            field != out.last?.names
        {
            let from = context.day(fieldStamp.stamp.wall).adding(days: 1)
            out.removeAll { $0.from >= from }
            out.append((from, field))
        }
        return out
    }

    /// The rotation in force on `date`, from this file alone.
    public func rotation(on date: CivilDate) -> [String] {
        var names = rotation
        for s in rotationSegments(context: .plain) where s.from <= date { names = s.names }
        return names
    }

    /// Writes one `rotations` entry.
    public mutating func setRotationEntry(_ date: CivilDate, _ names: [String], stamp: FieldStamp) {
        ChoreFields.setEntry(&self, map: "rotations", key: date.description, .array((names + [stamp.description]).map { .string($0) }))
    }

    /// The `rotations` entries by their date.
    public var rotationEntries: [CivilDate: (names: [String], stamp: FieldStamp)] {
        guard case .object(let entries)? = extra["rotations"] else { return [:] }
        var out: [CivilDate: (names: [String], stamp: FieldStamp)] = [:]
        for (key, e) in entries {
            guard case .array(let a) = e, let last = a.last?.stringValue.flatMap(FieldStamp.init),
                let date = CivilDate(iso: Substring(key))
            else { continue }
            out[date] = (a.dropLast().compactMap(\.stringValue), last)
        }
        return out
    }

    /// Records that the rotation is `names` from `date` on: the `rotations` entry (with, on the
    /// first change, one for the chore's start holding the rotation as it was) and `rotation`.
    public mutating func changeRotation(_ names: [String], from date: CivilDate, stamp: FieldStamp) {
        if rotationEntries.isEmpty, let r = recurrence, date > r.from {
            let old = rotation
            let oldStamp = stamps["rotation"] ?? stamp
            ChoreFields.setEntry(&self, map: "rotations", key: r.from.description, .array((old + [oldStamp.description]).map { .string($0) }))
        }
        setRotationEntry(date, names, stamp: stamp)
        setRotation(names, stamp: stamp)
    }

    /// Records that `member` did the occurrence `date` on `day`: a completion of its own and the
    /// occurrence's entry, one stamp.
    public mutating func complete(_ date: CivilDate, member: String, day: CivilDate, stamp: FieldStamp) {
        let c = Completion(key: Completion.key(date, stamp.stamp), state: .done, member: member, day: day, stamp: stamp)
        ChoreFields.setEntry(&self, map: "completions", key: c.key, c.json)
        setOccurrence(date, .done, stamp: stamp)
    }

    /// Writes a completion's state again (undo, reopen), keeping who and when.
    public mutating func setCompletion(_ key: String, _ state: CompletionState, stamp: FieldStamp) {
        guard var c = completions.first(where: { $0.key == key }) else { return }
        c.state = state
        c.stamp = stamp
        ChoreFields.setEntry(&self, map: "completions", key: key, c.json)
    }

    public mutating func setScheduleMode(_ mode: ChoreScheduleMode, stamp: FieldStamp) {
        try? write("schedule", .string(mode.rawValue), stamp: stamp)  // a known field and a value of its own type: `write` refuses neither
    }

    public mutating func setRotateMode(_ mode: RotateMode, stamp: FieldStamp) {
        try? write("rotate", .string(mode.rawValue), stamp: stamp)  // as above
    }
}
