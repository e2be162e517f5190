// The one parser of the seed of random tests.

/// The seed of a property-test run: `TODO_PROPERTY_SEED` (decimal or 0x-hex) when set, else
/// random. Each case derives its own generator from the run seed and its index; every issue of
/// a test (with the `.kit` trait) that drew on the seed names it.
public enum PropertySeed {
    public static let variable = "TODO_PROPERTY_SEED"

    public static var run: UInt64 {
        TestScope.current?.noteSeedUsed()
        return chosen
    }

    private static let chosen: UInt64 = {
        if let text = environment(variable) {
            let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
            if let parsed { return parsed }
            print("\(variable)=\(text) is not a number; a random seed is used")
        }
        return UInt64.random(in: .min ... .max)
    }()

    /// How to replay this run.
    public static var replay: String { "\(variable)=\(chosen) replays this run" }

    /// The generator of case `index` of a test, `salt` telling the tests apart.
    public static func generator(case index: Int, salt: UInt64) -> SplitMix64 {
        var mixer = SplitMix64(seed: (run ^ salt) &+ UInt64(index) &* 0x2545_f491_4f6c_dd1d)
        return SplitMix64(seed: mixer.next())
    }

    public static func describe(case index: Int) -> String {
        "\(variable)=\(run), case \(index)"
    }
}

/// The run's seed (see `PropertySeed`), for a test that makes its own generators from it.
public var propertySeed: UInt64 { PropertySeed.run }
