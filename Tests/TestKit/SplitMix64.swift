/// SplitMix64: a small seeded generator that gives the same sequence on every platform, so a
/// failing random test run can be replayed from its printed seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// A uniform integer in 0..<n.
    public mutating func int(_ n: Int) -> Int { Int(next(upperBound: UInt64(n))) }

    public mutating func chance(_ percent: Int) -> Bool { int(100) < percent }

    public mutating func pick<T>(_ items: [T]) -> T { items[int(items.count)] }
}
