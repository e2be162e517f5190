import FileKit
import Glibc
import GitKit
import TodoCore

/// A cache of every task's visible fields in `.git/todo/list-cache`, keyed by the `tasks` tree
/// it was read from. When the tree has moved on, only the task files that changed are read
/// again. The cache is never the truth: anything odd about it and it is rebuilt from git.
///
/// File: "TODOLC3\n" · the tasks tree id (40 hex) · record count u32 · records, each a kind byte
/// (0: a task, TaskRecord layout; 1: an unreadable file: path, reason).
struct ListCache {
    static let magic = Array("TODOLC3\n".utf8)
    /// Past this many changed files a full read is as cheap as patching.
    static let patchLimit = 2_000
    /// A patch of up to this many files is not written back: the next list patches again.
    static let rewriteAfter = 64

    var tree: ObjectID
    /// In no particular order.
    var tasks: [Task]
    var bad: [BadFile]
    /// What a list shows of each chore and checklist: `facts[i]` is `tasks[i]`'s (nil for a
    /// plain task). Kept beside the tasks, not by id, so that a list finds them without hashing.
    var facts: SparseFacts
    /// `unparsed[i]`: the extra fields of `tasks[i]` as JSON text, when read without them
    /// (`read(parseExtra: false)`).
    var unparsed: [ArraySlice<UInt8>?]

    /// From the task files: each chore's and checklist's facts worked out here, for `today`.
    init(tree: ObjectID, tasks: [Task], bad: [BadFile], today: CivilDate, context: TurnContext) {
        self.init(
            tree: tree, tasks: tasks, bad: bad, facts: SparseFacts(tasks.lazy.map { ListFacts($0, today: today, context: context) }),
            unparsed: Array(repeating: nil, count: tasks.count))
    }

    init(tree: ObjectID, tasks: [Task], bad: [BadFile], facts: SparseFacts, unparsed: [ArraySlice<UInt8>?]) {
        precondition(facts.count == tasks.count && unparsed.count == tasks.count)
        self.tree = tree
        self.tasks = tasks
        self.bad = bad
        self.facts = facts
        self.unparsed = unparsed
    }

    static func path(_ repo: Repository) -> String { repo.gitDirectory + "todo/list-cache" }

    /// The cache file's content; with `parseExtra` false the tasks' extra fields are kept as
    /// text (a list needs only their facts).
    static func read(_ repo: Repository, parseExtra: Bool = true) -> ListCache? {
        // A cache that cannot be read is rebuilt from the tree, whatever the reason.
        guard let bytes = try? WholeFile.read(path(repo)) else { return nil }
        return parse(bytes, parseExtra: parseExtra)
    }

    /// A cache file's bytes read back; nil when they are not a whole cache.
    static func parse(_ bytes: [UInt8], parseExtra: Bool) -> ListCache? {
        guard bytes.count >= 52, Array(bytes[0..<8]) == magic, let tree = ObjectID(hex: String(decoding: bytes[8..<48], as: UTF8.self))
        else { return nil }
        var r = TaskRecord.Reader(bytes: bytes, offset: 48)
        guard let count = r.int(4) else { return nil }
        var tasks: [Task] = []
        var facts = SparseFacts()
        var unparsed: [ArraySlice<UInt8>?] = []
        // No more records than the bytes can hold (the smallest, an unreadable file's, is 9).
        let capacity = min(Int(count), bytes.count / 9)
        tasks.reserveCapacity(capacity)
        facts.reserveCapacity(capacity)
        unparsed.reserveCapacity(capacity)
        var bad: [BadFile] = []
        var sharing = TaskRecord.Sharing()
        for _ in 0..<count {
            switch r.byte() {
            case 0:
                var offset = r.offset
                guard let entry = TaskRecord.read(bytes, at: &offset, parseExtra: parseExtra, sharing: &sharing) else { return nil }
                r.offset = offset
                tasks.append(entry.task)
                facts.append(entry.facts)
                unparsed.append(entry.unparsedExtra)
            case 1:
                guard let p = r.string(), let reason = r.string() else { return nil }
                bad.append(BadFile(path: p, reason: reason))
            default:
                return nil
            }
        }
        guard r.offset == bytes.count else { return nil }
        return ListCache(tree: tree, tasks: tasks, bad: bad, facts: facts, unparsed: unparsed)
    }

    /// Writes the cache atomically; failures are ignored (it is only a cache).
    func write(_ repo: Repository) {
        var file = File(tree: tree, capacity: tasks.count)
        for i in tasks.indices { file.append(tasks[i], facts: facts[i], extraText: unparsed[i]) }
        file.write(repo, bad: bad)
    }

