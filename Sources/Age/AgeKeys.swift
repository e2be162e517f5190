public import AgeFormat
import Crypto

/// An age X25519 identity: the secret key that opens files encrypted to its recipient.
/// Deliberately not `CustomStringConvertible`: its text is asked for by name (`secretText`).
public struct AgeIdentity: Sendable {
    /// The 32-byte scalar (swift-crypto's key type is not `Sendable`, so the bytes are kept
    /// and the key made again where it is used).
    let secret: [UInt8]
    /// The public key, kept: every unwrap salts with it.
    public let recipient: AgeRecipient

    init(key: Curve25519.KeyAgreement.PrivateKey) {
        secret = Array(key.rawRepresentation)
        recipient = AgeRecipient(publicKey: Array(key.publicKey.rawRepresentation))
    }

    /// swift-crypto's key for the scalar.
    func key() throws(AgeError) -> Curve25519.KeyAgreement.PrivateKey {
        do {
            return try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: secret)
        } catch {
            throw .cryptoLibrary("\(error)")
        }
    }

    /// A new identity from the system's secure random source.
    public static func generate() -> AgeIdentity { AgeIdentity(key: Curve25519.KeyAgreement.PrivateKey()) }

    /// The identity `AGE-SECRET-KEY-1…`.
    public init(_ text: String) throws(AgeFormatError) {
        try self.init(secretKey: AgeKeyText.parseIdentity(text))
    }

    /// The identity of the 32-byte secret scalar `secretKey`.
    public init(secretKey: [UInt8]) throws(AgeFormatError) {
        guard secretKey.count == AgeKeyText.keySize,
            // Any 32 bytes are a scalar: only the length can be refused, and it was checked.
            let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: secretKey)
        else { throw .invalid(.identity, .wrongLength, at: 0) }
        self.init(key: key)
    }

    /// `AGE-SECRET-KEY-1…`, as `age-keygen` writes it.
    public var secretText: String { AgeKeyText.identity(secret) }

    /// The identities of an identity file (`age-keygen`'s format).
    public static func parseFile(_ bytes: [UInt8]) throws(AgeFormatError) -> [AgeIdentity] {
        var identities: [AgeIdentity] = []
        for secret in try AgeIdentityFile.parse(bytes).identities { identities.append(try AgeIdentity(secretKey: secret)) }
        return identities
    }

    /// The identity file `age-keygen` would write for this identity, made at `created`
    /// (seconds since 1970).
    public func identityFile(created: Int64) -> [UInt8] {
        AgeIdentityFile.encode(identity: secretText, recipient: recipient.text, created: created)
    }
}

/// An age X25519 recipient, `age1…`: the public key files are encrypted to.
public struct AgeRecipient: Hashable, Sendable, CustomStringConvertible {
    public let publicKey: [UInt8]

    init(publicKey: [UInt8]) { self.publicKey = publicKey }

    /// The recipient `age1…`.
    public init(_ text: String) throws(AgeFormatError) {
        publicKey = try AgeKeyText.parseRecipient(text)
    }

    /// `age1…`.
    public var text: String { AgeKeyText.recipient(publicKey) }
    public var description: String { text }
}
