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
    }

    /// One stage-0 entry for a regular file (0o100644) with `stat`'s data and the 20-byte `id`.
    public static func regularFile(path: String, id: [UInt8], stat: Stat) -> [UInt8] {
        var out: [UInt8] = []
        let name = Array(path.utf8)
        out.reserveCapacity(IndexBytes.fixedEntrySize + name.count + 8)
        for value in [
            stat.ctimeSeconds, stat.ctimeNanoseconds, stat.mtimeSeconds, stat.mtimeNanoseconds, stat.device, stat.inode, UInt32(0o100644),
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

    /// Entry bytes (fixed part, name, padding) with the name `name` in place of theirs, the
    /// other flags kept. Only a damaged file's table gives an entry shorter than its fixed
    /// part: it is read as if padded with zeros.
    public static func renamed(_ entry: some Collection<UInt8>, to name: some Collection<UInt8>) -> [UInt8] {
        var bytes = Array(entry)
        if bytes.count < IndexBytes.fixedEntrySize + 2 { bytes += [UInt8](repeating: 0, count: IndexBytes.fixedEntrySize + 2 - bytes.count) }
        let flags = Int(bytes[60]) << 8 | Int(bytes[61])
        let extended = flags & 0x4000 != 0
        var out = Array(bytes[0..<IndexBytes.fixedEntrySize + (extended ? 2 : 0)])
        let newFlags = (flags & ~0xFFF) | min(name.count, 0xFFF)
        out[60] = UInt8(newFlags >> 8)
        out[61] = UInt8(newFlags & 0xFF)
        out += name
        pad(&out, nameLength: name.count, extended: extended)
        return out
    }
}
