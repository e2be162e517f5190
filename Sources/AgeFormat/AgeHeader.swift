/// One stanza of an age header: `-> type arguments…`, then a body of base64 lines.
public struct AgeStanza: Equatable, Sendable {
    /// The first word: `X25519`, `scrypt`, a plugin's name, anything else a reader skips.
    public var type: String
    /// The words after the type.
    public var arguments: [String]
    public var body: [UInt8]

    /// A stanza to encode: `type` and each argument must be one or more printable ASCII
    /// characters (33 to 126), as every stanza this module reads is.
    public init(type: String, arguments: [String], body: [UInt8]) {
        self.type = type
        self.arguments = arguments
        self.body = body
    }
}

/// How much of a header this module reads before refusing it: bounds on what hostile input
/// can make a reader allocate, far above what age writes (one stanza a recipient, one or two
/// arguments, a 32-byte body).
public struct AgeHeaderLimits: Sendable {
    public var maxStanzas = 1024
    /// A stanza's opening line or the MAC line, without its newline.
    public var maxLineBytes = 4096
    /// A stanza's words, its type included.
    public var maxArguments = 32
    public var maxBodyBytes = 65536

    public init() {}
}

/// An age header (age-encryption.org/v1): the version line, the stanzas, and the MAC line. The
/// parser reads only the canonical encoding, so the bytes the MAC covers are exactly those
/// `AgeHeader.encodeWithoutMAC` writes for the stanzas read.
public struct AgeHeader: Sendable {
    public static let versionLine: [UInt8] = Array("age-encryption.org/v1\n".utf8)
    /// Columns of a full body line; a body ends with a shorter one.
    public static let columns = 64
    public static let macSize = 32

    public let stanzas: [AgeStanza]
    /// Where each stanza's `->` is, in the bytes parsed.
    public let stanzaOffsets: [Int]
    public let mac: [UInt8]
    /// The bytes the MAC covers: from the version line through the `---` of the MAC line.
    public let macCovered: Range<Int>
    /// The offset just past the MAC line: where the payload's nonce begins.
    public let end: Int

    /// The header at the start of `bytes`; what follows it is not read.
    public static func parse(_ bytes: [UInt8], limits: AgeHeaderLimits = AgeHeaderLimits()) throws(AgeFormatError) -> AgeHeader {
        for (at, expected) in versionLine.enumerated() {
            guard at < bytes.count else { throw .truncated(.versionLine, at: bytes.count) }
            guard bytes[at] == expected else { throw .invalid(.versionLine, bytes[at] == 13 ? .carriageReturn : .notAgeVersion, at: at) }
        }
        var at = versionLine.count
        var stanzas: [AgeStanza] = []
        var offsets: [Int] = []
        while !starts(bytes, at: at, with: "---") {
            guard stanzas.count < limits.maxStanzas else { throw .overLimit(.stanza, limit: limits.maxStanzas, at: at) }
            offsets.append(at)
            stanzas.append(try stanza(bytes, at: &at, limits: limits))
        }
        let coveredEnd = at + 3
        guard let lineEnd = try lineEnd(bytes, from: at, limit: limits.maxLineBytes, part: .macLine) else {
            throw .overLimit(.macLine, limit: limits.maxLineBytes, at: at + limits.maxLineBytes)
        }
        guard coveredEnd < lineEnd, bytes[coveredEnd] == UInt8(ascii: " ") else { throw .invalid(.macLine, .badMACLine, at: coveredEnd) }
        let text = bytes[(coveredEnd + 1)..<lineEnd]
        if let space = text.firstIndex(of: UInt8(ascii: " ")) { throw .invalid(.macLine, .badMACLine, at: space) }
        let mac = try AgeBase64.decode(text, part: .macLine)
        guard mac.count == macSize else { throw .invalid(.macLine, .wrongLength, at: coveredEnd + 1) }
        // age refuses a passphrase stanza beside any other: a file for a passphrase is for
        // nothing else.
        if stanzas.count > 1, let scrypt = stanzas.firstIndex(where: { $0.type == "scrypt" }) {
            throw .invalid(.stanza, .scryptNotAlone, at: offsets[scrypt])
        }
        return AgeHeader(stanzas: stanzas, stanzaOffsets: offsets, mac: mac, macCovered: 0..<coveredEnd, end: lineEnd + 1)
    }

