/// bech32 (BIP-173) as age uses it for keys: a human-readable prefix, the separator `1`, the
/// data in 5-bit groups and a six-character checksum over the lowercase prefix. All lowercase
/// or all uppercase, never mixed; the prefix is given back in the case it was written in, so a
/// caller can hold a key to age's case (recipients lowercase, identities uppercase). BIP-173's
/// limit of 90 characters is age's to lift (its longer keys exceed it); `maxLength` bounds it.
public enum Bech32 {
    /// The longest string read: far above any X25519 key (62 and 74 characters) and age's
    /// longest recipients, which this module does not read.
    public static let maxLength = 4096

    static let charset: [UInt8] = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)

    /// The 5-bit value of lowercase bech32 character `c`, nil for any other byte.
    static func value(_ c: UInt8) -> UInt8? {
        guard let at = charset.firstIndex(of: c) else { return nil }
        return UInt8(at)
    }

    static func polymod(_ values: [UInt8]) -> UInt32 {
        let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
        var chk: UInt32 = 1
        for v in values {
            let top = chk >> 25
            chk = (chk & 0x1ff_ffff) << 5 ^ UInt32(v)
            for i in 0..<5 where (top >> UInt32(i)) & 1 == 1 { chk ^= generator[i] }
        }
        return chk
    }

    /// The prefix as the checksum covers it: high bits, a zero, low bits.
    static func expand(_ hrp: [UInt8]) -> [UInt8] { hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 } }

    static func lowercased(_ c: UInt8) -> UInt8 { (65...90).contains(c) ? c + 32 : c }

    /// `data` in bech32 under prefix `hrp` (1 to 83 printable ASCII characters, one case), in
    /// the case of `hrp`.
    public static func encode(hrp: String, data: [UInt8]) -> String {
        let prefix = Array(hrp.utf8)
        let lowerPrefix = prefix.map(lowercased)
        let upper = lowerPrefix != prefix
        let values = regroup(data, from: 8, to: 5, pad: true) ?? []
        let check = polymod(expand(lowerPrefix) + values + [0, 0, 0, 0, 0, 0]) ^ 1
        var out = lowerPrefix + [UInt8(ascii: "1")] + values.map { charset[Int($0)] }
        for i in 0..<6 { out.append(charset[Int((check >> UInt32(5 * (5 - i))) & 31)]) }
        if upper { out = out.map { (97...122).contains($0) ? $0 - 32 : $0 } }
        return String(decoding: out, as: UTF8.self)
    }

    /// The prefix (in the case written) and the data of bech32 string `text`.
    public static func decode(_ text: String) throws(AgeFormatError) -> (hrp: String, data: [UInt8]) {
        let (hrp, values) = try decodeGroups(text)
        guard let data = regroup(values, from: 5, to: 8, pad: false) else {
            throw .invalid(.bech32, .badPadding, at: hrp.utf8.count + values.count)
        }
        return (hrp, data)
    }

    /// The prefix (in the case written) and the 5-bit groups of bech32 string `text`, its
    /// checksum checked and left off.
    static func decodeGroups(_ text: String) throws(AgeFormatError) -> (hrp: String, values: [UInt8]) {
        let bytes = Array(text.utf8.prefix(maxLength + 1))
        guard bytes.count <= maxLength else { throw .overLimit(.bech32, limit: maxLength, at: maxLength) }
        var hasLower = false
        var hasUpper = false
        for (at, c) in bytes.enumerated() {
            guard c >= 33, c <= 126 else { throw .invalid(.bech32, .badCharacter, at: at) }
            if (97...122).contains(c) { hasLower = true }
            if (65...90).contains(c) { hasUpper = true }
            if hasLower && hasUpper { throw .invalid(.bech32, .mixedCase, at: at) }
        }
        guard let separator = bytes.lastIndex(of: UInt8(ascii: "1")), separator >= 1, separator <= 83,
            bytes.count - separator - 1 >= 6
        else { throw .invalid(.bech32, .badSeparator, at: bytes.lastIndex(of: UInt8(ascii: "1")) ?? bytes.count) }
        let prefix = Array(bytes[..<separator])
        var values: [UInt8] = []
        values.reserveCapacity(bytes.count - separator - 1)
        for at in (separator + 1)..<bytes.count {
            guard let v = value(lowercased(bytes[at])) else { throw .invalid(.bech32, .badCharacter, at: at) }
            values.append(v)
        }
        guard polymod(expand(prefix.map(lowercased)) + values) == 1 else {
            throw .invalid(.bech32, .badChecksum, at: bytes.count - 6)
        }
        return (String(decoding: prefix, as: UTF8.self), Array(values.dropLast(6)))
    }

    /// `values` of `from` bits each as groups of `to` bits; with `pad`, the last group filled
    /// with zero bits; without, nil when the bits left over are a whole group or not all zero.
    static func regroup(_ values: some Collection<UInt8>, from: Int, to: Int, pad: Bool) -> [UInt8]? {
        var accumulator: UInt32 = 0
        var bits = 0
        let mask: UInt32 = (1 << UInt32(to)) - 1
        var out: [UInt8] = []
        out.reserveCapacity(values.count * from / to + 1)
        for v in values {
            guard UInt32(v) >> UInt32(from) == 0 else { return nil }
            accumulator = (accumulator << UInt32(from) | UInt32(v)) & 0xffff
            bits += from
            while bits >= to {
                bits -= to
                out.append(UInt8((accumulator >> UInt32(bits)) & mask))
            }
        }
        if pad {
            if bits > 0 { out.append(UInt8((accumulator << UInt32(to - bits)) & mask)) }
        } else if bits >= from || (accumulator << UInt32(to - bits)) & mask != 0 {
            return nil
        }
        return out
    }
}
