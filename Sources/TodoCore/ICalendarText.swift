/// The text rules of RFC 5545 (section 3.1 and 3.3.11): content lines end in CRLF, are folded at
/// 75 octets (never inside a UTF-8 character), and TEXT values escape `\`, `;`, `,` and line
/// breaks. Text from task files is untrusted: whatever it holds stays inside its property.
public enum ICalendarText {
    /// The longest content line, in octets, before it is folded.
    public static let lineLimit = 75

    /// A TEXT value: `\` `;` `,` escaped, a line break (LF, CR LF or CR) written `\n`, and
    /// the other control characters (which TEXT may not hold) left out; a tab is kept.
    public static func escape(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 8)
        var previous: UInt8 = 0
        for b in text.utf8 {
            defer { previous = b }
            switch b {
            case 0x5C: out += [0x5C, 0x5C]
            case 0x3B: out += [0x5C, 0x3B]
            case 0x2C: out += [0x5C, 0x2C]
            case 0x0D: out += [0x5C, 0x6E]
            case 0x0A: if previous != 0x0D { out += [0x5C, 0x6E] }
            case 0x09: out.append(b)
            case 0x00...0x1F, 0x7F: continue
            // U+0080–U+009F (C1 controls) are C2 80–C2 9F: the C2 already written goes too.
            case 0x80...0x9F where previous == 0xC2: out.removeLast()
            default: out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends one content line, folded: each physical line at most 75 octets, continuation
    /// lines starting with a space, a break never before a UTF-8 continuation byte; CRLF after each.
    public static func appendLine(_ line: String, to out: inout [UInt8]) {
        var line = line
        line.withUTF8 { appendLine($0, to: &out) }
    }

    static func appendLine(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var start = 0
        var limit = lineLimit
        while bytes.count - start > limit {
            var cut = start + limit
            while cut > start + 1 && bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<cut]))
            out += [0x0D, 0x0A, 0x20]
            start = cut
            limit = lineLimit - 1
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        out += [0x0D, 0x0A]
    }

    /// `YYYYMMDD`.
    public static func date(_ d: CivilDate) -> String { "\(pad(d.year, 4))\(pad(d.month, 2))\(pad(d.day, 2))" }

    /// `YYYYMMDDTHHMMSS` of a local date and minute of the day.
    public static func localTime(_ d: CivilDate, minutes: Int, seconds: Int = 0) -> String {
        "\(date(d))T\(pad(minutes / 60, 2))\(pad(minutes % 60, 2))\(pad(seconds, 2))"
    }

    /// `YYYYMMDDTHHMMSSZ` of a moment (milliseconds since the epoch).
    public static func utc(_ millis: Int64) -> String {
        let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let inDay = Int(seconds - days * 86_400)
        return localTime(CivilDate(daysSinceEpoch: Int(days)), minutes: inDay / 60, seconds: inDay % 60) + "Z"
    }

    /// A UTC offset, `+HHMM` (or `+HHMMSS` when it has seconds).
    public static func offset(_ seconds: Int) -> String {
        let a = abs(seconds)
        let s = (seconds < 0 ? "-" : "+") + pad(a / 3600, 2) + pad(a / 60 % 60, 2)
        return a % 60 == 0 ? s : s + pad(a % 60, 2)
    }

    /// A duration (`PT30M`, `-PT1H30M`, `P1D`) of whole minutes.
    public static func duration(minutes: Int) -> String {
        let a = abs(minutes)
        var s = minutes < 0 ? "-P" : "P"
        if a == 0 { return "PT0M" }
        if a % 1440 == 0 { return s + "\(a / 1440)D" }
        s += "T"
        if a / 60 > 0 { s += "\(a / 60)H" }
        if a % 60 > 0 { s += "\(a % 60)M" }
        return s
    }
}
