internal import Age
import AgeFormat
import GitKit
import GitFormats
import TodoCore

/// What reading an encrypted remote found (docs/ENCRYPTION.md, "Sync", step 2).
struct EncryptedChain {
    /// The last remote commit read (the remote's tip); nil for an empty remote.
    var tip: ObjectID?
    /// The plaintext `main` the remote carries; nil for an empty remote.
    var plain: ObjectID?
    /// The key file in force at the tip.
    var keys: KeyFile?
    /// The remote no longer holds what this clone read last: it was read from its start.
    var wentBack = false

    var state: CryptRemote.ReadState { .init(commit: tip, plain: plain, keys: keys) }
}

extension CryptRemote {
    /// Reads the remote's commits from the one read last (or from the start) to `tip`: checks
    /// each commit's shape, opens each key file with `device` and checks its epoch and proof,
    /// opens each data file with the identity of the epoch in force, and takes each bundle into
    /// `target` (the quarantine), each resting on the plaintext commit the one before made
    /// current. Throws `SyncError` (65) for anything no member's todo writes, (77) when no key
    /// file since the last read is for this device.
    /// `before` is what was read last (`readState()`, read once by the caller for its fetch too).
    func read(to tip: ObjectID?, after before: ReadState, device: [AgeIdentity], into target: Repository) throws -> EncryptedChain {
        guard let tip else {
            return EncryptedChain(tip: nil, plain: nil, keys: before.keys, wentBack: before.commit != nil)
        }
        // The commits after the one read last, oldest first; all of them when it is gone.
        var chain: [CommitInfo] = []
        var cursor: ObjectID? = tip
        var found = before.commit == nil
        while let id = cursor {
            if id == before.commit {
                found = true
                break
            }
            let info: CommitInfo
            do {
                info = try repo.commit(id)
            } catch {
                throw Self.fault(.notACommit, id)
            }
            guard info.parents.count <= 1 else { throw Self.fault(.mergeCommit, id) }
            chain.append(info)
            cursor = info.parents.first
        }
        chain.reverse()
        // Read from the start (the remote is new to this clone, or went back): the first key
        // file opens whatever epoch it says, its identities agreeing with those known.
        var start = before
        if !found || before.commit == nil { start = ReadState() }
        var result = EncryptedChain(tip: tip, plain: start.plain, keys: start.keys, wentBack: !found)
        if chain.isEmpty { return result }

        // Every identity known, by epoch: from the key file read last (kept even when the remote
        // went back, so that a remote rewritten under other keys is caught), then from each key
        // file opened here.
        var known: [Int: String] = [:]
        if let keys = before.keys { for (i, id) in keys.identities.enumerated() { known[keys.epoch - i] = id } }

        // 1. The key files, in order.
        struct Step {
            let commit: ObjectID
            let data: ObjectID
            let key: ObjectID?
        }
        var steps: [Step] = []
        for info in chain {
            let id = info.id
            var data: ObjectID?
            var key: ObjectID?
            for entry in try repo.treeEntries(info.tree) {
                guard entry.kind == .blob, entry.mode == 0o100644 else { throw Self.fault(.unexpectedContent(entry.name), id) }
                switch entry.name {
                case Self.dataFile: data = entry.id
                case Self.keyFile: key = entry.id
                default: throw Self.fault(.unexpectedContent(entry.name), id)
                }
            }
            guard let data else { throw Self.fault(.noDataFile, id) }
            steps.append(Step(commit: id, data: data, key: key))
        }
        // Each step's epoch: a key file opened here gives its own; one not for this device
        // takes the number between its neighbours, known once a later one opens.
        var current = start.keys
        // Nil while reading from the start without a key file read before: the first one
        // found opens whatever epoch it says (a remote emptied and sent again continues the
        // numbering).
        var epoch: Int? = start.keys?.epoch
        var epochs: [Int] = Array(repeating: 0, count: steps.count)
        var gap: [(step: Int, offset: Int)] = []
        var unopened = 0
        for (i, step) in steps.enumerated() {
            if let key = step.key {
                let bytes = try blob(key, Self.keyFile, step.commit)
                var text: [UInt8]?
                do {
                    text = try Age.decrypt(bytes, identities: device)
                } catch .noMatchingIdentity {
                    text = nil
                } catch {
                    throw Self.fault(.undecryptable(file: Self.keyFile, reason: "\(error)"), step.commit)
                }
                if let text {
                    guard let file = KeyFile(text) else { throw Self.fault(.badKeyFile, step.commit) }
                    try check(file, after: epoch.map { $0 + unopened }, known: known, commit: step.commit)
                    for (k, id) in file.identities.enumerated() { known[file.epoch - k] = id }
                    for g in gap { epochs[g.step] = file.epoch - unopened - 1 + g.offset }
                    gap = []
                    unopened = 0
                    epoch = file.epoch
                    current = file
                    epochs[i] = file.epoch
                    continue
                }
                unopened += 1
            } else if i == 0 && start.keys == nil {
                throw Self.fault(.noKeyFile, step.commit)
            }
            if unopened > 0 { gap.append((i, unopened)) } else { epochs[i] = epoch ?? 0 }
        }
        if unopened > 0 {
            let mine = device.first?.recipient.text ?? ""
            throw SyncError(.notGranted, start.keys == nil ? .notGranted(recipient: mine) : .noLongerGranted(recipient: mine))
        }
        // 2. The data files, in order, each under its epoch's identity; their bundles taken
        // in as one pack per `joinedBytes` of them.
        var plain = start.plain
        var pending: [(bundle: [UInt8], commit: ObjectID)] = []
        var pendingBytes = 0
        for (i, step) in steps.enumerated() {
            let e = epochs[i]
            guard let text = known[e], let identity = try? AgeIdentity(text) else { throw Self.fault(.unknownKey, step.commit) }  // no identity of that epoch: as if under no key
            let bytes = try blob(step.data, Self.dataFile, step.commit)
            let bundle: [UInt8]
            do {
                bundle = try Age.decrypt(bytes, identities: [identity])
            } catch .noMatchingIdentity {
                let others = known.filter { $0.key != e }.compactMap { try? AgeIdentity($0.value) }  // texts were checked as read
                // Only which fault it is depends on this: any failure is the key the household never had.
                let retired = (try? Age.decrypt(bytes, identities: others)) != nil
                throw Self.fault(retired ? .retiredKey : .unknownKey, step.commit)
            } catch {
                throw Self.fault(.undecryptable(file: Self.dataFile, reason: "\(error)"), step.commit)
            }
            pending.append((bundle, step.commit))
            pendingBytes += bundle.count
            if pendingBytes >= Self.joinedBytes {
                plain = try take(chain: pending, resting: plain, into: target)
                pending = []
                pendingBytes = 0
            }
        }
        if !pending.isEmpty { plain = try take(chain: pending, resting: plain, into: target) }
        result.plain = plain
        result.keys = current
        return result
    }

