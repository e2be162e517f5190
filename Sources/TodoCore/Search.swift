/// `todo list TEXT…`: every word must appear, case and accents aside, in the title, the notes,
/// a tag or the assignee.
public struct TaskSearch: Sendable {
    /// The folded words; empty matches everything.
    public let words: [String]

    public init(_ words: [String]) {
        // `+tag` is read as the tag's name, as `list` shows tags.
        self.words = words.flatMap { $0.split(whereSeparator: \.isWhitespace) }
            .map { TaskSearch.fold(String($0.hasPrefix("+") ? $0.dropFirst() : $0)) }
            .filter { !$0.isEmpty }
    }

    public var isEmpty: Bool { words.isEmpty }

    public func matches(_ task: Task) -> Bool {
        if words.isEmpty { return true }
        var fields = [TaskSearch.fold(task.title)]
        if !task.notes.isEmpty { fields.append(TaskSearch.fold(task.notes)) }
        if let a = task.assignee { fields.append(TaskSearch.fold(a)) }
        for (tag, state) in task.tagStates where state.present { fields.append(TaskSearch.fold(tag)) }
        return words.allSatisfy { w in fields.contains { $0.contains(w) } }
    }

    /// Lowercase, without accents: combining marks dropped, and a Latin letter with a diacritic
    /// (é, Ø, ł, ş) becomes its base letter. Other scripts are only lowercased.
    public static func fold(_ s: String) -> String {
        if s.utf8.allSatisfy({ $0 < 0x80 }) { return s.lowercased() }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            if u.isASCII {
                let b = UInt8(truncatingIfNeeded: u.value)
                out.append(Unicode.Scalar(b >= 0x41 && b <= 0x5A ? b + 0x20 : b))
                continue
            }
            let p = u.properties
            if p.generalCategory == .nonspacingMark { continue }
            for l in p.lowercaseMapping.unicodeScalars { out.append(baseLatinLetter(l) ?? l) }
        }
        return String(out)
    }

    /// `a` for LATIN SMALL LETTER A WITH …, from the character's Unicode name.
    static func baseLatinLetter(_ u: Unicode.Scalar) -> Unicode.Scalar? {
        guard !u.isASCII, let name = u.properties.name else { return nil }
        let prefix = "LATIN SMALL LETTER "
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.utf8.dropFirst(prefix.utf8.count)
        guard let letter = rest.first, letter >= UInt8(ascii: "A"), letter <= UInt8(ascii: "Z"),
            rest.dropFirst().starts(with: " WITH ".utf8)
        else { return nil }
        return Unicode.Scalar(letter + 0x20)
    }
}
