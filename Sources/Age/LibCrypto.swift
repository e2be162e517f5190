import CLibCrypto

/// age's primitives over OpenSSL's libcrypto, which `todo` links statically already (libgit2's
/// SSH uses it): the random source, X25519, HKDF-SHA256, HMAC-SHA256 and ChaCha20-Poly1305.
/// Each OpenSSL object is freed on every path; a call OpenSSL refuses is an
/// `AgeError.cryptoLibrary` with OpenSSL's words, except where it says what the input is (a
/// low-order point, a chunk that does not authenticate).
enum LibCrypto {
    /// An X25519 scalar, public key or shared secret; a ChaCha20-Poly1305 key; a SHA-256 MAC.
    static let keySize = 32
    static let nonceSize = 12
    static let tagSize = 16

    /// `count` bytes from OpenSSL's random generator (seeded from the system's).
    static func random(_ count: Int) throws(AgeError) -> [UInt8] {
        guard let length = Int32(exactly: count), length >= 0 else { throw .cryptoLibrary("RAND_bytes: \(count) bytes asked") }
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, length) == 1 else { throw failure("RAND_bytes") }
        return bytes
    }

    /// The public key of the X25519 scalar `secret`.
    static func x25519PublicKey(_ secret: [UInt8]) throws(AgeError) -> [UInt8] {
        let key = try privateKey(secret)
        defer { EVP_PKEY_free(key) }
        var publicKey = [UInt8](repeating: 0, count: keySize)
        var length = keySize
        guard EVP_PKEY_get_raw_public_key(key, &publicKey, &length) == 1, length == keySize else {
            throw failure("EVP_PKEY_get_raw_public_key")
        }
        return publicKey
    }

    /// The X25519 shared secret of scalar `secret` and public key `peer`; nil when it is all
    /// zero (`peer` a low-order point). OpenSSL's derive refuses that secret, which is the one
    /// refusal it has once both keys are made and the context set up; the bytes of a secret it
    /// does give are checked too.
    static func x25519(_ secret: [UInt8], peer: [UInt8]) throws(AgeError) -> [UInt8]? {
        let key = try privateKey(secret)
        defer { EVP_PKEY_free(key) }
        guard peer.count == keySize, let peerKey = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, peer, keySize) else {
            throw failure("EVP_PKEY_new_raw_public_key")
        }
        defer { EVP_PKEY_free(peerKey) }
        guard let context = EVP_PKEY_CTX_new(key, nil) else { throw failure("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(context) }
        // The peer is not validated when set: a low-order point must reach derive, which tells it.
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer_ex(context, peerKey, 0) == 1 else {
            throw failure("EVP_PKEY_derive_set_peer_ex")
        }
        var shared = [UInt8](repeating: 0, count: keySize)
        var length = keySize
        guard EVP_PKEY_derive(context, &shared, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        guard length == keySize else { throw .cryptoLibrary("EVP_PKEY_derive: a shared secret of \(length) bytes") }
        return shared.reduce(0, |) == 0 ? nil : shared
    }

    /// The X25519 private key of the 32-byte scalar `secret` (any 32 bytes are one; OpenSSL
    /// clamps them). The caller frees it.
    static func privateKey(_ secret: [UInt8]) throws(AgeError) -> OpaquePointer {
        guard secret.count == keySize, let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nil, secret, keySize) else {
            throw failure("EVP_PKEY_new_raw_private_key")
        }
        return key
    }

    /// HKDF-SHA256 (RFC 5869) of `key`, salted with `salt` (none when empty: HashLen zero
    /// bytes, as the RFC says), with `info`: `count` bytes.
    static func hkdfSHA256(_ key: [UInt8], salt: [UInt8] = [], info: [UInt8], count: Int) throws(AgeError) -> [UInt8] {
        guard let keyLength = Int32(exactly: key.count), let saltLength = Int32(exactly: salt.count), let infoLength = Int32(exactly: info.count)
        else { throw .cryptoLibrary("HKDF-SHA256: input over 2 GiB") }
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nil) else { throw failure("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: count)
        var length = count
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) == 1,
            salt.isEmpty || EVP_PKEY_CTX_set1_hkdf_salt(context, salt, saltLength) == 1,
            EVP_PKEY_CTX_set1_hkdf_key(context, key, keyLength) == 1, EVP_PKEY_CTX_add1_hkdf_info(context, info, infoLength) == 1,
            EVP_PKEY_derive(context, &out, &length) == 1, length == count
        else { throw failure("HKDF-SHA256") }
        return out
    }

    /// HMAC-SHA256 of `message` under `key`.
    static func hmacSHA256(_ key: [UInt8], _ message: ArraySlice<UInt8>) throws(AgeError) -> [UInt8] {
        guard let keyLength = Int32(exactly: key.count) else { throw .cryptoLibrary("HMAC-SHA256: a key over 2 GiB") }
        var mac = [UInt8](repeating: 0, count: keySize)
        var length: UInt32 = 0
        let done = mac.withUnsafeMutableBufferPointer { out in
            message.withUnsafeBufferPointer { HMAC(EVP_sha256(), key, keyLength, $0.baseAddress, $0.count, out.baseAddress, &length) != nil }
        }
        guard done, length == keySize else { throw failure("HMAC") }
        return mac
    }

    /// Whether `a` and `b` are the same bytes, in time that depends on their length alone.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && CRYPTO_memcmp(a, b, a.count) == 0
    }

    /// `plaintext` sealed with ChaCha20-Poly1305 under `key` and the 12-byte `nonce` (no
    /// associated data): the ciphertext then the 16-byte tag, appended to `out`.
    static func seal(_ plaintext: ArraySlice<UInt8>, key: [UInt8], nonce: [UInt8], into out: inout [UInt8]) throws(AgeError) {
        let count = plaintext.count
        var sealed = [UInt8](repeating: 0, count: count + tagSize)
        let done = try withCipher(key: key, nonce: nonce, count: count, sealing: true) { context, length in
            sealed.withUnsafeMutableBufferPointer { sealed in
                plaintext.withUnsafeBufferPointer { plain in
                    guard let base = sealed.baseAddress else { return false }
                    var written: Int32 = 0
                    if count > 0 {
                        guard EVP_EncryptUpdate(context, base, &written, plain.baseAddress, length) == 1, written == length else { return false }
                    }
                    guard EVP_EncryptFinal_ex(context, base + count, &written) == 1, written == 0 else { return false }
                    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagSize), UnsafeMutableRawPointer(base + count)) == 1
                }
            }
        }
        guard done else { throw failure("ChaCha20-Poly1305 seal") }
        out += sealed
    }

    /// The plaintext of `sealed` (ciphertext then 16-byte tag) under `key` and `nonce`; nil
    /// when it does not authenticate (or is shorter than a tag). Nothing of the plaintext is
    /// returned before its tag is checked.
    static func open(_ sealed: ArraySlice<UInt8>, key: [UInt8], nonce: [UInt8]) throws(AgeError) -> [UInt8]? {
        guard sealed.count >= tagSize else { return nil }
        let count = sealed.count - tagSize
        var tag = Array(sealed.suffix(tagSize))
        // Room for the tag too, so that the final call has an address past the plaintext.
        var plain = [UInt8](repeating: 0, count: count + tagSize)
        var ready = false
        let authentic = try withCipher(key: key, nonce: nonce, count: count, sealing: false) { context, length in
            plain.withUnsafeMutableBufferPointer { plain in
                sealed.withUnsafeBufferPointer { sealed in
                    guard let base = plain.baseAddress else { return false }
                    var written: Int32 = 0
                    if count > 0 {
                        guard EVP_DecryptUpdate(context, base, &written, sealed.baseAddress, length) == 1, written == length else { return false }
                    }
                    guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tagSize), &tag) == 1 else { return false }
                    ready = true
                    return EVP_DecryptFinal_ex(context, base + count, &written) == 1
                }
            }
        }
        guard ready else { throw failure("ChaCha20-Poly1305 open") }
        guard authentic else {
            ERR_clear_error()
            return nil
        }
        plain.removeLast(tagSize)
        return plain
    }

    /// `body` given a ChaCha20-Poly1305 context set up to seal (or open) `count` bytes under
    /// `key` and the 12-byte `nonce`, and `count` as OpenSSL's length; the context is freed after.
    static func withCipher<T>(
        key: [UInt8], nonce: [UInt8], count: Int, sealing: Bool, _ body: (OpaquePointer, Int32) -> T
    ) throws(AgeError) -> T {
        guard key.count == keySize, nonce.count == nonceSize, let length = Int32(exactly: count) else {
            throw .cryptoLibrary("ChaCha20-Poly1305: a key of \(key.count), a nonce of \(nonce.count), \(count) bytes")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw failure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_CipherInit_ex(context, EVP_chacha20_poly1305(), nil, key, nonce, sealing ? 1 : 0) == 1 else {
            throw failure("EVP_CipherInit_ex")
        }
        return body(context, length)
    }

    /// The result of `body`, for the callers whose API cannot throw (`AgeIdentity.generate`,
    /// `keyedMAC`): OpenSSL refuses these calls, for keys and lengths of the sizes age uses,
    /// only when it cannot allocate or its random source fails, which leaves no way on; the
    /// process stops, as Swift's own allocation failure and BoringSSL's failing random source
    /// (swift-crypto's, before) stop it. Never reached from input bytes.
    static func unfailing<T>(_ body: () throws(AgeError) -> T) -> T {
        do {
            return try body()
        } catch {
            fatalError("age: \(error)")
        }
    }

    /// `.cryptoLibrary` with OpenSSL's words for the first error on this thread's queue (or
    /// the call's name alone), the queue emptied.
    static func failure(_ call: String) -> AgeError {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return .cryptoLibrary("\(call) failed") }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        let words = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .cryptoLibrary("\(call): \(words)")
    }
}
