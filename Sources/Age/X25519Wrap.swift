import AgeFormat

/// The X25519 recipient stanza (age-encryption.org/v1, "X25519 recipient stanza"): the file key
/// sealed with ChaCha20-Poly1305 under a key made by HKDF-SHA256 from the shared secret of an
/// ephemeral key and the recipient, salted with both public keys.
enum X25519Wrap {
    static let info = Array("age-encryption.org/v1/X25519".utf8)
    static let zeroNonce = [UInt8](repeating: 0, count: LibCrypto.nonceSize)
    static let fileKeySize = 16

    /// The stanza that carries `fileKey` to `recipient`.
    static func wrap(_ fileKey: [UInt8], to recipient: AgeRecipient) throws(AgeError) -> AgeStanza {
        let ephemeral = try LibCrypto.random(LibCrypto.keySize)
        let share = try LibCrypto.x25519PublicKey(ephemeral)
        guard let key = try wrappingKey(ephemeral, peer: recipient.publicKey, share: share, recipient: recipient.publicKey) else {
            throw .lowOrderRecipient(recipient.text)
        }
        var wrapped: [UInt8] = []
        try LibCrypto.seal(fileKey[...], key: key, nonce: zeroNonce, into: &wrapped)
        return AgeX25519Stanza(share: share, wrappedKey: wrapped).stanza
    }

    /// The file key `stanza` (found at `offset`) carries to `identity`; nil when it is not for
    /// `identity` (its key does not open the body). A share whose shared secret is all zero is
    /// a damaged header, as age counts it.
    static func unwrap(_ stanza: AgeX25519Stanza, at offset: Int, identity: AgeIdentity) throws(AgeError) -> [UInt8]? {
        let ours = identity.recipient.publicKey
        guard let key = try wrappingKey(identity.secret, peer: stanza.share, share: stanza.share, recipient: ours) else {
            throw .damagedHeader(.invalid(.x25519Stanza, .lowOrderShare, at: offset))
        }
        // nil: another recipient's stanza (or a damaged one), not ours, and the next is tried.
        return try LibCrypto.open(stanza.wrappedKey[...], key: key, nonce: zeroNonce)
    }

    /// HKDF-SHA256 of the shared secret of scalar `secret` and `peer`, salted with `share` then
    /// `recipient`; nil when the shared secret is all zero (`peer` a low-order point).
    static func wrappingKey(_ secret: [UInt8], peer: [UInt8], share: [UInt8], recipient: [UInt8]) throws(AgeError) -> [UInt8]? {
        guard let shared = try LibCrypto.x25519(secret, peer: peer) else { return nil }
        return try LibCrypto.hkdfSHA256(shared, salt: share + recipient, info: info, count: LibCrypto.keySize)
    }
}

/// The header's MAC and the payload key, both made from the file key by HKDF-SHA256.
enum FileKeys {
    static let headerInfo = Array("header".utf8)
    static let payloadInfo = Array("payload".utf8)

    /// HMAC-SHA256 of `covered` (the header through `---`) under HKDF(file key, info "header").
    static func mac(_ fileKey: [UInt8], covered: ArraySlice<UInt8>) throws(AgeError) -> [UInt8] {
        try LibCrypto.hmacSHA256(LibCrypto.hkdfSHA256(fileKey, info: headerInfo, count: LibCrypto.keySize), covered)
    }

    /// Whether `mac` is the header MAC of `covered` (compared in constant time).
    static func mac(_ fileKey: [UInt8], covered: ArraySlice<UInt8>, matches mac: [UInt8]) throws(AgeError) -> Bool {
        LibCrypto.constantTimeEqual(try self.mac(fileKey, covered: covered), mac)
    }

    /// HKDF(file key, salt: the payload's nonce, info "payload").
    static func key(_ fileKey: [UInt8], nonce: ArraySlice<UInt8>) throws(AgeError) -> [UInt8] {
        try LibCrypto.hkdfSHA256(fileKey, salt: Array(nonce), info: payloadInfo, count: LibCrypto.keySize)
    }

    /// `mac(_:covered:)` for callers that cannot throw (`LibCrypto.unfailing`).
    static func headerMAC(_ fileKey: [UInt8], covered: ArraySlice<UInt8>) -> [UInt8] {
        LibCrypto.unfailing { () throws(AgeError) in try mac(fileKey, covered: covered) }
    }

    /// `key(_:nonce:)` for callers that cannot throw (`LibCrypto.unfailing`).
    static func payloadKey(_ fileKey: [UInt8], nonce: ArraySlice<UInt8>) -> [UInt8] {
        LibCrypto.unfailing { () throws(AgeError) in try key(fileKey, nonce: nonce) }
    }
}
