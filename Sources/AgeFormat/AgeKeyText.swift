/// The text of age's X25519 keys: a recipient is `age1…`, lowercase bech32 of the 32-byte
/// public key; an identity is `AGE-SECRET-KEY-1…`, uppercase bech32 of the 32-byte secret
/// scalar. As age, a recipient in uppercase or an identity in lowercase is refused.
public enum AgeKeyText {
    public static let recipientPrefix = "age"
    public static let identityPrefix = "AGE-SECRET-KEY-"
    /// The bytes of an X25519 key, public or secret.
    public static let keySize = 32

    /// `age1…` for the public key `key`.
    public static func recipient(_ key: [UInt8]) -> String { Bech32.encode(hrp: recipientPrefix, data: key) }

    /// `AGE-SECRET-KEY-1…` for the secret key `key`.
    public static func identity(_ key: [UInt8]) -> String { Bech32.encode(hrp: identityPrefix, data: key) }

    /// The 32-byte public key of recipient `text`.
    public static func parseRecipient(_ text: String) throws(AgeFormatError) -> [UInt8] {
        try key(text, prefix: recipientPrefix, part: .recipient)
    }

    /// The 32-byte secret key of identity `text`.
    public static func parseIdentity(_ text: String) throws(AgeFormatError) -> [UInt8] {
        try key(text, prefix: identityPrefix, part: .identity)
    }

    static func key(_ text: String, prefix: String, part: AgePart) throws(AgeFormatError) -> [UInt8] {
        let decoded: (hrp: String, data: [UInt8])
        do {
            decoded = try Bech32.decode(text)
        } catch {
            switch error {
            case .invalid(_, let problem, let at): throw .invalid(part, problem, at: at)
            case .overLimit(_, let limit, let at): throw .overLimit(part, limit: limit, at: at)
            case .truncated(_, let at): throw .truncated(part, at: at)
            }
        }
        guard decoded.hrp == prefix else { throw .invalid(part, .wrongKeyType, at: 0) }
        guard decoded.data.count == keySize else { throw .invalid(part, .wrongLength, at: decoded.hrp.utf8.count + 1) }
        return decoded.data
    }
}
