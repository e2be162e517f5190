import Synchronization

/// Values worked out once and kept by key, for every request to share; emptied whole when it
/// holds `limit` of them (what it holds is always cheap to work out again).
final class BoundedCache<Value: Sendable>: Sendable {
    private let limit: Int
    private let entries = Mutex<[String: Value]>([:])

    init(limit: Int) { self.limit = limit }

    /// The value kept for `key`, else `make()`'s, kept.
    func value(_ key: String, _ make: () throws -> Value) rethrows -> Value {
        if let found = entries.withLock({ $0[key] }) { return found }
        let value = try make()
        entries.withLock { e in
            if e.count >= limit { e.removeAll() }
            e[key] = value
        }
        return value
    }
}
