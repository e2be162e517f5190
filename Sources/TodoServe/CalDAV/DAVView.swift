import Synchronization
import TodoCore
import TodoStore

/// Which of a member's collections (docs/CALDAV.md, "Collections").
enum DAVCollection: Hashable, Sendable {
    case mine, household
    /// A checklist's own collection.
    case list(TaskID)

    /// The collection's segment in the address.
    var segment: String {
        switch self {
        case .mine: "mine"
        case .household: "household"
        case .list(let id): "list-" + id.hex
        }
    }

    init?(segment: String) {
        switch segment {
        case "mine": self = .mine
        case "household": self = .household
        default:
            guard segment.hasPrefix("list-"), let id = TaskID(String(segment.dropFirst(5))) else { return nil }
            self = .list(id)
        }
    }
}

/// What one item of a collection stands for.
enum DAVItemKind: Hashable, Sendable {
    case task
    case occurrence(CivilDate)
    /// A checklist item, by its key.
    case item(String)
}

/// One VTODO of a collection, rendered.
struct DAVItem: Sendable {
    /// The last segment of its address (`<UID>.ics`, or the name a client gave it).
    let name: String
    let task: TaskID
    let kind: DAVItemKind
    /// The blob of the task file it was rendered from (40 hex).
    let blob: String
    let vtodo: VTodo
    /// The Household collection's generated first line of DESCRIPTION, if any.
    let turnLine: String?
    let bytes: [UInt8]
    /// At most how many bytes `bytes` take as XML text (`calendar-data`): counted once, when the
    /// item is rendered, so that an answer's size is known before it is written.
    let xmlLength: Int
    /// `"<blob>.<8 hex of the bytes' FNV-1a>"`, quotes included: made once, when the item is
    /// rendered.
    let etag: String

    init(name: String, task: TaskID, kind: DAVItemKind, blob: String, vtodo: VTodo, turnLine: String?, bytes: [UInt8]) {
        self.name = name
        self.task = task
        self.kind = kind
        self.blob = blob
        self.vtodo = vtodo
        self.turnLine = turnLine
        self.bytes = bytes
        xmlLength = DAVWriter.escapedLength(bytes)
        etag = "\"\(blob).\(String(hex64(fnv1a64(bytes)).suffix(8)))\""
    }
}

/// The household as a member's collections see it at one commit and day: the tasks, their
/// blobs, the roster's turn context and the zone. Built once per commit (`DAVViews`).
struct DAVState: Sendable {
    let commit: String
    let today: CivilDate
    let tasks: [Task]
    let blobs: [TaskID: String]
    let context: TurnContext
    let zone: TimeZoneRules
    /// How many days ahead Mine shows a member's turns (`--caldav-days`).
    let days: Int
    /// Each task's items as rendered before, by its blob (shared by every state of the server):
    /// a new commit renders only the tasks it changed. Nil: render every task.
    let perTask: BoundedCache<[DAVItem]>?
    /// The checklists: tasks with items, not deleted, in title order.
    let checklists: [Task]
    /// Where each task is in `tasks`.
    private let index: [TaskID: Int]
    /// The collections already rendered from this state, by member and collection.
    private let rendered = BoundedCache<[DAVItem]>(limit: 64)

