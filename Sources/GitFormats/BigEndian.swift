/// Big-endian numbers written into bytes, as git's binary formats store them.
public enum BigEndian {
    public static func bytes(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    public static func append(_ out: inout [UInt8], _ v: UInt32) { out += bytes(v) }

    public static func append(_ out: inout [UInt8], _ v: UInt16) {
        out.append(UInt8(v >> 8))
        out.append(UInt8(v & 0xFF))
    }
}
