import CLibgit2
public import GitFormats

// Git bundles (version 2, `BundleHeader`): what the encrypted remote's data files will hold
// (docs/ENCRYPTION.md). A bundle made here is one `git bundle verify`, `git clone` and
// `git fetch` take; one read here has its pack indexed by libgit2 into this repository, a thin
// pack's bases taken from the objects already here.

/// Why a bundle was not taken.
public enum BundleProblem: Error, Equatable, Sendable {
    /// The header is not one this reads (`FormatError` says where).
    case format(FormatError)
    /// A commit the bundle needs the reader to have is not in this repository.
    case missingPrerequisite(ObjectID)
    /// After its pack was indexed, an object a reference names is still missing.
    case missingReference(ObjectID)
}

extension Repository {
    /// A bundle of `tip` as `reference` for a reader that has `base` (and everything before it):
    /// its one prerequisite `base`, its pack every object reachable from `tip` and not from
    /// `base`, with deltas among them (libgit2's packbuilder). Without `base`, a whole bundle.
    public func bundle(tip: ObjectID, base: ObjectID?, reference: String = "refs/heads/main") throws -> [UInt8] {
        // The objects a push to a remote holding `base` sends (each commit's tree against its
        // first parent's), not libgit2's walk, which reads the whole of `base`'s tree to mark
        // it uninteresting.
        let builder = try PackBuilder(self)
        for id in try objectsMissing(reaching: [tip], from: base.map { [$0] } ?? []) {
            var oid = id.raw
            try check(git_packbuilder_insert(builder.handle, &oid, nil), call: "git_packbuilder_insert")
        }
        var buffer = git_buf()
        defer { git_buf_dispose(&buffer) }
        try check(git_packbuilder_write_buf(&buffer, builder.handle), call: "git_packbuilder_write_buf")
        let header = BundleHeader(
            prerequisites: base.map { [Self.bytes($0)] } ?? [], references: [.init(id: Self.bytes(tip), name: reference)], packOffset: 0)
        var out = header.encoded()
        if let bytes = buffer.ptr, buffer.size > 0 {
            out += UnsafeRawBufferPointer(start: bytes, count: buffer.size)
        }
        return out
    }

    /// Takes the bundle `bytes` into this repository: its prerequisites must be here; its pack
    /// is indexed by libgit2 (every object inflated and hashed again, a thin pack completed
    /// from the objects here) and written as a pack of this repository; then every object its
    /// references name must be here. Returns its header. Whether the objects between the
    /// references and the prerequisites are all there is the caller's check (the one of
    /// received history).
    public func unbundle(_ bytes: [UInt8]) throws -> BundleHeader {
        var read: Result<BundleHeader, FormatError> = .failure(.truncated(.bundle, at: 0, needed: 1))
        bytes.withUnsafeBytes { b in
            do throws(FormatError) { read = .success(try BundleHeader(b)) } catch { read = .failure(error) }
        }
        let header: BundleHeader
        switch read {
        case .success(let h): header = h
        case .failure(let error): throw BundleProblem.format(error)
        }
        // The header's ids are 20 bytes each (BundleHeader reads nothing else).
        for prerequisite in header.prerequisites {
            guard let id = ObjectID(raw: prerequisite[...]) else { throw BundleProblem.format(.invalid(.bundle, .badLine, at: 0)) }
            guard try contains(id) else { throw BundleProblem.missingPrerequisite(id) }
        }
        try withODB { odb in
            var writer: UnsafeMutablePointer<git_odb_writepack>?
            try check(git_odb_write_pack(&writer, odb, nil, nil), call: "git_odb_write_pack")
            guard let writer else { throw GitError.missing("git_odb_write_pack") }
            defer { writer.pointee.free(writer) }
            var stats = git_indexer_progress()
            try bytes.withUnsafeBytes { b in
                let pack = UnsafeRawBufferPointer(rebasing: b[header.packOffset...])
                try check(writer.pointee.append(writer, pack.baseAddress, pack.count, &stats), call: "git_odb_writepack.append")
            }
            try check(writer.pointee.commit(writer, &stats), call: "git_odb_writepack.commit")
        }
        for reference in header.references {
            guard let id = ObjectID(raw: reference.id[...]) else { throw BundleProblem.format(.invalid(.bundle, .badLine, at: 0)) }
            guard try contains(id) else { throw BundleProblem.missingReference(id) }
        }
        return header
    }

    static func bytes(_ id: ObjectID) -> [UInt8] { withUnsafeBytes(of: id.raw.id) { Array($0) } }
}
