import FileKit
import Glibc
import GitKit
import SystemPackage
import TodoCore

/// How mail leaves over SMTP.
public enum SMTPSecurity: String, Sendable {
    case none, starttls, tls
}

/// The settings of the machine that sends reminders (docs/FORMAT.md, "Never in the repository"):
/// `$XDG_CONFIG_HOME/todo/remind`, readable by its owner only, overridden by the environment.
public struct ReminderSettings: Sendable, Equatable {
    public var smtpHost: String?
    public var smtpPort: Int?
    public var smtpSecurity: SMTPSecurity?
    public var smtpUser: String?
    public var smtpPassword: String?
    public var smtpFrom: String?
    public var sendmail = "/usr/sbin/sendmail"
    public var postToken: String?
    /// A PEM file of authorities trusted beside the system's (a household's own CA).
    public var caFile: String?

    public init() {}

    static let keys: [(file: String, env: String)] = [
        ("smtp.host", "TODO_SMTP_HOST"), ("smtp.port", "TODO_SMTP_PORT"), ("smtp.tls", "TODO_SMTP_TLS"),
        ("smtp.user", "TODO_SMTP_USER"), ("smtp.password", "TODO_SMTP_PASSWORD"), ("smtp.from", "TODO_SMTP_FROM"),
        ("sendmail", "TODO_SENDMAIL"), ("post.token", "TODO_POST_TOKEN"), ("tls.ca", "TODO_TLS_CA"),
    ]

    /// Reads `path` (absent is fine) and then the environment through `env`.
    public static func load(path: String, env: (String) -> String?) throws(ReminderConfigError) -> ReminderSettings {
        var values: [String: String] = [:]
        var st = stat()
        if lstat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFREG else { throw .unsafeFile(path: path, why: .notRegularFile) }
            guard st.st_uid == getuid() else { throw .unsafeFile(path: path, why: .otherOwner) }
            guard st.st_mode & 0o077 == 0 else { throw .unsafeFile(path: path, why: .openToOthers) }
            // An unreadable settings file is a typed failure (unsafeFile .unreadable), not nothing.
            guard let bytes = try? WholeFile.read(path) else { throw .unsafeFile(path: path, why: .unreadable) }
            values = KeyValueText.parse(String(decoding: bytes, as: UTF8.self))
        }
        for (key, name) in keys {
            if let v = env(name), !v.isEmpty { values[key] = v }
        }
        var s = ReminderSettings()
        func text(_ key: String) -> String? {
            guard let v = values[key]?.trimmingCharacters(), !v.isEmpty else { return nil }
            return v
        }
        s.smtpHost = text("smtp.host")
        if let p = text("smtp.port") {
            guard let n = Int(p), n > 0, n < 65536 else { throw .badSetting(key: "smtp.port", value: p, expected: .port) }
            s.smtpPort = n
        }
        if let t = text("smtp.tls") {
            guard let v = SMTPSecurity(rawValue: t) else { throw .badSetting(key: "smtp.tls", value: t, expected: .security) }
            s.smtpSecurity = v
        }
        s.smtpUser = text("smtp.user")
        // A password may begin or end with spaces: kept as written.
        s.smtpPassword = values["smtp.password"].flatMap { $0.isEmpty ? nil : $0 }
        if let f = text("smtp.from") {
            guard MemberInput.isEmail(f) else { throw .badSetting(key: "smtp.from", value: f, expected: .email) }
            s.smtpFrom = f
        }
        if let m = text("sendmail") { s.sendmail = m }
        s.postToken = text("post.token")
        s.caFile = text("tls.ca")
        for (key, value) in [("smtp.host", s.smtpHost), ("smtp.user", s.smtpUser), ("post.token", s.postToken)] {
            if let value, !value.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) {
                throw .badSetting(key: key, value: "", expected: .oneWord)
            }
        }
        return s
    }

    /// Whether `host` is this machine (mail to it stays on the machine).
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

extension String {
    func trimmingCharacters() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
        return String(s)
    }
}

