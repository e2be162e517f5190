import CLibgit2
import CInterposers
import GitFormats
import Glibc

/// Writing the index (`IndexFile`): a change spliced into the bytes as read (`IndexWriter`), or
/// a whole index made from HEAD in place of a split one.
extension IndexFile {
    /// One stage-0 entry for a regular file (0o100644) with `st`'s stat data
    /// (`IndexEntry.regularFile`).
    static func entry(path: String, id: [UInt8], stat st: stat) -> [UInt8] {
        IndexEntry.regularFile(path: path, id: id, stat: statData(st))
    }

    /// The stat data an index entry keeps of the file `st` describes.
    static func statData(_ st: stat) -> IndexEntry.Stat {
        IndexEntry.Stat(
            ctimeSeconds: st.st_ctim.tv_sec, ctimeNanoseconds: st.st_ctim.tv_nsec, mtimeSeconds: st.st_mtim.tv_sec,
            mtimeNanoseconds: st.st_mtim.tv_nsec, device: UInt64(st.st_dev), inode: UInt64(st.st_ino), uid: st.st_uid, gid: st.st_gid,
            size: Int(st.st_size))
    }

    /// A new index: its pieces, some of them runs of `source`'s mapping, which must live until
    /// the file is written.
    struct Rewrite {
        let file: IndexWriter.File
        let source: IndexFile?
    }

    /// The index with `entries` (path, encoded stage-0 entry) put in: each replaces every
    /// stage of a path already there or is added in order; optional extensions (the cache
    /// tree) dropped. nil when the same path is given twice.
    func replacing(_ entries: [(path: String, entry: [UInt8])]) -> Rewrite? {
        let changes = entries.map { IndexWriter.Change(key: Array($0.path.utf8), entry: $0.entry) }
        return IndexWriter.splice(self.entries, changes, sha1: Self.sha1).map { Rewrite(file: $0, source: self) }
    }

    /// SHA-1 of `pieces`.
    static func sha1(_ pieces: [IndexWriter.Piece]) -> [UInt8] {
        let sha = SHA1()
        for piece in pieces {
            switch piece {
            case .mapped(let slice): sha.update(UnsafeRawBufferPointer(rebasing: slice))
            case .new(let b): sha.update(b)
            }
        }
        return sha.finish()
    }

    /// Writes `rewrite`'s pieces to `fd` (`what` names the file in the error).
    static func emit(_ rewrite: Rewrite, to fd: Int32, what: String) throws {
        try withExtendedLifetime(rewrite.source) {
            for piece in rewrite.file.pieces {
                switch piece {
                case .mapped(let slice): try writeAll(fd, UnsafeRawBufferPointer(rebasing: slice), what: what)
                case .new(let b): try writeAll(fd, b, what: what)
                }
            }
        }
    }
}
