// libFuzzer target: a pack entry's header (`PackEntryHeader`) and a delta (`Delta`): the input
// is a pack (entries from byte 12) and, split at a point its first two bytes give, a base and
// a delta.
import GitFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPackEntry(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var offset = 12
    for _ in 0..<4 {
        guard let header = try? PackEntryHeader(pack: bytes, at: offset, maxSize: 64 << 20) else { break }
        if case .offset(let base) = header.base { _ = try? PackEntryHeader(pack: bytes, at: base, maxSize: 64 << 20) }
        offset = header.start + 1
    }
    guard size >= 2 else { return 0 }
    let split = min(size - 2, Int(bytes[0]) << 8 | Int(bytes[1]))
    let base = UnsafeRawBufferPointer(rebasing: bytes[2..<2 + split])
    let delta = UnsafeRawBufferPointer(rebasing: bytes[(2 + split)...])
    _ = try? Delta.sizes(delta)
    _ = try? Delta.apply(delta, to: base, maxSize: 1 << 20)
    // A delta stating its own base size, so that the instructions are reached.
    var stated: [UInt8] = []
    var n = base.count
    repeat {
        stated.append(UInt8(n & 0x7F) | (n > 0x7F ? 0x80 : 0))
        n >>= 7
    } while n > 0
    _ = try? Delta.apply(stated + Array(delta), to: Array(base), maxSize: 1 << 20)
    return 0
}
