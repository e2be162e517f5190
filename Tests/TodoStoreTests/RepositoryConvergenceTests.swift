import Foundation
import Testing
import TodoCore

@testable import TodoStore

/// Convergence through real repositories: replicas are households that sync in process through
/// libgit2 with a bare path remote, so the fetch, the merge driver, modify/delete handling, the
/// merge commit and the push all take part. Clocks are skewed up to a day either way.
///
/// `TODO_PROPERTY_SEED` replays a run; the seed is printed.
@Suite(.timeLimit(.minutes(20)), .kit) struct RepositoryConvergenceTests {
    static let histories = 12

    @Test(arguments: 0..<histories)
    func replicasSyncingThroughARemoteConverge(history: Int) throws {
        var rng = PropertySeed.generator(case: history, salt: 0x9E37_79B9_7F4A_7C15)
        print("repository convergence: \(PropertySeed.describe(case: history))")
        var world = try World(replicas: 3 + rng.int(3), rng: &rng)
        for _ in 0..<(25 + rng.int(20)) {
            if rng.int(100) < 60 {
                try world.edit(by: rng.int(world.replicas.count), rng: &rng)
            } else {
                try world.sync(rng.int(world.replicas.count))
            }
        }
        // Everyone syncs, twice round, so every change reaches everyone.
        for _ in 0..<2 {
            for r in world.replicas.indices { try world.sync(r) }
        }
        let label = PropertySeed.describe(case: history)
        let heads = try world.replicas.map { try git("rev-parse", "HEAD^{tree}", in: $0.path) }
        #expect(Set(heads).count == 1, "\(label): replicas differ: \(heads)\n\(world.log.joined(separator: "\n"))")
        for r in world.replicas {
            #expect(try run(["git", "fsck", "--strict", "--no-progress"], in: r.path).status == 0, "\(label)")
            #expect(try git("status", "--porcelain", in: r.path).isEmpty, "\(label)")
        }
        if ProcessInfo.processInfo.environment["TODO_SHOW_LOG"] != nil { print(world.log.joined(separator: "\n")) }
        if let problem = try world.checkWrites() {
            Issue.record("\(label): \(problem)\n\(world.log.joined(separator: "\n"))")
        }
    }
}

struct World {
    struct Replica {
        let member: String
        let home: String
        let path: String
        /// How far this member's clock is off, in milliseconds.
        let skew: Int64
    }

    /// One field write: what, by whom, in which commit.
    struct Write {
        let task: TaskID
        let field: String
        let value: JSONValue
        let stamp: FieldStamp
        let replica: Int
        let commit: String
    }

    static let day: Int64 = 86_400_000
    let dir = TempDir()
    var replicas: [Replica] = []
    var tasks: [TaskID] = []
    var writes: [Write] = []
    var log: [String] = []
    /// The true time, advancing by a second per operation.
    var now: Int64 = 1_800_000_000_000
    let remote: String

    init(replicas count: Int, rng: inout SplitMix64) throws {
        remote = dir.path + "/remote.git"
        try git("init", "-q", "--bare", "-b", "main", remote, in: dir.path)
        for i in 0..<count {
            let member = ["Ana", "Ben", "Cleo", "Dev", "Eli"][i]
            let skew = Int64(rng.int(2 * 24 * 60) - 24 * 60) * 60_000
            let home = dir.path + "/\(member)"
            let replica = Replica(member: member, home: home, path: home + "/home", skew: skew)
            let identity = Identity(name: member, email: "\(member.lowercased())@example.org")
            if i == 0 {
                let h = try Household.create(
                    home: home, name: "home", identity: identity, clock: .fixed(now + skew), driverCommand: "false")
                try h.setRemote(remote)
                replicas.append(replica)
                // Two tasks everyone starts from; more are added as the history goes on.
                for _ in 0..<2 { try add(by: 0, rng: &rng) }
                try sync(0)
            } else {
                var options = SyncOptions()
                options.home = home
                _ = try Household.clone(
                    home: home, name: "home", url: remote, identity: identity, clock: .fixed(now + skew),
                    driverCommand: "false", options: options)
                replicas.append(replica)
            }
        }
    }

    mutating func household(_ r: Int) throws -> Household {
        now += 1000
        return try Household.open(home: replicas[r].home, name: "home", clock: .fixed(now + replicas[r].skew))
    }

    mutating func sync(_ r: Int) throws {
        let h = try household(r)
        var options = SyncOptions()
        options.home = replicas[r].home
        options.attempts = 1
        let report = try h.sync(options)
        log.append("\(replicas[r].member) syncs: received \(report.received), sent \(report.sent), \(report.conflicts.count) conflicts")
    }

    mutating func add(by r: Int, rng: inout SplitMix64) throws {
        let h = try household(r)
        let stamper = try h.stamper()
        var local = SystemRandomNumberGenerator()
        let id = TaskID.random(using: &local)
        let title = "task \(tasks.count)"
        let task: Task = try h.update { snap in
            var task = Task(id: id, title: title, createdAt: isoMillis(stamper.clock.nowMillis()), createdBy: stamper.member)
            let stamp = stamper.stamp(after: nil)
            for field in Task.stampedFields { task.stamps[field] = stamp }
            return Household.Update(tasks: [task], message: "add: \(title)", value: task)
        }
        tasks.append(id)
        let commit = try head(r)
        for field in Task.stampedFields {
            writes.append(Write(task: id, field: field, value: task.value(of: field)!, stamp: task.stamps[field]!, replica: r, commit: commit))
        }
        log.append("\(replicas[r].member) adds \(id.hex.prefix(6)) @\(commit.prefix(7))")
    }

