// Hand-written on purpose: Foundation's TimeZone would bring Foundation into start-up (see
// CivilDate.swift). A zone's rules are read from the system's tz database file (TZif, RFC 8536):
// its transitions, and the POSIX TZ string of its footer for times after the last one.

/// One local time type of a zone: its offset from UTC, whether it is daylight saving time, and
/// its abbreviation.
public struct ZoneOffset: Hashable, Sendable {
    /// Seconds east of UTC.
    public var seconds: Int
    public var isDST: Bool
    public var abbreviation: String
}

/// A change of a zone's offset: at `utc` (seconds since the epoch) the offset goes from `from`
/// to `to`.
public struct ZoneTransition: Hashable, Sendable {
    public var utc: Int64
    public var from: ZoneOffset
    public var to: ZoneOffset
}

/// A time zone's rules, from its TZif file: what the offset is at any moment, and when it
/// changes.
public struct TimeZoneRules: Sendable {
    /// The tz database name (`Europe/Paris`).
    public let name: String
    let times: [Int64]
    let typeIndex: [Int]
    let types: [ZoneOffset]
    let footer: PosixZone?

    /// Parses a TZif file (versions 1 to 4); nil when the bytes are not one.
    public init?(name: String, tzif bytes: [UInt8]) {
        var r = TZifReader(bytes: bytes)
        guard let first = r.header() else { return nil }
        var header = first
        var timeSize = 4
        if first.version >= 2 {
            // Skip the 32-bit block; the 64-bit one follows with its own header.
            guard r.skip(first.dataSize(timeSize: 4)), let second = r.header() else { return nil }
            header = second
            timeSize = 8
        }
        var times: [Int64] = []
        for _ in 0..<header.timeCount {
            guard let t = r.signed(timeSize) else { return nil }
            times.append(t)
        }
        var typeIndex: [Int] = []
        for _ in 0..<header.timeCount {
            guard let i = r.byte(), Int(i) < header.typeCount else { return nil }
            typeIndex.append(Int(i))
        }
        var raw: [(Int, Bool, Int)] = []
        for _ in 0..<header.typeCount {
            guard let off = r.signed(4), let dst = r.byte(), let abbr = r.byte() else { return nil }
            raw.append((Int(off), dst != 0, Int(abbr)))
        }
        guard let chars = r.take(header.charCount).map(Array.init),
            r.skip(header.leapCount * (timeSize + 4) + header.stdCount + header.utCount)
        else { return nil }
        types = raw.map { off, dst, at in
            var end = min(at, chars.count)
            while end < chars.count && chars[end] != 0 { end += 1 }
            let abbr = at < chars.count ? String(decoding: chars[at..<end], as: UTF8.self) : ""
            return ZoneOffset(seconds: off, isDST: dst, abbreviation: abbr)
        }
        guard !types.isEmpty, times.count == typeIndex.count, zip(times, times.dropFirst()).allSatisfy({ $0 < $1 })
        else { return nil }
        self.name = name
        self.times = times
        self.typeIndex = typeIndex
        if header.version >= 2, let text = r.footer() {
            footer = PosixZone(text)
        } else {
            footer = nil
        }
    }

    /// Rules with one fixed offset (UTC when the tz database cannot be read).
    public init(fixed name: String, seconds: Int, abbreviation: String) {
        self.name = name
        times = []
        typeIndex = []
        types = [ZoneOffset(seconds: seconds, isDST: false, abbreviation: abbreviation)]
        footer = nil
    }

    /// Whether the zone is UTC under another name: every offset it ever had is zero.
    public var isUTC: Bool {
        types.allSatisfy { $0.seconds == 0 } && (footer.map { $0.std.seconds == 0 && $0.dst == nil } ?? true)
    }

    /// The local time type before the first transition: the first standard one (RFC 8536 3.2).
    var initial: ZoneOffset { types.first(where: { !$0.isDST }) ?? types[0] }

    /// The offset in force at `utc` (seconds since the epoch).
    public func offset(atUTC utc: Int64) -> ZoneOffset {
        if let last = times.last, utc >= last, let footer { return footer.offset(atUTC: utc) }
        if times.isEmpty { return footer?.offset(atUTC: utc) ?? initial }
        // The last transition at or before `utc`.
        var lo = 0
        var hi = times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] <= utc { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? initial : types[typeIndex[lo - 1]]
    }

