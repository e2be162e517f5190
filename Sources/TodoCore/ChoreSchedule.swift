/// What a chore's file says once its entries are read together, for one day: who is credited
/// with which occurrence, each occurrence's state (missed included), the current occurrence and
/// whose turn each is. Everything here is derived from the merged file and `today`, never
/// stored, so every replica computes the same (docs/FORMAT.md, "What is derived, never stored").

public struct ChoreSchedule: Sendable {
    public let recurrence: Recurrence
    /// The chore's occurrences: the rule's dates, or those counted from completions.
    public let occurrences: ChoreOccurrences
    public let today: CivilDate
    public let mode: ChoreScheduleMode
    public let rotate: RotateMode
    /// The chore's `rotation` field: the rotation as last written.
    public let rotation: [String]
    /// The rotation in force from each date on (docs/FORMAT.md, "Turns"), in date order; the
    /// first holds from the start.
    let segments: [(from: CivilDate, names: [String])]
    public let context: TurnContext
    /// Turns worked out by the walk, shared by the copies of this schedule.
    let walk: TurnWalk
    /// Every live credit, in the order they were attributed (by their `done`'s stamp).
    public let credits: [Credit]
    /// The task's assignee: who a chore without a rotation is shown for.
    let assignee: String?
    let entries: [String: OccurrenceEntry]
    let turnEntries: [String: TurnEntry]
    /// Positions in `credits` by the occurrence they count for.
    let creditsByDate: [CivilDate: [Int]]
    /// Occurrences of the rule that are skipped, in date order.
    let skippedDates: [CivilDate]

    /// How far a stale completion may move, and how far turns are looked for.
    static let moveLimit = 366
    static let turnSearchLimit = 1_000

    /// The schedule of `task` on `today`; nil for a plain task.
    public init?(_ task: Task, today: CivilDate, context: TurnContext) {
        guard let r = task.recurrence else { return nil }
        self.init(task, recurrence: r, today: today, context: context)
    }

