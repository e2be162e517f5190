import AgeFormat

/// age-encryption.org/v1 files to and from X25519 recipients, as the `age` tool writes and
/// reads them (binary, not armored; no passphrases, no plugins).
public enum Age {
    /// `plaintext` encrypted to every one of `recipients`: a fresh file key wrapped in one
    /// X25519 stanza each, the header's MAC, a fresh 16-byte nonce, then the payload.
    public static func encrypt(_ plaintext: some Collection<UInt8>, to recipients: [AgeRecipient]) throws(AgeError) -> [UInt8] {
        guard !recipients.isEmpty else { throw .noRecipients }
        let fileKey = try LibCrypto.random(X25519Wrap.fileKeySize)
        var stanzas: [AgeStanza] = []
        for recipient in recipients { stanzas.append(try X25519Wrap.wrap(fileKey, to: recipient)) }
        let covered = AgeHeader.encodeWithoutMAC(stanzas)
        let mac = try FileKeys.mac(fileKey, covered: covered[...])
        let nonce = try LibCrypto.random(AgeFile.nonceSize)
        var out: [UInt8] = []
        out.reserveCapacity(covered.count + 64 + nonce.count + AgeStream.sealedSize(plaintext.count))
        out += covered
        out += AgeHeader.encodeMACLine(mac)
        out += nonce
        try AgeStream.seal(plaintext, key: FileKeys.key(fileKey, nonce: nonce[...]), into: &out)
        return out
    }

    /// The plaintext of age file `file`, opened with the first of `identities` that one of its
    /// stanzas is for. Stanzas of other types (other recipients' plugins, grease) are passed
    /// over; every X25519 stanza must be well formed. Besides the header's stanzas, the
    /// plaintext is allocated once, at its exact size (less than the file's), and each chunk
    /// then needs one buffer of its size (the chunk it opens), freed before the next.
    public static func decrypt(_ file: [UInt8], identities: [AgeIdentity]) throws(AgeError) -> [UInt8] {
        let parsed: AgeFile
        do {
            parsed = try AgeFile.parse(file)
        } catch {
            throw error.part == .versionLine ? .notAgeFile(error) : .damagedHeader(error)
        }
        let header = parsed.header
        var x25519: [(stanza: AgeX25519Stanza, offset: Int)] = []
        for (stanza, offset) in zip(header.stanzas, header.stanzaOffsets) where stanza.type == AgeX25519Stanza.type {
            do {
                x25519.append((try AgeX25519Stanza(stanza, at: offset), offset))
            } catch {
                throw .damagedHeader(error)
            }
        }
        guard let fileKey = try unwrap(x25519, identities: identities) else { throw .noMatchingIdentity }
        let covered = file[header.macCovered]
        guard try FileKeys.mac(fileKey, covered: covered, matches: header.mac) else { throw .headerMAC }
        let key = try FileKeys.key(fileKey, nonce: file[parsed.nonce])
        return try AgeStream.open(file, payload: parsed.payload, key: key)
    }

    /// The file key the first identity that opens a stanza finds there, nil when none does.
    static func unwrap(_ stanzas: [(stanza: AgeX25519Stanza, offset: Int)], identities: [AgeIdentity]) throws(AgeError) -> [UInt8]? {
        for identity in identities {
            for (stanza, offset) in stanzas {
                if let fileKey = try X25519Wrap.unwrap(stanza, at: offset, identity: identity) { return fileKey }
            }
        }
        return nil
    }

    /// `count` bytes from OpenSSL's random generator, for callers that cannot throw
    /// (`LibCrypto.unfailing`); `encrypt` throws instead.
    static func randomBytes(_ count: Int) -> [UInt8] { LibCrypto.unfailing { () throws(AgeError) in try LibCrypto.random(count) } }
}
