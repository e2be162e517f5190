#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

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

    /// Task text comes from other people: every control character (C0, DEL, C1), and the
    /// bidirectional overrides that can disguise text, is shown escaped, never sent raw.
    static func safe(_ s: String) -> String {
        var needs = false
        for u in s.unicodeScalars where isUnsafe(u) {
            needs = true
            break
        }
        if !needs { return s }
        var out = ""
        for u in s.unicodeScalars {
            if !isUnsafe(u) {
                out.unicodeScalars.append(u)
                continue
            }
            switch u {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                let hex = String(u.value, radix: 16)
                out += u.value < 0x100 ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex : "\\u{\(hex)}"
            }
        }
        return out
    }

    static func isUnsafe(_ u: Unicode.Scalar) -> Bool {
        let v = u.value
        return v < 0x20 || (v >= 0x7F && v < 0xA0) || (v >= 0x202A && v <= 0x202E) || (v >= 0x2066 && v <= 0x2069)
            || v == 0x2028 || v == 0x2029
    }

    /// Columns a string takes on a terminal (wide East Asian characters count two).
    static func width(_ s: String) -> Int {
        // Most text is ASCII: one column a byte, without decoding scalars.
        var ascii = true
        for b in s.utf8 where b >= 0x80 {
            ascii = false
            break
        }
        if ascii { return s.utf8.count }
        var w = 0
        for u in s.unicodeScalars {
            let v = u.value
            if v == 0x200D || (v >= 0x300 && v < 0x370) || (v >= 0xFE00 && v <= 0xFE0F) { continue }
            w += (v >= 0x1100 && v <= 0x115F) || (v >= 0x2E80 && v <= 0xA4CF) || (v >= 0xAC00 && v <= 0xD7A3)
                || (v >= 0xF900 && v <= 0xFAFF) || (v >= 0xFF00 && v <= 0xFF60) || (v >= 0x1F300 && v <= 0x1FAFF)
                || (v >= 0x20000 && v <= 0x3FFFD) ? 2 : 1
        }
        return w
    }

    static func padded(_ s: String, _ columns: Int) -> String {
        let w = width(s)
        return w >= columns ? s : s + String(repeating: " ", count: columns - w)
    }

    /// Cuts `s` to at most `columns` columns, marking the cut with an ellipsis.
    static func truncated(_ s: String, _ columns: Int) -> String {
        if width(s) <= columns { return s }
        var out = ""
        var w = 0
        for ch in s {
            let cw = width(String(ch))
            if w + cw > columns - 1 { break }
            out.append(ch)
            w += cw
        }
        return out + "…"
    }
}

/// Buffered standard output: one write for a whole listing.
struct Output {
    private(set) var text = ""

    mutating func line(_ s: String = "") {
        text += s
        text += "\n"
    }

    func flush() {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }
}

/// Writes a line to standard error.
func printError(_ s: String) {
    let bytes = Array((s + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
    }
}
