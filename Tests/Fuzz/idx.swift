// libFuzzer target: a pack index (`PackIndex`), its lookups and the object count of its head.
import GitFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPackIndex(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    _ = try? PackIndex.objectCount(head: bytes)
    _ = try? PackIndex.checkPack(bytes)
    // The pack's size from the index's own last bytes, so that offsets are both in and out.
    let packSize = size >= 4 ? Int(bytes[size - 4]) << 12 | Int(bytes[size - 3]) << 4 : 0
    guard let index = try? PackIndex(bytes, packSize: packSize) else { return 0 }
    for position in [0, 1, index.count / 2, index.count - 1, index.count, -1] {
        _ = try? index.offset(at: position)
        if let id = index.id(at: position) { _ = index.position(of: id) }
    }
    let missing = [UInt8](repeating: 0xAB, count: 20)
    missing.withUnsafeBytes { _ = index.position(of: $0) }
    return 0
}
