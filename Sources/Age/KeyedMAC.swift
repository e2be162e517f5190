extension AgeIdentity {
    /// HMAC-SHA256 of `message` under a key derived from this identity's scalar (HKDF-SHA256,
    /// no salt, info `info`): proof that whoever wrote `message` held this identity.
    public func keyedMAC(_ message: some Collection<UInt8>, info: String) -> [UInt8] {
        LibCrypto.unfailing { () throws(AgeError) in
            try LibCrypto.hmacSHA256(LibCrypto.hkdfSHA256(secret, info: Array(info.utf8), count: LibCrypto.keySize), Array(message)[...])
        }
    }
}
