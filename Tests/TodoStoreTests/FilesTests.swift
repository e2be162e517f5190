import Glibc
import GitKit
import Testing

/// GitKit's whole-file reads and writes (the one read loop and the one write loop, FileKit's).
@Suite(.timeLimit(.minutes(2))) struct FilesTests {
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

    /// The read loop reads across the writes of a pipe until its end, and a read that fails is
    /// thrown with its errno, never taken as the end of the file.
    @Test func theReadLoopReadsToTheEndAndThrowsOnAFailure() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        try writeAll(ends[1], Array("abc".utf8), what: "pipe")
        try writeAll(ends[1], Array("defg".utf8), what: "pipe")
        close(ends[1])
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = try buffer.withUnsafeMutableBytes { try readFully(ends[0], into: $0, what: "pipe") }
        close(ends[0])
        #expect(n == 7 && Array(buffer[0..<7]) == Array("abcdefg".utf8))

        let dir = open("/", O_RDONLY | O_CLOEXEC)
        try #require(dir >= 0)
        defer { close(dir) }
        #expect(throws: GitError.self) { try buffer.withUnsafeMutableBytes { try readFully(dir, into: $0, what: "/") } }
    }
}
