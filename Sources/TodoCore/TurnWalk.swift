import Synchronization

/// The walk that decides whose turn each occurrence of a rotating chore is, in rotation order
/// (docs/FORMAT.md, "Turns"): the chore's occurrences (`ChoreOccurrences`) in date order, each
/// with its natural member, take-over pins, the queue of skip carries and absences' stand-ins.
/// Worked out once up to the latest date asked for and kept, so that asking for many dates
/// costs one walk.
final class TurnWalk: Sendable {
    struct State {
        /// The next occurrence to decide; nil when the rule has no more dates.
        var next: CivilDate?
        var started = false
        /// The first occurrence the walk decides: earlier ones are the plain count's.
        var walkStart: CivilDate?
        /// The previous occurrence's natural member and the rotation it came from.
        var lastNatural: String?
        var lastRotation: [String] = []
        /// Members carried by skips, first to take an unpinned occurrence first.
        var queue: [String] = []
        /// Carries not yet in the queue: from when, for which occurrence, who.
        var pending: [(activate: CivilDate, occurrence: CivilDate, member: String)] = []
        /// Decided turns (nil: for anyone).
        var turns: [CivilDate: String?] = [:]
        var steps = 0
    }

    let state = Mutex(State())

    /// Past this many occurrences walked (a rule from year 1 in a hostile file) the walk stops
    /// and later dates fall back to the plain count.
    static let stepLimit = 200_000

    func turn(on date: CivilDate, _ s: ChoreSchedule) -> String? {
        state.withLock { st in
            if let t = st.turns[date] { return t }
            if !st.started { start(&st, s) }
            if let closed = closedForm(date, st, s) { return closed }
            while let d = st.next, d <= date, st.steps < Self.stepLimit {
                decide(d, &st, s)
                st.next = s.occurrences.next(after: d)
                st.steps += 1
            }
            if let t = st.turns[date] { return t }
            // Not an occurrence of the rule (an entry left from an earlier rule), or past the limit.
            return plainCount(date, s)
        }
    }

    /// The earliest date from which anything but the first rotation's order counts: a skip, a
    /// take-over, a later rotation, a roster entry of a member in a rotation.
    static func firstEvent(_ s: ChoreSchedule) -> CivilDate? {
        var best: CivilDate?
        func consider(_ d: CivilDate?) {
            guard let d else { return }
            if best.map({ d < $0 }) ?? true { best = d }
        }
        consider(s.skippedDates.first)
        for key in s.turnEntries.keys { consider(CivilDate(iso: Substring(key))) }
        for seg in s.segments.dropFirst() { consider(seg.from) }
        var names = Set<String>()
        for seg in s.segments { names.formUnion(seg.names) }
        for (_, t) in s.turnEntries { names.insert(t.member) }
        consider(s.context.roster.earliestDate(of: Array(names)))
        return best
    }

    /// Starts the walk at the last occurrence before the first event, whose natural member the
    /// plain count gives. A chore that starts, or has an event, before `DateBounds.first` (a
    /// date no change writes: an older version's, a hand edit's) is walked from at most a year
    /// before today, the plain count before that: such a date never makes a read walk the
    /// centuries after it.
    func start(_ st: inout State, _ s: ChoreSchedule) {
        st.started = true
        let first = s.occurrences.first
        var event = Self.firstEvent(s)
        if let f = first, f < DateBounds.first || event.map({ $0 < DateBounds.first }) == true {
            let floor = Self.walkFloor(today: s.today)
            if event.map({ $0 < floor }) ?? true { event = floor }
        }
        guard let event, let f = first, event > f else {
            st.next = first
            return
        }
        // Fast-forward: everything before `event` is the first rotation's order.
        if let before = s.latest(onOrBefore: event.adding(days: -1)) {
            let names = s.segments.first?.names ?? []
            if !names.isEmpty {
                // Skips before it (only a walk floored a year back has them) as the plain count
                // takes them, so the walk goes on from where the plain count stops.
                let k = s.occurrences.index(of: before) - s.skippedBefore(before)
                st.lastNatural = names[((k % names.count) + names.count) % names.count]
                st.lastRotation = names
            }
            st.next = s.occurrences.next(after: before)
        } else {
            st.next = first
        }
        st.walkStart = st.next
    }

    /// The earliest date a chore holding a date before `DateBounds.first` is walked from: a
    /// year before `today`.
    static func walkFloor(today: CivilDate) -> CivilDate { today.adding(days: -366) }

