/// age's payload: STREAM over ChaCha20-Poly1305. The plaintext is cut into chunks of 64 KiB
/// (the last one shorter, or full, and empty only when the whole plaintext is), each sealed
/// under the payload key with a 12-byte nonce: an 11-byte big-endian chunk counter and a byte
/// that is 1 for the last chunk and 0 for the others.
enum AgeStream {
    static let chunkSize = 64 * 1024
    static let tagSize = 16
    static let sealedChunkSize = chunkSize + tagSize

    /// The nonce of chunk `counter` (last or not); nil for a negative counter.
    static func nonce(_ counter: Int, last: Bool) -> [UInt8]? {
        guard var n = UInt64(exactly: counter) else { return nil }
        var bytes = [UInt8](repeating: 0, count: LibCrypto.nonceSize)
        for at in stride(from: 10, through: 3, by: -1) {
            bytes[at] = UInt8(truncatingIfNeeded: n)
            n >>= 8
        }
        bytes[11] = last ? 1 : 0
        return bytes
    }

    /// The size of the sealed payload of `count` bytes of plaintext.
    static func sealedSize(_ count: Int) -> Int {
        let chunks = max(1, (count + chunkSize - 1) / chunkSize)
        return count + chunks * tagSize
    }

    /// `plaintext` sealed under `key`, appended to `out`.
    static func seal(_ plaintext: some Collection<UInt8>, key: [UInt8], into out: inout [UInt8]) throws(AgeError) {
        var chunk: [UInt8] = []
        chunk.reserveCapacity(min(chunkSize, plaintext.count))
        var start = plaintext.startIndex
        var counter = 0
        repeat {
            let end = plaintext.index(start, offsetBy: chunkSize, limitedBy: plaintext.endIndex) ?? plaintext.endIndex
            let last = end == plaintext.endIndex
            chunk.removeAll(keepingCapacity: true)
            chunk.append(contentsOf: plaintext[start..<end])
            guard let nonce = nonce(counter, last: last) else { throw .cryptoLibrary("no nonce for chunk \(counter)") }
            try LibCrypto.seal(chunk[...], key: key, nonce: nonce, into: &out)
            start = end
            counter += 1
        } while start != plaintext.endIndex
    }

    /// The plaintext of the sealed chunks `bytes[payload]` under `key`. Allocates the
    /// plaintext once, at its exact size, and per chunk the chunk it opens, freed before the
    /// next chunk.
    static func open(_ bytes: [UInt8], payload: Range<Int>, key: [UInt8]) throws(AgeError) -> [UInt8] {
        guard !payload.isEmpty else { throw .damagedPayload(.truncated(chunks: 0)) }
        let chunks = (payload.count + sealedChunkSize - 1) / sealedChunkSize
        var out: [UInt8] = []
        out.reserveCapacity(max(0, payload.count - chunks * tagSize))
        var at = payload.lowerBound
        var counter = 0
        while true {
            guard at < payload.upperBound else { throw .damagedPayload(.truncated(chunks: counter)) }
            let size = min(sealedChunkSize, payload.upperBound - at)
            let sealed = bytes[at..<(at + size)]
            if size < sealedChunkSize {
                // A short chunk ends the file: it must be the last, and empty only when it is
                // the only one.
                if counter > 0 && size == tagSize { throw .damagedPayload(.emptyLastChunk(chunk: counter)) }
                guard let plain = try openChunk(sealed, counter: counter, last: true, key: key) else {
                    throw .damagedPayload(.chunkNotAuthentic(chunk: counter))
                }
                out.append(contentsOf: plain)
                return out
            }
            if let plain = try openChunk(sealed, counter: counter, last: false, key: key) {
                out.append(contentsOf: plain)
            } else if let plain = try openChunk(sealed, counter: counter, last: true, key: key) {
                // A full last chunk: nothing may follow it.
                guard at + size == payload.upperBound else { throw .damagedPayload(.trailingData(at: at + size)) }
                out.append(contentsOf: plain)
                return out
            } else {
                throw .damagedPayload(.chunkNotAuthentic(chunk: counter))
            }
            at += size
            counter += 1
        }
    }

    /// The plaintext of one sealed chunk, nil when it does not authenticate as chunk `counter`
    /// (last or not, as `last` says): the caller says which fault that is.
    static func openChunk(_ sealed: ArraySlice<UInt8>, counter: Int, last: Bool, key: [UInt8]) throws(AgeError) -> [UInt8]? {
        guard let nonce = nonce(counter, last: last) else { return nil }
        return try LibCrypto.open(sealed, key: key, nonce: nonce)
    }
}
