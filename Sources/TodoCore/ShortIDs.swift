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

    /// For each of `ids` (any order), the length of its shortest prefix (at least `minimum`)
    /// that no other id shares. Ids are sorted as 128-bit numbers, which is their hex order,
    /// and neighbours compared a word at a time: no strings are made.
    public static func lengths(_ ids: [TaskID]) -> [Int] {
        let keys = ids.map { ($0.high, $0.low) }
        let order = keys.indices.sorted { keys[$0] < keys[$1] }
        var out = [Int](repeating: minimum, count: ids.count)
        for k in order.indices.dropFirst() {
            let a = keys[order[k - 1]]
            let b = keys[order[k]]
            let common = a.0 != b.0 ? (a.0 ^ b.0).leadingZeroBitCount / 4 : 16 + (a.1 ^ b.1).leadingZeroBitCount / 4
            let need = min(32, common + 1)
            out[order[k - 1]] = max(out[order[k - 1]], need)
            out[order[k]] = max(out[order[k]], need)
        }
        return out
    }

    /// The short ids of all `ids` (any order), keyed by full id.
    public static func map(_ ids: [String]) -> [String: String] {
        let sorted = ids.sorted()
        return Dictionary(zip(sorted, compute(sorted)), uniquingKeysWith: { a, _ in a })
    }
}
