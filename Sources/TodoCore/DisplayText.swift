/// Text that other people wrote, made fit to show on one line: on a terminal and in commit
/// messages alike, so both the commands and the store use these.
public enum DisplayText {
    /// Task text comes from other people: every control character (C0, DEL, C1), and the
    /// bidirectional overrides that can disguise text, is shown escaped, never sent raw.
    public static func escaped(_ s: String) -> String {
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

    /// Text for a calendar feed, where no escaping of ours is seen again: the bidirectional
    /// controls (marks, embeddings, overrides and isolates) and the zero-width characters,
    /// which can reorder or hide what a calendar app shows, are written visibly as `\u{…}`.
    /// U+200D (zero-width joiner) stays: emoji such as 👨‍👩‍👧 need it.
    public static func invisiblesShown(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isInvisible) else { return s }
        var out = ""
        for u in s.unicodeScalars {
            if isInvisible(u) { out += "\\u{\(String(u.value, radix: 16))}" } else { out.unicodeScalars.append(u) }
        }
        return out
    }

    /// A bidirectional control (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) or a
    /// zero-width character other than the joiner (U+180E, U+200B, U+200C, U+2060, U+FEFF).
    public static func isInvisible(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x061C, 0x180E, 0x200B, 0x200C, 0x200E, 0x200F, 0x202A...0x202E, 0x2060, 0x2066...0x2069, 0xFEFF: true
        default: false
        }
    }

    public static func isUnsafe(_ u: Unicode.Scalar) -> Bool {
        let v = u.value
        return v < 0x20 || (v >= 0x7F && v < 0xA0) || (v >= 0x202A && v <= 0x202E) || (v >= 0x2066 && v <= 0x2069)
            || v == 0x2028 || v == 0x2029
    }

    /// Columns a string takes on a terminal, counted by grapheme cluster: a wide East Asian
    /// character, an emoji (joined ones like 👨‍👩‍👧 and flags like 🇫🇷 included) counts two, a
    /// combining mark nothing.
    public static func width(_ s: String) -> Int {
        if s.utf8.allSatisfy({ $0 < 0x80 }) { return s.utf8.count }
        var w = 0
        for ch in s { w += width(ch) }
        return w
    }

    /// Columns one grapheme cluster takes.
    public static func width(_ ch: Character) -> Int {
        let scalars = ch.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.isASCII { return 1 }
        let v = first.value
        if v == 0x200D || v == 0x200B || (v >= 0xFE00 && v <= 0xFE0F) { return 0 }
        let p = first.properties
        if p.generalCategory == .nonspacingMark || p.generalCategory == .enclosingMark { return 0 }
        if (v >= 0x1100 && v <= 0x115F) || (v >= 0x2E80 && v <= 0xA4CF) || (v >= 0xAC00 && v <= 0xD7A3)
            || (v >= 0xF900 && v <= 0xFAFF) || (v >= 0xFE30 && v <= 0xFE4F) || (v >= 0xFF00 && v <= 0xFF60)
            || (v >= 0xFFE0 && v <= 0xFFE6) || (v >= 0x1F1E6 && v <= 0x1F1FF) || (v >= 0x20000 && v <= 0x3FFFD)
        {
            return 2
        }
        if p.isEmojiPresentation { return 2 }
        // A text-style symbol asked to look like an emoji (❤️), or joined into one.
        if p.isEmoji && scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x200D }) { return 2 }
        return 1
    }

    /// Cuts `s` to at most `columns` columns, marking the cut with an ellipsis.
    public static func truncated(_ s: String, _ columns: Int) -> String {
        if width(s) <= columns { return s }
        if columns <= 0 { return "" }
        var out = ""
        var w = 0
        for ch in s {
            let cw = width(ch)
            if w + cw > columns - 1 { break }
            out.append(ch)
            w += cw
        }
        return out + "…"
    }
}
