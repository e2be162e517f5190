import TodoCore
import Synchronization

/// Where new task ids and replica ids come from: the system's random generator, or, when a
/// front end sets a seed (`TODO_ID_SEED`, for tests: docs/TESTING.md), a generator derived from
/// the seed and what the id is for, so that a test's ids are the same on every run and a
/// failure that depends on them happens again.
public enum IDSource {
    private static let chosen = Mutex<UInt64?>(nil)

    /// Sets the seed for this process (nil: the system's generator).
    public static func seed(_ value: UInt64?) {
        chosen.withLock { $0 = value }
    }

    /// A generator for ids made for `purpose` (say the commit they are made on and the
    /// member making them): with a seed, the same purpose gives the same ids, a different one
    /// different ids; without, the system's random generator.
    static func generator(for purpose: String) -> IDGenerator {
        IDGenerator(state: chosen.withLock { $0 }.map { mix($0, purpose) })
    }

    /// FNV-1a over the seed's bytes and the purpose's.
    static func mix(_ seed: UInt64, _ purpose: String) -> UInt64 {
        fnv1a64(withUnsafeBytes(of: seed.littleEndian, Array.init) + Array(purpose.utf8))
    }
}

/// SplitMix64 from a seed, else the system's generator.
struct IDGenerator: RandomNumberGenerator {
    var state: UInt64?
    var system = SystemRandomNumberGenerator()

    mutating func next() -> UInt64 {
        guard var s = state else { return system.next() }
        s &+= 0x9e37_79b9_7f4a_7c15
        state = s
        var z = s
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
