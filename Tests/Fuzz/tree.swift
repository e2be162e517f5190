// libFuzzer target: a tree's content (`TreeFormat.entries`).
import GitFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTree(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let entries = try? TreeFormat.entries(bytes) else { return 0 }
    for entry in entries {
        // Every entry the parser gives lies inside the bytes: reading it must not trap.
        precondition(entry.start >= 0 && entry.id + 20 <= size && entry.name + entry.length < size, "entry outside the tree")
    }
    return 0
}
