import Glibc
import Foundation
import Testing

/// The index that `todo` rewrites itself for changes of a few files (GitKit's `IndexFile`),
/// judged by the git CLI: it must hold exactly what `HEAD` holds, with git's own extensions and
/// versions either kept working or left to libgit2.
@Suite(.timeLimit(.minutes(20)), .kit) struct IndexFileTests {
    /// The index, as git lists it, is the tree of HEAD: same paths, modes and ids.
    static func expectIndexIsHead(_ sb: Sandbox, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let staged = try sb.git("ls-files", "--stage")
        let tree = try sb.git("ls-tree", "-r", "HEAD")
        #expect(staged.exitCode == 0 && tree.exitCode == 0, sourceLocation: sourceLocation)
        let fromIndex = staged.lines.map { line -> String in
            let parts = line.split(separator: "\t", maxSplits: 1)
            let fields = parts[0].split(separator: " ")
            return "\(fields[0]) \(fields[1])\t\(parts[1])"
        }
        let fromTree = tree.lines.map { line -> String in
            let parts = line.split(separator: "\t", maxSplits: 1)
            let fields = parts[0].split(separator: " ")
            return "\(fields[0]) \(fields[2])\t\(parts[1])"
        }
        #expect(fromIndex == fromTree, sourceLocation: sourceLocation)
        try sb.expectClean(sourceLocation: sourceLocation)
    }

    @Test func changesKeepTheIndexEqualToHead() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        var tasks: [TaskRef] = []
        for i in 0..<12 { tasks.append(try sb.add("Task \(i)")) }
        for args in [
            ["done", tasks[3].short], ["edit", tasks[0].short, "--title", "First"], ["rm", tasks[11].short],
            ["done", tasks[5].short, tasks[6].short, tasks[7].short], ["add", "Last one"],
        ] {
            let r = try sb.todo(args)
            try #require(r.exitCode == 0, "\(r)")
            try Self.expectIndexIsHead(sb)
        }
        let count = try sb.git("ls-files")
        #expect(count.lines.count == 14)  // .gitattributes and 13 tasks
    }

    /// git's own commit writes a cache tree (the TREE extension); a change drops it, and git
    /// reads the result.
    @Test func anIndexWithGitsCacheTreeIsRewrittenCorrectly() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let first = try sb.add("Before")
        try sb.commitByHand([("notes/readme.txt", Array("by hand\n".utf8))], message: "a file by hand")
        let index = try #require(readBytes(sb.repo() + "/.git/index"))
        #expect(index.count > 32 && String(decoding: index, as: UTF8.self).contains("TREE"), "git wrote no cache tree")
        #expect(try sb.todo("done", first.short).exitCode == 0)
        _ = try sb.add("After")
        try Self.expectIndexIsHead(sb)
    }

    /// After writing the index, todo notes its inode, size, modification time and checksum, so
    /// that the next command need not checksum it again; an index git rewrote no longer matches
    /// the note and is checked and rewritten correctly.
    @Test func theNoteOfTheIndexWrittenNamesThatFile() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let first = try sb.add("One")
        let index = sb.repo() + "/.git/index"
        func expectNoteMatches(sourceLocation: SourceLocation = #_sourceLocation) throws {
            let note = try #require(readBytes(sb.repo() + "/.git/todo/index-written"), sourceLocation: sourceLocation)
            let bytes = try #require(readBytes(index), sourceLocation: sourceLocation)
            var st = stat()
            try #require(stat(index, &st) == 0, sourceLocation: sourceLocation)
            let checksum = bytes.suffix(20).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            #expect(
                String(decoding: note, as: UTF8.self) == "\(st.st_ino) \(st.st_size) \(st.st_mtim.tv_sec) \(st.st_mtim.tv_nsec) \(checksum)\n",
                sourceLocation: sourceLocation)
        }
        try expectNoteMatches()
        // git rewrites the index (a new file; `git status` in expectIndexIsHead does too): the
        // note is stale, and the next change is still right.
        try sb.commitByHand([("notes/readme.txt", Array("by hand\n".utf8))], message: "a file by hand")
        #expect(try sb.todo("done", first.short).exitCode == 0)
        try expectNoteMatches()
        try Self.expectIndexIsHead(sb)
        _ = try sb.add("Two")
        try expectNoteMatches()
        try Self.expectIndexIsHead(sb)
    }

    /// Index version 4 (path compression), which `IndexFile` leaves to libgit2.
    @Test func aVersionFourIndexStillWorks() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("One")
        #expect(try sb.git("update-index", "--index-version", "4").exitCode == 0)
        #expect(try sb.todo("done", a.short).exitCode == 0)
        _ = try sb.add("Two")
        try Self.expectIndexIsHead(sb)
    }

    /// A change staged by hand (in the index only) is a hand edit: refused, exit 65.
    @Test func aStagedHandEditIsRefused() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("Staged")
        let full = sb.repo() + "/" + a.path
        var bytes = try #require(readBytes(full))
        bytes = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "Staged", with: "Changed").utf8)
        try writeBytes(full, bytes)
        #expect(try sb.git("add", a.path).exitCode == 0)
        try writeBytes(full, try sb.committedBytes(a.path))  // the work tree back as committed
        let done = try sb.todo("done", a.short)
        #expect(done.exitCode == 65, "\(done)")
        #expect(try sb.committedBytes(a.path).count > 0)
    }

    /// The shared parts of a split index in the household's git folder.
    static func sharedIndexes(_ sb: Sandbox) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: sb.repo() + "/.git")) ?? []).filter { $0.hasPrefix("sharedindex.") }
    }

    static func isSplit(_ sb: Sandbox) -> Bool {
        String(decoding: readBytes(sb.repo() + "/.git/index") ?? [], as: UTF8.self).contains("link")
    }

    /// git splits the index (`core.splitIndex`, or `git update-index --split-index`), which
    /// libgit2 cannot open; `todo` never does. `todo status` (reading through a whole copy)
    /// sees a hand edit and writes no index; the next change replaces the split index by a
    /// whole one made from HEAD, git's view equal to `HEAD`, no shared index left; with
    /// `core.splitIndex` set, every change still leaves the index whole, and `doctor --fix` too;
    /// a killed change is put right through a split index too.
    @Test func aSplitIndexIsReplacedByAWholeOne() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        var tasks: [TaskRef] = []
        for i in 0..<8 { tasks.append(try sb.add("Task \(i)")) }
        #expect(try sb.git("update-index", "--split-index").exitCode == 0)
        #expect(Self.isSplit(sb) && Self.sharedIndexes(sb).count == 1)
        // `status` compares every file through libgit2, from a whole copy: a read writes no index.
        let before = readBytes(sb.repo() + "/.git/index")
        let edited = sb.repo() + "/" + tasks[2].path
        try writeBytes(edited, try sb.committedBytes(tasks[2].path) + Array(" ".utf8))
        let status = try sb.todo("status")
        #expect(status.exitCode == 0 && status.stderr.contains(tasks[2].path), "\(status)")
        #expect(readBytes(sb.repo() + "/.git/index") == before && Self.sharedIndexes(sb).count == 1)
        try writeBytes(edited, try sb.committedBytes(tasks[2].path))
        let done = try sb.todo("done", tasks[3].short)
        #expect(done.exitCode == 0, "\(done)")
        #expect(!Self.isSplit(sb) && Self.sharedIndexes(sb).isEmpty)
        try Self.expectIndexIsHead(sb)
        #expect(try sb.git("config", "core.splitIndex", "true").exitCode == 0)
        for args in [["edit", tasks[0].short, "--title", "First"], ["done", tasks[5].short, tasks[6].short]] {
            let r = try sb.todo(args)
            try #require(r.exitCode == 0, "\(r)")
            #expect(!Self.isSplit(sb) && Self.sharedIndexes(sb).isEmpty)
            try Self.expectIndexIsHead(sb)
        }
        #expect(try sb.git("update-index", "--split-index").exitCode == 0)
        #expect(try sb.todo("doctor", "--fix").exitCode == 0)
        #expect(!Self.isSplit(sb) && Self.sharedIndexes(sb).isEmpty)
        try Self.expectIndexIsHead(sb)
        // A change killed after the branch moved: the next command restores the path from
        // HEAD through libgit2, the split index replaced first.
        try sb.leaveInterruptedChange(of: tasks[1])
        #expect(try sb.git("update-index", "--split-index").exitCode == 0)
        _ = try sb.add("After the interruption")
        #expect(readBytes(sb.repo() + "/" + tasks[1].path) == (try sb.committedBytes(tasks[1].path)))
        #expect(!Self.isSplit(sb))
        try Self.expectIndexIsHead(sb)
        #expect(try sb.git("fsck", "--strict", "--no-progress").exitCode == 0)
    }

    /// A change made by hand in the work tree and staged into a split index (git writes it
    /// split, as `core.splitIndex` asks) is still a hand edit once the index is replaced.
    @Test func aHandEditStagedInASplitIndexIsRefused() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        #expect(try sb.git("config", "core.splitIndex", "true").exitCode == 0)
        let a = try sb.add("Staged")
        _ = try sb.add("Other")
        let full = sb.repo() + "/" + a.path
        let committed = try sb.committedBytes(a.path)
        try writeBytes(full, Array(String(decoding: committed, as: UTF8.self).replacingOccurrences(of: "Staged", with: "Changed").utf8))
        #expect(try sb.git("add", a.path).exitCode == 0)
        #expect(Self.isSplit(sb))
        let done = try sb.todo("done", a.short)
        #expect(done.exitCode == 65, "\(done)")
        #expect(try sb.committedBytes(a.path) == committed)
    }

    /// A split index whose shared part is gone (nothing can read it): the next change
    /// replaces it from HEAD and goes through.
    @Test func aSplitIndexWithoutItsSharedPartIsReplacedToo() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("One")
        #expect(try sb.git("update-index", "--split-index").exitCode == 0)
        for name in Self.sharedIndexes(sb) { unlink(sb.repo() + "/.git/" + name) }
        let done = try sb.todo("done", a.short)
        #expect(done.exitCode == 0, "\(done)")
        #expect(!Self.isSplit(sb))
        try Self.expectIndexIsHead(sb)
    }
}
