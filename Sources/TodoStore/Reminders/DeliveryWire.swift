import SystemPackage
import TodoCore

/// One reminder to send over the network (SMTP or an HTTP POST): what `todo remind` hands to
/// `todo-serve deliver-reminder` on its standard input, and what the server's scheduler gives
/// RemindNet directly. The settings travel with it (the password on a pipe, never on a command
/// line or in a file).
public struct NetworkDelivery: Sendable {
    public enum Target: Sendable, Equatable {
        /// SMTP to `settings.smtpHost`, envelope and headers from `from` to `to`.
        case mail(from: String, to: String)
        /// A POST of the body to `url`.
        case post(url: String)
    }

    public var target: Target
    public var message: ReminderMessage
    public var settings: ReminderSettings
    public var nowMillis: Int64
    public var timeoutSeconds: Int

    public init(target: Target, message: ReminderMessage, settings: ReminderSettings, nowMillis: Int64, timeoutSeconds: Int) {
        self.target = target
        self.message = message
        self.settings = settings
        self.nowMillis = nowMillis
        self.timeoutSeconds = timeoutSeconds
    }

    /// The request as one JSON document.
    public func encoded() -> [UInt8] {
        var fields: [(String, JSONValue)] = []
        switch target {
        case .mail(let from, let to): fields += [("kind", .string("mail")), ("from", .string(from)), ("to", .string(to))]
        case .post(let url): fields += [("kind", .string("post")), ("url", .string(url))]
        }
        let m = message
        var messageFields: [(String, JSONValue)] = [
            ("member", .string(m.member)), ("household", .string(m.household)), ("subject", .string(m.subject)),
            ("body", .string(m.body)), ("identity", .string(m.identity)),
            ("links", .array(m.links.map { .object([("label", .string($0.label)), ("url", .string($0.url))]) })),
        ]
        if let c = m.click { messageFields.append(("click", .string(c))) }
        if let d = m.day { messageFields.append(("day", .string(d.description))) }
        if let t = m.firstTry { messageFields.append(("firstTry", .string(String(t)))) }
        messageFields.append(
            ("items", .array(m.items.map { i in
                .object([
                    ("id", .string(i.id.hex)), ("title", .string(i.title)), ("chore", .bool(i.isChore)),
                    ("due", .string(i.due.map { $0.date.description } ?? "")),
                ])
            })))
        fields.append(("message", .object(messageFields)))
        let s = settings
        var settingFields: [(String, JSONValue)] = []
        for (key, value) in [
            ("smtpHost", s.smtpHost), ("smtpPort", s.smtpPort.map(String.init)), ("smtpSecurity", s.smtpSecurity?.rawValue),
            ("smtpUser", s.smtpUser), ("smtpPassword", s.smtpPassword), ("smtpFrom", s.smtpFrom), ("postToken", s.postToken),
            ("caFile", s.caFile),
        ] {
            if let value { settingFields.append((key, .string(value))) }
        }
        fields += [
            ("settings", .object(settingFields)), ("now", .string(String(nowMillis))), ("timeout", .string(String(timeoutSeconds))),
        ]
        return JSONWriter.document(.object(fields))
    }

