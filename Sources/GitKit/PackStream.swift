import CInterposers
import Dispatch
import Glibc
import CLibgit2
import Synchronization

/// The bytes of a version 2 pack file: header, each object whole (a type-and-size header, then
/// its content as a zlib stream of stored blocks), and the SHA-1 trailer, handed to `sink` in
/// chunks of about `chunk` bytes as they are made.
struct PackStream {
    private var bytes: [UInt8] = []
    private let hash = SHA1()
    private let sink: ([UInt8]) throws -> Void
    static let chunk = 1 << 20

    init(count: Int, sink: @escaping ([UInt8]) throws -> Void) {
        self.sink = sink
        bytes = Array("PACK".utf8) + Self.bigEndian(2) + Self.bigEndian(UInt32(count))
    }

    mutating func append(type: git_object_t, _ content: UnsafeBufferPointer<UInt8>) throws {
        Self.encode(type: type, content, into: &bytes)
        if bytes.count >= Self.chunk { try flush() }
    }

    /// Appends objects already encoded by `encode` (counted in the header's total).
    mutating func appendEncoded(_ encoded: ArraySlice<UInt8>) throws {
        bytes.append(contentsOf: encoded)
        if bytes.count >= Self.chunk { try flush() }
    }

    private mutating func flush() throws {
        hash.update(bytes)
        try sink(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    /// Hands over what is left and the trailer.
    mutating func finish() throws {
        try flush()
        try sink(hash.finish())
    }

    /// Appends to `bytes` one object as a pack holds it whole.
    static func encode(type: git_object_t, _ content: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) {
        // Type and size: 3 type bits and the low 4 size bits, then 7 size bits a byte.
        var size = content.count
        var first = UInt8(truncatingIfNeeded: type.rawValue & 7) << 4 | UInt8(size & 0x0F)
        size >>= 4
        if size > 0 { first |= 0x80 }
        bytes.append(first)
        while size > 0 {
            var next = UInt8(size & 0x7F)
            size >>= 7
            if size > 0 { next |= 0x80 }
            bytes.append(next)
        }
        // zlib: header (deflate, 32K window, no dictionary, check bits), stored blocks of at
        // most 65,535 bytes, Adler-32 of the content.
        bytes += [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, content.count - offset)
            let final: UInt8 = offset + length == content.count ? 1 : 0
            bytes += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            if length > 0 { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: content[offset..<offset + length])) }
            offset += length
        } while offset < content.count
        bytes += Self.bigEndian(Self.adler32(content))
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }

    static func adler32(_ data: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        var index = 0
        while index < data.count {
            // 5,552 bytes is the most that cannot overflow before the modulo.
            let end = min(index + 5_552, data.count)
            while index < end {
                a &+= UInt32(data[index])
                b &+= a
                index += 1
            }
            a %= 65_521
            b %= 65_521
        }
        return b << 16 | a
    }
}

/// What the threads of `Repository.copyEverything` share: the packs, largest first, each taken
/// by one thread; the objects indexed; whether to stop; the second thread's error.
final class PackCopy: Sendable {
    /// A pack file of the source and its object count.
    struct Pack: Sendable {
        let path: String
        let count: Int
    }

    struct State: Sendable {
        var next = 0
        /// The objects of the packs indexed whole.
        var finished = 0
        /// The objects the second thread indexed of its current pack.
        var helperIndexed = 0
        var failure: (any Error)?
    }

    /// Where the second thread runs: a queue of its own gets a thread at once, where the
    /// global queues' few threads may all be held by callers that wait.
    static let queue = DispatchQueue(label: "todo.pack-copy", attributes: .concurrent)

    let packs: [Pack]
    let state = Mutex(State())
    let stopped = Atomic<Bool>(false)
    /// Signalled when the second thread ends.
    let ended = DispatchSemaphore(value: 0)

    init(_ packs: [Pack]) { self.packs = packs }

    /// The next pack to index; nil when none is left or the copy stopped.
    func take() -> Pack? {
        if stopped.load(ordering: .relaxed) { return nil }
        return state.withLock { s in
            guard s.next < packs.count else { return nil }
            s.next += 1
            return packs[s.next - 1]
        }
    }
}
