import CInterposers
import GitFormats

/// SHA-1 of a byte stream through libcrypto (CInterposers/fast_sha1.c), which uses the CPU's
/// SHA instructions where there are some: for what GitKit hashes itself, the index's checksum,
/// the trailer of the packs `PackWriter` writes and the id of a loose object read back
/// (`removeDamagedLooseObjects`). libgit2 hashes the objects it writes, but offers no plain
/// SHA-1 of a byte stream. Not for security: these guard against truncation and corruption.
final class SHA1: StreamHash {
    private let context: UnsafeMutableRawPointer

    init() {
        context = .allocate(byteCount: Int(TODO_SHA1_CONTEXT_SIZE), alignment: 16)
        // libcrypto's SHA-1 calls cannot fail, whatever the bytes; -1 comes only from a build
        // without libcrypto, which Linux's (the only one supported) never is.
        precondition(todo_sha1_init(context) == 0, "SHA-1: this executable has no libcrypto")
    }

    deinit { context.deallocate() }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(todo_sha1_update(context, base, bytes.count) == 0, "SHA-1: this executable has no libcrypto")
    }

    func update(_ bytes: UnsafeBufferPointer<UInt8>) { update(UnsafeRawBufferPointer(bytes)) }

    func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// The 20 bytes of the digest of everything given (once: the hash is spent).
    func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 20)
        let status = digest.withUnsafeMutableBufferPointer { todo_sha1_final(context, $0.baseAddress!) }
        precondition(status == 0, "SHA-1: this executable has no libcrypto")
        return digest
    }
}
