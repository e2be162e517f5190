import FileKit
import Glibc
import GitKit
import SystemPackage
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

    /// `WholeFile.read` reads into a buffer of the size the file had when opened; a file that
    /// has grown or shrunk since (its size is measured, then the file is written to) still comes
    /// back whole, as it is at the end of the read. `readAll` is given the wrong sizes here.
    @Test func aFileWhoseSizeChangedSinceItWasMeasuredIsReadWhole() throws {
        var template = Array("/tmp/todo-files.XXXXXX".utf8CString)
        let dir = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        defer { rmdir(dir) }
        let file = dir + "/f"
        defer { unlink(file) }
        for size in [0, 1, 5_000, 65_536, 200_000] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
            try WholeFile.write(file, bytes)
            #expect(try WholeFile.read(file) == bytes, "\(size) bytes, measured right")
            for expected in [1, size / 2, size - 1, size + 1, 2 * size + 100, 1 << 20] where expected > 0 {
                let fd = try WholeFile.open(file, .readOnly)
                defer { _ = try? fd.close() }  // a test's descriptor: nothing to do about a failed close
                #expect(try WholeFile.readAll(fd, path: file, expected: expected) == bytes, "\(size) bytes, \(expected) expected")
            }
            // The limit still holds with a size given: the read stops past it.
            let fd = try WholeFile.open(file, .readOnly)
            defer { _ = try? fd.close() }  // a test's descriptor: nothing to do about a failed close
            let limited = try WholeFile.readAll(fd, path: file, limit: 1_000, expected: size)
            #expect(limited.count > 1_000 || limited == bytes, "\(size) bytes, limit 1000")
        }
        // A file that says it is empty (its size is 0) yet has content, as /proc's do.
        let status = try WholeFile.read("/proc/self/status")
        #expect(String(decoding: status, as: UTF8.self).contains("Name:"))
    }
}
