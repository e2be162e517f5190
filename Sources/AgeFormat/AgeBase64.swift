/// age's base64: the standard alphabet (`+` and `/`), no padding, and strict: every string has
/// one reading and every byte string one encoding (a last character whose unused bits are not
/// zero is refused, so a header cannot be changed without changing its bytes).
public enum AgeBase64 {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The value of base64 character `c`, nil for any other byte.
    @inline(__always) static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }

    /// The base64 characters of `bytes`, without padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[Int((buffer >> UInt32(bits)) & 63)])
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(6 - bits)) & 63)]) }
        return out
    }

    /// `encode` as a string.
    public static func encodeString(_ bytes: some Collection<UInt8>) -> String { String(decoding: encode(bytes), as: UTF8.self) }

    /// The bytes of the base64 characters `text` (its indices are the offsets the errors give),
    /// refused as `part` when a character is not base64, the length is one no unpadded encoding
    /// has, or the last character's unused bits are not zero.
    public static func decode(_ text: ArraySlice<UInt8>, part: AgePart) throws(AgeFormatError) -> [UInt8] {
        guard text.count % 4 != 1 else { throw .invalid(part, .badBase64Length, at: text.startIndex) }
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for index in text.indices {
            let c = text[index]
            guard let v = value(c) else {
                throw .invalid(part, c == UInt8(ascii: "=") ? .badBase64Length : c == 13 ? .carriageReturn : .badCharacter, at: index)
            }
            buffer = (buffer << 6) | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        // What is left is the last character's unused bits (2 or 4 of them): zero in the one
        // encoding of these bytes.
        guard buffer == 0 else { throw .invalid(part, .nonCanonicalBase64, at: max(text.startIndex, text.endIndex - 1)) }
        return out
    }

    /// The length in bytes of `count` base64 characters (of a length an encoding has).
    public static func decodedCount(_ count: Int) -> Int { count / 4 * 3 + max(0, count % 4 - 1) }
}
