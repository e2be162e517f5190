public import AgeFormat

/// Why an age file could not be read or written.
public enum AgeError: Error, Equatable, Sendable {
    /// The bytes do not start with age's version line `age-encryption.org/v1` (another format,
    /// another version, an armored file, nothing at all).
    case notAgeFile(AgeFormatError)
    /// The header is damaged or not as age writes it: what and where. A stanza of ours that
    /// cannot be a recipient stanza (a wrong length, a low-order share) is counted here too.
    case damagedHeader(AgeFormatError)
    /// None of the identities given opens any stanza: the file is not for any key of ours.
    case noMatchingIdentity
    /// The header's MAC is not the MAC of its bytes under the file key: it was changed after
    /// it was written.
    case headerMAC
    /// The payload after a good header is damaged, cut short, or runs on.
    case damagedPayload(AgePayloadFault)
    /// `encrypt` was given no recipient.
    case noRecipients
    /// `encrypt` was given a recipient whose shared secret with any share is all zero (a
    /// low-order point), which no identity can open.
    case lowOrderRecipient(String)
    /// OpenSSL's libcrypto refused a call it accepts for every well-formed key and nonce (its
    /// words), or its random generator failed.
    case cryptoLibrary(String)
}

/// What is wrong with a payload, by chunk (each 64 KiB of plaintext, counted from 0).
public enum AgePayloadFault: Equatable, Sendable {
    /// The chunk does not authenticate: changed, cut inside, or a last chunk not marked last
    /// (or a chunk marked last that is not).
    case chunkNotAuthentic(chunk: Int)
    /// The payload ends after `chunks` chunks, none of them marked last: cut short.
    case truncated(chunks: Int)
    /// An empty last chunk after others, which age never writes.
    case emptyLastChunk(chunk: Int)
    /// Bytes after the chunk marked last, from file offset `at`.
    case trailingData(at: Int)
}

extension AgeError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .notAgeFile(let error): return "not an age file (\(error))"
        case .damagedHeader(let error): return "damaged age header: \(error)"
        case .noMatchingIdentity: return "no identity of ours opens this age file"
        case .headerMAC: return "the age header's MAC does not match: the header was changed"
        case .damagedPayload(.chunkNotAuthentic(let chunk)): return "age payload chunk \(chunk) is damaged"
        case .damagedPayload(.truncated(let chunks)): return "age payload cut short after \(chunks) chunks"
        case .damagedPayload(.emptyLastChunk(let chunk)): return "age payload ends with an empty chunk \(chunk)"
        case .damagedPayload(.trailingData(let at)): return "bytes after the age payload's last chunk, from byte \(at)"
        case .noRecipients: return "no recipient to encrypt to"
        case .lowOrderRecipient(let recipient): return "recipient \(recipient) is a low-order point"
        case .cryptoLibrary(let words): return "libcrypto: \(words)"
        }
    }
}
