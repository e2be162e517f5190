import Crypto

/// swift-crypto's ChaCha20-Poly1305 given the key and nonce as `Age` keeps them, as bytes: the
/// tests seal payload chunks of their own with it, a judge apart from the OpenSSL calls `Age`
/// makes.
extension ChaChaPoly {
    static func seal(_ message: [UInt8], using key: [UInt8], nonce: [UInt8]) throws -> SealedBox {
        try seal(message, using: SymmetricKey(data: key), nonce: Nonce(data: nonce))
    }
}
