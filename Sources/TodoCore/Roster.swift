/// Who is in the household on a given day: the `member:roster@<date>:<name>` and
/// `member:away@<from>:<name>` keys of the settings file (docs/FORMAT.md, "Members").
/// Names are compared ignoring case; a name without entries is a member.
public struct Roster: Sendable, Equatable {
    /// A member's state on one day.
    public enum State: String, Sendable, Equatable {
        case present, away, left
    }

    /// One member's entries, as the household spells the member.
    public struct Member: Sendable, Equatable {
        public var name: String
        /// Roster entries by date: true for `member`, false for `left`; in date order.
        public var events: [(date: CivilDate, member: Bool)]
        /// Away windows with a value, in order of their first day.
        public var away: [(from: CivilDate, until: CivilDate)]

        public static func == (a: Member, b: Member) -> Bool {
            a.name == b.name && a.events.map(\.date) == b.events.map(\.date) && a.events.map(\.member) == b.events.map(\.member)
                && a.away.map(\.from) == b.away.map(\.from) && a.away.map(\.until) == b.away.map(\.until)
        }

        /// `reach[i]`: the latest `until` among `away[0...i]`, so that a day no window reaches is
        /// told in one binary search (a hostile file may hold thousands of windows).
        var reach: [CivilDate] = []

        /// Whether the member has left on `day` (`events` in date order).
        public func hasLeft(on day: CivilDate) -> Bool {
            guard let i = Self.lastIndex(events.count, onOrBefore: day, { events[$0].date }) else { return false }
            return !events[i].member
        }

        /// The window `day` falls in, if any (`away` in order of its first day).
        public func awayWindow(on day: CivilDate) -> (from: CivilDate, until: CivilDate)? {
            guard let last = Self.lastIndex(away.count, onOrBefore: day, { away[$0].from }) else { return nil }
            if reach.count == away.count, reach[last] < day { return nil }
            for i in stride(from: last, through: 0, by: -1) where away[i].until >= day { return away[i] }
            return nil
        }

        /// The last position whose date is on or before `day`, in a list sorted by date.
        static func lastIndex(_ count: Int, onOrBefore day: CivilDate, _ date: (Int) -> CivilDate) -> Int? {
            var lo = 0
            var hi = count
            while lo < hi {
                let mid = (lo + hi) / 2
                if date(mid) <= day { lo = mid + 1 } else { hi = mid }
            }
            return lo == 0 ? nil : lo - 1
        }

        public func state(on day: CivilDate) -> State {
            if hasLeft(on: day) { return .left }
            return awayWindow(on: day) == nil ? .present : .away
        }
    }

    public static let rosterField = "roster@"
    public static let awayField = "away@"

    /// By folded name.
    public private(set) var members: [String: Member]

    public static let empty = Roster(members: [:])

    init(members: [String: Member]) { self.members = members }

    public var isEmpty: Bool { members.isEmpty }

    /// The roster the settings task records (nil: none recorded). Entries that do not fit
    /// their key are left out.
    public init(settings: Task?) {
        guard let settings else {
            self = .empty
            return
        }
        var out: [String: Member] = [:]
        for (key, value) in settings.extra {
            guard key.hasPrefix(MemberFields.prefix), let (field, date, name) = Self.parse(key), let text = value.stringValue
            else { continue }
            let fold = name.lowercased()
            var m = out[fold] ?? Member(name: name, events: [], away: [])
            if name.utf8.lexicographicallyPrecedes(m.name.utf8) { m.name = name }
            if field == Self.rosterField {
                switch text {
                case "member": m.events.append((date, true))
                case "left": m.events.append((date, false))
                default: continue
                }
            } else {
                guard !text.isEmpty else {
                    out[fold] = m
                    continue
                }
                guard text.utf8.count == 10, let until = CivilDate(iso: Substring(text)), until >= date else { continue }
                m.away.append((date, until))
            }
            out[fold] = m
        }
        for (k, var m) in out {
            // Two spellings of one member may both hold a date: the later stamp's value counts.
            if Set(m.events.map(\.date)).count != m.events.count {
                m.events = Self.latestPerDate(m.events, settings: settings, name: m.name, field: Self.rosterField)
            }
            m.events.sort { $0.date < $1.date }
            m.away.sort { ($0.from, $0.until) < ($1.from, $1.until) }
            var latest: CivilDate?
            m.reach = m.away.map { w in
                if latest.map({ w.until > $0 }) ?? true { latest = w.until }
                return latest ?? w.until
            }
            out[k] = m
        }
        members = out
    }

