import Glibc
import TodoCore
import TodoStore

/// What `todo-serve` reads from the process environment: the same variables as `todo`
/// (TodoCLI's `Env`), read here again so that the server never links the CLI.
struct ServeEnvironment: Sendable {
    var variables: [String: String]

    static var process: ServeEnvironment {
        var out: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { out[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return ServeEnvironment(variables: out)
    }

    func get(_ name: String) -> String? {
        guard let v = variables[name], !v.isEmpty else { return nil }
        return v
    }

    var userHome: String {
        if let h = get("HOME") { return h }
        if let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir { return String(cString: dir) }
        return "/"
    }

    /// `$TODO_HOME`, else `$XDG_DATA_HOME/todo`, else `~/.local/share/todo`.
    var home: String {
        if let h = get("TODO_HOME") { return trimSlash(h) }
        if let x = get("XDG_DATA_HOME") { return trimSlash(x) + "/todo" }
        return trimSlash(userHome) + "/.local/share/todo"
    }

    /// `$XDG_STATE_HOME`, else `~/.local/state`.
    var stateHome: String {
        if let x = get("XDG_STATE_HOME") { return trimSlash(x) }
        return trimSlash(userHome) + "/.local/state"
    }

    /// `TODO_NOW` (milliseconds) fixes the clock, as for `todo`.
    var clock: WallClock {
        let base: WallClock
        if let t = get("TODO_NOW"), let ms = Int64(t) { base = .fixed(ms) } else { base = .system }
        return base.withinFormat
    }

    /// The `todo` executable the server starts for maintenance and names as the merge driver:
    /// `TODO_SERVE_TODO` (set by `todo serve`), else `todo` beside this executable.
    var todoProgram: String {
        if let t = get("TODO_SERVE_TODO") { return t }
        guard let me = Self.executable, let slash = me.lastIndex(of: "/") else { return "todo" }
        return String(me[..<slash]) + "/todo"
    }

    /// This executable's absolute path (`todo-serve`), for the unit `install` writes.
    var serveProgram: String { Self.executable ?? "/usr/local/bin/todo-serve" }

    private static var executable: String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    var configHome: String {
        if let x = get("XDG_CONFIG_HOME") { return trimSlash(x) }
        return trimSlash(userHome) + "/.config"
    }

    /// The user's login name, for `loginctl enable-linger`.
    var userName: String {
        if let u = get("USER") { return u }
        if let pw = getpwuid(getuid()), let name = pw.pointee.pw_name { return String(cString: name) }
        return "$USER"
    }

    private func trimSlash(_ s: String) -> String {
        var s = s
        while s.count > 1 && s.hasSuffix("/") { s.removeLast() }
        return s
    }
}

/// A bad argument: exit 64 with this message.
struct UsageError: Error, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
}

/// How the server runs: from `todo-serve [-H NAME] [--listen ADDR:PORT] …` (docs/SERVE.md).
struct ServeConfig: Sendable {
    var household: String
    var listenHost = "127.0.0.1"
    var listenPort = 8080
    /// `--base-url`: scheme, host (and port) and path prefix members' phones use.
    var baseURL: BaseURL?
    /// Extra names the `Host` header may carry (`--host`).
    var extraHosts: [String] = []
    var tlsCert: String?
    var tlsKey: String?
    /// Peers whose `X-Forwarded-For` / `X-Forwarded-Proto` are believed.
    var trustProxy: [String] = []
    /// Seconds between background syncs; 0: never.
    var syncEvery: Int64 = 15 * 60
    /// How many days ahead a member's CalDAV collection Mine shows their turns (docs/CALDAV.md).
    var caldavDays = 14
    /// The largest CalDAV answer, in bytes, as bounded before it is written (tests lower it).
    var caldavAnswerBytes = 32 << 20
    /// Seconds a change's sync waits for the next change (tests shorten it).
    var syncDebounce = 10.0
    /// Connections per client, in all, and the time to send a request (`ConnectionGuard`).
    var connections = ConnectionLimits()

    var isLoopback: Bool { ["127.0.0.1", "::1", "localhost"].contains(listenHost) || listenHost.hasPrefix("127.") }
    var isWildcard: Bool { listenHost == "0.0.0.0" || listenHost == "::" }
    var usesTLS: Bool { tlsCert != nil }

    /// Path prefix of every route: the path of `--base-url`, without a trailing slash.
    var prefix: String { baseURL?.path ?? "" }

    /// The names a request's `Host` may carry (docs/THREAT-MODEL.md, "DNS rebinding").
    var allowedHosts: Set<String> {
        var names = Set(extraHosts.map { $0.lowercased() })
        if !isWildcard { names.insert(listenHost.lowercased()) }
        if isLoopback { names.formUnion(["localhost", "127.0.0.1", "::1"]) }
        if let baseURL { names.insert(baseURL.host.lowercased()) }
        return names
    }

    /// Where links to this server start: `--base-url`, else the listen address.
    func base(port: Int) -> String {
        if let baseURL { return baseURL.text }
        let host = listenHost.contains(":") ? "[\(listenHost)]" : listenHost
        return "\(usesTLS ? "https" : "http")://\(host):\(port)"
    }
}

/// `--base-url`, split.
struct BaseURL: Sendable, Equatable {
    var scheme: String
    var host: String
    var port: Int?
    var path: String
    var text: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(h)\(port.map { ":\($0)" } ?? "")\(path)"
    }

    static func parse(_ s: String) -> BaseURL? {
        let scheme: String
        var rest: Substring
        if s.hasPrefix("http://") {
            scheme = "http"
            rest = s.dropFirst(7)
        } else if s.hasPrefix("https://") {
            scheme = "https"
            rest = s.dropFirst(8)
        } else {
            return nil
        }
        let authority = rest.prefix { $0 != "/" }
        rest = rest.dropFirst(authority.count)
        guard let (host, port) = splitHostPort(String(authority)), !host.isEmpty else { return nil }
        var path = String(rest)
        while path.hasSuffix("/") { path.removeLast() }
        let pathOK = path.unicodeScalars.allSatisfy { c in
            (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || "/-._~".unicodeScalars.contains(c)
        }
        guard pathOK, !path.contains("//"), !host.contains("@") else { return nil }
        return BaseURL(scheme: scheme, host: host.lowercased(), port: port, path: path)
    }
}

/// `host`, `host:port`, `[v6]`, `[v6]:port`; nil when the port is not a number in range.
func splitHostPort(_ s: String) -> (host: String, port: Int?)? {
    if s.hasPrefix("[") {
        guard let close = s.firstIndex(of: "]") else { return nil }
        let host = String(s[s.index(after: s.startIndex)..<close])
        let rest = s[s.index(after: close)...]
        if rest.isEmpty { return (host, nil) }
        guard rest.hasPrefix(":"), let p = Int(rest.dropFirst()), p >= 0, p <= 65535 else { return nil }
        return (host, p)
    }
    let parts = s.split(separator: ":", omittingEmptySubsequences: false)
    if parts.count == 1 { return (s, nil) }
    guard parts.count == 2, let p = Int(parts[1]), p >= 0, p <= 65535 else { return nil }
    return (String(parts[0]), p)
}

/// A duration as `--sync-every` takes it: `15m`, `1h`, `90s`, `0`.
func parseSeconds(_ s: String) -> Int64? {
    if s == "0" { return 0 }
    guard let unit = s.last, let n = Int64(s.dropLast()), n > 0, n < 1_000_000 else { return nil }
    switch unit {
    case "s": return n
    case "m": return n * 60
    case "h": return n * 3600
    case "d": return n * 86400
    default: return nil
    }
}