    /// A key file opened after epoch `previous` (nil: the first read from the start): the next epoch, the identities of the epochs
    /// known agreeing, and its proof made with the identity of the epoch before it (as known
    /// before it, or, after key files not for this device, as it says).
    private func check(_ file: KeyFile, after previous: Int?, known: [Int: String], commit: ObjectID) throws {
        if let previous, file.epoch != previous + 1 {
            throw Self.fault(.keyOutOfSequence(expected: previous + 1, found: file.epoch), commit)
        }
        for e in 1...file.epoch {
            if let had = known[e], had != file.identities[file.epoch - e] { throw Self.fault(.identitiesDiffer(epoch: e), commit) }
        }
        guard file.epoch > 1 else { return }
        let text = known[file.epoch - 1] ?? file.identities[1]
        // An identity text that does not read proves nothing.
        guard let before = try? AgeIdentity(text), file.proven(by: before) else { throw Self.fault(.badProof(epoch: file.epoch), commit) }
    }

    /// How many bytes of bundles a read takes in as one pack: a chain read from the remote's
    /// start leaves a few packs, not one per push, while what is held in memory stays bounded.
    static let joinedBytes = 64 << 20

    /// Takes `chain` (each bundle with the remote commit that carried it) into `target` as one
    /// pack: each bundle must rest on exactly the one before it (the first on `base`) and name
    /// one commit as `refs/heads/main`; returns the last one's. When libgit2 refuses the joined
    /// pack, they are taken one by one, so that the refusal names the commit that carried the
    /// bundle at fault.
    private func take(chain: [(bundle: [UInt8], commit: ObjectID)], resting base: ObjectID?, into target: Repository) throws -> ObjectID? {
        var tip = base
        for (bundle, commit) in chain {
            // Unreadable: taken one by one, which names it.
            guard let header = try? Repository.readHeader(bundle) else { return try takeEach(chain, resting: base, into: target) }
            tip = try Self.follows(header, base: tip, commit: commit)
        }
        do {
            _ = try target.unbundle(chain: chain.map(\.bundle))
        } catch {
            return try takeEach(chain, resting: base, into: target)
        }
        return tip
    }

    private func takeEach(_ chain: [(bundle: [UInt8], commit: ObjectID)], resting base: ObjectID?, into target: Repository) throws -> ObjectID? {
        var tip = base
        for (bundle, commit) in chain { tip = try take(bundle, resting: tip, into: target, commit: commit) }
        return tip
    }

    /// Takes one bundle into `target`: it must rest on exactly `base` and name one commit as
    /// `refs/heads/main`, which it returns.
    private func take(_ bundle: [UInt8], resting base: ObjectID?, into target: Repository, commit: ObjectID) throws -> ObjectID {
        let header: BundleHeader
        do {
            header = try target.unbundle(bundle)
        } catch let e as BundleProblem {
            throw Self.fault(.badBundle("\(e)"), commit)
        } catch let e as GitError {
            throw Self.fault(.badBundle(e.message), commit)
        }
        return try Self.follows(header, base: base, commit: commit)
    }

    /// The commit a bundle names as `refs/heads/main`, when it rests on exactly `base` and names
    /// only that.
    private static func follows(_ header: BundleHeader, base: ObjectID?, commit: ObjectID) throws -> ObjectID {
        let prerequisites = header.prerequisites.compactMap { ObjectID(raw: $0[...]) }
        guard prerequisites == (base.map { [$0] } ?? []) else { throw Self.fault(.badBundle("it does not follow the one before"), commit) }
        guard header.references.count == 1, let ref = header.references.first, ref.name == Household.branch,
            let id = ObjectID(raw: ref.id[...])
        else { throw Self.fault(.badBundle("it does not name one main"), commit) }
        return id
    }

    private func blob(_ id: ObjectID, _ name: String, _ commit: ObjectID) throws -> [UInt8] {
        do {
            return try repo.readBlob(id, limit: Self.maxFileBytes)
        } catch is BlobTooLarge {
            throw Self.fault(.tooLarge(file: name), commit)
        }
    }

    static func fault(_ f: EncryptedFault, _ commit: ObjectID) -> SyncError {
        SyncError(.remoteEncryption, .encryptedRemote(f, commit: String(commit.hex.prefix(10))))
    }
}
