import FileKit
import SystemPackage

/// Whole-file reads of files the user names (import input, the merge driver's files), through
/// the file layer (`WholeFile`).
enum FileIO {
    /// Reads `fd` to its end, or until more than `limit` bytes are read (the caller sees the
    /// count and refuses).
    static func readAll(_ fd: FileDescriptor, name: String, limit: Int) throws(FileError) -> [UInt8] {
        try WholeFile.readAll(fd, path: name, limit: limit)
    }

    /// The whole file at `path`, or nil when it cannot be opened or read (git's merge driver
    /// protocol has one answer for both: no merged file).
    static func read(_ path: String, limit: Int) -> [UInt8]? {
        guard let fd = try? WholeFile.open(path, .readOnly) else { return nil }  // cannot be opened: nil, which the caller words as missing
        defer { try? fd.close() }  // closing a file only read: nothing of it is lost
        return try? readAll(fd, name: path, limit: limit)  // cannot be read: nil, which the caller words as missing
    }
}
