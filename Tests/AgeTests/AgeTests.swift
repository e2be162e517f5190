@testable import Age
import AgeFormat
import Crypto
import Testing

/// `Age` on its own: the payload's chunks at their edges, the refusals of encryption, and
/// the header's stanzas as age reads them (unknown types passed over, X25519 ones checked).
@Suite(.timeLimit(.minutes(2))) struct AgeTests {
    let alice = AgeIdentity.generate()

    static func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) } }

    /// Each size round-trips, and the file is exactly the header, the nonce, and the chunks:
    /// an empty plaintext is one empty chunk, a whole number of chunks ends on a full last one.
    @Test func chunksAreCutAsAgeCutsThem() throws {
        for size in [0, 1, 65535, 65536, 65537, 2 * 65536, 2 * 65536 + 1] {
            let plaintext = Self.bytes(size)
            let file = try Age.encrypt(plaintext, to: [alice.recipient])
            let parsed = try AgeFile.parse(file)
            let chunks = max(1, (size + 65535) / 65536)
            #expect(parsed.payload.count == size + 16 * chunks, "\(size)")
            #expect(try Age.decrypt(file, identities: [alice]) == plaintext, "\(size)")
        }
    }

    /// A payload built chunk by chunk, sealed as `chunks` says (plaintext size, marked last).
    func file(_ chunks: [(size: Int, last: Bool)], trailing: [UInt8] = []) throws -> [UInt8] {
        let fileKey = Age.randomBytes(16)
        let stanza = try X25519Wrap.wrap(fileKey, to: alice.recipient)
        let covered = AgeHeader.encodeWithoutMAC([stanza])
        let nonce = Age.randomBytes(16)
        var out = covered + AgeHeader.encodeMACLine(FileKeys.headerMAC(fileKey, covered: covered[...])) + nonce
        let key = FileKeys.payloadKey(fileKey, nonce: nonce[...])
        for (counter, chunk) in chunks.enumerated() {
            guard let nonce = AgeStream.nonce(counter, last: chunk.last) else { throw AgeError.cryptoLibrary("no nonce") }
            let box = try ChaChaPoly.seal(Self.bytes(chunk.size), using: key, nonce: nonce)
            out += Array(box.ciphertext) + Array(box.tag)
        }
        return out + trailing
    }

    @Test func damagedPayloadsAreRefusedWithTheirFault() throws {
        let full = 65536
        #expect(decrypting(try file([(full, false), (10, true)]), [alice]) == .success(Self.bytes(full) + Self.bytes(10)))
        #expect(decrypting(try file([(full, true)]), [alice]) == .success(Self.bytes(full)))
        let cases: [([(Int, Bool)], [UInt8], AgePayloadFault)] = [
            ([], [], .truncated(chunks: 0)),
            ([(full, false)], [], .truncated(chunks: 1)),
            ([(full, false), (full, false)], [], .truncated(chunks: 2)),
            ([(full, false), (0, true)], [], .emptyLastChunk(chunk: 1)),
            ([(10, false)], [], .chunkNotAuthentic(chunk: 0)),
            ([(0, false)], [], .chunkNotAuthentic(chunk: 0)),
            ([(full, false), (10, false)], [], .chunkNotAuthentic(chunk: 1)),
            ([(full, true), (10, true)], [], .trailingData(at: -1)),
            ([(full, true)], [0], .trailingData(at: -1)),
            ([(10, true)], [0], .chunkNotAuthentic(chunk: 0)),
            ([(full, false), (full, true)], [1, 2, 3], .trailingData(at: -1)),
        ]
        for (chunks, trailing, fault) in cases {
            let bytes = try file(chunks, trailing: trailing)
            var expected = fault
            if case .trailingData = fault {
                // After the first chunk marked last.
                let ends = chunks.prefix { !$0.1 }.count + 1
                expected = .trailingData(at: try AgeFile.parse(bytes).payload.lowerBound + ends * (full + 16))
            }
            #expect(decrypting(bytes, [alice]) == .failure(.damagedPayload(expected)), "\(chunks) + \(trailing.count)")
        }
        // A file cut short inside its nonce is a damaged header, as age's vectors count it.
        let whole = try file([(0, true)])
        #expect(decrypting(Array(whole.dropLast(20)), [alice]) == .failure(.damagedHeader(.truncated(.nonce, at: whole.count - 20))))
    }

    @Test func encryptionRefusesNoRecipientsAndLowOrderPoints() throws {
        #expect(throws: AgeError.noRecipients) { try Age.encrypt([1], to: []) }
        let zero = try AgeRecipient(AgeKeyText.recipient([UInt8](repeating: 0, count: 32)))
        #expect(throws: AgeError.lowOrderRecipient(zero.text)) { try Age.encrypt([1], to: [alice.recipient, zero]) }
    }

    /// Stanzas of other types are passed over when an X25519 stanza is ours; an X25519 stanza
    /// that is not well formed is a damaged header even beside one that is ours; a header that
    /// was changed fails its MAC; another's file is "no key of ours".
    @Test func stanzasAreReadAsAgeReadsThem() throws {
        let bob = AgeIdentity.generate()
        let file = try Age.encrypt(Self.bytes(100), to: [bob.recipient, alice.recipient])
        #expect(try Age.decrypt(file, identities: [alice]) == Self.bytes(100))
        #expect(try Age.decrypt(file, identities: [AgeIdentity.generate(), bob]) == Self.bytes(100))
        #expect(decrypting(file, [AgeIdentity.generate()]) == .failure(.noMatchingIdentity))
        #expect(decrypting(file, []) == .failure(.noMatchingIdentity))

        let parsed = try AgeFile.parse(file)
        let rest = Array(file[parsed.nonce.lowerBound...])
        func rewritten(_ stanzas: [AgeStanza]) -> [UInt8] { AgeHeader.encode(stanzas, mac: parsed.header.mac) + rest }
        let stanzas = parsed.header.stanzas
        // Changed in any way, the header's MAC no longer matches.
        let grease = AgeStanza(type: "grease-1", arguments: ["x"], body: [1, 2, 3])
        #expect(decrypting(rewritten([grease] + stanzas), [alice]) == .failure(.headerMAC))
        #expect(decrypting(rewritten(stanzas.reversed()), [alice]) == .failure(.headerMAC))
        #expect(decrypting(rewritten([stanzas[1]]), [alice]) == .failure(.headerMAC))
        #expect(decrypting(rewritten([stanzas[0]]), [alice]) == .failure(.noMatchingIdentity))
        // A malformed X25519 stanza is refused wherever it is.
        var extra = stanzas[0]
        extra.arguments.append("more")
        let damaged = rewritten(stanzas + [extra])
        #expect(decrypting(damaged, [alice]) == .failure(.damagedHeader(.invalid(.x25519Stanza, .wrongArgumentCount, at: try AgeHeader.parse(damaged).stanzaOffsets[2]))))
        var short = stanzas[0]
        short.body.removeLast()
        #expect(decrypting(rewritten([short] + stanzas), [alice]) == .failure(.damagedHeader(.invalid(.x25519Stanza, .wrongLength, at: 22))))
        let lowOrder = AgeX25519Stanza(share: [UInt8](repeating: 0, count: 32), wrappedKey: [UInt8](repeating: 0, count: 32)).stanza
        #expect(decrypting(rewritten([lowOrder] + stanzas), [alice]) == .failure(.damagedHeader(.invalid(.x25519Stanza, .lowOrderShare, at: 22))))
    }

    /// age's vectors whose share is a low-order point are refused by name.
    @Test func lowOrderSharesAreNamed() throws {
        for name in ["x25519_low_order", "x25519_identity"] {
            let vector = try AgeVector.load(name)
            let identities = try vector.values("identity").map { try AgeIdentity($0) }
            #expect(decrypting(vector.file, identities) == .failure(.damagedHeader(.invalid(.x25519Stanza, .lowOrderShare, at: 22))), "\(name)")
        }
    }
}
