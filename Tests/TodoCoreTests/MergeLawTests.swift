import TestKit
import Testing

@testable import TodoCore

/// The merge laws of docs/MERGE.md on random versions of one task. The seed is printed with
/// any failure; set `TODO_PROPERTY_SEED` to replay a run.
@Suite(.timeLimit(.minutes(20)), .kit) struct MergeLawTests {
    static let cases = 10_000
    static let path = "tasks/3f/3f2a9c0e5b7d41e8a6c2d9f0b1e4c7a5.json"

    /// Three versions derived from one base (sometimes none, unreadable or another task).
    struct Case {
        var base: [UInt8]?
        var a: [UInt8]?
        var b: [UInt8]?
        var c: [UInt8]?

        init(_ index: Int) {
            var g = TaskVersionGenerator(rng: PropertySeed.generator(case: index, salt: 0x1a35))
            let common: Task? = g.rng.chance(15) ? nil : g.task()
            let (ta, tb, tc) = (g.variant(of: common), g.variant(of: common), g.variant(of: common))
            base = common.map(TaskCodec.encode)
            switch g.rng.int(100) {
            case 0..<3: base = base.map { Array($0.dropLast(9)) }
            case 3..<5:
                var other = g.task()
                other.id = TaskVersionGenerator.otherID
                base = TaskCodec.encode(other)
            default: break
            }
            a = g.file(ta)
            b = g.file(tb)
            c = g.file(tc)
        }

        var text: String {
            func show(_ name: String, _ bytes: [UInt8]?) -> String {
                "\(name): " + (bytes.map { String(decoding: $0, as: UTF8.self) } ?? "(absent)\n")
            }
            return show("base", base) + show("a", a) + show("b", b) + show("c", c)
        }
    }

    static func merge(_ base: [UInt8]?, _ x: [UInt8]?, _ y: [UInt8]?) -> MergeOutcome {
        TaskMerge.merge(base: base, ours: x, theirs: y, path: path)
    }

    /// The cases are split into shards that run in parallel.
    @Test(arguments: 0..<4)
    func lawsHold(shard: Int) throws {
        var failures = 0
        for i in stride(from: shard, to: Self.cases, by: 4) {
            let c = Case(i)
            guard let problem = try Self.violation(c) else { continue }
            Issue.record("\(problem) [\(PropertySeed.describe(case: i))]\n\(c.text)")
            failures += 1
            if failures == 3 { return }
        }
    }

    static func violation(_ c: Case) throws -> String? {
        let ab = merge(c.base, c.a, c.b)
        let ba = merge(c.base, c.b, c.a)
        if let problem = try commutativity(c, ab, ba) { return "commutativity: " + problem }
        if let problem = idempotence(c, ab) { return "idempotence: " + problem }
        if let problem = try associativity(c, ab) { return "associativity: " + problem }
        return nil
    }

    /// merge(o, a, b) and merge(o, b, a): the same bytes and entries, or both fail. The result
    /// is canonical and keeps every entry of both inputs.
    static func commutativity(_ c: Case, _ ab: MergeOutcome, _ ba: MergeOutcome) throws -> String? {
        switch (ab, ba) {
        case (.failed, .failed): return nil
        case (.merged(let x, let ex, _), .merged(let y, let ey, _)):
            if x != y { return "bytes differ:\n\(String(decoding: x, as: UTF8.self))\n\(String(decoding: y, as: UTF8.self))" }
            if ex != ey { return "entries differ" }
            let merged = try TaskCodec.decode(x)
            if TaskCodec.encode(merged) != x { return "result is not canonical" }
            let ids = ConflictLog.ids(merged.conflicts)
            for side in [c.a, c.b] {
                guard let side, let task = try? TaskCodec.decode(side) else { continue }
                if !ConflictLog.ids(task.conflicts).isSubset(of: ids) { return "an input's entry was dropped" }
            }
            return nil
        default: return "one order failed, the other did not"
        }
    }

    /// merge(o, a, a) is a's canonical bytes with no new entry, and a merge result is a fixed
    /// point: merge(o, m, m) == m.
    static func idempotence(_ c: Case, _ ab: MergeOutcome) -> String? {
        guard let a = c.a, let task = try? TaskCodec.decode(a) else {
            return merge(c.base, c.a, c.a).bytes == nil ? nil : "merging an unusable file with itself succeeded"
        }
        guard case .merged(let bytes, let entries, _) = merge(c.base, a, a) else { return "merge(o, a, a) failed" }
        // The generator keeps logs sorted, so a's canonical form differs at most in layout.
        if bytes != TaskCodec.encode(task) { return "merge(o, a, a) != a:\n\(String(decoding: bytes, as: UTF8.self))" }
        if !entries.isEmpty { return "merge(o, a, a) logged entries" }
        guard let m = ab.bytes else { return nil }
        if merge(c.base, m, m).bytes != m { return "merge(o, m, m) != m" }
        return nil
    }

    /// (a ⊔ b) ⊔ c and a ⊔ (b ⊔ c), all against the same base, give the same task state; the
    /// conflict logs may differ (which pairs met decides which conflicts are seen).
    static func associativity(_ c: Case, _ ab: MergeOutcome) throws -> String? {
        guard let ab = ab.bytes, let bc = merge(c.base, c.b, c.c).bytes,
            let left = merge(c.base, ab, c.c).bytes, let right = merge(c.base, c.a, bc).bytes
        else { return nil }
        let l = try withoutConflicts(left)
        let r = try withoutConflicts(right)
        return l == r ? nil : "states differ:\n\(String(decoding: l, as: UTF8.self))\n\(String(decoding: r, as: UTF8.self))"
    }

    static func withoutConflicts(_ bytes: [UInt8]) throws -> [UInt8] {
        var task = try TaskCodec.decode(bytes)
        task.conflicts = []
        return TaskCodec.encode(task)
    }
}