    /// A cache file as it is made: the header, then records appended one at a time (the count
    /// in the header is set as each is appended).
    struct File {
        let tree: ObjectID
        private(set) var bytes: [UInt8]
        private var count: UInt32 = 0

        init(tree: ObjectID, capacity: Int) {
            self.tree = tree
            bytes = ListCache.magic
            bytes.reserveCapacity(capacity * 160)
            bytes.append(contentsOf: Array(tree.hex.utf8))
            TaskRecord.appendInt(0, 4, to: &bytes)
        }

        /// Room for about `tasks` records.
        mutating func reserve(_ tasks: Int) { bytes.reserveCapacity(bytes.count + tasks * 160) }

        /// A task's record (`facts` as `TaskRecord.append` takes them).
        mutating func append(_ task: Task, facts: ListFacts?, extraText: ArraySlice<UInt8>? = nil) {
            bytes.append(0)
            TaskRecord.append(task, facts: facts, today: .init(daysSinceEpoch: 0), extraText: extraText, to: &bytes)
            setCount(count + 1)
        }

        /// The unreadable files' records after the tasks', then the file written atomically;
        /// failures are ignored (it is only a cache).
        mutating func write(_ repo: Repository, bad: [BadFile]) {
            for b in bad {
                bytes.append(1)
                TaskRecord.appendString(b.path, to: &bytes)
                TaskRecord.appendString(b.reason, to: &bytes)
                setCount(count + 1)
            }
            mkdir(repo.gitDirectory + "todo", 0o755)
            // A cache that cannot be written is only rebuilt next time.
            try? writeFile(ListCache.path(repo), bytes, sync: false)
            UnreadableRecord.write(repo, tree: tree, bad: bad)
        }

        private mutating func setCount(_ n: UInt32) {
            count = n
            for i in 0..<4 { bytes[48 + i] = UInt8(truncatingIfNeeded: n >> (8 * UInt32(i))) }
        }
    }
}

extension Snapshot {
    /// Every task, through the list cache: read from it when it matches this snapshot, patched
    /// with the changed files when it is behind, rebuilt when it is missing or unreadable.
    func loadAllCached() throws(StoreError) -> (tasks: [Task], bad: [BadFile]) {
        guard let c = try cachedTasks(parseExtra: true, today: WallClock.system.today, context: turnContext(.system)) else {
            return ([], [])
        }
        return (c.tasks, c.bad)
    }

    /// The current cache, read (with or without the tasks' extra fields), patched or rebuilt;
    /// nil when the household has no tasks tree. Facts worked out here are `today`'s.
    func cachedTasks(parseExtra: Bool, today: CivilDate, context: TurnContext) throws(StoreError) -> ListCache? {
        guard let tasksTree else { return nil }
        var cache = ListCache.read(repo, parseExtra: parseExtra)
        if let tree = cache?.tree, tree != tasksTree, let c = cache.take() {
            // Taken out first, so that the patch changes the only copy of the tasks in place.
            cache = patch(c, to: tasksTree, today: today, context: context)
        }
        if let cache, cache.tree == tasksTree {
            return cache
        }
        return try rebuiltCache(tasksTree, parseExtra: parseExtra, today: today, context: context)
    }

    /// The cache made afresh from every task file, one file at a time: each task is decoded,
    /// its record appended and the task let go, so that the household's whole tasks (their
    /// stamps above all) are never held at once. The tasks given back are the file read back,
    /// exactly what the next list reads from it.
    func rebuiltCache(_ tasksTree: ObjectID, parseExtra: Bool, today: CivilDate, context: TurnContext) throws(StoreError) -> ListCache {
        var file = ListCache.File(tree: tasksTree, capacity: 0)
        let bad = try forEachTaskFile(count: { file.reserve($0) }) { task in
            file.append(task, facts: ListFacts(task, today: today, context: context))
        }
        file.write(repo, bad: bad)
        // Every blob was read: the packs' mapped pages go before the records are read back.
        repo.releaseCaches()
        if let cache = ListCache.parse(file.bytes, parseExtra: parseExtra) { return cache }
        // Records this version wrote that it cannot read back (none are known): the tasks as decoded.
        let (tasks, unreadable) = try loadAllFromFiles()
        return ListCache(tree: tasksTree, tasks: tasks, bad: unreadable, today: today, context: context)
    }