    init(
        commit: String, today: CivilDate, tasks: [Task], blobs: [TaskID: String], context: TurnContext, zone: TimeZoneRules,
        days: Int, perTask: BoundedCache<[DAVItem]>? = nil
    ) {
        self.commit = commit
        self.today = today
        self.tasks = tasks
        self.blobs = blobs
        self.context = context
        self.zone = zone
        self.days = days
        self.perTask = perTask
        checklists = tasks.filter { $0.id != HouseholdSettings.id && !$0.deleted && !$0.visibleItems.isEmpty }
            .sorted { ($0.title, $0.id) < ($1.title, $1.id) }
        index = Dictionary(tasks.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The sync token of this state (docs/CALDAV.md, "Reads and sync").
    var token: String { DAVToken.make(commit: commit, day: today) }

    func task(_ id: TaskID) -> Task? { index[id].map { tasks[$0] } }

    /// Every item of `collection` for `member`, in a stable order: rendered once per state.
    func items(_ collection: DAVCollection, member: String) -> [DAVItem] {
        rendered.value(member + "\u{0}" + collection.segment) { render(collection, member: member) }
    }

    private func render(_ collection: DAVCollection, member: String) -> [DAVItem] {
        if case .list(let id) = collection {
            guard let t = task(id), !t.deleted else { return [] }
            return DAVRender.items(of: t, in: collection, member: member, state: self)
        }
        // What a task renders to depends on its file, the member, the collection, the day, the
        // roster and zone (in the settings file) and how far ahead Mine looks.
        let context = "\u{0}" + member + "\u{0}" + collection.segment + "\u{0}" + today.description + "\u{0}"
            + (blobs[HouseholdSettings.id] ?? "") + "\u{0}" + String(days)
        var out: [DAVItem] = []
        for t in tasks where t.id != HouseholdSettings.id && !t.deleted {
            if let perTask, let blob = blobs[t.id] {
                out += perTask.value(blob + context) { DAVRender.items(of: t, in: collection, member: member, state: self) }
            } else {
                out += DAVRender.items(of: t, in: collection, member: member, state: self)
            }
        }
        return out
    }
}

/// Sync tokens: `http://todo.invalid/sync/<commit>/<YYYYMMDD>`.
enum DAVToken {
    static let prefix = "http://todo.invalid/sync/"

    static func make(commit: String, day: CivilDate) -> String {
        prefix + (commit.isEmpty ? "0" : commit) + "/" + ICalendarText.date(day)
    }

    /// The commit and day a token names; nil for a token this server did not make.
    static func parse(_ token: String) -> (commit: String, day: CivilDate)? {
        guard token.hasPrefix(prefix) else { return nil }
        let parts = token.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].utf8.count == 8, let day = try? ICalDateTime(String(parts[1]), tzid: nil).date else {  // not a date: not our token
            return nil
        }
        let commit = String(parts[0])
        guard commit == "0" || (commit.utf8.count == 40 && commit.utf8.allSatisfy(isLowerHex)) else { return nil }
        return (commit == "0" ? "" : commit, day)
    }
}

/// The states this server built, by commit and day, so that a client's sync between two
/// commits costs one build (docs/SERVE.md, "Fresh on every request").
final class DAVViews: Sendable {
    private let states = BoundedCache<DAVState>(limit: 8)
    /// Every state's rendered tasks, by blob (`DAVState.perTask`).
    let perTask = BoundedCache<[DAVItem]>(limit: 200_000)
    /// Every task file of the last commit read, whole (stamps and kept fields included, which
    /// the list cache leaves out), by id with its blob: the next commit reads only what changed.
    private let files = Mutex<(commit: String, tasks: [TaskID: (blob: String, task: Task)])?>(nil)

    /// Every readable task of `snap`, whole, with each file's blob.
    func tasks(_ snap: Snapshot) throws(StoreError) -> (tasks: [Task], blobs: [TaskID: String]) {
        let commit = snap.commitHex
        let last = files.withLock { $0 }
        var map: [TaskID: (blob: String, task: Task)]
        if let last, last.commit == commit {
            map = last.tasks
        } else if let last, let old = snap.atCommit(last.commit), let changed = try snap.changedTasks(since: old),
            changed.count <= 2_000
        {
            map = last.tasks
            for c in changed {
                // A file that cannot be read is left out, as every list leaves it out.
                if let blob = c.new, let t = snap.task(blob: blob, id: c.id) { map[c.id] = (blob, t) } else { map[c.id] = nil }
            }
        } else {
            map = [:]
            for (id, blob) in try snap.taskBlobs() {
                if let t = snap.task(blob: blob, id: id) { map[id] = (blob, t) }
            }
        }
        files.withLock { $0 = (commit, map) }
        var tasks: [Task] = []
        var blobs: [TaskID: String] = [:]
        tasks.reserveCapacity(map.count)
        for (id, entry) in map.sorted(by: { $0.key < $1.key }) {
            tasks.append(entry.task)
            blobs[id] = entry.blob
        }
        return (tasks, blobs)
    }

    func state(key: String, _ make: () throws -> DAVState) rethrows -> DAVState { try states.value(key, make) }
}
