import Glibc
import TodoCore
import TodoStore

/// What the commands read from the process environment, in one place.
struct Env {
    static func get(_ name: String) -> String? {
        guard let v = getenv(name) else { return nil }
        let s = String(cString: v)
        return s.isEmpty ? nil : s
    }

    /// `$TODO_HOME`, else `$XDG_DATA_HOME/todo`, else `~/.local/share/todo`.
    static var home: String {
        if let h = get("TODO_HOME") { return trimSlash(h) }
        if let x = get("XDG_DATA_HOME") { return trimSlash(x) + "/todo" }
        return trimSlash(userHome) + "/.local/share/todo"
    }

    static var userHome: String {
        if let h = get("HOME") { return h }
        if let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir { return String(cString: dir) }
        return "/"
    }

    /// `$XDG_CONFIG_HOME`, else `~/.config` (where `todo serve install` writes its unit).
    static var configHome: String {
        if let x = get("XDG_CONFIG_HOME") { return trimSlash(x) }
        return trimSlash(userHome) + "/.config"
    }

    /// This device's age identity (`DeviceIdentity.defaultPath`): what `todo key` makes, and
    /// what sync, clone and `--encrypt` open an encrypted remote with.
    static var identityPath: String {
        DeviceIdentity.defaultPath(home: trimSlash(userHome), configHome: get("XDG_CONFIG_HOME").map(trimSlash))
    }

    static func trimSlash(_ s: String) -> String {
        var s = s
        while s.count > 1 && s.hasSuffix("/") { s.removeLast() }
        return s
    }

    /// The wall clock; `TODO_NOW` (milliseconds since the epoch) fixes it, for tests and demos.
    /// Held within what the file format can stamp (`WallClock.withinFormat`).
    static var clock: WallClock {
        let base: WallClock
        if let t = get("TODO_NOW"), let ms = Int64(t) { base = .fixed(ms) } else { base = .system }
        return base.withinFormat
    }

    /// The household's local date today.
    static func today(_ clock: WallClock) -> CivilDate { clock.today }

    /// Minutes after local midnight now.
    static func minuteOfDay(_ clock: WallClock) -> Int { clock.minuteOfDay }

    /// The absolute path of the running executable, for the merge-driver config.
    static var executablePath: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 { return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return CommandLine.arguments.first ?? "todo"
    }
}
