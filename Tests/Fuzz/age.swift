// libFuzzer target: age's formats (AgeFormat): the input as a file (header, stanzas, the
// nonce), as an identity file, as a bech32 key, each stanza as an X25519 stanza, and as the
// key file an encrypted remote's `key.age` holds.
import AgeFormat

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAge(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: data, count: size))
    do {
        let header = try AgeHeader.parse(bytes)
        // The parser reads only the canonical encoding: the header encoded again is the bytes
        // it was read from, and the MAC covers exactly its part of them.
        precondition(header.end <= size && header.macCovered.upperBound < header.end, "header outside the input")
        let again = AgeHeader.encode(header.stanzas, mac: header.mac)
        precondition(again[...] == bytes[..<header.end], "header not encoded as it was read")
        precondition(AgeHeader.encodeWithoutMAC(header.stanzas)[...] == bytes[header.macCovered], "MAC covers other bytes")
        for (stanza, offset) in zip(header.stanzas, header.stanzaOffsets) {
            precondition(offset >= 0 && offset < header.macCovered.upperBound, "stanza outside the header")
            if stanza.type == AgeX25519Stanza.type, let x25519 = try? AgeX25519Stanza(stanza, at: offset) {  // refusals are named; nothing to check
                precondition(x25519.stanza == stanza, "X25519 stanza not encoded as it was read")
            }
        }
        if let file = try? AgeFile.parse(bytes) {  // a header without its nonce is refused, named
            precondition(file.nonce.count == AgeFile.nonceSize && file.payload.upperBound == size, "nonce or payload outside the input")
        }
    } catch {
        precondition(error.offset >= 0 && error.offset <= size, "error offset outside the input")
    }
    do {
        let file = try AgeIdentityFile.parse(bytes)
        for key in file.identities {
            let again = try AgeKeyText.parseIdentity(AgeKeyText.identity(key))
            precondition(again == key, "identity not read back")
        }
    } catch {
        precondition(error.offset >= 0 && error.offset <= size, "identity file error outside the input")
    }
    let text = String(decoding: bytes, as: UTF8.self)
    if let (hrp, key) = try? Bech32.decode(text) {  // refusals are named; a key read must encode again
        // (A prefix without letters takes the case of neither: compared without case.)
        precondition(Bech32.encode(hrp: hrp, data: key).lowercased() == text.lowercased(), "bech32 not encoded as it was read")
    }
    if let keys = KeyFile(bytes) {  // a refusal is nil; a key file read must be written as it was read
        precondition(keys.encoded == bytes, "key file not encoded as it was read")
        precondition(keys.identities.count == keys.epoch && !keys.recipients.isEmpty, "key file's epochs or recipients wrong")
        precondition((keys.proof == nil) == (keys.epoch == 1) && (keys.proof?.count ?? KeyFile.proofSize) == KeyFile.proofSize, "proof wrong")
    }
    return 0
}