    /// The request `bytes` encode; nil when they are not one.
    public static func decode(_ bytes: [UInt8]) -> NetworkDelivery? {
        // Not JSON is not a request: the caller says so (exit 64).
        guard let doc = try? JSONParser.parse(bytes), let m = doc["message"], let s = doc["settings"] else { return nil }
        let target: Target
        switch doc["kind"]?.stringValue {
        case "mail":
            guard let from = doc["from"]?.stringValue, let to = doc["to"]?.stringValue else { return nil }
            target = .mail(from: from, to: to)
        case "post":
            guard let url = doc["url"]?.stringValue else { return nil }
            target = .post(url: url)
        default: return nil
        }
        guard let member = m["member"]?.stringValue, let household = m["household"]?.stringValue,
            let subject = m["subject"]?.stringValue, let body = m["body"]?.stringValue, let identity = m["identity"]?.stringValue,
            let now = doc["now"]?.stringValue.flatMap({ Int64($0) }), let timeout = doc["timeout"]?.stringValue.flatMap({ Int($0) })
        else { return nil }
        var message = ReminderMessage(member: member, household: household, subject: subject, body: body, identity: identity)
        if case .array(let links)? = m["links"] {
            message.links = links.compactMap { l in
                guard let label = l["label"]?.stringValue, let url = l["url"]?.stringValue else { return nil }
                return ReminderLink(label: label, url: url)
            }
        }
        message.click = m["click"]?.stringValue
        message.firstTry = m["firstTry"]?.stringValue.flatMap { Int64($0) }
        message.day = m["day"]?.stringValue.flatMap { CivilDate(iso: Substring($0)) }
        if case .array(let items)? = m["items"] {
            message.items = items.compactMap { i in
                guard let id = i["id"]?.stringValue.flatMap(TaskID.init), let title = i["title"]?.stringValue else { return nil }
                let due = i["due"]?.stringValue.flatMap { CivilDate(iso: Substring($0)) }.map { Due(date: $0) }
                return ReminderItem(id: id, title: title, isChore: i["chore"] == .bool(true), due: due)
            }
        }
        var settings = ReminderSettings()
        settings.smtpHost = s["smtpHost"]?.stringValue
        settings.smtpPort = s["smtpPort"]?.stringValue.flatMap { Int($0) }
        settings.smtpSecurity = s["smtpSecurity"]?.stringValue.flatMap(SMTPSecurity.init(rawValue:))
        settings.smtpUser = s["smtpUser"]?.stringValue
        settings.smtpPassword = s["smtpPassword"]?.stringValue
        settings.smtpFrom = s["smtpFrom"]?.stringValue
        settings.postToken = s["postToken"]?.stringValue
        settings.caFile = s["caFile"]?.stringValue
        return NetworkDelivery(target: target, message: message, settings: settings, nowMillis: now, timeoutSeconds: timeout)
    }
}

/// The answer of `todo-serve deliver-reminder`: delivered, or a `DeliveryFailure` as facts.
public enum DeliveryAnswer {
    public static func encode(_ failure: DeliveryFailure?) -> String {
        guard let failure else { return JSONWriter.compact(.object([("delivered", .bool(true))])) }
        let kind: String
        switch failure {
        case .transient: kind = "transient"
        case .refused: kind = "refused"
        }
        var fields: [(String, JSONValue)] = [("failure", .string(kind))]
        func add(_ name: String, _ values: [(String, String?)]) {
            fields.append(("problem", .string(name)))
            for (k, v) in values { if let v { fields.append((k, .string(v))) } }
        }
        switch failure.problem {
        case .sendmailFailed(let program): add("sendmailFailed", [("program", program)])
        case .loginInClear: add("loginInClear", [])
        case .smtpClosed(let host): add("smtpClosed", [("host", host)])
        case .notSMTP(let host): add("notSMTP", [("host", host)])
        case .smtpAnswer(let host, let step, let code, let said):
            let (stepName, address): (String, String?)
            switch step {
            case .connection: (stepName, address) = ("connection", nil)
            case .ehlo: (stepName, address) = ("ehlo", nil)
            case .startTLS: (stepName, address) = ("startTLS", nil)
            case .login: (stepName, address) = ("login", nil)
            case .sender(let a): (stepName, address) = ("sender", a)
            case .recipient(let a): (stepName, address) = ("recipient", a)
            case .data: (stepName, address) = ("data", nil)
            case .message: (stepName, address) = ("message", nil)
            }
            add("smtpAnswer", [("host", host), ("step", stepName), ("address", address), ("code", String(code)), ("said", said)])
        case .noAuthPlain(let host): add("noAuthPlain", [("host", host)])
        case .noStartTLS(let host): add("noStartTLS", [("host", host)])
        case .notHTTPURL(let url): add("notHTTPURL", [("url", url)])
        case .httpAnswer(let host, let status, let said): add("httpAnswer", [("host", host), ("status", String(status)), ("said", said)])
        case .addressNotFound(let host): add("addressNotFound", [("host", host)])
        case .cannotConnect(let host, let port, let errno):
            add("cannotConnect", [("host", host), ("port", String(port)), ("errno", errno.map { String($0.rawValue) })])
        case .answerTimedOut: add("answerTimedOut", [])
        case .connectionBroke(let errno): add("connectionBroke", [("errno", errno.map { String($0.rawValue) })])
        case .lineTooLong: add("lineTooLong", [])
        case .tls(let host, let said): add("tls", [("host", host), ("said", said)])
        case .noNetworkHelper(let program): add("noNetworkHelper", [("program", program)])
        case .helperFailed(let program): add("helperFailed", [("program", program)])
        case .noEmail(let member): add("noEmail", [("member", member)])
        case .noPostURL(let member): add("noPostURL", [("member", member)])
        }
        return JSONWriter.compact(.object(fields))
    }

