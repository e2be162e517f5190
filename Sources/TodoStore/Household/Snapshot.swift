import GitKit
public import TodoCore

/// A task file that could not be read, and why.
public struct BadFile: Sendable, Equatable {
    public let path: String
    public let reason: String
}

/// The household as of one commit: read-only, consistent, cheap to take.
public struct Snapshot {
    let repo: Repository
    /// The commit read; nil before the first commit (`commitHex` outside the store).
    let commit: ObjectID?
    let tree: ObjectID?
    /// The `tasks` tree, if any.
    let tasksTree: ObjectID?

    init(repo: Repository) throws {
        try self.init(repo: repo, commit: try repo.resolve(reference: Household.branch))
    }

    init(repo: Repository, commit: ObjectID?) throws {
        self.repo = repo
        self.commit = commit
        tree = try commit.map { try repo.commit($0).tree }
        tasksTree = try tree.flatMap { try repo.treeEntry($0, path: "tasks") }.flatMap { $0.kind == .tree ? $0.id : nil }
    }

    /// The fan-out directories (`tasks/<aa>`), by name.
    func fanout() throws -> [TreeEntry] {
        guard let tasksTree else { return [] }
        return try repo.treeEntries(tasksTree).filter { $0.kind == .tree }
    }

    /// Every task file's id and blob, plus entries that do not belong in `tasks/`.
    func taskFiles() throws -> (files: [(TaskID, ObjectID)], strays: [String]) {
        var files: [(TaskID, ObjectID)] = []
        var strays: [String] = []
        guard let tasksTree else { return ([], []) }
        for dir in try repo.treeEntries(tasksTree) {
            guard dir.kind == .tree else {
                strays.append("tasks/\(dir.name)")
                continue
            }
            for entry in try repo.treeEntries(dir.id) {
                if let id = Self.taskID(fileName: entry.name, dir: dir.name), entry.kind == .blob {
                    files.append((id, entry.id))
                } else {
                    strays.append("tasks/\(dir.name)/\(entry.name)")
                }
            }
        }
        return (files, strays)
    }

    /// `<id>.json` inside `<first two of id>`; nil for any other name.
    static func taskID(fileName: String, dir: String) -> TaskID? {
        guard fileName.hasSuffix(".json"), let id = TaskID(String(fileName.dropLast(5))), dir.utf8.count == 2,
            id.hexPrefix(2) == dir
        else { return nil }
        return id
    }

    /// The ids in one fan-out directory.
    func ids(inDirectory prefix2: String) throws -> [TaskID] {
        guard let tasksTree, let dir = try repo.treeEntry(tasksTree, path: prefix2), dir.kind == .tree else {
            return []
        }
        return try repo.treeEntries(dir.id).compactMap { Self.taskID(fileName: $0.name, dir: prefix2) }
    }

    /// Reads one task; nil when no such file exists.
    public func task(_ id: TaskID) throws(StoreError) -> Task? {
        do {
            guard let tree, let entry = try repo.treeEntry(tree, path: id.path) else { return nil }
            return try decode(blob: entry.id, id: id)
        } catch {
            throw StoreError.from(error, path: id.path)
        }
    }

    func decode(blob: ObjectID, id: TaskID) throws(StoreError) -> Task {
        let bytes: [UInt8]
        do {
            bytes = try repo.readBlob(blob, limit: TaskCodec.maxFileSize)
        } catch is BlobTooLarge {
            throw .malformedTask(path: id.path, reason: "file is larger than 1 MiB")
        } catch {
            throw StoreError.from(error, path: id.path)
        }
        do {
            return try TaskCodec.decode(bytes, expectedID: id)
        } catch {
            throw .malformedTask(path: id.path, reason: error.message)
        }
    }

    /// Every task that can be read, and the files that cannot (named, with the reason).
    public func loadAll() throws(StoreError) -> (tasks: [Task], bad: [BadFile]) {
        try loadAllCached()
    }

