/// Shortest unique prefixes of ids, as shown to people.
public enum ShortIDs {
    public static let minimum = 4

    /// For sorted, distinct ids: each one's shortest prefix (at least `minimum` characters) that
    /// no other id in the list shares.
    public static func compute(_ sorted: [String]) -> [String] {
        let bytes = sorted.map { Array($0.utf8) }
        return bytes.indices.map { i in
            var need = minimum
            if i > 0 { need = max(need, commonPrefix(bytes[i], bytes[i - 1]) + 1) }
            if i + 1 < bytes.count { need = max(need, commonPrefix(bytes[i], bytes[i + 1]) + 1) }
            return String(decoding: bytes[i].prefix(need), as: UTF8.self)
        }
    }

    static func commonPrefix(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var n = 0
        while n < a.count, n < b.count, a[n] == b[n] { n += 1 }
        return n
    }

    /// The short ids of all `ids` (any order), keyed by full id.
    public static func map(_ ids: [String]) -> [String: String] {
        let sorted = ids.sorted()
        return Dictionary(zip(sorted, compute(sorted)), uniquingKeysWith: { a, _ in a })
    }
}
