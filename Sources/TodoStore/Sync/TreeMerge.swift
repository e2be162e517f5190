import GitKit

/// The three sides of one file in a merge; nil where a side has no file.
struct MergeSides {
    let path: String
    let ancestor: [UInt8]?
    let ours: [UInt8]?
    let theirs: [UInt8]?
}

/// What the field-level merge says about one file.
enum DriverOutcome {
    /// The merged file's bytes.
    case merged([UInt8])
    /// The file cannot be merged (the resolver recorded why).
    case conflict
}

/// A three-way merge of two commits' trees that reads only what changed.
///
/// A folder (or file) that is the same on both sides, or that only one side changed since the
/// merge base, is decided by comparing object ids, without reading it. Only folders both sides
/// changed are listed, and only files both sides changed differently are read and merged, by
/// `resolve` (the field-level merge). So the cost grows with the number of changed tasks, not
/// with the size of the household. The result is a list of changes to apply to `ours`.
struct TreeMerge {
    let repo: Repository
    let resolve: (MergeSides) -> DriverOutcome

    /// The changes that turn the tree `ours` into the merge of `ours` and `theirs` over `base`,
    /// and the paths that could not be merged (where `resolve` said `.conflict`, or where a
    /// side is not a plain file).
    func changes(base: ObjectID?, ours: ObjectID, theirs: ObjectID) throws -> (changes: [TreeChange], unmerged: [String]) {
        var out: [TreeChange] = []
        var unmerged: [String] = []
        try mergeFolder(base: base, ours: ours, theirs: theirs, prefix: "", into: &out, unmerged: &unmerged)
        return (out, unmerged)
    }

    private struct Side: Equatable {
        let id: ObjectID
        let mode: UInt32
        var isTree: Bool { mode == 0o040000 }
    }

    private func entries(_ tree: ObjectID?) throws -> [String: Side] {
        guard let tree else { return [:] }
        var map: [String: Side] = [:]
        for e in try repo.treeEntries(tree) { map[e.name] = Side(id: e.id, mode: e.mode) }
        return map
    }

    private func mergeFolder(
        base: ObjectID?, ours: ObjectID?, theirs: ObjectID?, prefix: String, into out: inout [TreeChange],
        unmerged: inout [String]
    ) throws {
        if ours == theirs || base == theirs { return }
        let (b, o, t) = (try entries(base), try entries(ours), try entries(theirs))
        for name in Set(o.keys).union(t.keys).sorted() {
            let path = prefix + name
            let (be, oe, te) = (b[name], o[name], t[name])
            if oe == te || be == te { continue }  // the same, or only we changed it
            if be == oe {
                // Only they changed it: take theirs.
                try take(te, over: oe, at: path, into: &out, unmerged: &unmerged)
                continue
            }
            // Both changed it, differently.
            let folders = [be, oe, te].allSatisfy { $0 == nil || $0!.isTree }
            if folders {
                try mergeFolder(
                    base: be?.id, ours: oe?.id, theirs: te?.id, prefix: path + "/", into: &out, unmerged: &unmerged)
                continue
            }
            guard [be, oe, te].allSatisfy({ $0 == nil || $0!.mode == 0o100644 }) else {
                unmerged.append(path)
                continue
            }
            let sides = MergeSides(
                path: path, ancestor: try be.map { try repo.readBlob($0.id) }, ours: try oe.map { try repo.readBlob($0.id) },
                theirs: try te.map { try repo.readBlob($0.id) })
            switch resolve(sides) {
            case .merged(let bytes):
                let blob = try repo.writeBlob(bytes)
                if blob != oe?.id { out.append(.upsert(path: path, blob: blob)) }
            case .conflict:
                unmerged.append(path)
            }
        }
    }

    /// Replaces what we have at `path` (`ours`) with their entry, file by file.
    private func take(_ theirs: Side?, over ours: Side?, at path: String, into out: inout [TreeChange], unmerged: inout [String])
        throws
    {
        switch (ours, theirs) {
        case (_, nil):
            if let ours, ours.isTree { try removeAll(ours.id, prefix: path + "/", into: &out) } else { out.append(.remove(path: path)) }
        case (let o, let t?) where t.isTree:
            if let o, !o.isTree { out.append(.remove(path: path)) }
            // Their folder against ours as the base: exactly their changes come through.
            try mergeFolder(
                base: o?.isTree == true ? o?.id : nil, ours: o?.isTree == true ? o?.id : nil, theirs: t.id,
                prefix: path + "/", into: &out, unmerged: &unmerged)
        case (let o, let t?):
            guard t.mode == 0o100644 else {
                unmerged.append(path)
                return
            }
            if let o, o.isTree { try removeAll(o.id, prefix: path + "/", into: &out) }
            out.append(.upsert(path: path, blob: t.id))
        }
    }

    private func removeAll(_ tree: ObjectID, prefix: String, into out: inout [TreeChange]) throws {
        for (name, side) in try entries(tree) {
            if side.isTree { try removeAll(side.id, prefix: prefix + name + "/", into: &out) } else { out.append(.remove(path: prefix + name)) }
        }
    }
}