    /// What `todo list` needs: every task without its extra fields (`extra` is empty), the
    /// facts of each chore and checklist (`facts[i]` is `tasks[i]`'s, nil for a plain task),
    /// and the files that cannot be read. Cheaper than `loadAll` when many tasks are chores or
    /// checklists.
    public func loadListView(today: CivilDate, context: TurnContext) throws(StoreError) -> (tasks: [Task], facts: SparseFacts, bad: [BadFile]) {
        guard var c = try cachedTasks(parseExtra: false, today: today, context: context) else { return ([], SparseFacts(), []) }
        // A chore's facts hold for a span of days (its current occurrence moves with the
        // calendar): those that do not hold today are worked out again, and kept for next time.
        var renewed = false
        for i in c.facts.indices {
            guard let f = c.facts[i], f.isChore, !f.holds(on: today) else { continue }
            var task = c.tasks[i]
            if task.extra.isEmpty, let text = c.unparsed[i], case .object(let members)? = try? JSONParser.parse(Array(text)) {  // not parsed: the task stays as the cache had it
                for (k, v) in members { task.extra[k] = v }
            }
            c.facts[i] = ListFacts(task, today: today, context: context)
            renewed = true
        }
        if renewed { c.write(repo) }
        // Tasks decoded from their files by a patch carry their extra fields: drop them too.
        for i in c.tasks.indices where !c.tasks[i].extra.isEmpty { c.tasks[i].extra = [:] }
        return (c.tasks, c.facts, c.bad)
    }

    /// Like `loadAll`, reading every file (no cache).
    public func loadAllFromFiles() throws(StoreError) -> (tasks: [Task], bad: [BadFile]) {
        var tasks: [Task] = []
        let bad = try forEachTaskFile(count: { tasks.reserveCapacity($0) }) { tasks.append($0) }
        return (tasks, bad)
    }

    /// Decodes every task file in turn, giving each task to `body` (`count` is told how many
    /// files there are first); returns the files that cannot be read.
    func forEachTaskFile(count: (Int) -> Void = { _ in }, _ body: (Task) -> Void) throws(StoreError) -> [BadFile] {
        let listing: (files: [(TaskID, ObjectID)], strays: [String])
        do {
            listing = try taskFiles()
        } catch {
            throw StoreError.from(error, path: "tasks")
        }
        count(listing.files.count)
        var bad = listing.strays.map { BadFile(path: $0, reason: "not a task file") }
        for (id, blob) in listing.files {
            do {
                body(try decode(blob: blob, id: id))
            } catch .malformedTask(let path, let reason) {
                bad.append(BadFile(path: path, reason: reason))
            }
        }
        return bad
    }

    /// Finds the one task whose id starts with `prefix`. Like git's abbreviations, a prefix has
    /// at least `ShortIDs.minimum` characters: a shorter one that names one task today would
    /// name another, or several, once the household grows, so it is refused whatever it matches.
    public func resolve(_ prefix: String) throws(StoreError) -> TaskID {
        guard prefix.count >= ShortIDs.minimum else { throw .idTooShort(prefix) }
        let p = prefix.lowercased()
        guard p.utf8.count <= 32, p.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
        else { throw .taskNotFound(prefix) }
        var matches: [TaskID] = []
        do {
            matches = try ids(inDirectory: String(p.prefix(2))).filter { $0.hex.hasPrefix(p) }
        } catch {
            throw StoreError.from(error, path: "tasks")
        }
        // The settings file is not a task: a prefix that names it alone is refused.
        if let i = matches.firstIndex(of: HouseholdSettings.id) {
            matches.remove(at: i)
            if matches.isEmpty { throw .settingsNotATask(prefix) }
        }
        if matches.count == 1 { return matches[0] }
        if matches.isEmpty { throw .taskNotFound(prefix) }
        let sorted = matches.sorted()
        throw .ambiguousID(prefix, candidates: ShortIDs.compute(sorted.map(\.hex)).map { $0 })
    }

    /// The shortest unique prefix (at least 4 characters) of each of `ids` among every task id.
    /// Only ids sharing the first two characters can collide, so only their directories are read.
    /// `adding` names ids about to be written, which count as existing.
    public func shortIDs(_ ids: [TaskID], adding: [TaskID] = []) throws(StoreError) -> [TaskID: String] {
        var result: [TaskID: String] = [:]
        let dirs = Set(ids.map { String($0.hex.prefix(2)) })
        do {
            for dir in dirs {
                let present = try self.ids(inDirectory: dir) + adding.filter { $0.hex.hasPrefix(dir) }
                let all = Set(present.map(\.hex)).sorted()
                let shorts = ShortIDs.compute(all)
                for (hex, short) in zip(all, shorts) {
                    if let id = TaskID(hex) { result[id] = short }
                }
            }
        } catch {
            throw StoreError.from(error, path: "tasks")
        }
        for id in ids where result[id] == nil { result[id] = String(id.hex.prefix(ShortIDs.minimum)) }
        return result
    }
}

extension Snapshot {
    /// Every task id in the snapshot (from the tree listing only; no file is read).
    public func loadAllIDs() throws(StoreError) -> [TaskID] {
        do {
            return try taskFiles().files.map(\.0)
        } catch {
            throw StoreError.from(error, path: "tasks")
        }
    }
}
