import SystemPackage

/// Whole-file reads and writes of files the user names (import input, the merge driver's files).
enum FileIO {
    /// Reads `fd` to its end, or until more than `limit` bytes are read (the caller sees the
    /// count and refuses).
    static func readAll(_ fd: FileDescriptor, limit: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while out.count <= limit {
            let n = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }

    /// The whole file at `path`, or nil when it cannot be opened or read.
    static func read(_ path: String, limit: Int) -> [UInt8]? {
        guard let fd = try? FileDescriptor.open(FilePath(path), .readOnly, options: .closeOnExec) else { return nil }
        defer { try? fd.close() }
        return try? readAll(fd, limit: limit)
    }
}