    /// What `text` says: nil for delivered, the failure otherwise; `.helperFailed` when it is not
    /// an answer.
    public static func decode(_ text: String, program: String) -> DeliveryFailure? {
        let broken = DeliveryFailure.transient(.helperFailed(program: program))
        guard let doc = try? JSONParser.parse(text) else { return broken }  // an answer that is not JSON: no answer
        if doc["delivered"] == .bool(true) { return nil }
        func s(_ k: String) -> String { doc[k]?.stringValue ?? "" }
        func n(_ k: String) -> Int? { doc[k]?.stringValue.flatMap { Int($0) } }
        func e(_ k: String) -> Errno? { n(k).map { Errno(rawValue: Int32(truncatingIfNeeded: $0)) } }
        let problem: DeliveryProblem
        switch s("problem") {
        case "sendmailFailed": problem = .sendmailFailed(program: s("program"))
        case "loginInClear": problem = .loginInClear
        case "smtpClosed": problem = .smtpClosed(host: s("host"))
        case "notSMTP": problem = .notSMTP(host: s("host"))
        case "smtpAnswer":
            let step: SMTPStep
            switch s("step") {
            case "connection": step = .connection
            case "ehlo": step = .ehlo
            case "startTLS": step = .startTLS
            case "login": step = .login
            case "sender": step = .sender(s("address"))
            case "recipient": step = .recipient(s("address"))
            case "data": step = .data
            default: step = .message
            }
            problem = .smtpAnswer(host: s("host"), step: step, code: n("code") ?? 0, said: s("said"))
        case "noAuthPlain": problem = .noAuthPlain(host: s("host"))
        case "noStartTLS": problem = .noStartTLS(host: s("host"))
        case "notHTTPURL": problem = .notHTTPURL(url: s("url"))
        case "httpAnswer": problem = .httpAnswer(host: s("host"), status: n("status") ?? 0, said: s("said"))
        case "addressNotFound": problem = .addressNotFound(host: s("host"))
        case "cannotConnect": problem = .cannotConnect(host: s("host"), port: n("port") ?? 0, errno: e("errno"))
        case "answerTimedOut": problem = .answerTimedOut
        case "connectionBroke": problem = .connectionBroke(e("errno"))
        case "lineTooLong": problem = .lineTooLong
        case "tls": problem = .tls(host: s("host"), said: s("said"))
        case "noNetworkHelper": problem = .noNetworkHelper(program: s("program"))
        case "helperFailed": problem = .helperFailed(program: s("program"))
        case "noEmail": problem = .noEmail(member: s("member"))
        case "noPostURL": problem = .noPostURL(member: s("member"))
        default: return broken
        }
        switch s("failure") {
        case "transient": return .transient(problem)
        case "refused": return .refused(problem)
        default: return broken
        }
    }
}
