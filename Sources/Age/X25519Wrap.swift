import AgeFormat
import Crypto
import Foundation

/// The X25519 recipient stanza (age-encryption.org/v1, "X25519 recipient stanza"): the file key
/// sealed with ChaCha20-Poly1305 under a key made by HKDF-SHA256 from the shared secret of an
/// ephemeral key and the recipient, salted with both public keys.
enum X25519Wrap {
    static let info = Array("age-encryption.org/v1/X25519".utf8)
    static let zeroNonce = [UInt8](repeating: 0, count: 12)
    static let fileKeySize = 16

    /// The stanza that carries `fileKey` to `recipient`.
    static func wrap(_ fileKey: [UInt8], to recipient: AgeRecipient) throws(AgeError) -> AgeStanza {
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let share = Array(ephemeral.publicKey.rawRepresentation)
        guard let key = try wrappingKey(ephemeral, peer: recipient.publicKey, share: share, recipient: recipient.publicKey) else {
            throw .lowOrderRecipient(recipient.text)
        }
        do {
            let box = try ChaChaPoly.seal(fileKey, using: key, nonce: ChaChaPoly.Nonce(data: zeroNonce))
            return AgeX25519Stanza(share: share, wrappedKey: Array(box.ciphertext) + Array(box.tag)).stanza
        } catch {
            throw .cryptoLibrary("\(error)")
        }
    }

    /// The file key `stanza` (found at `offset`) carries to `identity`; nil when it is not for
    /// `identity` (its key does not open the body). A share whose shared secret is all zero is
    /// a damaged header, as age counts it.
    static func unwrap(_ stanza: AgeX25519Stanza, at offset: Int, identity: AgeIdentity) throws(AgeError) -> [UInt8]? {
        let ours = identity.recipient.publicKey
        guard let key = try wrappingKey(identity.key(), peer: stanza.share, share: stanza.share, recipient: ours) else {
            throw .damagedHeader(.invalid(.x25519Stanza, .lowOrderShare, at: offset))
        }
        do {
            let box = try ChaChaPoly.SealedBox(
                nonce: ChaChaPoly.Nonce(data: zeroNonce), ciphertext: stanza.wrappedKey.prefix(fileKeySize),
                tag: stanza.wrappedKey.dropFirst(fileKeySize))
            return Array(try ChaChaPoly.open(box, using: key))
        } catch {
            // Another recipient's stanza (or a damaged one): not ours, and the next is tried.
            return nil
        }
    }

    /// HKDF-SHA256 of the shared secret of `secret` and `peer`, salted with `share` then
    /// `recipient`; nil when the shared secret is all zero (`peer` a low-order point).
    static func wrappingKey(
        _ secret: Curve25519.KeyAgreement.PrivateKey, peer: [UInt8], share: [UInt8], recipient: [UInt8]
    ) throws(AgeError) -> SymmetricKey? {
        let shared: SharedSecret
        do {
            shared = try secret.sharedSecretFromKeyAgreement(with: Curve25519.KeyAgreement.PublicKey(rawRepresentation: peer))
        } catch {
            throw .cryptoLibrary("\(error)")
        }
        // swift-crypto does not refuse the all-zero secret (BoringSSL's return code is not
        // looked at), so it is checked here, over every byte.
        let zero = shared.withUnsafeBytes { bytes in bytes.reduce(UInt8(0)) { $0 | $1 } == 0 }
        guard !zero else { return nil }
        return shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: share + recipient, sharedInfo: info, outputByteCount: 32)
    }
}

/// The header's MAC and the payload key, both made from the file key by HKDF-SHA256.
enum FileKeys {
    /// HMAC-SHA256 of `covered` (the header through `---`) under HKDF(file key, info "header").
    static func headerMAC(_ fileKey: [UInt8], covered: ArraySlice<UInt8>) -> [UInt8] {
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: fileKey), info: Array("header".utf8), outputByteCount: 32)
        return Array(HMAC<SHA256>.authenticationCode(for: covered, using: key))
    }

    /// Whether `mac` is the header MAC of `covered` (compared in constant time).
    static func headerMACMatches(_ fileKey: [UInt8], covered: ArraySlice<UInt8>, mac: [UInt8]) -> Bool {
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: fileKey), info: Array("header".utf8), outputByteCount: 32)
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: covered, using: key)
    }

    /// HKDF(file key, salt: the payload's nonce, info "payload").
    static func payloadKey(_ fileKey: [UInt8], nonce: ArraySlice<UInt8>) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: fileKey), salt: nonce, info: Array("payload".utf8), outputByteCount: 32)
    }
}
