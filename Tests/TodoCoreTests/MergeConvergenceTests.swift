import TestKit
import Testing

@testable import TodoCore

/// Replicas with skewed clocks edit one task and sync in random pairs through three-way merges
/// with the true merge base, then sync fully (docs/MERGE.md, "Laws").
@Suite(.timeLimit(.minutes(20)), .kit) struct MergeConvergenceTests {
    static let histories = 2_000

    /// The histories are split into shards that run in parallel.
    @Test(arguments: 0..<4)
    func replicasConverge(shard: Int) {
        var failures = 0
        for i in stride(from: shard, to: Self.histories, by: 4) {
            var sim = History(rng: PropertySeed.generator(case: i, salt: 0xc0fe))
            guard let problem = sim.runAndCheck() else { continue }
            Issue.record("\(problem) [\(PropertySeed.describe(case: i))]\n\(sim.log.joined(separator: "\n"))")
            failures += 1
            if failures == 3 { return }
        }
    }
}

/// One random history: a tiny commit graph for one task file, replicas with hybrid logical
/// clocks, and every write made.
struct History {
    struct Commit {
        var parents: [Int]
        var bytes: [UInt8]?
        var task: Task?
        /// This commit and everything before it.
        var ancestors: Set<Int>
    }

    struct Replica {
        var id: String
        var member: String
        /// Wall clock offset from true time, up to a day either way.
        var skew: Int64
        /// The greatest stamp this replica has seen.
        var seen: Stamp?
        var head: Int
    }

    /// One field or tag value written by one edit. Tags are written as `tag:<name>`.
    struct Write {
        var field: String
        var value: JSONValue
        var stamp: FieldStamp
        var commit: Int
    }

    static let day: Int64 = 86_400_000
    static let fields = ["title", "status", "notes", "assignee", "due", "priority", "zone", "repeat", "rotation"]
    /// Chore and checklist map writes are recorded as the conflict log names them.
    static func isMapWrite(_ field: String) -> Bool { ChoreFields.mapEntry(ofLogField: field) != nil }

    var rng: SplitMix64
    var commits: [Commit] = [Commit(parents: [], bytes: nil, task: nil, ancestors: [0])]
    var replicas: [Replica] = []
    var writes: [Write] = []
    var now: Int64 = 1_763_818_282_123
    var log: [String] = []
    /// Writes that a merge found with the same value as a greater-stamped write on the other
    /// side ("same value on both sides: kept, nothing logged"), keyed by `key(field, stamp)`.
    var subsumed: [String: FieldStamp] = [:]

    static func key(_ field: String, _ stamp: FieldStamp) -> String { "\(field) \(stamp)" }

    init(rng: SplitMix64) {
        self.rng = rng
        let names = ["Ana", "Ben", "Cy", "Dee", "Eli"]
        for n in 0..<(3 + self.rng.int(3)) {
            let skew = self.rng.chance(50) ? Int64(self.rng.int(600_001)) - 300_000 : Int64(self.rng.int(Int(2 * Self.day + 1))) - Self.day
            replicas.append(Replica(id: hex64(UInt64(n + 1) &* 0x1111_1111), member: names[n], skew: skew, seen: nil, head: 0))
        }
    }

    mutating func runAndCheck() -> String? {
        create(by: 0)
        for _ in 0..<(8 + rng.int(25)) {
            now += rng.chance(10) ? 0 : Int64(rng.int(300_000))
            if let problem = rng.chance(55) ? edit(by: rng.int(replicas.count)) : sync(rng.int(replicas.count), rng.int(replicas.count)) {
                return problem
            }
        }
        // Sync fully in two different orders from the same point; both must give the same state.
        var other = self
        if let problem = syncFully(order: Array(replicas.indices)) { return problem }
        if let problem = other.syncFully(order: replicas.indices.shuffled(using: &other.rng)) { return problem }
        let heads = Set(replicas.map { commits[$0.head].bytes ?? [] })
        guard heads.count == 1, let bytes = heads.first, let final = try? TaskCodec.decode(bytes) else {
            return "replicas did not converge to one readable file"
        }
        guard let otherFinal = other.commits[other.replicas[0].head].task else { return "no task after the second full sync" }
        if Self.withoutConflicts(final) != Self.withoutConflicts(otherFinal) {
            return "two sync orders gave different states"
        }
        return checkWrites(final)
    }

    // MARK: Edits

    mutating func stamp(for r: Int) -> FieldStamp {
        let s = Stamp.next(now: now + replicas[r].skew, after: replicas[r].seen, replica: replicas[r].id)
        replicas[r].seen = s
        return FieldStamp(s, by: replicas[r].member)
    }