    /// Keeps one event per date (the one whose key has the later stamp).
    static func latestPerDate(_ events: [(date: CivilDate, member: Bool)], settings: Task, name: String, field: String)
        -> [(date: CivilDate, member: Bool)]
    {
        var byDate: [CivilDate: (Bool, FieldStamp?)] = [:]
        for (key, value) in settings.extra {
            guard let (f, date, n) = parse(key), f == field, n.lowercased() == name.lowercased(),
                let text = value.stringValue, text == "member" || text == "left"
            else { continue }
            let stamp = settings.stamps[key]
            if let held = byDate[date] {
                let later: Bool
                switch (held.1, stamp) {
                case (nil, _?): later = true
                case (let a?, let b?): later = FieldStamp.precedes(a, b)
                default: later = false
                }
                if !later { continue }
            }
            byDate[date] = (text == "member", stamp)
        }
        return byDate.map { ($0.key, $0.value.0) }
    }

    /// The field (`roster@` or `away@`), date and name of a roster key; nil for any other key.
    public static func parse(_ key: String) -> (field: String, date: CivilDate, name: String)? {
        guard key.hasPrefix(MemberFields.prefix) else { return nil }
        let rest = key.utf8.dropFirst(MemberFields.prefix.utf8.count)
        for field in [rosterField, awayField] {
            guard rest.starts(with: field.utf8) else { continue }
            let afterField = rest.dropFirst(field.utf8.count)
            guard afterField.count > 11, let date = CivilDate(iso: Substring(afterField.prefix(10))), afterField.dropFirst(10).first == UInt8(ascii: ":")
            else { return nil }
            guard let name = String(afterField.dropFirst(11)), !name.isEmpty else { return nil }
            return (field, date, name)
        }
        return nil
    }

    public static func key(_ field: String, _ date: CivilDate, _ name: String) -> String {
        MemberFields.prefix + field + date.description + ":" + name
    }

    public func member(_ name: String) -> Member? { members[name.lowercased()] }

    public func state(of name: String, on day: CivilDate) -> State {
        member(name)?.state(on: day) ?? .present
    }

    public func hasLeft(_ name: String, on day: CivilDate) -> Bool { member(name)?.hasLeft(on: day) ?? false }

    public func isPresent(_ name: String, on day: CivilDate) -> Bool { state(of: name, on: day) == .present }

    /// The earliest date any entry of `names` takes effect; nil when none has an entry.
    func earliestDate(of names: [String]) -> CivilDate? {
        var best: CivilDate?
        for n in names {
            guard let m = members[n.lowercased()] else { continue }
            for d in m.events.map(\.date) + m.away.map(\.from) where best.map({ d < $0 }) ?? true { best = d }
        }
        return best
    }
}

/// What a chore's turns depend on beyond its own file: the household's roster, and the
/// household day of a stamp's time (a skip's carry starts no earlier than the day after it was
/// recorded).
public struct TurnContext: Sendable {
    public var roster: Roster
    /// The household day of a moment, in milliseconds since the epoch.
    public var day: @Sendable (Int64) -> CivilDate

    public init(roster: Roster, day: @escaping @Sendable (Int64) -> CivilDate) {
        self.roster = roster
        self.day = day
    }

    /// No roster, days in UTC: what a chore's own file says.
    public static let plain = TurnContext(roster: .empty, day: { CivilDate(daysSinceEpoch: Int(($0 - ($0 < 0 ? 86_399_999 : 0)) / 86_400_000)) })
}
