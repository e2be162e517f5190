internal import Age
import GitKit

extension Household {
    /// Makes `url` this household's remote, encrypted (docs/ENCRYPTION.md, "Commands"): grants
    /// the device recipient `device` to this clone's member, records a new recovery recipient,
    /// and keeps the URL in `todo.remote`, outside git's `origin`. Returns the recovery
    /// identity (`AGE-SECRET-KEY-1…`), which is kept nowhere: the caller shows it once.
    public func encryptRemote(_ url: String, device: String) throws(StoreError) -> String {
        let recovery = AgeIdentity.generate()
        let me = try identity().name
        _ = try grantKey(device, to: me)
        try setRecoveryRecipient(recovery.recipient.text)
        try setRemote(url, encrypted: true)
        do {
            // The remote was plaintext, or another: its tracking ref would count the history
            // as sent. The first push sends all of it.
            if try repo.resolve(reference: Self.trackingRef) != nil { try repo.deleteReference(Self.trackingRef) }
        } catch {
            throw StoreError.from(error, path: path)
        }
        return recovery.secretText
    }

    /// Whether the remote commit `tip` is an encrypted remote's: a tree of `data.age` and at
    /// most `key.age`, nothing else.
    static func looksEncrypted(_ repo: Repository, tip: ObjectID) -> Bool {
        // A tip that cannot be read is not an encrypted remote's; the usual checks name it.
        guard let info = try? repo.commit(tip), let entries = try? repo.treeEntries(info.tree) else { return false }
        let names = Set(entries.map(\.name))
        return names.contains(CryptRemote.dataFile) && names.isSubset(of: [CryptRemote.dataFile, CryptRemote.keyFile])
    }

    /// A clone whose fetch found an encrypted remote: its ciphertext goes to the scratch
    /// repository, and what it carries is read into the household. Returns the plaintext
    /// `main`, set as the tracking ref; the URL is kept as an encrypted remote's.
    func adoptEncrypted(tip: ObjectID, url: String, options: SyncOptions) throws -> ObjectID {
        let side = try EncryptedSide(self, options)
        try repo.deleteReference(Self.trackingRef)
        try side.remote.take(objectsOf: repo)
        try side.remote.repo.updateReference(CryptRemote.fetchedRef, to: tip, expected: nil, force: true, message: "clone")
        let chain = try side.remote.read(to: tip, after: side.remote.readState(), device: side.device, into: repo)
        guard let plain = chain.plain else { throw CryptRemote.fault(.noDataFile, tip) }
        try side.remote.saveReadState(chain.state)
        try setRemote(url, encrypted: true)
        try repo.updateReference(Self.trackingRef, to: plain, expected: nil, force: true, message: "clone")
        return plain
    }
}
