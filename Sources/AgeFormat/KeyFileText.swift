/// The plaintext of an encrypted household remote's `key.age` (docs/ENCRYPTION.md, "The key
/// file"): the epoch it opens, the recipients it was encrypted to, the household identity of
/// every epoch up to it, and the proof that its writer held the epoch before it. Here only its
/// text, read and written; TodoStore makes, opens and proves it.
///
/// What is read here came from the remote, and age does not say who encrypted a file: anyone
/// who knows one of a household's recipients can write one. So the reader accepts only the
/// exact shape `encoded` writes, bounded; the caller checks the proof and the epochs' sequence.
public struct KeyFile: Equatable, Sendable {
    public static let magic = "todo-keys 1"
    /// Far above any household (one line per device and per epoch).
    public static let maxBytes = 1 << 20
    public static let maxEpoch = 1_000_000
    /// The proof's bytes (HMAC-SHA256).
    public static let proofSize = 32

    public var epoch: Int
    /// Sorted by their bytes, no repeats; the recovery recipient among them.
    public var recipients: [String]
    /// The secret text (`AGE-SECRET-KEY-1…`) of epochs `epoch` down to 1, in that order.
    public var identities: [String]
    /// HMAC-SHA256 of `covered`, keyed from the previous epoch's identity; nil for epoch 1.
    public var proof: [UInt8]?

    public init(epoch: Int, recipients: [String], identities: [String], proof: [UInt8]?) {
        self.epoch = epoch
        self.recipients = recipients
        self.identities = identities
        self.proof = proof
    }

    /// The lines the proof covers.
    public var covered: String {
        var text = Self.magic + "\n" + "epoch \(epoch)\n"
        for r in recipients { text += "recipient \(r)\n" }
        for (i, id) in identities.enumerated() { text += "identity \(epoch - i) \(id)\n" }
        return text
    }

    public var encoded: [UInt8] {
        var text = covered
        if let proof { text += "proof " + Self.hex(proof) + "\n" }
        return Array(text.utf8)
    }

    /// Reads a key file; nil for anything but the shape `encoded` writes: every recipient and
    /// identity one that age reads, the recipients in order, one identity per epoch from
    /// `epoch` down to 1, and a proof exactly when the epoch has a previous one.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count <= Self.maxBytes, bytes.last == UInt8(ascii: "\n"), let text = String(validating: bytes, as: UTF8.self)
        else { return nil }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()[...]
        guard lines.popFirst() == Self.magic[...], let epochLine = lines.popFirst(), epochLine.hasPrefix("epoch "),
            let epoch = Self.number(epochLine.dropFirst(6)), epoch >= 1, epoch <= Self.maxEpoch
        else { return nil }
        var recipients: [String] = []
        while let line = lines.first, line.hasPrefix("recipient ") {
            let r = String(line.dropFirst(10))
            guard (try? AgeKeyText.parseRecipient(r)) != nil,  // not a recipient: refused
                recipients.last.map({ $0.utf8.lexicographicallyPrecedes(r.utf8) }) ?? true
            else { return nil }
            recipients.append(r)
            lines.removeFirst()
        }
        guard !recipients.isEmpty else { return nil }
        var identities: [String] = []
        for e in stride(from: epoch, through: 1, by: -1) {
            let prefix = "identity \(e) "
            guard let line = lines.popFirst(), line.hasPrefix(prefix) else { return nil }
            let id = String(line.dropFirst(prefix.utf8.count))
            guard (try? AgeKeyText.parseIdentity(id)) != nil else { return nil }  // not an identity: refused
            identities.append(id)
        }
        var proof: [UInt8]?
        if epoch > 1 {
            guard let line = lines.popFirst(), line.hasPrefix("proof "), let mac = Self.unhex(line.dropFirst(6)) else { return nil }
            proof = mac
        }
        guard lines.isEmpty else { return nil }
        self.init(epoch: epoch, recipients: recipients, identities: identities, proof: proof)
    }

    /// A decimal number without leading zeros, at most seven digits.
    private static func number(_ s: Substring) -> Int? {
        guard !s.isEmpty, s.utf8.count <= 7, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), s.first != "0" else { return nil }
        return Int(s)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func hex(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 0xF)]] }, as: UTF8.self)
    }

    /// The proof's bytes from exactly `2 * proofSize` lowercase digits.
    private static func unhex(_ text: Substring) -> [UInt8]? {
        let digits = text.utf8.map { hexDigits.firstIndex(of: $0) }
        guard digits.count == 2 * proofSize, !digits.contains(nil) else { return nil }
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(digits[$0]! << 4 | digits[$0 + 1]!) }
    }
}
