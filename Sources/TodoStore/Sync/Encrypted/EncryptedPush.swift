internal import Age
import AgeFormat
import GitKit
import TodoCore

/// What a sync with an encrypted remote holds for its whole run: the scratch repository and
/// this device's identity.
struct EncryptedSide {
    let remote: CryptRemote
    let device: [AgeIdentity]

    init(_ household: Household, _ options: SyncOptions) throws {
        guard let path = options.identityFile else {
            throw SyncError(.noDeviceKey, .noDeviceKey(path: "", error: nil))
        }
        do {
            device = [try DeviceIdentity.load(path: path, own: options.identityIsDevice)]
        } catch {
            throw SyncError(.noDeviceKey, .noDeviceKey(path: path, error: error))
        }
        remote = try CryptRemote.open(for: household.repo)
    }

    /// Fetches the remote's ciphertext into the scratch repository and reads what is new since
    /// the last read into `target` (sync's and doctor's first step).
    func fetchAndRead(_ url: String, network: Network, into target: Repository) throws -> EncryptedChain {
        let before = remote.readState()
        var fetched: ObjectID?
        try network.run("fetch") { cb in fetched = try remote.fetch(url, have: before.commit, callbacks: cb) }
        return try remote.read(to: fetched, after: before, device: device, into: target)
    }
}

extension Household {
    /// Step 4 for an encrypted remote (docs/ENCRYPTION.md, "Sync"): a bundle of what the remote
    /// lacks, encrypted to the epoch in force, one commit on the remote's tip, pushed. The push
    /// opens a new epoch first when the recipients of the roster being sent differ from the
    /// epoch's, and on an empty remote. False when someone pushed first.
    func pushEncrypted(_ head: ObjectID, after chain: EncryptedChain, crypt: EncryptedSide, url: String, network: Network) throws -> Bool {
        let recipients = try Snapshot(repo: repo, commit: head).keyRoster().recipients
        let parsed = recipients.compactMap { try? AgeRecipient($0) }  // the roster keeps only recipients that read
        guard !parsed.isEmpty else { throw SyncError(.noRecipients, .noRecipients) }
        var keys = chain.keys
        var keyFile: [UInt8]?
        if chain.tip == nil || keys?.recipients != recipients {
            let (file, _) = KeyFile.next(after: keys, recipients: recipients)
            keyFile = try Age.encrypt(file.encoded, to: parsed)
            keys = file
        }
        guard let keys, let epoch = keys.identity(of: keys.epoch) else { throw SyncError(.noRecipients, .noRecipients) }
        let data = try Age.encrypt(try repo.bundle(tip: head, base: chain.plain), to: [epoch.recipient])
        let commit = try crypt.remote.makeCommit(data: data, key: keyFile, parent: chain.tip, time: clock.nowMillis() / 1000)
        guard try push(commit, over: chain.tip, from: crypt.remote.repo, url: url, network: network) else { return false }
        try crypt.remote.saveReadState(.init(commit: commit, plain: head, keys: keys))
        return true
    }
}
