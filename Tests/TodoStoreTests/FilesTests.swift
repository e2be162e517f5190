import Glibc
import GitKit
import Testing

/// GitKit's whole-file reads and writes (the one read loop and the one write loop).
@Suite struct FilesTests {
    /// A read that fails part way is no file, never a truncated one taken as whole: reading a
    /// directory opens but fails at the first read (EISDIR).
    @Test func aFailedReadIsNoFileNotAnEmptyOne() throws {
        var template = Array("/tmp/todo-files.XXXXXX".utf8CString)
        let dir = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        defer { rmdir(dir) }
        #expect(readBytes(dir) == nil)
        #expect(readBytes(dir + "/missing") == nil)
        let file = dir + "/f"
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try writeAll(fd, bytes, what: file)
        close(fd)
        defer { unlink(file) }
        #expect(readBytes(file) == bytes, "a file larger than one read comes back whole")
    }
}
