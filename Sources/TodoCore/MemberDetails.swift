/// How a reminder reaches a member (docs/FORMAT.md, "Members' contact details").
public enum Delivery: String, Sendable, CaseIterable {
    case stdout, mail, post
}

/// One member's contact details, as the household settings file records them.
public struct MemberDetails: Equatable, Sendable {
    public var email: String?
    public var via: Delivery?
    public var postURL: String?
    /// Days between two reminders at most (1 to 30); nil: every day.
    public var everyDays: Int?
    /// The minute of the household day the hub sends their reminder (`todo member set
    /// --remind-at`); nil: 07:00.
    public var remindAt: Int?

    /// The hour a hub reminds a member who chose none: 07:00.
    public static let defaultRemindAt = 7 * 60

    public init(email: String? = nil, via: Delivery? = nil, postURL: String? = nil, everyDays: Int? = nil, remindAt: Int? = nil) {
        self.email = email
        self.via = via
        self.postURL = postURL
        self.everyDays = everyDays
        self.remindAt = remindAt
    }

    /// The minute of the day the hub sends their reminder.
    public var remindMinute: Int { remindAt ?? Self.defaultRemindAt }

    /// The delivery a reminder takes: the recorded one, else mail with an email, else stdout.
    public var delivery: Delivery { via ?? (email != nil ? .mail : .stdout) }

    public var isEmpty: Bool { email == nil && via == nil && postURL == nil && everyDays == nil && remindAt == nil }
}

/// The `member:<field>:<name>` keys of the settings file.
public enum MemberFields {
    public static let prefix = "member:"
    public static let email = "email"
    public static let via = "via"
    public static let postURL = "postURL"
    public static let every = "every"
    public static let remindAt = "remindAt"
    public static let all = [email, via, postURL, every, remindAt]

    public static func key(_ field: String, _ name: String) -> String { prefix + field + ":" + name }

    /// The field and member a key names; nil for a key that is not a member detail.
    public static func parse(_ key: String) -> (field: String, name: String)? {
        guard key.hasPrefix(prefix) else { return nil }
        let rest = key.dropFirst(prefix.count)
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        let field = String(rest[..<colon])
        let name = String(rest[rest.index(after: colon)...])
        guard all.contains(field), !name.isEmpty else { return nil }
        return (field, name)
    }

    /// Every member's details in `settings` (the settings task), keyed by the name as spelled
    /// there. Values that do not fit their key are left out, as if unset; `problems` lists them
    /// (as facts: a front end words them).
    /// Names are compared ignoring case: when two spellings of one member both hold a field
    /// (written on two replicas apart), the later stamp's value counts, under the spelling that
    /// comes first in byte order.
    public static func details(in settings: Task?) -> (details: [String: MemberDetails], problems: [MemberFieldProblem]) {
        guard let settings else { return ([:], []) }
        var problems: [MemberFieldProblem] = []
        // Per member (folded) and field: the value with the latest stamp.
        var best: [String: [String: (stamp: FieldStamp?, text: String)]] = [:]
        var spelling: [String: String] = [:]
        for key in TaskCodec.sortedKeys(Array(settings.extra.keys)) {
            guard let (field, name) = parse(key), let value = settings.extra[key] else { continue }
            guard let text = value.stringValue else {
                problems.append(MemberFieldProblem(field: field, member: name, kind: .notAString))
                continue
            }
            let fold = name.lowercased()
            if let old = spelling[fold], old.utf8.lexicographicallyPrecedes(name.utf8) {} else { spelling[fold] = name }
            let stamp = settings.stamps[key]
            if let held = best[fold]?[field] {
                let later: Bool
                switch (held.stamp, stamp) {
                case (nil, _?): later = true
                case (let a?, let b?): later = FieldStamp.precedes(a, b)
                default: later = false
                }
                guard later else { continue }
            }
            best[fold, default: [:]][field] = (stamp, text)
        }
        var result: [String: MemberDetails] = [:]
        for (fold, fields) in best {
            let name = spelling[fold] ?? fold
            var d = MemberDetails()
            for (field, held) in fields where !held.text.isEmpty {
                let text = held.text
                func leftOut(_ kind: MemberFieldProblem.Kind) { problems.append(.init(field: field, member: name, kind: kind)) }
                switch field {
                case email:
                    if MemberInput.isEmail(text) { d.email = text } else { leftOut(.malformedEmail) }
                case via:
                    if let v = Delivery(rawValue: text) { d.via = v } else { leftOut(.unknownDelivery) }
                case every:
                    if let n = MemberInput.everyDays(text) { d.everyDays = n } else { leftOut(.everyOutOfRange) }
                case remindAt:
                    if let m = MemberInput.minuteOfDay(text) { d.remindAt = m } else { leftOut(.malformedTime) }
                default:
                    if MemberInput.isPostURL(text) { d.postURL = text } else { leftOut(.malformedPostURL) }
                }
            }
            if !d.isEmpty { result[name] = d }
        }
        return (result, problems.sorted { ($0.field, $0.member) < ($1.field, $1.member) })
    }
}

