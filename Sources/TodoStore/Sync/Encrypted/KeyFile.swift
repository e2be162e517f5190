internal import Age
import AgeFormat

/// Making, opening and proving a key file (docs/ENCRYPTION.md, "The key file"); its text is
/// AgeFormat's `KeyFile`, read from untrusted bytes and fuzzed there.
extension KeyFile {
    static let proofInfo = "todo-keys/v1 proof"

    /// The household identity of `epoch` (1...self.epoch), when its text reads as one.
    func identity(of e: Int) -> AgeIdentity? {
        guard e >= 1, e <= epoch else { return nil }
        return try? AgeIdentity(identities[epoch - e])  // identities were checked as they were read; nil only for a value never written here
    }

    /// A new epoch after `previous` (or the first), with a fresh household identity, encrypted
    /// to `recipients`; the proof keyed from `previous`'s identity.
    static func next(after previous: KeyFile?, recipients: [String]) -> (KeyFile, AgeIdentity) {
        let fresh = AgeIdentity.generate()
        let epoch = (previous?.epoch ?? 0) + 1
        var file = KeyFile(
            epoch: epoch, recipients: Array(Set(recipients)).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) },
            identities: [fresh.secretText] + (previous?.identities ?? []), proof: nil)
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
}
