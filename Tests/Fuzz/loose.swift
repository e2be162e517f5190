// libFuzzer target: a loose object's header (`LooseHeader`).
import GitFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLooseHeader(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    if let header = try? LooseHeader(bytes) {
        precondition(header.contentStart <= size && header.size >= 0, "content outside the object")
    }
    return 0
}