    /// Before the first event (and when the walk has not reached past it), the plain count.
    func closedForm(_ date: CivilDate, _ st: State, _ s: ChoreSchedule) -> String? {
        guard let start = st.walkStart, date < start else { return nil }
        return plainCount(date, s)
    }

    func plainCount(_ date: CivilDate, _ s: ChoreSchedule) -> String? {
        let names = s.rotation(on: date)
        guard !names.isEmpty else { return nil }
        let k = s.occurrences.index(of: date) - s.skippedBefore(date)
        return names[((k % names.count) + names.count) % names.count]
    }

    /// Decides occurrence `d`.
    func decide(_ d: CivilDate, _ st: inout State, _ s: ChoreSchedule) {
        let roster = s.context.roster
        let names = s.rotation(on: d)
        let active = names.filter { !roster.hasLeft($0, on: d) }
        let pin = s.pinned(on: d)
        // Carries whose day has come join the queue's front, earlier occurrences first.
        if !st.pending.isEmpty {
            // An occurrence still waiting to be done (a catch-up chore behind) has not passed.
            let waiting = s.status(of: d) == .open
            let due = st.pending.filter { $0.activate <= d || waiting }.sorted { $0.occurrence < $1.occurrence }
            if !due.isEmpty {
                st.pending.removeAll { $0.activate <= d || waiting }
                st.queue.insert(contentsOf: due.map(\.member), at: 0)
            }
        }
        guard !active.isEmpty else {
            st.turns[d] = pin.flatMap { s.standIn(for: $0, in: names, on: d) }
            carryIfSkipped(d, pin, &st, s)
            return
        }
        let natural = successor(of: st.lastNatural, in: st.lastRotation, to: names, on: d, roster: roster)
        st.lastNatural = natural
        st.lastRotation = names
        var member: String
        if let pin {
            member = pin
        } else {
            while let q = st.queue.first, roster.hasLeft(q, on: d) || !names.contains(q) { st.queue.removeFirst() }
            if st.queue.isEmpty {
                member = natural
            } else {
                member = st.queue.removeFirst()
                st.queue.append(natural)
            }
        }
        st.turns[d] = s.standIn(for: member, in: names, on: d)
        carryIfSkipped(d, member, &st, s)
        Self.trimCycles(&st.queue, names)
    }

    /// A queue that holds whole rounds of the rotation in its order owes each member the same:
    /// the rounds at its front are dropped, so that years of skips keep it shorter than the
    /// rotation and the order after a quiet stretch is the rotation's again. While the rotation
    /// stays, nobody's turns change by it (the naturals repeat every round).
    static func trimCycles(_ queue: inout [String], _ names: [String]) {
        let n = names.count
        guard n > 0, queue.count >= n else { return }
        while queue.count >= n {
            guard let i = names.firstIndex(of: queue[0]) else { return }
            for k in 0..<n where queue[k] != names[(i + k) % n] { return }
            queue.removeFirst(n)
        }
    }

    /// A skipped occurrence's member takes the next unpinned one, from the day after it and
    /// after the skip was recorded.
    func carryIfSkipped(_ d: CivilDate, _ member: String?, _ st: inout State, _ s: ChoreSchedule) {
        guard let member, s.isSkipped(d) else { return }
        var activate = d.adding(days: 1)
        if let e = s.entries[d.description], e.state == .skipped {
            let recorded = s.context.day(e.stamp.stamp.wall).adding(days: 1)
            if recorded > activate { activate = recorded }
        }
        st.pending.append((activate, d, member))
    }

    /// The member after `last` in `names`, passing over those who have left on `d`; when `last`
    /// is not in `names`, the next one after it in the earlier rotation that is.
    func successor(of last: String?, in earlier: [String], to names: [String], on d: CivilDate, roster: Roster) -> String {
        func firstActive(from start: Int) -> String? {
            for i in 0..<names.count {
                let m = names[(start + i) % names.count]
                if !roster.hasLeft(m, on: d) { return m }
            }
            return nil
        }
        guard let last else { return firstActive(from: 0) ?? names[0] }
        if let i = names.firstIndex(of: last) { return firstActive(from: i + 1) ?? names[0] }
        if let j = earlier.firstIndex(of: last) {
            for step in 1...max(earlier.count, 1) {
                let m = earlier[(j + step) % earlier.count]
                if let i = names.firstIndex(of: m), !roster.hasLeft(m, on: d) { return names[i] }
            }
        }
        return firstActive(from: 0) ?? names[0]
    }
}
