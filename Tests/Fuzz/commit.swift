// libFuzzer target: a commit's content (`CommitHeader`).
import GitFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommit(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    if let header = try? CommitHeader(bytes) {
        precondition(header.tree.count == 20 && header.parents.allSatisfy { $0.count == 20 }, "an id not 20 bytes long")
    }
    return 0
}
