/// A DATE or DATE-TIME value (RFC 5545 3.3.4, 3.3.5): a day, or a day and a time that is
/// floating (no zone), UTC (`…Z`) or in a zone named by the property's `TZID`.
public struct ICalDateTime: Equatable, Sendable {
    public enum Zone: Equatable, Sendable {
        case floating
        case utc
        /// A `TZID` parameter's value.
        case named(String)
    }

    public var date: CivilDate
    /// Seconds after midnight; nil for a DATE.
    public var seconds: Int?
    public var zone: Zone

    public init(date: CivilDate, seconds: Int?, zone: Zone) {
        self.date = date
        self.seconds = seconds
        self.zone = zone
    }

    /// Parses `YYYYMMDD`, `YYYYMMDDTHHMMSS` or `YYYYMMDDTHHMMSSZ` (the value's own form decides,
    /// whatever `VALUE=` says); `tzid` applies to a local DATE-TIME. A leap second (`60`) is read
    /// as `59`. Refused: any other form, a date that does not exist (February 30), a time past
    /// `235960`.
    public init(_ value: String, tzid: String?) throws(ICalendarError) {
        let u = Array(value.trimmingSpaces.utf8)
        func fail() -> ICalendarError { ICalendarError("\"\(value.prefix(40))\" is not a valid date or date-time") }
        guard u.count == 8 || ((u.count == 15 || u.count == 16) && u[8] == UInt8(ascii: "T")),
            let y = digits(u[0..<4]), let m = digits(u[4..<6]), let d = digits(u[6..<8]),
            let day = CivilDate(year: y, month: m, day: d)
        else { throw fail() }
        date = day
        guard u.count > 8 else {
            seconds = nil
            zone = .floating
            return
        }
        guard let h = digits(u[9..<11]), let mi = digits(u[11..<13]), let s = digits(u[13..<15]), h < 24, mi < 60, s <= 60
        else { throw fail() }
        seconds = h * 3600 + mi * 60 + min(s, 59)
        if u.count == 16 {
            guard u[15] == UInt8(ascii: "Z") else { throw fail() }
            zone = .utc
        } else if let tzid, !tzid.isEmpty {
            zone = .named(tzid)
        } else {
            zone = .floating
        }
    }

    /// The value as written: seconds since 1970-01-01 00:00 of its own wall clock (UTC's for
    /// `…Z`); a DATE is its midnight.
    var wall: Int64 { Int64(date.daysSinceEpoch) * 86_400 + Int64(seconds ?? 0) }

    /// The zone the wall time is in: nil for the household's own (floating, the household's
    /// TZID, or a TZID `zoneNamed` does not know).
    func rules(householdZone: TimeZoneRules, zoneNamed: (String) -> TimeZoneRules?) -> TimeZoneRules? {
        guard case .named(let name) = zone, name != householdZone.name else { return nil }
        return zoneNamed(name)
    }

    /// The moment, in seconds since the epoch. A floating time, and one whose TZID `zoneNamed`
    /// does not know (Outlook's "W. Europe Standard Time"), is read as household wall time; a
    /// known TZID with the tz database's rules for that name (not the object's VTIMEZONE).
    public func utcSeconds(householdZone: TimeZoneRules, zoneNamed: (String) -> TimeZoneRules?) -> Int64 {
        if zone == .utc { return wall }
        return (rules(householdZone: householdZone, zoneNamed: zoneNamed) ?? householdZone).utc(fromLocal: wall)
    }

    /// Household wall time, in seconds since 1970-01-01 00:00 of the household's clock (see
    /// `utcSeconds` for how each kind of value is read).
    public func householdWall(householdZone: TimeZoneRules, zoneNamed: (String) -> TimeZoneRules?) -> Int64 {
        switch zone {
        case .floating: return wall
        case .utc: return wall + Int64(householdZone.offset(atUTC: wall).seconds)
        case .named:
            guard let rules = rules(householdZone: householdZone, zoneNamed: zoneNamed) else { return wall }
            let utc = rules.utc(fromLocal: wall)
            return utc + Int64(householdZone.offset(atUTC: utc).seconds)
        }
    }
}

extension ICalProperty {
    /// The value as a DATE or DATE-TIME (with this property's `TZID`).
    public func dateTime() throws(ICalendarError) -> ICalDateTime {
        do {
            return try ICalDateTime(value, tzid: param("TZID"))
        } catch {
            throw ICalendarError("\(name): " + error.reason)
        }
    }

    /// DUE (or any date property) as a household due: a DATE is that day; a DATE-TIME is
    /// converted to household wall time (`ICalDateTime.utcSeconds` says how each kind is read),
    /// its seconds dropped.
    public func due(householdZone: TimeZoneRules, zoneNamed: (String) -> TimeZoneRules?) throws(ICalendarError) -> Due {
        let dt = try dateTime()
        guard dt.seconds != nil else { return Due(date: dt.date) }
        let local = dt.householdWall(householdZone: householdZone, zoneNamed: zoneNamed)
        let days = Millis.floorDiv(local, 86_400)
        let date = CivilDate(daysSinceEpoch: Int(days))
        guard (1...9999).contains(date.year) else { throw ICalendarError("\(name): the date is out of range") }
        return Due(date: date, minutes: Int(Millis.floorMod(local, 86_400) / 60))
    }

    /// COMPLETED (or any date-time property) in milliseconds since the epoch; a DATE is its
    /// household midnight.
    public func utcMillis(householdZone: TimeZoneRules, zoneNamed: (String) -> TimeZoneRules?) throws(ICalendarError) -> Int64 {
        try dateTime().utcSeconds(householdZone: householdZone, zoneNamed: zoneNamed) * 1000
    }
}

extension TimeZoneRules {
    /// The moment (seconds since the epoch) of the wall time `local` (seconds since 1970-01-01
    /// 00:00 of this zone's clock). A time in the hour a spring change skips is read with the
    /// offset before the change (02:30 is 03:30); one in the hour an autumn change repeats is
    /// the first of the two.
    public func utc(fromLocal local: Int64) -> Int64 {
        var best: Int64?
        for probe in [local - 86_400, local, local + 86_400] {
            let t = local - Int64(offset(atUTC: probe).seconds)
            if Int64(offset(atUTC: t).seconds) == local - t, best.map({ t < $0 }) ?? true { best = t }
        }
        return best ?? local - Int64(offset(atUTC: local - 86_400).seconds)
    }

    /// Whether the zone has one offset for all time (UTC, `Etc/GMT-2`, a fixed zone).
    var isFixedOffset: Bool { times.isEmpty && footer?.dst == nil }
}
