import CLibgit2
import CInterposers
import GitFormats
import Glibc

/// Writing the index (`IndexFile`): a change spliced into the bytes as read, a split index
/// updated or rebased, the index made whole again.
extension IndexFile {
    // MARK: Writing

    /// One stage-0 entry for a regular file (0o100644) with `st`'s stat data
    /// (`IndexEntry.regularFile`).
    static func entry(path: String, id: [UInt8], stat st: stat) -> [UInt8] {
        IndexEntry.regularFile(
            path: path, id: id,
            stat: IndexEntry.Stat(
                ctimeSeconds: st.st_ctim.tv_sec, ctimeNanoseconds: st.st_ctim.tv_nsec, mtimeSeconds: st.st_mtim.tv_sec,
                mtimeNanoseconds: st.st_mtim.tv_nsec, device: UInt64(st.st_dev), inode: UInt64(st.st_ino), uid: st.st_uid, gid: st.st_gid,
                size: Int(st.st_size)))
    }

    /// A new index made of this one's bytes and new ones: written piece by piece, never
    /// gathered into one buffer (a fresh megabyte costs a page fault every 4 KB, more than
    /// the copy itself). A rebase of a split index also has a new shared index, written first.
    struct Rewrite {
        enum Piece {
            /// A run of one of the files as read (valid while `source` lives).
            case mapped(Slice<UnsafeRawBufferPointer>)
            case new([UInt8])
        }

        /// One file: its pieces, the last its trailing SHA-1, which is also `checksum`.
        struct File {
            let pieces: [Piece]
            let checksum: [UInt8]
        }

        let index: File
        /// The shared index the new index names, when it is a new one: written to
        /// `sharedindex.<checksum>` before the index.
        let shared: File?
        /// The shared index the new index names; nil when it is whole.
        let names: ObjectID?
        /// The index the mapped pieces are runs of.
        let source: IndexFile
    }

    /// When to keep the index split.
    enum SplitRule: Equatable {
        case never
        case always
        /// From this many entries (`core.splitIndex` unset).
        case from(Int)
    }

    /// The entries `todo` keeps split from when `core.splitIndex` is unset.
    static let splitThreshold = 10_000

    /// The index with `entries` (path, encoded stage-0 entry) put in: each replaces every
    /// stage of a path already there or is added in order; optional extensions (the cache
    /// tree) dropped. The result is whole or split as `rule` says, a split one rebased when
    /// too much of it is outside its shared index. nil when the same path is given twice.
    func replacing(_ entries: [(path: String, entry: [UInt8])], rule: SplitRule) -> Rewrite? {
        var changes = entries.map { (key: Array($0.path.utf8), entry: $0.entry) }
        changes.sort { $0.key.lexicographicallyPrecedes($1.key) }
        for i in changes.indices.dropFirst() where changes[i].key == changes[i - 1].key { return nil }
        let total = count + changes.count
        let wantSplit: Bool
        switch rule {
        case .never: wantSplit = false
        case .always: wantSplit = true
        case .from(let threshold): wantSplit = isSplit || total >= threshold
        }
        if !wantSplit {
            if !isSplit { return splicing(changes) }
            return Rewrite(index: Self.file(version: version, whole(applying: changes)), shared: nil, names: nil, source: self)
        }
        if isSplit, let split = splitUpdate(changes) { return split }
        // A rebase: every entry into a new shared index, and an index naming it.
        let shared = Self.file(version: version, whole(applying: changes), table: true)
        return Rewrite(
            index: Self.splitFile(version: version, shared: shared.checksum), shared: shared, names: ObjectID(raw: shared.checksum[...]),
            source: self)
    }

    /// The index whole again, as libgit2 can read it (a split one's entries all in one file).
    func unsplit() -> Rewrite {
        Rewrite(index: Self.file(version: version, whole(applying: [])), shared: nil, names: nil, source: self)
    }

    /// The version new files are written in: 3 when either file is (an entry may have
    /// extended flags), else 2.
    private var version: UInt32 { max(top.version, shared?.version ?? 2) }

