// libFuzzer target: git's index (`IndexBytes`, with `EWAH` in its `link`): the file read
// without its checksum (so that mutations reach the entries), then every accessor.
import GitFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIndex(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    _ = try? EWAH.decode(bytes, at: 0, end: size, limit: 1 << 14)
    guard let index = try? IndexBytes(bytes: bytes, owner: nil, checksum: nil, allowLink: true) else { return 0 }
    let probes = Set([0, 1, index.count / 2, index.count - 1, index.count, index.count + 1, -1])
    for entry in probes {
        _ = index.path(at: entry)
        _ = index.object(at: entry)
        _ = index.stage(at: entry)
        _ = index.entryBytes(entry)
    }
    _ = try? index.linkPositions(below: 1 << 16)
    let key = Array(index.path(at: index.count / 2))
    _ = index.entries(at: key, in: 0..<index.count)
    _ = index.entries(from: 0, to: index.count)
    index.locateAll()
    for entry in probes { _ = index.path(at: entry) }
    return 0
}
