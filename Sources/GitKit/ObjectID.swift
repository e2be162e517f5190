import CLibgit2

/// A git object id (SHA-1).
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    var raw: git_oid

    init(_ raw: git_oid) { self.raw = raw }

    init(_ pointer: UnsafePointer<git_oid>) { self.raw = pointer.pointee }

    /// The id whose 20 bytes these are; nil for another count.
    public init?(raw bytes: ArraySlice<UInt8>) {
        guard bytes.count == 20 else { return nil }
        var oid = git_oid()
        withUnsafeMutableBytes(of: &oid.id) { $0.copyBytes(from: bytes) }
        self.raw = oid
    }

    /// Parses 40 hex digits; nil for anything else.
    public init?(hex: String) {
        guard hex.utf8.count == 40 else { return nil }
        var oid = git_oid()
        guard git_oid_fromstr(&oid, hex) == 0 else { return nil }
        self.raw = oid
    }

    public var hex: String {
        var copy = raw
        var buffer = [CChar](repeating: 0, count: 41)
        git_oid_tostr(&buffer, 41, &copy)
        return String(decoding: buffer.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { hex }

    /// Whether all 20 bytes are zero (git's "no object").
    var isZero: Bool { withUnsafeBytes(of: raw.id) { $0.allSatisfy { $0 == 0 } } }

    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        var l = lhs.raw
        var r = rhs.raw
        return git_oid_cmp(&l, &r) == 0
    }

    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes(of: raw.id) { hasher.combine(bytes: $0) }
    }
}