    /// A whole index: the header, `entries` and the checksum; for a shared index (`table`),
    /// the entry table (IEOT, EOIE) before the checksum, so that its readers need not pass
    /// over every entry.
    private static func file(version: UInt32, _ entries: (pieces: [Rewrite.Piece], count: Int), table: Bool = false) -> Rewrite.File {
        var header = Array("DIRC".utf8)
        appendU32(&header, version)
        appendU32(&header, UInt32(entries.count))
        var pieces = [Rewrite.Piece.new(header)] + entries.pieces
        if table, entries.count > 0 {
            var sizes: [Int] = []
            sizes.reserveCapacity(entries.count)
            var end = IndexBytes.headerSize
            for piece in entries.pieces {
                switch piece {
                case .new(let entry): sizes.append(entry.count)  // one entry each
                case .mapped(let run):
                    var offset = run.startIndex
                    while offset < run.endIndex, let next = IndexBytes.nextEntry(after: offset, in: run.base, end: run.endIndex, version: 3) {
                        sizes.append(next - offset)
                        offset = next
                    }
                }
            }
            end += sizes.reduce(0, +)
            pieces.append(.new(IndexBytes.entryTable(sizes: sizes, entriesEnd: end, sha1: { sha1([.new($0)]) })))
        }
        let digest = sha1(pieces)
        pieces.append(.new(digest))
        return Rewrite.File(pieces: pieces, checksum: digest)
    }

    /// A split index: header, the replacing entries (names empty) in the order of their
    /// shared positions, the entries of its own in path order, the `link` extension, the
    /// checksum (none of either kind: the index right after a rebase). All new bytes: the
    /// file is small.
    private static func splitFile(
        version: UInt32, shared: [UInt8], replacements: [(position: Int, entry: [UInt8])] = [], deleted: [Int] = [],
        added: [[UInt8]] = []
    ) -> Rewrite.File {
        var out = Array("DIRC".utf8)
        appendU32(&out, version)
        appendU32(&out, UInt32(replacements.count + added.count))
        for (_, entry) in replacements { out += entry }
        for entry in added { out += entry }
        let deletedBits = EWAH.encode(deleted)
        let replacedBits = EWAH.encode(replacements.map(\.position))
        out += Array("link".utf8)
        appendU32(&out, UInt32(20 + deletedBits.count + replacedBits.count))
        out += shared
        out += deletedBits
        out += replacedBits
        let digest = sha1([.new(out)])
        out += digest
        return Rewrite.File(pieces: [.new(out)], checksum: digest)
    }

    /// A whole (not split) index with `changes` put in by splicing: runs of this file and
    /// the new entries.
    private func splicing(_ changes: [(key: [UInt8], entry: [UInt8])]) -> Rewrite {
        Rewrite(index: Self.file(version: top.version, splicedEntries(changes)), shared: nil, names: nil, source: self)
    }

    /// The entries of a whole index with `changes` spliced in.
    private func splicedEntries(_ changes: [(key: [UInt8], entry: [UInt8])]) -> (pieces: [Rewrite.Piece], count: Int) {
        var pieces: [Rewrite.Piece] = []
        var count = top.count
        var copiedUpTo = 0  // entries before this one are in `pieces`
        for (key, entry) in changes {
            let at = top.entries(at: key, in: copiedUpTo..<top.count)
            pieces.append(.mapped(top.entries(from: copiedUpTo, to: at.lowerBound)))
            count += 1 - at.count
            pieces.append(.new(entry))
            copiedUpTo = at.upperBound
        }
        pieces.append(.mapped(top.entries(from: copiedUpTo, to: top.count)))
        return (pieces, count)
    }

    /// The new split index with `changes` put in, naming the same shared index; nil when the
    /// entries outside it would then exceed `maxPercentChange` percent of it (time to rebase).
    private func splitUpdate(_ changes: [(key: [UInt8], entry: [UInt8])]) -> Rewrite? {
        // More changes than may stand outside the shared index: a rebase at once.
        guard let shared, let link = top.link, Self.fitsOutside(changes.count, of: shared.count) else { return nil }
        var replacements: [Int: [UInt8]] = [:]
        for (position, k) in replacement { replacements[position] = Array(top.entryBytes(k)) }
        var deleted = self.deleted
        // The index's own entries by path.
        var own: [[UInt8]: [[UInt8]]] = [:]
        for k in firstAdded..<top.count { own[Array(top.path(at: k)), default: []].append(Array(top.entryBytes(k))) }
        for (key, entry) in changes {
            own[key] = nil
            let positions = shared.entries(at: key, in: 0..<shared.count)
            if positions.count == 1, shared.stage(at: positions.lowerBound) == 0 {
                // One plain shared entry: replaced (git's form for a changed file), name empty.
                replacements[positions.lowerBound] = IndexEntry.renamed(entry, to: [UInt8]())
                deleted.remove(positions.lowerBound)
            } else {
                // None, or conflict stages: those go, and the entry is the index's own.
                for position in positions {
                    deleted.insert(position)
                    replacements[position] = nil
                }
                own[key] = [entry]
            }
        }
        let added = own.sorted { $0.key.lexicographicallyPrecedes($1.key) }.flatMap(\.value)
        let outside = replacements.count + deleted.count + added.count
        guard Self.fitsOutside(outside, of: shared.count) else { return nil }
        let file = Self.splitFile(
            version: version, shared: link.shared,
            replacements: replacements.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, deleted: deleted.sorted(),
            added: added)
        return Rewrite(index: file, shared: nil, names: link.sharedID, source: self)
    }