    /// The stanza at `at`, which moves past it.
    static func stanza(_ bytes: [UInt8], at: inout Int, limits: AgeHeaderLimits) throws(AgeFormatError) -> AgeStanza {
        let start = at
        guard let end = try lineEnd(bytes, from: start, limit: limits.maxLineBytes, part: .stanza) else {
            throw .overLimit(.stanza, limit: limits.maxLineBytes, at: start + limits.maxLineBytes)
        }
        guard starts(bytes, at: start, with: "-> ") else { throw .invalid(.stanza, .badStanzaStart, at: start) }
        var words: [String] = []
        var wordStart = start + 3
        for index in (start + 3)...end {
            guard index == end || bytes[index] == UInt8(ascii: " ") else {
                let c = bytes[index]
                guard c >= 33, c <= 126 else { throw .invalid(.stanza, c == 13 ? .carriageReturn : .badCharacter, at: index) }
                continue
            }
            guard index > wordStart else { throw .invalid(.stanza, .emptyArgument, at: index) }
            guard words.count < limits.maxArguments else { throw .overLimit(.stanza, limit: limits.maxArguments, at: wordStart) }
            words.append(String(decoding: bytes[wordStart..<index], as: UTF8.self))
            wordStart = index + 1
        }
        at = end + 1
        var body: [UInt8] = []
        while true {
            let lineStart = at
            if starts(bytes, at: lineStart, with: "->") || starts(bytes, at: lineStart, with: "---") {
                throw .invalid(.stanzaBody, .bodyNotEnded, at: lineStart)
            }
            guard let lineEnd = try lineEnd(bytes, from: lineStart, limit: columns, part: .stanzaBody) else {
                throw .invalid(.stanzaBody, .bodyLineTooLong, at: lineStart + columns)
            }
            let piece = try AgeBase64.decode(bytes[lineStart..<lineEnd], part: .stanzaBody)
            guard body.count + piece.count <= limits.maxBodyBytes else {
                throw .overLimit(.stanzaBody, limit: limits.maxBodyBytes, at: lineStart)
            }
            body += piece
            at = lineEnd + 1
            if lineEnd - lineStart < columns { break }
        }
        return AgeStanza(type: words.first ?? "", arguments: Array(words.dropFirst()), body: body)
    }

    /// The offset of the newline that ends the line at `start`; nil when more than `limit`
    /// bytes come before it. The bytes ending first is `part` cut short.
    static func lineEnd(_ bytes: [UInt8], from start: Int, limit: Int, part: AgePart) throws(AgeFormatError) -> Int? {
        let stop = start + min(limit + 1, bytes.count - start)
        guard start <= stop else { throw .truncated(part, at: bytes.count) }
        if let newline = bytes[start..<stop].firstIndex(of: 10) { return newline }
        if stop == bytes.count { throw .truncated(part, at: bytes.count) }
        return nil
    }

    /// Whether `bytes` hold `text` at `at`.
    static func starts(_ bytes: [UInt8], at: Int, with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard at >= 0, count <= bytes.count - at else { return false }
        return text.withUTF8Buffer { bytes[at..<(at + count)].elementsEqual($0) }
    }

    // MARK: Encoding

    /// The header as age writes it up to the MAC: the version line, each stanza (its body in
    /// lines of 64 columns, then a shorter last line, empty when the body fills its last line
    /// or is empty), and `---`. These are the bytes the MAC covers.
    public static func encodeWithoutMAC(_ stanzas: [AgeStanza]) -> [UInt8] {
        var out = versionLine
        for stanza in stanzas {
            out += Array("->".utf8)
            for word in [stanza.type] + stanza.arguments { out += [UInt8(ascii: " ")] + Array(word.utf8) }
            out.append(10)
            let text = AgeBase64.encode(stanza.body)
            var from = 0
            while from < text.count {
                let to = min(from + columns, text.count)
                out += text[from..<to]
                out.append(10)
                from = to
            }
            if text.count % columns == 0 { out.append(10) }
        }
        return out + Array("---".utf8)
    }

    /// What follows `encodeWithoutMAC` in a header: a space, the MAC and the newline.
    public static func encodeMACLine(_ mac: [UInt8]) -> [UInt8] { [UInt8(ascii: " ")] + AgeBase64.encode(mac) + [10] }

    /// The whole header for `stanzas` and `mac`.
    public static func encode(_ stanzas: [AgeStanza], mac: [UInt8]) -> [UInt8] { encodeWithoutMAC(stanzas) + encodeMACLine(mac) }
}
