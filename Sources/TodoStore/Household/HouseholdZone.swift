import FileKit
import Glibc
import GitKit
public import TodoCore

/// The household's time zone (docs/FORMAT.md, "The household settings file"): recorded in a
/// reserved task file that older versions keep and never list, so that every replica decides
/// "today" the same way whatever zone the machine running it is set to.
public enum HouseholdSettings {
    /// The settings file's id: a fixed one, so that two members recording a setting write the
    /// same file and the ordinary field merge decides between them.
    public static let id = TaskID(high: 0, low: 0)
    /// The stamped field holding the zone's tz database name.
    public static let timeZoneField = "timeZone"
    public static let title = "Household settings (kept by todo; do not restore)"
    /// Where the tz database is.
    public static let zoneinfo = "/usr/share/zoneinfo"

    /// The settings file as `snap` has it, or a new one (deleted, so that no version lists it).
    static func task(in snap: Snapshot, stamper: Stamper) throws -> Task {
        if let existing = try snap.task(id) { return existing }
        let stamp = stamper.stamp(after: nil)
        var task = Task(
            id: id, title: title, createdAt: isoMillis(stamper.clock.nowMillis()), createdBy: stamper.member, deleted: true)
        for field in Task.stampedFields { task.stamps[field] = stamp }
        return task
    }
}

/// Which zone a household's days follow, and why.
public struct HouseholdZone: Sendable {
    public enum Source: Sendable, Equatable {
        /// Recorded in the household.
        case recorded
        /// None recorded: this machine's zone (`TZ`, else /etc/localtime).
        case machine
        /// A name is recorded but this machine's tz database does not have it: this machine's zone.
        case unknownRecorded(String)
    }

    public let rules: TimeZoneRules
    public let source: Source

    /// Loads a zone from the tz database; nil for a name that is not a zone file there.
    public static func load(_ name: String) -> TimeZoneRules? {
        // Not a readable zone file: no such zone here (the doc comment); doctor reports a recorded zone this machine lacks.
        guard isSafeName(name), let bytes = try? WholeFile.read("\(HouseholdSettings.zoneinfo)/\(name)"), bytes.count < 1 << 20
        else { return nil }
        return TimeZoneRules(name: name, tzif: bytes)
    }

    /// A tz database name: letters, digits, `/`, `_`, `-`, `+`, `.`; no empty or dot-only parts.
    static func isSafeName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 128 else { return false }
        for part in name.split(separator: "/", omittingEmptySubsequences: false) {
            guard !part.isEmpty, part != ".", part != ".." else { return false }
            for b in part.utf8 {
                let ok = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                    || b == 0x5F || b == 0x2D || b == 0x2B || b == 0x2E
                guard ok else { return false }
            }
        }
        return true
    }

    /// This machine's zone for this process: `TZ` (a tz database name, or a path into it), else
    /// the zone /etc/localtime links to, else /etc/timezone; nil when none names a zone file.
    public static func machineZoneName() -> String? {
        var candidates: [String] = []
        if let tz = getenv("TZ").map({ String(cString: $0) }), !tz.isEmpty {
            var name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if let r = name.range(of: "/zoneinfo/") { name = String(name[r.upperBound...]) }
            // A POSIX TZ string with no zone file behind it: no name to record.
            return load(name) != nil ? name : nil
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/etc/localtime", &buffer, buffer.count - 1)
        if n > 0 {
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let r = target.range(of: "zoneinfo/") { candidates.append(String(target[r.upperBound...])) }
        }
        // No /etc/timezone (most systems): the other candidates decide.
        if let text = try? WholeFile.read("/etc/timezone") {
            candidates.append(String(decoding: text, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "")
        }
        return candidates.first { load($0) != nil }
    }

    /// The zone `todo init` records for a new household: this machine's, when it can be named
    /// and is not UTC (a server's usual setting, seldom the family's: better none recorded, so
    /// that each member's machine uses its own zone until someone sets the household's).
    public static func machineZoneToRecord() -> String? {
        guard let name = machineZoneName(), let rules = load(name), !rules.isUTC else { return nil }
        return name
    }

    /// This machine's zone's rules (UTC when it cannot be named).
    static func machine() -> TimeZoneRules {
        machineZoneName().flatMap(load) ?? TimeZoneRules(fixed: "UTC", seconds: 0, abbreviation: "UTC")
    }

    /// The zone name recorded in the household's settings file at `snap`; nil when none is.
    static func recordedName(_ snap: Snapshot) -> String? {
        guard let task = snap.settings() else { return nil }
        return task.extra[HouseholdSettings.timeZoneField]?.stringValue
    }

    /// The clock `clock` with the household's zone's offsets, when one is recorded and this
    /// machine knows it; else `clock` itself.
    static func clock(_ clock: WallClock, repo: Repository) -> WallClock {
        // No recorded zone this machine can read: the machine's zone, as documented; doctor reports a zone this machine lacks, and commands that fail to read the household report that themselves.
        guard let snap = try? Snapshot(repo: repo), let name = recordedName(snap), let rules = load(name) else {
            return clock
        }
        return clock.following(rules)
    }
}

extension WallClock {
    /// This clock with `rules`' offsets instead of the machine's.
    public func following(_ rules: TimeZoneRules) -> WallClock {
        WallClock(nowMillis: nowMillis) { millis in
            let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
            return Int32(rules.offset(atUTC: seconds).seconds / 60)
        }
    }
}

extension Household {
    /// The zone this household's days follow, and where it came from.
    public func zone() throws(StoreError) -> HouseholdZone {
        let snap = try snapshot()
        guard let name = HouseholdZone.recordedName(snap) else {
            return HouseholdZone(rules: HouseholdZone.machine(), source: .machine)
        }
        guard let rules = HouseholdZone.load(name) else {
            return HouseholdZone(rules: HouseholdZone.machine(), source: .unknownRecorded(name))
        }
        return HouseholdZone(rules: rules, source: .recorded)
    }

    /// Records `name` (a zone `HouseholdZone.load` knows) as the household's zone, in one
    /// commit; nil when it already is (nothing is written), else the commit.
    @discardableResult
    public func setZone(_ name: String) throws(StoreError) -> String? {
        let stamper = try stamper()
        let (_, commit) = try transact { snap in
            var task = try HouseholdSettings.task(in: snap, stamper: stamper)
            if task.extra[HouseholdSettings.timeZoneField]?.stringValue == name {
                return Update(tasks: [], message: "", value: ())
            }
            try task.write(HouseholdSettings.timeZoneField, .string(name), stamp: stamper.stamp(after: task))
            return Update(tasks: [task], message: "timezone: \(name)", value: ())
        }
        return commit
    }
}
