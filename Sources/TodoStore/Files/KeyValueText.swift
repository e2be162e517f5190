/// Lines of `key=value`, as in `.git/todo/sync-state` and git's credential protocol (`git
/// credential fill` and its answers). The key ends at the first `=`; the value is the rest of
/// the line and may hold `=`. Lines without one are skipped; a later key replaces an earlier.
enum KeyValueText {
    static func parse(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            result[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        return result
    }

    /// `pairs` as lines, in their order.
    static func render(_ pairs: [(key: String, value: String)]) -> String {
        pairs.map { "\($0.key)=\($0.value)\n" }.joined()
    }
}