    public init(_ task: Task, recurrence r: Recurrence, today: CivilDate, context: TurnContext) {
        recurrence = r
        self.today = today
        mode = task.scheduleMode
        rotate = task.rotateMode
        rotation = task.rotation
        self.context = context
        segments = task.rotationSegments(context: context)
        walk = TurnWalk()
        assignee = task.assignee
        let entries = task.occurrenceEntries
        self.entries = entries
        turnEntries = task.turnEntries
        let completions = task.completions
        let afterDone = task.repeatsAfterDone
        // Every credit to attribute: live completions, and `done` entries no completion wrote.
        var pending: [(order: Stamp, key: String, credit: Credit)] = []
        var written = Set<String>()
        var members = Set<String>()
        for c in completions {
            guard let (named, original) = Completion.parse(key: c.key) else { continue }
            written.insert(c.key)
            members.insert("\(named) \(c.member)")
            guard c.state == .done else { continue }
            pending.append((original, c.key,
                Credit(member: c.member, occurrence: named, named: named, day: c.day, stamp: c.stamp, key: c.key)))
        }
        for (key, e) in entries where e.state == .done {
            // Written with a completion, or again (a restore, an undo) by a member who has one.
            guard let date = CivilDate(iso: Substring(key)), !written.contains(Completion.key(date, e.stamp.stamp)),
                !members.contains("\(date) \(e.stamp.member)")
            else { continue }
            pending.append((e.stamp.stamp, key,
                Credit(member: e.stamp.member, occurrence: date, named: date, day: date, stamp: e.stamp, key: nil)))
        }
        pending.sort { $0.order != $1.order ? $0.order < $1.order : $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        let skipped = Set(entries.compactMap { $0.value.state == .skipped ? CivilDate(iso: Substring($0.key)) : nil })
        var byDate: [CivilDate: [Int]] = [:]
        var credits: [Credit] = []
        credits.reserveCapacity(pending.count)
        // Per named date, where its search for a free occurrence stopped: every occurrence
        // between the named date and there is credited or skipped, and stays so (credits are
        // only added), so the next search from that date starts there. Many completions of one
        // date (a hostile file) cost one walk, not one each.
        var resume: [CivilDate: (next: CivilDate?, steps: Int)] = [:]
        for p in pending {
            var credit = p.credit
            // After-done: the occurrence after it is counted from completions, so a credit stays
            // on the date it named (two members who did one occurrence: one occurrence).
            if byDate[credit.named] != nil && !afterDone {
                // Someone else's completion got there first: the earliest occurrence after it,
                // up to the day this one was done, that is neither credited nor skipped.
                var (d, steps) = resume[credit.named] ?? (r.next(after: credit.named), 0)
                while let date = d, date <= credit.day, steps < Self.moveLimit {
                    if byDate[date] == nil && !skipped.contains(date) {
                        credit.occurrence = date
                        break
                    }
                    d = r.next(after: date)
                    steps += 1
                }
                resume[credit.named] = (d, steps)
            }
            byDate[credit.occurrence, default: []].append(credits.count)
            credits.append(credit)
        }
        self.credits = credits
        creditsByDate = byDate
        let occurrences =
            afterDone
            ? Self.afterDone(r, entries: entries, credits: credits, byDate: byDate, context: context)
            : ChoreOccurrences(calendar: r)
        self.occurrences = occurrences
        var skippedDates: [CivilDate] = []
        for date in skipped.sorted() where occurrences.isOccurrence(date) {
            if Self.decide(entries[date.description], credits: byDate[date].map { $0.map { credits[$0] } } ?? []) == .skipped {
                skippedDates.append(date)
            }
        }
        self.skippedDates = skippedDates
    }

    /// The occurrences of a chore that repeats from when it was done: the dates on or after the
    /// rule's start that are done or skipped, and the household day of the latest completion
    /// (its `day`; an older version's entry: its stamp's day) or skip (its stamp's day).
    static func afterDone(
        _ r: Recurrence, entries: [String: OccurrenceEntry], credits: [Credit], byDate: [CivilDate: [Int]],
        context: TurnContext
    ) -> ChoreOccurrences {
        var dates = Set(byDate.keys)
        for key in entries.keys { if let d = CivilDate(iso: Substring(key)) { dates.insert(d) } }
        var past: [CivilDate] = []
        var lastDay: CivilDate?
        func consider(_ day: CivilDate) { if lastDay.map({ day > $0 }) ?? true { lastDay = day } }
        for date in dates.sorted() where date >= r.from {
            let entry = entries[date.description]
            let on = (byDate[date] ?? []).map { credits[$0] }
            let state = decide(entry, credits: on)
            guard state != .open else { continue }
            past.append(date)
            for c in on { consider(c.key == nil ? context.day(c.stamp.stamp.wall) : c.day) }
            if let entry, entry.state == .skipped || on.isEmpty { consider(context.day(entry.stamp.stamp.wall)) }
        }
        return ChoreOccurrences(afterDone: r, past: past, lastDay: lastDay)
    }

    /// Whether an open occurrence is missed once the next one has come: a calendar chore's;
    /// never one that catches up or repeats from when it was done.
    public var followsCalendar: Bool { mode == .calendar && !occurrences.afterDone }

    /// The state that the latest of an occurrence's entry and its credits says.
    static func decide(_ entry: OccurrenceEntry?, credits: [Credit]) -> OccurrenceStatus {
        var best: (FieldStamp, OccurrenceStatus)?
        if let entry {
            best = (entry.stamp, entry.state == .done ? .done : entry.state == .skipped ? .skipped : .open)
        }
        for c in credits where best.map({ FieldStamp.precedes($0.0, c.stamp) }) ?? true {
            best = (c.stamp, .done)
        }
        return best?.1 ?? .open
    }

    /// The credits counted for one occurrence, in order.
    public func credits(on date: CivilDate) -> [Credit] {
        (creditsByDate[date] ?? []).map { credits[$0] }
    }

    /// Done, skipped, open (due now or later) or missed.
    public func status(of date: CivilDate) -> OccurrenceStatus {
        let s = Self.decide(entries[date.description], credits: credits(on: date))
        guard s == .open, followsCalendar, let next = occurrences.next(after: date), next <= today else { return s }
        return .missed
    }

    func isSkipped(_ date: CivilDate) -> Bool {
        Self.decide(entries[date.description], credits: credits(on: date)) == .skipped
    }

    func isOpen(_ date: CivilDate) -> Bool {
        Self.decide(entries[date.description], credits: credits(on: date)) == .open
    }

    /// The occurrence `list`, `agenda` and `done` use (FORMAT.md); nil when the rule has no
    /// more dates.
    public var current: CivilDate? {
        if occurrences.afterDone { return occurrences.due }
        var d: CivilDate?
        switch mode {
        case .catchUp: d = occurrences.first
        case .calendar: d = latest(onOrBefore: today) ?? occurrences.first
        }
        // Each step passes a done or skipped occurrence; bounded by the entries there are.
        var steps = 0
        while let date = d, !isOpen(date) {
            d = occurrences.next(after: date)
            steps += 1
            if steps > entries.count + credits.count + 1 { return nil }
        }
        return d
    }

    /// The latest occurrence on or before `day`; nil when the rule starts later.
    public func latest(onOrBefore day: CivilDate) -> CivilDate? { occurrences.latest(onOrBefore: day) }

    /// The first `count` open occurrences from the current one on.
    public func upcoming(_ count: Int) -> [CivilDate] {
        var out: [CivilDate] = []
        var d = current
        var steps = 0
        while let date = d, out.count < count, steps < count + entries.count + credits.count + 1 {
            if isOpen(date) { out.append(date) }
            d = occurrences.next(after: date)
            steps += 1
        }
        return out
    }

    /// Whose turn an occurrence is (docs/FORMAT.md, "Turns"): a take-over, else the rotation in
    /// force, with skips carried and absences stood in for; nil when nobody in particular.
    public func turn(on date: CivilDate) -> String? {
        switch rotate {
        case .order:
            return walk.turn(on: date, self)
        case .fewest:
            let names = rotation(on: date)
            if let pin = pinned(on: date) { return standIn(for: pin, in: names, on: date) }
            guard !names.isEmpty else { return nil }
            return fewestTurn(on: date)
        }
    }

    /// Who should do an occurrence: its turn, else the chore's assignee.
    public func assignee(on date: CivilDate) -> String? {
        if let t = turn(on: date) { return t }
        return rotation(on: date).isEmpty ? assignee : nil
    }

    /// The rotation in force on `date`.
    public func rotation(on date: CivilDate) -> [String] {
        var names = segments.first?.names ?? []
        for s in segments where s.from <= date { names = s.names }
        return names
    }

    /// The member a take-over gives `date` to, unless they have left by then.
    func pinned(on date: CivilDate) -> String? {
        guard let t = turnEntries[date.description], !t.member.isEmpty, !context.roster.hasLeft(t.member, on: date) else {
            return nil
        }
        return t.member
    }

    /// `member`, or when they are away on `date` the next member after them in `names` who is
    /// present; nil when nobody is.
    func standIn(for member: String, in names: [String], on date: CivilDate) -> String? {
        let roster = context.roster
        if roster.isPresent(member, on: date) { return member }
        let start = names.firstIndex(of: member).map { $0 + 1 } ?? 0
        for i in 0..<names.count {
            let m = names[(start + i) % names.count]
            if m != member, roster.isPresent(m, on: date) { return m }
        }
        return nil
    }

    func skippedBefore(_ date: CivilDate) -> Int { ChoreOccurrences.count(skippedDates, before: date) }

    /// The fewest-completions turn; occurrences after today count the open ones before them,
    /// from the current one on, as done by their own turn's member.
    func fewestTurn(on date: CivilDate) -> String? {
        var projected: [(String, CivilDate)] = []
        if date > today, let start = current, start < date {
            var d: CivilDate? = start
            var steps = 0
            while let p = d, p < date, steps < 400 {
                if isOpen(p), let who = pinned(on: p).flatMap({ standIn(for: $0, in: rotation(on: p), on: p) })
                    ?? fewest(on: p, projected: projected)
                {
                    projected.append((who, p))
                }
                d = occurrences.next(after: p)
                steps += 1
            }
        }
        return fewest(on: date, projected: projected)
    }

    /// Of the rotation's members present on `date`, the one with the fewest credits in the 28
    /// days before it, counting only the days on which each of them was present (an absence
    /// neither owes nor earns turns); ties to whoever did it longest ago, then in rotation order.
    func fewest(on date: CivilDate, projected: [(String, CivilDate)]) -> String? {
        let roster = context.roster
        let names = rotation(on: date).filter { roster.isPresent($0, on: date) }
        guard !names.isEmpty else { return nil }
        let since = date.adding(days: -28)
        let watched = names.compactMap { roster.member($0) }.filter { !$0.away.isEmpty }
        func everyoneThere(_ day: CivilDate) -> Bool { watched.allSatisfy { $0.awayWindow(on: day) == nil } }
        var counts = [Int](repeating: 0, count: names.count)
        // Ties go to whoever did it longest ago (never: first), then by rotation order.
        var last = [CivilDate?](repeating: nil, count: names.count)
        func count(_ member: String, _ day: CivilDate) {
            guard day < date, let i = names.firstIndex(of: member) else { return }
            if last[i].map({ day > $0 }) ?? true { last[i] = day }
            guard day >= since, everyoneThere(day) else { return }
            counts[i] += 1
        }
        for c in credits { count(c.member, c.day) }
        for (member, day) in projected { count(member, day) }
        var best = 0
        for i in counts.indices.dropFirst() {
            if counts[i] < counts[best] {
                best = i
            } else if counts[i] == counts[best], let b = last[best], last[i].map({ $0 < b }) ?? true {
                best = i
            }
        }
        return names[best]
    }

    /// `member`'s first open occurrence from the current one on; nil within the search limit.
    public func nextTurn(of member: String) -> CivilDate? {
        var d = current
        var steps = 0
        while let date = d, steps < Self.turnSearchLimit {
            if isOpen(date), turn(on: date) == member { return date }
            d = occurrences.next(after: date)
            steps += 1
        }
        return nil
    }

    /// Credits per member: (credits done in the 28 days up to today, all), by name.
    public func tally() -> [(member: String, recent: Int, all: Int)] {
        var counts: [String: (Int, Int)] = [:]
        let since = today.adding(days: -27)
        for c in credits {
            var n = counts[c.member] ?? (0, 0)
            n.1 += 1
            if c.day >= since, c.day <= today { n.0 += 1 }
            counts[c.member] = n
        }
        return counts.keys.sorted().map { ($0, counts[$0]!.0, counts[$0]!.1) }
    }

    /// The missed occurrences dated from `since` up to today, in date order.
    public func missed(since: CivilDate) -> [CivilDate] {
        guard followsCalendar else { return [] }
        var out: [CivilDate] = []
        var d = occurrences.first(onOrAfter: since)
        var steps = 0
        while let date = d, date <= today, steps < 400 {
            if status(of: date) == .missed { out.append(date) }
            d = occurrences.next(after: date)
            steps += 1
        }
        return out
    }

    /// The occurrences up to today that someone did, skipped or missed, latest first, at most
    /// `limit`: what `show` lists as history.
    public func history(_ limit: Int) -> [(date: CivilDate, status: OccurrenceStatus)] {
        var out: [(CivilDate, OccurrenceStatus)] = []
        var dates = Set(creditsByDate.keys)
        for (key, _) in entries { if let d = CivilDate(iso: Substring(key)) { dates.insert(d) } }
        // Missed ones: open occurrences before the current one, back from today; bounded by
        // the entries there are, counted before the walk (each missed one found is inserted,
        // and must not move the bound: a chore from the year 1 would be walked to its start).
        if followsCalendar, var d = latest(onOrBefore: today) {
            var steps = 0
            let bound = limit + dates.count
            while steps < bound, d >= recurrence.from {
                if status(of: d) == .missed { dates.insert(d) }
                guard let before = latest(onOrBefore: d.adding(days: -1)) else { break }
                d = before
                steps += 1
            }
        }
        for date in dates.sorted(by: >) {
            let s = status(of: date)
            guard s != .open || !credits(on: date).isEmpty else { continue }
            out.append((date, s))
            if out.count == limit { break }
        }
        return out
    }
}
