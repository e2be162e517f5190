/// A hybrid-logical-clock stamp: wall-clock milliseconds, a counter for writes within the same
/// millisecond (or made while the wall clock lags), and the writing replica's id.
///
/// Ordering is by (wall, counter, replica). A replica never issues a stamp that is not greater
/// than every stamp it has seen, so a write made after seeing another sorts after it whatever
/// the wall clocks say.
public struct Stamp: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var wall: Int64
    public var counter: UInt32
    public var replica: String

    public init(wall: Int64, counter: UInt32, replica: String) {
        self.wall = wall
        self.counter = counter
        self.replica = replica
    }

    public static let zero = Stamp(wall: 0, counter: 0, replica: "")

    public static func < (a: Stamp, b: Stamp) -> Bool {
        if a.wall != b.wall { return a.wall < b.wall }
        if a.counter != b.counter { return a.counter < b.counter }
        return a.replica.utf8.lexicographicallyPrecedes(b.replica.utf8)
    }

    /// `<wall>.<counter>.<replica>`, e.g. `1763818282123.0.a1b2c3d4e5f60718`.
    public var description: String { "\(wall).\(counter).\(replica)" }

    /// The earliest wall time a stamp in a file may carry: 2000-01-01T00:00:00.000Z.
    public static let minWall: Int64 = 946_684_800_000
    /// The latest: 9999-12-31T23:59:59.999Z. Every date and time derived from a stamp is then
    /// a four-digit year, and no arithmetic on a wall time (a zone offset, one more
    /// millisecond) can overflow.
    public static let maxWall: Int64 = 253_402_300_799_999
    /// The largest counter (it is an unsigned 32-bit number).
    public static let maxCounter = UInt32.max

    /// Parses `<wall>.<counter>.<replica>`: decimal digits without a sign or leading zeros, the
    /// wall time within `minWall...maxWall`. Anything else is no stamp (the file is malformed).
    public init?(_ text: Substring) {
        let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let wall = Self.decimal(parts[0], maxDigits: 15), (Self.minWall...Self.maxWall).contains(wall),
            let counter = Self.decimal(parts[1], maxDigits: 10), counter <= Int64(Self.maxCounter), Self.isReplicaID(parts[2])
        else { return nil }
        self.init(wall: wall, counter: UInt32(counter), replica: String(parts[2]))
    }

    /// Plain decimal digits, no sign, no leading zero (but "0"), at most `maxDigits` of them.
    static func decimal(_ s: Substring, maxDigits: Int) -> Int64? {
        let u = s.utf8
        guard let first = u.first, u.count <= maxDigits, first != 0x30 || u.count == 1 else { return nil }
        var v: Int64 = 0
        for b in u {
            guard b >= 0x30, b <= 0x39 else { return nil }
            v = v * 10 + Int64(b - 0x30)
        }
        return v
    }

    /// Replica ids are 1 to 32 lowercase hex digits.
    public static func isReplicaID(_ s: Substring) -> Bool {
        !s.isEmpty && s.utf8.count <= 32 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// The next stamp for `replica`: greater than `after` (everything this replica has seen) and
    /// at least the wall clock `now`, within `minWall...maxWall`. A clock outside that range
    /// counts as its nearest end. Only when `after` is the very last stamp (`maxWall`,
    /// `maxCounter`), which no honest clock writes, is the result that stamp again.
    public static func next(now: Int64, after: Stamp?, replica: String) -> Stamp {
        let now = min(max(now, minWall), maxWall)
        guard let after, after.wall >= now else { return Stamp(wall: now, counter: 0, replica: replica) }
        let wall = min(after.wall, maxWall)
        if after.counter < maxCounter { return Stamp(wall: wall, counter: after.counter + 1, replica: replica) }
        if wall < maxWall { return Stamp(wall: wall + 1, counter: 0, replica: replica) }
        return Stamp(wall: maxWall, counter: maxCounter, replica: replica)
    }
}

/// A field's stamp plus the member who wrote it, written in a task file as
/// `"<stamp> <member>"` (the member is everything after the first space and may be empty).
public struct FieldStamp: Hashable, Sendable, CustomStringConvertible {
    public var stamp: Stamp
    public var member: String

    public init(_ stamp: Stamp, by member: String) {
        self.stamp = stamp
        self.member = member
    }

    public var description: String { member.isEmpty ? stamp.description : "\(stamp) \(member)" }

    public init?(_ text: String) {
        let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, let stamp = Stamp(first) else { return nil }
        self.init(stamp, by: parts.count > 1 ? String(parts[1]) : "")
    }

    /// Total order used to pick a winner: the stamp, then (only for identical stamps, which an
    /// honest replica never produces) the member text.
    public static func precedes(_ a: FieldStamp, _ b: FieldStamp) -> Bool {
        if a.stamp != b.stamp { return a.stamp < b.stamp }
        return a.member.utf8.lexicographicallyPrecedes(b.member.utf8)
    }
}