    /// Every entry, in order, with `changes` (sorted by path) put in, each replacing every
    /// entry at its path: runs of the files as read where nothing changed.
    private func whole(applying changes: [(key: [UInt8], entry: [UInt8])]) -> (pieces: [Rewrite.Piece], count: Int) {
        guard let shared else { return splicedEntries(changes) }
        shared.locateAll()
        // The index's own entries and the changes, in path order: each stands for every shared
        // entry at its path; a change also for the index's own entries there.
        var own: [(key: [UInt8], entries: [[UInt8]])] = []
        var c = 0
        var k = firstAdded
        while k < top.count || c < changes.count {
            if k < top.count, c == changes.count || top.path(at: k).lexicographicallyPrecedes(changes[c].key) {
                let key = Array(top.path(at: k))
                var group: [[UInt8]] = []
                while k < top.count, top.path(at: k).elementsEqual(key) {
                    group.append(Array(top.entryBytes(k)))
                    k += 1
                }
                own.append((key, group))
            } else {
                let key = changes[c].key
                while k < top.count, top.path(at: k).elementsEqual(key) { k += 1 }
                own.append((key, [changes[c].entry]))
                c += 1
            }
        }
        // Shared positions that are not copied as they are: deleted or replaced.
        let special = (Array(deleted) + Array(replacement.keys)).sorted()
        var pieces: [Rewrite.Piece] = []
        var count = 0
        var cursor = 0  // shared entries before this are done
        var s = 0  // special positions before this are done
        func copyShared(upTo end: Int) {
            while cursor < end {
                while s < special.count, special[s] < cursor { s += 1 }
                let stop = s < special.count ? min(special[s], end) : end
                if stop > cursor {
                    pieces.append(.mapped(shared.entries(from: cursor, to: stop)))
                    count += stop - cursor
                    cursor = stop
                }
                guard cursor < end else { break }
                // `cursor` is special: deleted, or replaced by the index's entry with the shared name.
                if let k = replacement[cursor] {
                    pieces.append(.new(IndexEntry.renamed(top.entryBytes(k), to: shared.path(at: cursor))))
                    count += 1
                }
                cursor += 1
            }
        }
        for (key, entries) in own {
            let at = shared.entries(at: key, in: cursor..<shared.count)
            copyShared(upTo: at.lowerBound)
            pieces += entries.map(Rewrite.Piece.new)
            count += entries.count
            cursor = at.upperBound
        }
        copyShared(upTo: shared.count)
        return (pieces, count)
    }

    /// SHA-1 of `pieces`.
    static func sha1(_ pieces: [Rewrite.Piece]) -> [UInt8] {
        let sha = SHA1()
        for piece in pieces {
            switch piece {
            case .mapped(let slice): sha.update(UnsafeRawBufferPointer(rebasing: slice))
            case .new(let b): sha.update(b)
            }
        }
        return sha.finish()
    }

    /// Writes `file`'s pieces to `fd` (`what` names the file in the error).
    static func emit(_ file: Rewrite.File, of rewrite: Rewrite, to fd: Int32, what: String) throws {
        try withExtendedLifetime(rewrite.source) {
            for piece in file.pieces {
                switch piece {
                case .mapped(let slice): try writeAll(fd, UnsafeRawBufferPointer(rebasing: slice), what: what)
                case .new(let b): try writeAll(fd, b, what: what)
                }
            }
        }
    }
}
