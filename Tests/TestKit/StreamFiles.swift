import Glibc
import Foundation

// Where a child's standard streams go: files, so that nothing has to be drained and what it
// printed is there whenever it ends or is killed.

/// A file a child writes standard output or error to: one the test named, or a temporary one
/// removed once read.
final class ScratchFile {
    let path: String
    let fd: Int32
    private let temporary: Bool

    /// A new temporary file.
    init() throws {
        var template = Array((NSTemporaryDirectory() + "/todo-test-io.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SpawnError(description: "mkstemp: \(String(cString: strerror(errno)))") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        self.fd = fd
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        temporary = true
    }

    init(path: String) throws {
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SpawnError(description: "\(path): \(String(cString: strerror(errno)))") }
        self.path = path
        temporary = false
    }

    /// A file the child was given by whoever started it (no descriptor here).
    init(existing path: String) {
        self.path = path
        fd = -1
        temporary = false
    }

    func contents() -> [UInt8] { FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? [] }

    deinit {
        if fd >= 0 { close(fd) }
        if temporary { unlink(path) }
    }
}

/// Standard input as a file: /dev/null, the test's file, or a temporary file with the bytes.
struct InputFile {
    let path: String
    private let scratch: ScratchFile?

    init(_ input: StandardInput) throws {
        var bytes: [UInt8]
        switch input {
        case .null:
            (path, scratch) = ("/dev/null", nil)
            return
        case .file(let file):
            (path, scratch) = (file, nil)
            return
        case .text(let text): bytes = Array(text.utf8)
        case .bytes(let given): bytes = given
        }
        let file = try ScratchFile()
        try Data(bytes).write(to: URL(fileURLWithPath: file.path))
        (path, scratch) = (file.path, file)
    }
}
