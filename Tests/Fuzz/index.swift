// libFuzzer target: git's index (`IndexBytes`, whole; a split one is refused at its `link`):
// the file read without its checksum (so that mutations reach the entries), then every
// accessor, and a change spliced in (`IndexWriter`).
import GitFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIndex(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let index = try? IndexBytes(bytes: bytes, owner: nil, checksum: nil) else { return 0 }
    let probes = Set([0, 1, index.count / 2, index.count - 1, index.count, index.count + 1, -1])
    for entry in probes {
        _ = index.path(at: entry)
        _ = index.object(at: entry)
        _ = index.stage(at: entry)
        _ = index.entryBytes(entry)
    }
    let key = Array(index.path(at: index.count / 2))
    _ = index.entries(at: key, in: 0..<index.count)
    _ = index.entries(from: 0, to: index.count)
    let entry = IndexEntry.regularFile(path: "tasks/x", id: [UInt8](repeating: 1, count: 20), stat: .none)
    let changes = [IndexWriter.Change(key: key, entry: entry), IndexWriter.Change(key: Array("tasks/x".utf8), entry: entry)]
    _ = IndexWriter.splice(index, changes) { pieces in
        // A stand-in for SHA-1: every byte of every piece visited.
        var sum: UInt8 = 0
        for piece in pieces {
            switch piece {
            case .mapped(let run): for byte in run { sum &+= byte }
            case .new(let new): for byte in new { sum &+= byte }
            }
        }
        return [UInt8](repeating: sum, count: 20)
    }
    index.locateAll()
    for entry in probes { _ = index.path(at: entry) }
    return 0
}