    mutating func edit(by r: Int, rng: inout SplitMix64) throws {
        if rng.int(10) == 0 { return try add(by: r, rng: &rng) }
        let h = try household(r)
        let snap = try h.snapshot()
        let known = tasks.filter { (try? snap.task($0)) != nil }
        guard !known.isEmpty else { return }
        let id = rng.pick(known)
        let stamper = try h.stamper()
        let choice = rng.int(8)
        let word = rng.pick(["milk", "bread", "eggs", "tea", "soap"])
        var done: [(String, JSONValue, FieldStamp)] = []
        try h.update { snap in
            var task = try snap.task(id)!
            let stamp = stamper.stamp(after: task)
            switch choice {
            case 0, 1: try task.write("title", .string("\(word) \(rng.int(100))"), stamp: stamp)
            case 2: try task.write("notes", .string(word), stamp: stamp)
            case 3: try task.write("priority", .string(rng.pick(["low", "normal", "high"])), stamp: stamp)
            case 4: try task.write("status", .string(task.status == .open ? "done" : "open"), stamp: stamp)
            case 5: try task.write("deleted", .bool(!task.deleted), stamp: stamp)
            default: task.setTag(word, present: rng.int(3) != 0, stamp: stamp)
            }
            if choice >= 6 {
                done = [("tag:" + word, .bool(task.tagStates[word]!.present), stamp)]
            } else {
                let field = ["title", "title", "notes", "priority", "status", "deleted"][choice]
                done = [(field, task.value(of: field)!, stamp)]
            }
            return Household.Update(tasks: [task], message: "edit: \(id.hex.prefix(6))", value: ())
        }
        let commit = try head(r)
        for (field, value, stamp) in done {
            writes.append(Write(task: id, field: field, value: value, stamp: stamp, replica: r, commit: commit))
            log.append("\(replicas[r].member) sets \(id.hex.prefix(6)).\(field) = \(JSONWriter.compact(value)) @\(stamp) in \(commit.prefix(7))")
        }
    }

    func head(_ r: Int) throws -> String {
        try git("rev-parse", "HEAD", in: replicas[r].path).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func isAncestor(_ a: String, of b: String) throws -> Bool {
        try run(["git", "merge-base", "--is-ancestor", a, b], in: replicas[0].path).status == 0
    }

    /// Each field ends with the value of its greatest-stamped write; every other write was
    /// overwritten by a writer that had seen it (its commit is an ancestor), is in the conflict
    /// log with its value and stamp, its value is the one that stands, or a later write of the
    /// same value is itself accounted for.
    func checkWrites() throws -> String? {
        let snap = try Household.open(home: replicas[0].home, name: "home").snapshot()
        for id in tasks {
            guard let task = try snap.task(id) else { return "task \(id.hex) is missing" }
            let entries = task.conflicts.compactMap { try? ConflictEntry(json: $0) }
            func current(_ field: String) -> (JSONValue?, FieldStamp?) {
                if field.hasPrefix("tag:") {
                    let state = task.tagStates[String(field.dropFirst(4))]
                    return (state.map { .bool($0.present) }, state?.stamp)
                }
                return (task.value(of: field), task.stamps[field])
            }
            let mine = writes.filter { $0.task == id }
            for field in Set(mine.map(\.field)) {
                let same = mine.filter { $0.field == field }
                let last = same.max { FieldStamp.precedes($0.stamp, $1.stamp) }!
                let (value, stamp) = current(field)
                if stamp != last.stamp || value != last.value {
                    return "\(id.hex.prefix(6)).\(field) is \(value.map(JSONWriter.compact) ?? "absent") @\(stamp.map { "\($0)" } ?? "-"), not its last write \(JSONWriter.compact(last.value)) @\(last.stamp)"
                }
                // Latest first, so that a write can lean on a later one with the same value: when
                // two members wrote the same value, the merge keeps the later stamp and has nothing
                // to log, and whoever later overwrites that value has seen what both wanted.
                var accounted: [Write] = [last]
                for w in same.sorted(by: { FieldStamp.precedes($1.stamp, $0.stamp) }) where w.stamp != last.stamp {
                    defer { accounted.append(w) }
                    if w.value == value { continue }
                    if try same.contains(where: { try $0.commit != w.commit && isAncestor(w.commit, of: $0.commit) }) { continue }
                    if entries.contains(where: { $0.field == field && $0.lost.value == w.value && $0.lost.fieldStamp == w.stamp }) {
                        continue
                    }
                    if accounted.contains(where: { $0.value == w.value && FieldStamp.precedes(w.stamp, $0.stamp) }) { continue }
                    return "\(id.hex.prefix(6)).\(field) = \(JSONWriter.compact(w.value)) @\(w.stamp) was lost without a trace"
                }
            }
        }
        return nil
    }
}
