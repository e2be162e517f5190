internal import Age
internal import TodoCore

/// The plaintext of an encrypted remote's `key.age` (docs/ENCRYPTION.md, "The key file"): the
/// epoch it opens, the recipients it was encrypted to, the household identity of every epoch
/// up to it, and the proof that its writer held the epoch before it.
///
/// What is read here came from the remote, and age does not say who encrypted a file: anyone
/// who knows one of our recipients can write one. So the reader accepts only the exact shape
/// the writer makes, bounded, and the caller checks the proof and the epoch's sequence.
struct KeyFile: Equatable {
    static let magic = "todo-keys 1"
    static let proofInfo = "todo-keys/v1 proof"
    /// Far above any household (one line per device and per epoch).
    static let maxBytes = 1 << 20
    static let maxEpoch = 1_000_000

    var epoch: Int
    /// Sorted, no repeats; the recovery recipient among them.
    var recipients: [String]
    /// The secret text (`AGE-SECRET-KEY-1…`) of epochs `epoch` down to 1, in that order.
    var identities: [String]
    /// HMAC-SHA256 of the lines before it, keyed from the previous epoch's identity; nil for
    /// epoch 1.
    var proof: [UInt8]?

    /// The household identity of `epoch` (1...self.epoch), when its text reads as one.
    func identity(of e: Int) -> AgeIdentity? {
        guard e >= 1, e <= epoch else { return nil }
        return try? AgeIdentity(identities[epoch - e])  // identities were checked as they were read; nil only for a value never written here
    }

    /// The lines the proof covers.
    var covered: String {
        var text = Self.magic + "\n" + "epoch \(epoch)\n"
        for r in recipients { text += "recipient \(r)\n" }
        for (i, id) in identities.enumerated() { text += "identity \(epoch - i) \(id)\n" }
        return text
    }

    var encoded: [UInt8] {
        var text = covered
        if let proof { text += "proof " + Hex.encode(proof) + "\n" }
        return Array(text.utf8)
    }

    /// A new epoch after `previous` (or the first), with a fresh household identity, encrypted
    /// to `recipients`; the proof keyed from `previous`'s identity.
    static func next(after previous: KeyFile?, recipients: [String]) -> (KeyFile, AgeIdentity) {
        let fresh = AgeIdentity.generate()
        let epoch = (previous?.epoch ?? 0) + 1
        var file = KeyFile(
            epoch: epoch, recipients: Array(Set(recipients)).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, identities: [fresh.secretText] + (previous?.identities ?? []),
            proof: nil)
        if let previous, let before = previous.identity(of: previous.epoch) {
            file.proof = before.keyedMAC(Array(file.covered.utf8), info: proofInfo)
        }
        return (file, fresh)
    }

    /// Whether the proof is the one the holder of `previous` (the identity of epoch - 1) makes.
    func proven(by previous: AgeIdentity) -> Bool {
        guard let proof else { return false }
        let expected = previous.keyedMAC(Array(covered.utf8), info: Self.proofInfo)
        // Not secret: a comparison in constant time is not needed for a MAC the reader computes.
        return expected == proof
    }

    /// Reads a key file; nil for anything but the shape `encoded` writes.
    init?(_ bytes: [UInt8]) {
        guard bytes.count <= Self.maxBytes, bytes.last == UInt8(ascii: "\n"), let text = String(validating: bytes, as: UTF8.self)
        else { return nil }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()[...]
        guard lines.popFirst() == Self.magic[...], let epochLine = lines.popFirst(), epochLine.hasPrefix("epoch "),
            let epoch = Self.number(epochLine.dropFirst(6)), epoch >= 1, epoch <= Self.maxEpoch
        else { return nil }
        var recipients: [String] = []
        while let line = lines.first, line.hasPrefix("recipient ") {
            let r = String(line.dropFirst(10))
            guard (try? AgeRecipient(r)) != nil, recipients.last.map({ $0.utf8.lexicographicallyPrecedes(r.utf8) }) ?? true else { return nil }  // not a recipient: refused
            recipients.append(r)
            lines.removeFirst()
        }
        guard !recipients.isEmpty else { return nil }
        var identities: [String] = []
        for e in stride(from: epoch, through: 1, by: -1) {
            let prefix = "identity \(e) "
            guard let line = lines.popFirst(), line.hasPrefix(prefix) else { return nil }
            let id = String(line.dropFirst(prefix.utf8.count))
            guard (try? AgeIdentity(id)) != nil else { return nil }  // not an identity: refused
            identities.append(id)
        }
        var proof: [UInt8]?
        if epoch > 1 {
            guard let line = lines.popFirst(), line.hasPrefix("proof "), let mac = Hex.decode(line.dropFirst(6)), mac.count == 32 else { return nil }
            proof = mac
        }
        guard lines.isEmpty else { return nil }
        self.init(epoch: epoch, recipients: recipients, identities: identities, proof: proof)
    }

    init(epoch: Int, recipients: [String], identities: [String], proof: [UInt8]?) {
        self.epoch = epoch
        self.recipients = recipients
        self.identities = identities
        self.proof = proof
    }

    private static func number(_ s: Substring) -> Int? {
        guard !s.isEmpty, s.utf8.count <= 7, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), s.first != "0" else { return nil }
        return Int(s)
    }
}
