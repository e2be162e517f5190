#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// The seed of a run of random tests: `TODO_PROPERTY_SEED` (decimal, or hex after `0x`) to
/// replay a run, else a fresh random one. Tests print it, so that any run can be replayed.
public let propertySeed: UInt64 = {
    let text = getenv("TODO_PROPERTY_SEED").map { String(cString: $0) } ?? ""
    let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    return parsed ?? UInt64.random(in: .min ... .max)
}()
