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
        let header = try Self.readHeader(bytes)
        try requirePrerequisites(of: header)
        try indexPack { append in
            try bytes.withUnsafeBytes { b in try append(UnsafeRawBufferPointer(rebasing: b[header.packOffset...])) }
        }
        try requireReferences(of: header)
        return header
    }

    /// Takes `bundles`, a chain in which each rests on the one before it (the caller checks
    /// their ids), into this repository as one pack: the first one's prerequisites must be
    /// here; their packs are joined (each one's objects in order under one header and one
    /// trailer, so that a delta stays beside its base and its offset holds) and indexed by
    /// libgit2 at once, every object inflated and hashed again. A long chain, read from a
    /// remote's start, so leaves one pack and not one per bundle (which would make housekeeping
    /// due at once). Returns the headers. On any failure nothing is written; the caller may take
    /// the bundles one by one to learn which one is at fault.
    public func unbundle(chain bundles: [[UInt8]]) throws -> [BundleHeader] {
        if bundles.count == 1 { return [try unbundle(bundles[0])] }
        var headers: [BundleHeader] = []
        var total: UInt64 = 0
        for bytes in bundles {
            let header = try Self.readHeader(bytes)
            // A pack: "PACK", version 2 or 3, the object count, the objects, a 20-byte trailer.
            let pack = bytes[header.packOffset...]
            guard pack.count >= 32, pack.prefix(4).elementsEqual("PACK".utf8),
                [2, 3].contains(Self.bigEndian32(bytes, at: header.packOffset + 4))
            else { throw BundleProblem.format(.invalid(.bundle, .badLine, at: header.packOffset)) }
            total += UInt64(Self.bigEndian32(bytes, at: header.packOffset + 8))
            headers.append(header)
        }
        guard total <= UInt64(UInt32.max) else { throw BundleProblem.format(.invalid(.bundle, .badLine, at: 0)) }
        try requirePrerequisites(of: headers[0])
        try indexPack { append in
            let hash = SHA1()
            let head: [UInt8] = Array("PACK".utf8) + [0, 0, 0, 2] + withUnsafeBytes(of: UInt32(total).bigEndian, Array.init)
            try head.withUnsafeBytes { h in
                hash.update(h)
                try append(h)
            }
            for (bytes, header) in zip(bundles, headers) {
                try bytes.withUnsafeBytes { b in
                    let part = UnsafeRawBufferPointer(rebasing: b[(header.packOffset + 12)..<(b.count - 20)])
                    hash.update(part)
                    try append(part)
                }
            }
            try hash.finish().withUnsafeBytes { try append($0) }
        }
        for header in headers { try requireReferences(of: header) }
        return headers
    }

    /// A bundle's header, or `BundleProblem.format`.
    public static func readHeader(_ bytes: [UInt8]) throws -> BundleHeader {
        var read: Result<BundleHeader, FormatError> = .failure(.truncated(.bundle, at: 0, needed: 1))
        bytes.withUnsafeBytes { b in
            do throws(FormatError) { read = .success(try BundleHeader(b)) } catch { read = .failure(error) }
        }
        switch read {
        case .success(let h): return h
        case .failure(let error): throw BundleProblem.format(error)
        }
    }

    /// Every prerequisite of `header` is here. (The header's ids are 20 bytes each:
    /// BundleHeader reads nothing else.)
    private func requirePrerequisites(of header: BundleHeader) throws {
        for prerequisite in header.prerequisites {
            guard let id = ObjectID(raw: prerequisite[...]) else { throw BundleProblem.format(.invalid(.bundle, .badLine, at: 0)) }
            guard try contains(id) else { throw BundleProblem.missingPrerequisite(id) }
        }
    }

    /// Every commit `header` names is here.
    private func requireReferences(of header: BundleHeader) throws {
        for reference in header.references {
            guard let id = ObjectID(raw: reference.id[...]) else { throw BundleProblem.format(.invalid(.bundle, .badLine, at: 0)) }
            guard try contains(id) else { throw BundleProblem.missingReference(id) }
        }
    }

    /// One pack, whose bytes `body` hands to `append` in order, indexed by libgit2 into this
    /// repository; written whole or not at all.
    private func indexPack(_ body: (_ append: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        try withODB { odb in
            var writer: UnsafeMutablePointer<git_odb_writepack>?
            try check(git_odb_write_pack(&writer, odb, nil, nil), call: "git_odb_write_pack")
            guard let writer else { throw GitError.missing("git_odb_write_pack") }
            defer { writer.pointee.free(writer) }
            var stats = git_indexer_progress()
            try body { part in
                try check(writer.pointee.append(writer, part.baseAddress, part.count, &stats), call: "git_odb_writepack.append")
            }
            try check(writer.pointee.commit(writer, &stats), call: "git_odb_writepack.commit")
        }
    }

    private static func bigEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func bytes(_ id: ObjectID) -> [UInt8] { withUnsafeBytes(of: id.raw.id) { Array($0) } }
}
