/// What was wrong with text or bytes this module refused, and where: the part of age's formats
/// being read and the byte offset (from the start of the bytes or string given) at which the
/// fault was found.
public enum AgeFormatError: Error, Equatable, Sendable {
    /// The bytes end inside `part`: a line without its newline, a header without its MAC line,
    /// a file without the payload's nonce.
    case truncated(AgePart, at: Int)
    /// `part` holds something the format does not allow there.
    case invalid(AgePart, AgeProblem, at: Int)
    /// `part` is longer or more numerous than this module reads (`limit`, in its unit: bytes,
    /// arguments, stanzas, identities), so that hostile input cannot make a reader allocate
    /// without bound.
    case overLimit(AgePart, limit: Int, at: Int)

    /// Where the fault was found.
    public var offset: Int {
        switch self {
        case .truncated(_, let at), .invalid(_, _, let at), .overLimit(_, _, let at): return at
        }
    }

    /// The part being read.
    public var part: AgePart {
        switch self {
        case .truncated(let part, _), .invalid(let part, _, _), .overLimit(let part, _, _): return part
        }
    }
}

/// The parts of age's formats this module reads.
public enum AgePart: String, Sendable {
    /// `age-encryption.org/v1`, the header's first line.
    case versionLine = "version line"
    /// A stanza's opening line, `-> type arguments…`.
    case stanza
    /// A stanza's body: base64 lines of 64 columns, the last one shorter.
    case stanzaBody = "stanza body"
    /// The header's last line, `--- ` and the MAC.
    case macLine = "MAC line"
    /// The 16 bytes after the header that the payload key is made from.
    case nonce
    /// A bech32 string: a recipient (`age1…`) or an identity (`AGE-SECRET-KEY-1…`).
    case bech32
    /// An X25519 recipient, `age1…`.
    case recipient
    /// An X25519 identity, `AGE-SECRET-KEY-1…`.
    case identity
    /// An identity file as `age-keygen` writes it.
    case identityFile = "identity file"
    /// An X25519 stanza's share and wrapped file key.
    case x25519Stanza = "X25519 stanza"
}

/// The kinds of wrong content an `AgeFormatError.invalid` names.
public enum AgeProblem: String, Sendable {
    /// The first line is not `age-encryption.org/v1`: another format, another version, armor.
    case notAgeVersion = "not age-encryption.org/v1"
    /// A carriage return where age allows only a newline.
    case carriageReturn = "carriage return"
    /// A byte outside what this place allows (printable ASCII for arguments, the base64 or
    /// bech32 alphabet).
    case badCharacter = "character not allowed"
    /// A stanza line that does not start with `-> `.
    case badStanzaStart = "line does not start with '-> '"
    /// A stanza with no type, or an empty argument (two spaces, a space at the end).
    case emptyArgument = "empty argument"
    /// base64 whose length no encoding without padding has, or with `=` padding.
    case badBase64Length = "base64 of an impossible length"
    /// base64 whose last character carries bits that are not zero: not the one encoding of its bytes.
    case nonCanonicalBase64 = "base64 not canonical"
    /// A body line longer than 64 columns.
    case bodyLineTooLong = "body line longer than 64 columns"
    /// The next stanza or the MAC line where the body's short last line should be.
    case bodyNotEnded = "stanza body without its short last line"
    /// A MAC line that is not `--- ` and 43 characters of base64.
    case badMACLine = "MAC line not '--- ' and a MAC"
    /// An `scrypt` stanza beside other stanzas, which age forbids.
    case scryptNotAlone = "scrypt stanza beside other stanzas"
    /// A value of the wrong length: an X25519 share or wrapped key, a key's bytes.
    case wrongLength = "wrong length"
    /// An X25519 stanza whose argument count is not one (the share).
    case wrongArgumentCount = "wrong number of arguments"
    /// An X25519 share whose shared secret with the identity is all zero (a low-order point).
    case lowOrderShare = "share of low order (all-zero shared secret)"
    /// bech32 in both lower and upper case.
    case mixedCase = "mixed case"
    /// bech32 without the `1` that separates its prefix, or too little after it for the checksum.
    case badSeparator = "no separator '1' before six or more characters"
    /// A bech32 checksum that does not match.
    case badChecksum = "checksum does not match"
    /// bech32 data whose last bits do not make a whole byte of zero padding.
    case badPadding = "bad padding"
    /// A key of another kind than the one read here (a post-quantum or plugin identity, an
    /// identity given where a recipient is wanted, or the wrong case for its kind).
    case wrongKeyType = "not an X25519 key of this kind"
    /// An identity file without any identity.
    case noIdentity = "no identity"
}

extension AgeFormatError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .truncated(let part, let at): return "age \(part.rawValue) cut short at byte \(at)"
        case .invalid(let part, let problem, let at): return "age \(part.rawValue): \(problem.rawValue) at byte \(at)"
        case .overLimit(let part, let limit, let at): return "age \(part.rawValue) over the limit of \(limit) at byte \(at)"
        }
    }
}
