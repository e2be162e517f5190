public import AgeFormat

/// An age X25519 identity: the secret key that opens files encrypted to its recipient.
/// Deliberately not `CustomStringConvertible`: its text is asked for by name (`secretText`).
public struct AgeIdentity: Sendable {
    /// The 32-byte scalar.
    let secret: [UInt8]
    /// The public key, kept: every unwrap salts with it.
    public let recipient: AgeRecipient

    /// The identity of the 32-byte scalar `secret`, its public key computed by OpenSSL.
    init(scalar secret: [UInt8]) throws(AgeError) {
        self.secret = secret
        recipient = AgeRecipient(publicKey: try LibCrypto.x25519PublicKey(secret))
    }

    /// A new identity from OpenSSL's random generator (`LibCrypto.unfailing`).
    public static func generate() -> AgeIdentity {
        LibCrypto.unfailing { () throws(AgeError) in try AgeIdentity(scalar: LibCrypto.random(AgeKeyText.keySize)) }
    }

    /// The identity `AGE-SECRET-KEY-1…`.
    public init(_ text: String) throws(AgeFormatError) {
        try self.init(secretKey: AgeKeyText.parseIdentity(text))
    }

    /// The identity of the 32-byte secret scalar `secretKey`.
    public init(secretKey: [UInt8]) throws(AgeFormatError) {
        guard secretKey.count == AgeKeyText.keySize,
            // Any 32 bytes are a scalar: OpenSSL refuses only the length, checked here, or fails to allocate.
            let identity = try? AgeIdentity(scalar: secretKey)
        else { throw .invalid(.identity, .wrongLength, at: 0) }
        self = identity
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
