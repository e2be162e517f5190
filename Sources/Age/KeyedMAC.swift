import Crypto

extension AgeIdentity {
    /// HMAC-SHA256 of `message` under a key derived from this identity's scalar (HKDF-SHA256,
    /// no salt, info `info`): proof that whoever wrote `message` held this identity.
    public func keyedMAC(_ message: some Collection<UInt8>, info: String) -> [UInt8] {
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), info: Array(info.utf8), outputByteCount: 32)
        return Array(HMAC<SHA256>.authenticationCode(for: Array(message), using: key))
    }
}