    /// The offset changes with `start <= utc < end`, in time order.
    public func transitions(from start: Int64, to end: Int64) -> [ZoneTransition] {
        var out: [ZoneTransition] = []
        var previous = initial
        for (i, t) in times.enumerated() {
            let next = types[typeIndex[i]]
            if t >= start && t < end && next != previous { out.append(ZoneTransition(utc: t, from: previous, to: next)) }
            previous = next
        }
        guard let footer, footer.dst != nil else { return out }
        let after = max(start, (times.last ?? Int64.min) + 1)
        guard after < end else { return out }
        let firstYear = CivilDate(daysSinceEpoch: Int(after / 86_400) - 1).year
        let lastYear = CivilDate(daysSinceEpoch: Int(min(end, 253_402_300_799) / 86_400) + 1).year
        guard firstYear <= lastYear else { return out }
        for year in firstYear...lastYear {
            for t in footer.transitions(in: year) where t.utc >= after && t.utc < end {
                out.append(ZoneTransition(utc: t.utc, from: offset(atUTC: t.utc - 1), to: t.to))
            }
        }
        out.sort { $0.utc < $1.utc }
        return out
    }
}

/// A POSIX TZ string (`CET-1CEST,M3.5.0,M10.5.0/3`): a zone's rule for every year.
struct PosixZone: Sendable {
    /// A `Mm.w.d/time` (or `Jn`, `n`) rule: a day of the year and a local time.
    enum Day: Sendable {
        case monthWeek(month: Int, week: Int, weekday: Int)
        case julianNoLeap(Int)
        case zeroBased(Int)

        func date(in year: Int) -> CivilDate? {
            switch self {
            case .monthWeek(let month, let week, let weekday):
                guard let first = CivilDate(year: year, month: month, day: 1) else { return nil }
                var day = 1 + (weekday - first.weekday + 7) % 7 + (week - 1) * 7
                let length = CivilDate.daysIn(month: month, year: year)
                while day > length { day -= 7 }
                return CivilDate(year: year, month: month, day: day)
            case .julianNoLeap(let n):
                guard let jan1 = CivilDate(year: year, month: 1, day: 1) else { return nil }
                let leap = CivilDate.daysIn(month: 2, year: year) == 29
                return jan1.adding(days: n - 1 + (leap && n >= 60 ? 1 : 0))
            case .zeroBased(let n):
                return CivilDate(year: year, month: 1, day: 1)?.adding(days: n)
            }
        }
    }

    struct Rule: Sendable {
        var day: Day
        /// Seconds after local midnight (may be negative or past a day, RFC 8536 3.3.1).
        var time: Int
    }

    let std: ZoneOffset
    let dst: ZoneOffset?
    let start: Rule?
    let end: Rule?

    init?(_ text: String) {
        var p = PosixParser(Array(text.utf8))
        guard let stdName = p.name(), let stdOff = p.offset() else { return nil }
        std = ZoneOffset(seconds: -stdOff, isDST: false, abbreviation: stdName)
        guard !p.atEnd else {
            dst = nil
            start = nil
            end = nil
            return
        }
        guard let dstName = p.name() else { return nil }
        let dstOff = p.peek == UInt8(ascii: ",") ? stdOff - 3600 : p.offset()
        guard let dstOff, p.eat(UInt8(ascii: ",")), let s = p.rule(), p.eat(UInt8(ascii: ",")), let e = p.rule(),
            p.atEnd
        else { return nil }
        dst = ZoneOffset(seconds: -dstOff, isDST: true, abbreviation: dstName)
        start = s
        end = e
    }

    /// The year's two changes, in the order of the year.
    func transitions(in year: Int) -> [(utc: Int64, to: ZoneOffset)] {
        guard let dst, let start, let end, let s = start.day.date(in: year), let e = end.day.date(in: year) else {
            return []
        }
        let on = Int64(s.daysSinceEpoch) * 86_400 + Int64(start.time) - Int64(std.seconds)
        let off = Int64(e.daysSinceEpoch) * 86_400 + Int64(end.time) - Int64(dst.seconds)
        return on < off ? [(on, dst), (off, std)] : [(off, std), (on, dst)]
    }

    func offset(atUTC utc: Int64) -> ZoneOffset {
        guard let dst else { return std }
        let year = CivilDate(daysSinceEpoch: Int((utc + Int64(std.seconds)) / 86_400 - (utc < 0 ? 1 : 0))).year
        let changes = transitions(in: year)
        guard changes.count == 2 else { return std }
        // Before the year's first change, the state is the one its second change leads to.
        if utc < changes[0].utc { return changes[1].to }
        if utc < changes[1].utc { return changes[0].to }
        return changes[1].to == dst ? dst : std
    }
}

/// Reads the parts of a POSIX TZ string.
struct PosixParser {
    let s: [UInt8]
    var i = 0

    init(_ s: [UInt8]) { self.s = s }

    var atEnd: Bool { i >= s.count }
    var peek: UInt8? { i < s.count ? s[i] : nil }

