import Glibc
import SystemPackage
import TodoCore

/// Output helpers: escaping of text that came from other people, color, columns.
enum Terminal {
    static let stdoutIsTTY = isatty(STDOUT_FILENO) == 1
    static let stderrIsTTY = isatty(STDERR_FILENO) == 1

    /// Color only on a terminal, never with `NO_COLOR` set or `TERM=dumb`.
    static let color: Bool = stdoutIsTTY && getenv("NO_COLOR") == nil && Env.get("TERM") != "dumb"

    static func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    static func red(_ s: String) -> String { paint(s, "31") }
    static func yellow(_ s: String) -> String { paint(s, "33") }
    static func dim(_ s: String) -> String { paint(s, "2") }
    static func bold(_ s: String) -> String { paint(s, "1") }

    /// Task text comes from other people: shown escaped (see `DisplayText.escaped`).
    static func safe(_ s: String) -> String { DisplayText.escaped(s) }
    static func isUnsafe(_ u: Unicode.Scalar) -> Bool { DisplayText.isUnsafe(u) }
    static func width(_ s: String) -> Int { DisplayText.width(s) }
    static func truncated(_ s: String, _ columns: Int) -> String { DisplayText.truncated(s, columns) }

    /// The width `list` fits its lines to: on a terminal, `COLUMNS` when it is a number from
    /// 20 to 10000, else the terminal's own width (80 when it does not say); nil in a pipe or
    /// file, where nothing is cut.
    static let columns: Int? = {
        guard stdoutIsTTY else { return nil }
        if let c = Env.get("COLUMNS"), let n = Int(c), (20...10_000).contains(n) { return n }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 20 { return Int(size.ws_col) }
        return 80
    }()

    static func padded(_ s: String, _ columns: Int) -> String {
        let w = width(s)
        return w >= columns ? s : s + String(repeating: " ", count: columns - w)
    }

}

/// Buffered standard output: one write for a whole listing, or one for each piece of a long
/// one (`flush(past:)`).
struct Output {
    private(set) var text = ""

    mutating func line(_ s: String = "") {
        text += s
        text += "\n"
    }

    func flush() {
        _ = try? FileDescriptor.standardOutput.writeAll(text.utf8)  // standard output closed (a pipe's reader gone): nobody to tell
    }

    /// Writes what is buffered once it reaches `bytes`, and starts again: a long listing is
    /// written in pieces of about that size instead of being held whole.
    mutating func flush(past bytes: Int) {
        guard text.utf8.count >= bytes else { return }
        flush()
        text.removeAll(keepingCapacity: true)
    }
}

/// Writes a line to standard error.
func printError(_ s: String) {
    _ = try? FileDescriptor.standardError.writeAll((s + "\n").utf8)  // standard error closed: nobody to tell
}
