import Glibc
import GitKit
import Testing

/// libgit2's process-wide switches stay on in a process that has not declared itself one
/// command (`GitLibrary.declareOneCommand`, which only the CLI calls): a long-running front end
/// may be reading or writing another repository on another thread at that moment.
@Suite(.timeLimit(.minutes(5))) struct ProcessSwitchTests {
    /// The hash check of objects read is not turned off here: a loose object whose content is
    /// not what its id says (another blob's bytes under its name) is refused even after the
    /// request to stop checking.
    @Test func hashChecksStayOnInAProcessThatIsNotOneCommand() throws {
        var template = Array("/tmp/todo-switch.XXXXXX".utf8CString)
        let dir = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        defer { _ = system("rm -rf '\(dir)'") }
        GitLibrary.start()
        let repo = try Repository.create(path: dir, bare: true)
        let a = try repo.writeBlob(Array("the first blob\n".utf8))
        let b = try repo.writeBlob(Array("another blob\n".utf8))
        func path(_ id: ObjectID) -> String {
            "\(dir)/objects/\(id.hex.prefix(2))/\(id.hex.dropFirst(2))"
        }
        #expect(system("chmod u+w '\(path(a))' && cp '\(path(b))' '\(path(a))'") == 0)

        GitLibrary.verifyObjectsOnRead(false)
        defer { GitLibrary.verifyObjectsOnRead(true) }
        let fresh = try Repository.open(path: dir)
        #expect(throws: (any Error).self, "the swapped object is refused: the check stayed on") {
            _ = try fresh.readBlob(a)
        }
        #expect(try fresh.readBlob(b) == Array("another blob\n".utf8))
    }
}