    mutating func eat(_ c: UInt8) -> Bool {
        guard peek == c else { return false }
        i += 1
        return true
    }

    /// `<+0530>` or three or more letters.
    mutating func name() -> String? {
        if eat(UInt8(ascii: "<")) {
            let from = i
            while let c = peek, c != UInt8(ascii: ">") { i += 1 }
            guard i > from, eat(UInt8(ascii: ">")) else { return nil }
            return String(decoding: s[from..<i - 1], as: UTF8.self)
        }
        let from = i
        while let c = peek, (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) { i += 1 }
        return i - from >= 3 ? String(decoding: s[from..<i], as: UTF8.self) : nil
    }

    /// `[+-]hh[:mm[:ss]]` in seconds.
    mutating func offset() -> Int? {
        var sign = 1
        if eat(UInt8(ascii: "-")) { sign = -1 } else { _ = eat(UInt8(ascii: "+")) }
        guard let h = number(), h <= 167 else { return nil }
        var v = h * 3600
        if eat(UInt8(ascii: ":")) {
            guard let m = number(), m < 60 else { return nil }
            v += m * 60
            if eat(UInt8(ascii: ":")) {
                guard let sec = number(), sec < 60 else { return nil }
                v += sec
            }
        }
        return sign * v
    }

    mutating func number() -> Int? {
        let from = i
        var v = 0
        while let c = peek, c >= 0x30, c <= 0x39, i - from < 4 {
            v = v * 10 + Int(c - 0x30)
            i += 1
        }
        return i > from ? v : nil
    }

    mutating func rule() -> PosixZone.Rule? {
        let day: PosixZone.Day
        if eat(UInt8(ascii: "M")) {
            guard let m = number(), (1...12).contains(m), eat(UInt8(ascii: ".")), let w = number(), (1...5).contains(w),
                eat(UInt8(ascii: ".")), let d = number(), d <= 6
            else { return nil }
            day = .monthWeek(month: m, week: w, weekday: d)
        } else if eat(UInt8(ascii: "J")) {
            guard let n = number(), (1...365).contains(n) else { return nil }
            day = .julianNoLeap(n)
        } else {
            guard let n = number(), n <= 365 else { return nil }
            day = .zeroBased(n)
        }
        var time = 7200
        if eat(UInt8(ascii: "/")) {
            guard let t = offset() else { return nil }
            time = t
        }
        return PosixZone.Rule(day: day, time: time)
    }
}

/// Reads a TZif file's big-endian fields, never past its end.
struct TZifReader {
    struct Header {
        var version: Int
        var utCount, stdCount, leapCount, timeCount, typeCount, charCount: Int

        func dataSize(timeSize: Int) -> Int {
            timeCount * timeSize + timeCount + typeCount * 6 + charCount + leapCount * (timeSize + 4) + stdCount + utCount
        }
    }

    let bytes: [UInt8]
    var at = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func skip(_ n: Int) -> Bool {
        guard n >= 0, bytes.count - at >= n else { return false }
        at += n
        return true
    }

    mutating func take(_ n: Int) -> ArraySlice<UInt8>? {
        guard n >= 0, bytes.count - at >= n else { return nil }
        defer { at += n }
        return bytes[at..<at + n]
    }

    mutating func byte() -> UInt8? { take(1)?.first }

    mutating func signed(_ size: Int) -> Int64? {
        guard let b = take(size) else { return nil }
        var v: UInt64 = 0
        for x in b { v = v << 8 | UInt64(x) }
        if size == 4 { return Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: v))) }
        return Int64(bitPattern: v)
    }

    mutating func header() -> Header? {
        guard let magic = take(4), Array(magic) == Array("TZif".utf8), let v = byte(), skip(15) else { return nil }
        var counts: [Int] = []
        for _ in 0..<6 {
            // Counts past a few million are not a real zone: refuse them before reserving memory.
            guard let c = signed(4), c >= 0, c < 1 << 22 else { return nil }
            counts.append(Int(c))
        }
        let version = v == 0 ? 1 : Int(v) - 0x30
        guard version >= 1 else { return nil }
        return Header(
            version: version, utCount: counts[0], stdCount: counts[1], leapCount: counts[2], timeCount: counts[3],
            typeCount: counts[4], charCount: counts[5])
    }

    /// The footer's TZ string, between two newlines.
    mutating func footer() -> String? {
        guard byte() == 0x0A else { return nil }
        let from = at
        while at < bytes.count && bytes[at] != 0x0A { at += 1 }
        guard at < bytes.count, at > from else { return nil }
        return String(decoding: bytes[from..<at], as: UTF8.self)
    }
}