/// Checks of what a member types for their details.
public enum MemberInput {
    /// `local@domain`: one `@`, both sides non-empty, a dot-free-or-dotted domain without empty
    /// labels, no spaces, controls, `<>`, `,`, `;`, `"`, `(`, `)`, at most 254 bytes.
    public static func isEmail(_ text: String) -> Bool {
        guard text.utf8.count <= 254 else { return false }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64, !parts[1].isEmpty else { return false }
        for b in text.utf8 {
            if b <= 0x20 || b == 0x7F || b == 0x3C || b == 0x3E || b == 0x2C || b == 0x3B || b == 0x22 || b == 0x28
                || b == 0x29 || b == 0x5C
            {
                return false
            }
        }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { !$0.isEmpty && $0.utf8.count <= 63 }
    }

    /// Days between reminders: a number from 1 to 30, in plain digits.
    public static func everyDays(_ text: String) -> Int? {
        guard (1...2).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(text),
            (1...30).contains(n)
        else { return nil }
        return n
    }

    /// A time of day `HH:MM` (00:00 to 23:59) as its minute of the day.
    public static func minuteOfDay(_ text: String) -> Int? {
        let b = Array(text.utf8)
        guard b.count == 5, b[2] == 0x3A, [0, 1, 3, 4].allSatisfy({ b[$0] >= 0x30 && b[$0] <= 0x39 }) else { return nil }
        let h = Int(b[0] - 0x30) * 10 + Int(b[1] - 0x30)
        let m = Int(b[3] - 0x30) * 10 + Int(b[4] - 0x30)
        guard h < 24, m < 60 else { return nil }
        return h * 60 + m
    }

    /// `minute` of the day as `HH:MM`.
    public static func clock(_ minute: Int) -> String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return two(minute / 60) + ":" + two(minute % 60)
    }

    /// An `http://` or `https://` URL with a host, no spaces or controls, at most 2000 bytes.
    public static func isPostURL(_ text: String) -> Bool {
        guard text.utf8.count <= 2000, let parts = URLParts(text) else { return false }
        return !parts.host.isEmpty
    }
}

/// The parts of an http(s) URL that a POST needs.
public struct URLParts: Equatable, Sendable {
    public var secure: Bool
    public var host: String
    public var port: Int
    /// The path and query, starting with `/`.
    public var target: String

    public init?(_ text: String) {
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else { return nil }
        let rest: Substring
        if text.hasPrefix("http://") {
            secure = false
            rest = text.dropFirst(7)
        } else if text.hasPrefix("https://") {
            secure = true
            rest = text.dropFirst(8)
        } else {
            return nil
        }
        let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<slash]
        var path = String(rest[slash...])
        if let hash = path.firstIndex(of: "#") { path = String(path[..<hash]) }
        if path.isEmpty { path = "/" } else if path.hasPrefix("?") { path = "/" + path }
        target = path
        // No user information: a secret in a URL would end up in the repository.
        guard !authority.contains("@") else { return nil }
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                portText = authority[authority.index(after: colon)...]
                authority = authority[..<colon]
            }
            host = String(authority)
        }
        guard !host.isEmpty else { return nil }
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let p = Int(portText), p > 0, p < 65536
            else { return nil }
            port = p
        } else {
            port = secure ? 443 : 80
        }
    }
}

/// A member's value left out because it does not fit its key: the field (`email`, `via`,
/// `postURL`, `every`), the member as spelled in the key, and what is wrong with it.
public struct MemberFieldProblem: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The value is not a JSON string.
        case notAString
        case malformedEmail
        /// Not one of `Delivery`'s methods.
        case unknownDelivery
        /// Not a number of days from 1 to 30.
        case everyOutOfRange
        case malformedPostURL
        /// Not a time of day `HH:MM`.
        case malformedTime
    }

    public var field: String
    public var member: String
    public var kind: Kind

    public init(field: String, member: String, kind: Kind) {
        self.field = field
        self.member = member
        self.kind = kind
    }
}
