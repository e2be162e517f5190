import FileKit
import Glibc
import SystemPackage
import Testing

@testable import TodoServe

/// The server's state folder goes through the file layer: a failed call keeps the file and the
/// errno (exit 73 and the path, docs/SERVE.md), the old tokens are whole and no temporary file
/// is left.
@Suite(.timeLimit(.minutes(2))) struct StateFolderFaultTests {
    @Test(arguments: [FileError.Operation.open, .write, .fsync, .rename])
    func aFailedReplaceKeepsTheOldTokens(_ op: FileError.Operation) throws {
        var template = Array("/tmp/todo-state-faults.XXXXXX".utf8CString)
        let dir = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        let folder = StateFolder(path: dir + "/serve")
        defer {
            for name in ["tokens.json", "serve"] { unlink(dir + "/serve/" + name) }
            rmdir(dir + "/serve")
            rmdir(dir)
        }
        try folder.prepare()
        try folder.replace("tokens.json", with: Array("old".utf8))
        FileFaults.inject(op, under: dir, errno: .ioError)
        defer { FileFaults.clear(under: dir) }
        do {
            try folder.replace("tokens.json", with: Array("new".utf8))
            Issue.record("a failed \(op) must fail the replace")
        } catch {
            guard case .unwritable(let path, let errno) = error else { throw error }
            #expect(errno == EIO)
            #expect(path.hasPrefix(dir + "/serve/tokens.json"), "\(path)")
        }
        #expect(try folder.read("tokens.json") == Array("old".utf8))
        #expect(try folder.read("missing") == nil)
        let left = try #require(opendir(dir + "/serve"))
        var names: [String] = []
        while let e = readdir(left) {
            let name = withUnsafePointer(to: e.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(left)
        #expect(names == ["tokens.json"], "no temporary file is left")
    }
}