    mutating func create(by r: Int) {
        let s = stamp(for: r)
        var t = Task(id: TaskVersionGenerator.id, title: "Buy milk", createdAt: isoMillis(now), createdBy: replicas[r].member)
        for field in Task.stampedFields {
            t.stamps[field] = s
            writes.append(Write(field: field, value: t.value(of: field)!, stamp: s, commit: 1))
        }
        commit(t, parents: [0], by: [r])
        log.append("\(replicas[r].member) creates")
    }

    /// One command's worth of changes, all with one stamp, as the CLI writes them.
    mutating func edit(by r: Int) -> String? {
        guard var t = commits[replicas[r].head].task else { return nil }
        let s = stamp(for: r)
        var changes: [(String, JSONValue)] = []
        if t.deleted && rng.chance(60) {
            changes.append(("deleted", .bool(false)))
        } else if !t.deleted && rng.chance(12) {
            changes.append(("deleted", .bool(true)))
        } else if rng.chance(30) {
            // Complete, skip or reopen an occurrence, take one over, or change an item.
            var g = TaskVersionGenerator(rng: rng)
            let keys = g.mapEdit(&t, stamp: s)
            rng = g.rng
            let values = keys.map { Self.mapValue(t, $0) }
            for (key, value) in zip(keys, values) { writes.append(Write(field: key, value: value, stamp: s, commit: commits.count)) }
            commit(t, parents: [replicas[r].head], by: [r])
            log.append("\(replicas[r].member) = \(commits.count - 1) @\(s.stamp): \(zip(keys, values).map { "\($0)=\(JSONWriter.compact($1))" }.joined(separator: ", "))")
            return nil
        } else {
            for _ in 0..<(1 + rng.int(2)) {
                if rng.chance(30) {
                    changes.append(("tag:" + rng.pick(TaskVersionGenerator.tags), .bool(rng.chance(60))))
                } else {
                    let field = rng.pick(Self.fields)
                    changes.append((field, rng.pick(TaskVersionGenerator.values[field]!)))
                }
            }
        }
        var written: [(String, JSONValue)] = []
        for (field, value) in changes where !written.contains(where: { $0.0 == field }) {
            if field.hasPrefix("tag:") {
                let tag = String(field.dropFirst(4))
                guard case .bool(let present) = value, (t.tagStates[tag]?.present ?? false) != present else { continue }
                t.setTag(tag, present: present, stamp: s)
            } else {
                guard t.value(of: field) != value else { continue }
                do { try t.write(field, value, stamp: s) } catch { return "edit failed: \(error)" }
            }
            written.append((field, value))
            writes.append(Write(field: field, value: value, stamp: s, commit: commits.count))
        }
        guard !written.isEmpty else { return nil }
        commit(t, parents: [replicas[r].head], by: [r])
        log.append("\(replicas[r].member) = \(commits.count - 1) @\(s.stamp): \(written.map { "\($0.0)=\(JSONWriter.compact($0.1))" }.joined(separator: ", "))")
        return nil
    }

    /// The entry a map write left (`.null` when the key is absent).
    static func mapValue(_ t: Task, _ key: String) -> JSONValue {
        guard let (map, k) = ChoreFields.mapEntry(ofLogField: key) else { return .null }
        return t.extra[map]?[k] ?? .null
    }

    mutating func commit(_ task: Task, parents: [Int], by: [Int]) {
        let n = commits.count
        var ancestors: Set<Int> = [n]
        for p in parents { ancestors.formUnion(commits[p].ancestors) }
        commits.append(Commit(parents: parents, bytes: TaskCodec.encode(task), task: task, ancestors: ancestors))
        for r in by { see(n, r) }
    }

    /// Replica `r` moves to commit `n` and its clock learns the stamps there.
    mutating func see(_ n: Int, _ r: Int) {
        replicas[r].head = n
        if let m = commits[n].task?.maxStamp, replicas[r].seen.map({ $0 < m }) ?? true { replicas[r].seen = m }
    }

    // MARK: Sync

    /// `i` pulls from `j`, merges, and pushes back: both end on the same commit.
    mutating func sync(_ i: Int, _ j: Int) -> String? {
        let hi = replicas[i].head
        let hj = replicas[j].head
        if hi == hj { return nil }
        if commits[hj].ancestors.contains(hi) || commits[hi].ancestors.contains(hj) {
            let ahead = commits[hj].ancestors.contains(hi) ? hj : hi
            see(ahead, i)
            see(ahead, j)
            log.append("\(replicas[i].member) = \(replicas[j].member) (fast-forward to \(ahead))")
            return nil
        }
        let common = commits[hi].ancestors.intersection(commits[hj].ancestors)
        let best = common.filter { c in !common.contains { $0 != c && commits[$0].ancestors.contains(c) } }
        let base = best.max() ?? 0
        noteEqualValues(commits[hi].task, commits[hj].task)
        let (ours, theirs) = rng.chance(50) ? (hi, hj) : (hj, hi)
        let outcome = TaskMerge.merge(base: commits[base].bytes, ours: commits[ours].bytes, theirs: commits[theirs].bytes, path: "t")
        guard case .merged(let bytes, let entries, let warnings) = outcome else { return "merge failed: \(outcome)" }
        if !warnings.isEmpty { return "unexpected warnings: \(warnings)" }
        guard let task = try? TaskCodec.decode(bytes) else { return "merged file is unreadable" }
        commit(task, parents: [hi, hj], by: [i, j])
        log.append(
            "\(replicas[i].member) + \(replicas[j].member) = \(commits.count - 1) (base \(base)): \(entries.map { "\($0.kind.rawValue) \($0.field)" })")
        return nil
    }

