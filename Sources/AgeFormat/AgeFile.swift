/// The parts of an age file: the header, the payload's 16-byte nonce, and the encrypted
/// payload after it (not read here). A file that ends before its nonce is refused with the
/// header, as age's test vectors count it.
public struct AgeFile: Sendable {
    public static let nonceSize = 16

    public let header: AgeHeader
    public let nonce: Range<Int>
    /// The STREAM chunks, to the end of the bytes.
    public let payload: Range<Int>

    public static func parse(_ bytes: [UInt8], limits: AgeHeaderLimits = AgeHeaderLimits()) throws(AgeFormatError) -> AgeFile {
        let header = try AgeHeader.parse(bytes, limits: limits)
        guard bytes.count - header.end >= nonceSize else { throw .truncated(.nonce, at: bytes.count) }
        let payloadStart = header.end + nonceSize
        return AgeFile(header: header, nonce: header.end..<payloadStart, payload: payloadStart..<bytes.count)
    }
}

/// An X25519 recipient stanza: `-> X25519 <share>` (the ephemeral public key, 32 bytes in
/// base64) with a body of the file key sealed for the recipient (16 bytes and a 16-byte tag).
public struct AgeX25519Stanza: Equatable, Sendable {
    public static let type = "X25519"
    public static let shareSize = 32
    /// The file key (16 bytes) and ChaCha20-Poly1305's tag.
    public static let wrappedKeySize = 32

    public let share: [UInt8]
    public let wrappedKey: [UInt8]

    public init(share: [UInt8], wrappedKey: [UInt8]) {
        self.share = share
        self.wrappedKey = wrappedKey
    }

    /// The share and wrapped key of `stanza`, an `X25519` stanza found at `offset`: refused
    /// unless it has one argument, a canonical share of 32 bytes, and a body of 32 bytes.
    public init(_ stanza: AgeStanza, at offset: Int) throws(AgeFormatError) {
        guard stanza.arguments.count == 1, let text = stanza.arguments.first else {
            throw .invalid(.x25519Stanza, .wrongArgumentCount, at: offset)
        }
        let share: [UInt8]
        do {
            share = try AgeBase64.decode(ArraySlice(text.utf8), part: .x25519Stanza)
        } catch {
            throw .invalid(.x25519Stanza, error.problem ?? .badCharacter, at: offset)
        }
        guard share.count == Self.shareSize, stanza.body.count == Self.wrappedKeySize else {
            throw .invalid(.x25519Stanza, .wrongLength, at: offset)
        }
        self.share = share
        wrappedKey = stanza.body
    }

    public var stanza: AgeStanza {
        AgeStanza(type: Self.type, arguments: [AgeBase64.encodeString(share)], body: wrappedKey)
    }
}

extension AgeFormatError {
    /// The problem an `.invalid` names.
    public var problem: AgeProblem? {
        if case .invalid(_, let problem, _) = self { return problem }
        return nil
    }
}