/// What `todo remind` delivered, per member, on this machine only.
public struct ReminderState: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// The household day of the last delivered reminder.
        public var day: String?
        /// What was the member's then.
        public var theirs: Set<String>?
        /// The day a failure was last reported.
        public var failing: String?
        /// A reminder being sent and not yet recorded as delivered: its identity and the time of
        /// its first try, which a retry of the same reminder keeps as its Date.
        public var pending: String?

        public init(day: String? = nil, theirs: Set<String>? = nil, failing: String? = nil) {
            self.day = day
            self.theirs = theirs
            self.failing = failing
        }
    }

    public var members: [String: Entry] = [:]

    public init() {}

    /// Reads `path`; an absent file is an empty state.
    public static func load(_ path: String) throws(ReminderConfigError) -> ReminderState {
        var st = stat()
        guard stat(path, &st) == 0 else { return ReminderState() }
        // A state file that cannot be read or parsed is a typed failure (badState), not nothing.
        guard let bytes = try? WholeFile.read(path), case .object(let members)? = try? JSONParser.parse(bytes) else {
            throw .badState(path: path)
        }
        var state = ReminderState()
        for (name, value) in members {
            var e = Entry()
            e.day = value["day"]?.stringValue
            e.failing = value["failing"]?.stringValue
            e.pending = value["pending"]?.stringValue
            if case .array(let items)? = value["theirs"] { e.theirs = Set(items.compactMap(\.stringValue)) }
            state.members[name] = e
        }
        return state
    }

    /// Replaces `path` at once with this state (folders made as needed, mode 0600).
    public func save(_ path: String) throws(ReminderConfigError) {
        let members = self.members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { name -> (String, JSONValue) in
            let e = self.members[name]!
            var fields: [(String, JSONValue)] = []
            if let d = e.day { fields.append(("day", .string(d))) }
            if let f = e.failing { fields.append(("failing", .string(f))) }
            if let p = e.pending { fields.append(("pending", .string(p))) }
            if let t = e.theirs { fields.append(("theirs", .array(t.sorted().map { .string($0) }))) }
            return (name, .object(fields))
        }
        let bytes = JSONWriter.document(.object(members))
        let dir = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        Self.makeFolders(dir)
        do throws(FileError) {
            try WholeFile.replace(path, with: bytes, mode: 0o600)
        } catch {
            let step: StateWriteStep
            switch error.operation {
            case .open: step = .create
            case .rename: step = .rename
            // The temporary file's content, or the folder's entry, did not reach the disk.
            case .read, .write, .fsync: step = .write(temporary: error.path)
            }
            throw .cannotWriteState(path: path, step: step, errno: error.errno)
        }
    }

    /// Notes that `message` is about to be sent, or finds the time of its first try: the
    /// message's `firstTry` is that time either way, so that a retry of the same reminder (after
    /// a failure, or a kill between the send and the record) is the same message, byte for byte.
    /// Returns whether the state changed (to be saved before sending).
    public mutating func beginSending(_ message: inout ReminderMessage, member: String, nowMillis: Int64) -> Bool {
        let key = member.lowercased()
        if let p = members[key]?.pending, let space = p.firstIndex(of: " "), p[..<space] == message.identity,
            let millis = Int64(p[p.index(after: space)...])
        {
            message.firstTry = millis
            return false
        }
        message.firstTry = nowMillis
        members[key, default: .init()].pending = "\(message.identity) \(nowMillis)"
        return true
    }

    /// Holds this machine's lock for `path` while a run sends: two runs at once (a slow mail
    /// server, two cron lines) would both send. Gives up at once when another run holds it.
    public static func lock(_ path: String) throws(ReminderConfigError) -> any AnyObject & Sendable {
        let dir = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        makeFolders(dir)
        let held: FileLock?
        do {
            held = try FileLock.acquire(path: path + ".lock", timeout: 0)
        } catch let e as SystemError {
            // "open PATH" or "flock PATH": the call is the first word.
            throw .cannotWriteState(path: path + ".lock", step: .lock(call: String(e.what.prefix { $0 != " " })), errno: e.code)
        } catch {
            throw .cannotWriteState(path: path + ".lock", step: .lock(call: "open"), errno: .ioError)
        }
        guard let held else { throw .busy(path: path) }
        return held
    }

    static func makeFolders(_ dir: String) {
        guard !dir.isEmpty else { return }
        var st = stat()
        if stat(dir, &st) == 0 { return }
        makeFolders(String(dir[..<(dir.lastIndex(of: "/") ?? dir.startIndex)]))
        mkdir(dir, 0o700)
    }
}