    /// Records, for each field and tag both sides hold with one value under two stamps, that the
    /// lower-stamped write continues as the greater one.
    mutating func noteEqualValues(_ x: Task?, _ y: Task?) {
        guard let x, let y else { return }
        func note(_ field: String, _ s: FieldStamp?, _ t: FieldStamp?) {
            guard let s, let t, s != t else { return }
            let (low, high) = FieldStamp.precedes(s, t) ? (s, t) : (t, s)
            subsumed[Self.key(field, low)] = high
        }
        for field in Task.stampedFields + ["zone", "repeat", "rotation"] where x.value(of: field) == y.value(of: field) {
            note(field, x.stamps[field], y.stamps[field])
        }
        for (tag, state) in x.tagStates where y.tagStates[tag]?.present == state.present {
            note("tag:" + tag, state.stamp, y.tagStates[tag]?.stamp)
        }
        for map in ChoreFields.maps {
            guard case .object(let entries)? = x.extra[map] else { continue }
            for (key, e) in entries {
                guard let f = y.extra[map]?[key], !ChoreFields.entriesDiffer(map: map, e, f) else { continue }
                note(ChoreFields.logField(map: map, key: key), ChoreFields.entryStamp(e), ChoreFields.entryStamp(f))
            }
        }
    }

    mutating func syncFully(order: [Int]) -> String? {
        for _ in 0..<2 {
            for k in order.dropFirst() {
                if let problem = sync(order[0], k) { return problem }
            }
        }
        return nil
    }

    // MARK: Checks

    static func withoutConflicts(_ task: Task) -> [UInt8] {
        var t = task
        t.conflicts = []
        return TaskCodec.encode(t)
    }

    /// Each field ends with the value of its greatest-stamped write, and every other write was
    /// overwritten by a writer that had seen it, is in the conflict log, or met the same value
    /// with a greater stamp in a merge and continues as that write.
    func checkWrites(_ final: Task) -> String? {
        let entries = final.conflicts.compactMap { try? ConflictEntry(json: $0) }
        if entries.count != final.conflicts.count { return "unreadable conflict entry" }
        for e in entries where e.id != ConflictEntry.contentID(kind: e.kind, task: e.task, field: e.field, kept: e.kept, lost: e.lost) {
            return "entry \(e.id) has a wrong id"
        }
        func current(_ field: String) -> (JSONValue?, FieldStamp?) {
            if Self.isMapWrite(field) {
                let entry = Self.mapValue(final, field)
                return (entry, ChoreFields.entryStamp(entry))
            }
            if field.hasPrefix("tag:") {
                let state = final.tagStates[String(field.dropFirst(4))]
                return (state.map { .bool($0.present) }, state?.stamp)
            }
            return (final.value(of: field), final.stamps[field])
        }
        for field in Set(writes.map(\.field)) {
            let last = writes.filter { $0.field == field }.max { FieldStamp.precedes($0.stamp, $1.stamp) }!
            let (value, stamp) = current(field)
            if value != last.value || stamp != last.stamp { return "\(field) is not its last write \(last.stamp)" }
        }
        func traced(_ w: Write, _ depth: Int) -> Bool {
            if current(w.field).1 == w.stamp { return true }
            let seen = writes.contains { $0.field == w.field && $0.commit != w.commit && commits[$0.commit].ancestors.contains(w.commit) }
            if seen { return true }
            let lost = Self.isMapWrite(w.field) ? ChoreFields.entryValue(map: ChoreFields.mapEntry(ofLogField: w.field)!.map, w.value) : w.value
            if entries.contains(where: { $0.field == w.field && $0.lost.value == lost && $0.lost.fieldStamp == w.stamp }) {
                return true
            }
            // A merge met the same value with a greater stamp: this write lives on as that one.
            guard depth < 64, let greater = subsumed[Self.key(w.field, w.stamp)],
                let w2 = writes.first(where: { $0.field == w.field && $0.stamp == greater })
            else { return false }
            return traced(w2, depth + 1)
        }
        for w in writes where !traced(w, 0) {
            return "write \(w.field)=\(JSONWriter.compact(w.value)) @\(w.stamp) was lost without a trace"
        }
        return nil
    }
}