    /// Brings a cache up to `target` by reading only the task files that differ; nil when the
    /// difference is too large or not just task files.
    func patch(_ cache: consuming ListCache, to target: ObjectID, today: CivilDate, context: TurnContext) -> ListCache? {
        // A difference that cannot be read: no patch, the caller reads every file (the doc comment).
        guard let diff = try? changedFiles(oldTasks: cache.tree, newTasks: target), diff.count <= ListCache.patchLimit
        else { return nil }
        // The settings file holds the roster, which every chore's turns depend on: read all again.
        if diff.contains(where: { $0.0 == HouseholdSettings.id }) { return nil }
        var c = consume cache
        // Every changed file is judged afresh: the changed tasks as they are now (nil: gone or
        // unreadable) and the ones now unreadable, then one pass over the cache that replaces
        // or drops the old entries, good or bad; what is left of `changed` is new.
        var changed: [TaskID: Task?] = [:]
        changed.reserveCapacity(diff.count)
        var unreadable: [BadFile] = []
        for (name, _, new) in diff {
            guard let id = name else { return nil }
            changed[id] = .some(nil)
            guard let new else { continue }
            do {
                changed[id] = try decode(blob: new, id: id)
            } catch .malformedTask(let p, let reason) {
                unreadable.append(BadFile(path: p, reason: reason))
            } catch {
                return nil
            }
        }
        let changedPaths = Set(changed.keys.map(\.path))
        c.bad.removeAll { changedPaths.contains($0.path) }
        c.bad += unreadable
        // Where the changed tasks are in the cache: ids read in place (a copy of each Task would
        // retain and release all of its fields), by the first half of their number, which needs
        // neither the id's string nor a hash of it; only a match is looked up whole.
        var found: [(Int, Task?)] = []
        let highs = Set(changed.keys.map(\.high))
        c.tasks.withUnsafeBufferPointer { tasks in
            for i in tasks.indices {
                if changed.isEmpty { break }
                guard highs.contains(tasks[i].id.high) else { continue }
                if let now = changed.removeValue(forKey: tasks[i].id) { found.append((i, now)) }
            }
        }
        var gone = Set<Int>()
        for (i, now) in found {
            guard let now else {
                gone.insert(i)
                continue
            }
            c.tasks[i] = now
            c.facts[i] = ListFacts(now, today: today, context: context)
            c.unparsed[i] = nil
        }
        if !gone.isEmpty {
            let kept = c.tasks.indices.filter { !gone.contains($0) }
            c.tasks = kept.map { c.tasks[$0] }
            c.facts = SparseFacts(kept.lazy.map { c.facts[$0] })
            c.unparsed = kept.map { c.unparsed[$0] }
        }
        for case let (_, now?) in changed {
            c.tasks.append(now)
            c.facts.append(ListFacts(now, today: today, context: context))
            c.unparsed.append(nil)
        }
        c.tree = target
        // Rewriting the whole cache costs more than patching a few files again next time.
        if diff.count > ListCache.rewriteAfter { c.write(repo) }
        return c
    }

    /// Files that differ between two `tasks` trees, comparing subtree ids so that only changed
    /// fan-out directories are read. A nil id marks an entry that is not a task file.
    func changedFiles(oldTasks: ObjectID?, newTasks: ObjectID?) throws -> [(TaskID?, ObjectID?, ObjectID?)] {
        func entries(_ tree: ObjectID?) throws -> [String: TreeEntry] {
            guard let tree else { return [:] }
            var map: [String: TreeEntry] = [:]
            for e in try repo.treeEntries(tree) { map[e.name] = e }
            return map
        }
        if oldTasks == newTasks { return [] }
        let oldDirs = try entries(oldTasks)
        let newDirs = try entries(newTasks)
        var out: [(TaskID?, ObjectID?, ObjectID?)] = []
        for name in Set(oldDirs.keys).union(newDirs.keys).sorted() {
            let o = oldDirs[name]
            let n = newDirs[name]
            if o?.id == n?.id { continue }
            if (o != nil && o?.kind != .tree) || (n != nil && n?.kind != .tree) {
                out.append((nil, o?.id, n?.id))
                continue
            }
            let oldFiles = try entries(o?.id)
            let newFiles = try entries(n?.id)
            for file in Set(oldFiles.keys).union(newFiles.keys).sorted() {
                let of = oldFiles[file]
                let nf = newFiles[file]
                if of?.id == nf?.id && of?.mode == nf?.mode { continue }
                let id = Self.taskID(fileName: file, dir: name)
                let plain = (of == nil || of?.kind == .blob) && (nf == nil || nf?.kind == .blob)
                out.append((plain ? id : nil, of?.id, nf?.id))
            }
        }
        return out
    }
}
