/// Writing entries of git's index (versions 2 and 3): the fixed part, the name, the NUL
/// padding to a multiple of eight bytes.
public enum IndexEntry {
    /// The stat data an entry keeps of its file, each field cut to 32 bits as git does.
    public struct Stat: Sendable {
        public var ctimeSeconds, ctimeNanoseconds, mtimeSeconds, mtimeNanoseconds: UInt32
        public var device, inode, uid, gid, size: UInt32

        public init(
            ctimeSeconds: Int, ctimeNanoseconds: Int, mtimeSeconds: Int, mtimeNanoseconds: Int, device: UInt64, inode: UInt64, uid: UInt32,
            gid: UInt32, size: Int
        ) {
            self.ctimeSeconds = UInt32(truncatingIfNeeded: ctimeSeconds)
            self.ctimeNanoseconds = UInt32(truncatingIfNeeded: ctimeNanoseconds)
            self.mtimeSeconds = UInt32(truncatingIfNeeded: mtimeSeconds)
            self.mtimeNanoseconds = UInt32(truncatingIfNeeded: mtimeNanoseconds)
            self.device = UInt32(truncatingIfNeeded: device)
            self.inode = UInt32(truncatingIfNeeded: inode)
            self.uid = uid
            self.gid = gid
            self.size = UInt32(truncatingIfNeeded: size)
        }

        /// No stat data: git and libgit2 compare such an entry's file by its content (an entry
        /// of size 0 is never taken as unchanged by its stat data alone).
        public static let none = Stat(
            ctimeSeconds: 0, ctimeNanoseconds: 0, mtimeSeconds: 0, mtimeNanoseconds: 0, device: 0, inode: 0, uid: 0, gid: 0, size: 0)
    }

    /// One stage-0 entry for a regular file (0o100644) with `stat`'s data and the 20-byte `id`.
    public static func regularFile(path: String, id: [UInt8], stat: Stat) -> [UInt8] {
        entry(name: Array(path.utf8), id: id, mode: 0o100644, stat: stat)
    }

    /// One stage-0 entry named `name` (the path's bytes) of `mode` (as a tree gives it:
    /// 0o100644, 0o100755, 0o120000, 0o160000) with `stat`'s data and the 20-byte `id`.
    public static func entry(name: [UInt8], id: [UInt8], mode: UInt32, stat: Stat) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(IndexBytes.fixedEntrySize + name.count + 8)
        for value in [
            stat.ctimeSeconds, stat.ctimeNanoseconds, stat.mtimeSeconds, stat.mtimeNanoseconds, stat.device, stat.inode, mode,
            stat.uid, stat.gid, stat.size,
        ] {
            BigEndian.append(&out, value)
        }
        out += id
        BigEndian.append(&out, UInt16(min(name.count, 0xFFF)))
        out += name
        pad(&out, nameLength: name.count, extended: false)
        return out
    }

    /// The NUL bytes that end an entry of `nameLength` bytes of name: one to eight, to a
    /// multiple of eight.
    public static func pad(_ out: inout [UInt8], nameLength: Int, extended: Bool) {
        let fixed = IndexBytes.fixedEntrySize + (extended ? 2 : 0)
        out += [UInt8](repeating: 0, count: ((fixed + nameLength + 8) & ~7) - fixed - nameLength)
    }
}
