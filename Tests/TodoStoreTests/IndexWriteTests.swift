import Foundation
import Glibc
import GitFormats
import Testing

@testable import GitKit

/// The index (docs/FORMAT.md, "The git index"): GitKit's `IndexFile` reads a whole index and
/// splices changes into it, judged by `git ls-files --stage`; it is always written whole,
/// whatever `core.splitIndex` says; a split index (git's, or an older `todo`'s) is replaced,
/// unread, by one made from HEAD, hand edits staying visible; a command that only reads
/// writes no index.
@Suite(.timeLimit(.minutes(10))) struct IndexWriteTests {
    /// A work tree whose index git made with `count` entries `f/<i>` of one blob.
    struct Fixture {
        let dir = TempDir()
        let blob: String
        var path: String { dir.path }

        /// `splitIndex`: `core.splitIndex` set to true (which `todo` does not follow).
        init(entries count: Int, splitIndex: Bool = false) throws {
            try git("init", "-q", dir.path, in: "/")
            blob = try run(["git", "hash-object", "-w", "--stdin"], in: dir.path, input: "same\n").stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let lines = (0..<count).map { "100644 \(blob)\t\(Self.name($0))" }.joined(separator: "\n") + "\n"
            #expect(try run(["git", "update-index", "--index-info"], in: dir.path, input: lines).status == 0)
            // Set after git made the index, which stays whole until GitKit writes it.
            if splitIndex { try git("config", "core.splitIndex", "true", in: dir.path) }
        }

        /// The repository, through GitKit.
        func open() throws -> Repository {
            GitLibrary.start()
            return try Repository.open(path: path)
        }

        static func name(_ i: Int) -> String { "f/\(String(format: "%06d", i))" }

        /// What git lists: path → "mode id stage"; with `threads`, git's threaded read, which
        /// finds the entries by the file's entry table.
        func listed(threads: Int = 1) throws -> [String: String] {
            var out: [String: String] = [:]
            for line in try git("-c", "index.threads=\(threads)", "ls-files", "--stage", in: path).split(separator: "\n") {
                let parts = line.split(separator: "\t", maxSplits: 1)
                out[String(parts[1])] = String(parts[0])
            }
            return out
        }

        /// Writes `text` at `name` in the work tree and stages it through GitKit.
        func stage(_ changes: [(name: String, text: String)], repo: Repository) throws -> [String: String] {
            var expected: [String: String] = [:]
            var files: [(path: String, blob: ObjectID)] = []
            for (name, text) in changes {
                let full = path + "/" + name
                try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: full))
                let hex = try run(["git", "hash-object", "-w", name], in: path).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                files.append((name, try #require(ObjectID(hex: hex))))
                expected[name] = "100644 \(hex) 0"
            }
            try repo.stage(files)
            return expected
        }

        var sharedIndexes: [String] { listDirectory(path + "/.git").filter { $0.hasPrefix("sharedindex.") }.sorted() }

        /// Writes every entry's file (`same`) into the work tree and commits them.
        func commitAll() throws {
            for i in 0..<(try listed().count) {
                let full = path + "/" + Self.name(i)
                try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data("same\n".utf8).write(to: URL(fileURLWithPath: full))
            }
            try git("add", "-A", in: path)
            try git("commit", "-q", "-m", "all", in: path)
        }

        /// `git status --porcelain`, one line each.
        func status() throws -> [String] {
            try run(["git", "status", "--porcelain", "--untracked-files=all"], in: path).stdout.split(separator: "\n").map(String.init)
        }

        var isSplit: Bool {
            guard let bytes = readBytes(path + "/.git/index") else { return false }
            return String(decoding: bytes, as: UTF8.self).contains("link")
        }
    }

    /// Random changes of one to eight files (spliced) and of 300 (through libgit2) follow a
    /// model of what git must list; with `core.splitIndex` true the index stays whole and the
    /// setting is left as it is.
    @Test(arguments: [false, true]) func changesFollowTheModelAndTheIndexStaysWhole(splitIndex: Bool) throws {
        let fixture = try Fixture(entries: 200, splitIndex: splitIndex)
        let repo = try fixture.open()
        var expected = try fixture.listed()
        var rng = SplitMix64(seed: 0x1DE8)
        for round in 0..<30 {
            var changes: [(name: String, text: String)] = []
            var names = Set<String>()
            let many = round % 10 == 9
            for _ in 0..<(many ? 300 : 1 + Int(rng.next() % 8)) {
                let name = rng.next() % 3 == 0 ? "n/\(rng.next() % 500)" : Fixture.name(Int(rng.next() % 200))
                if names.insert(name).inserted { changes.append((name, "\(name) \(round)\n")) }
            }
            expected.merge(try fixture.stage(changes, repo: repo)) { $1 }
            #expect(!fixture.isSplit && fixture.sharedIndexes.isEmpty, "round \(round)")
            #expect(try fixture.listed() == expected, "round \(round)")
            if !many {
                // Spliced: the entry table carried over is true, and git's threaded read (which
                // goes by it) lists the same.
                let problem = Self.entryTableProblem(try #require(readBytes(fixture.path + "/.git/index")))
                #expect(problem == nil, "round \(round): \(problem ?? "")")
                #expect(try fixture.listed(threads: 4) == expected, "round \(round)")
            }
        }
        let file = try #require(repo.loadIndexFile())
        #expect(file.count == expected.count)
        for name in [Fixture.name(0), Fixture.name(199), "n/never"] {
            let want = expected[name].map { String($0.split(separator: " ")[1]) }
            switch file.lookup(name) {
            case .file(let id, _): #expect(ObjectID(raw: id[...])?.hex == want, "\(name)")
            case .absent: #expect(want == nil, "\(name)")
            case .conflicted: Issue.record("\(name) conflicted")
            }
        }
        var all: [String: String] = [:]
        file.forEachEntry { id, mode, path in all[path] = "\(String(mode, radix: 8)) \(id.hex) 0" }
        #expect(all == expected)
        let setting = try run(["git", "config", "--get", "core.splitIndex"], in: fixture.path).stdout
        #expect(setting.trimmingCharacters(in: .whitespacesAndNewlines) == (splitIndex ? "true" : ""))
        #expect(try run(["git", "fsck", "--no-dangling"], in: fixture.path).status == 0)
    }

    /// Changes spliced into a large index over many rounds keep a true entry table whose blocks
    /// stay near `IndexWriter.blockSize` entries (none empty, none past four times the size),
    /// starting from an index without one (git's) and from one made whole from HEAD.
    @Test func theEntryTableStaysTrueAndItsBlocksSmall() throws {
        let fixture = try Fixture(entries: 3000)
        try fixture.commitAll()
        let repo = try fixture.open()
        var expected = try fixture.listed()
        var rng = SplitMix64(seed: 0x7AB1E)
        for round in 0..<60 {
            var changes: [(name: String, text: String)] = []
            for k in 0..<3 {
                let name = k == 0 ? Fixture.name(Int(rng.next() % 3000)) : "f/\(String(format: "%06d", rng.next() % 3000))x\(round)"
                changes.append((name, "\(round) \(k)\n"))
            }
            expected.merge(try fixture.stage(changes, repo: repo)) { $1 }
            let index = try #require(readBytes(fixture.path + "/.git/index"))
            let problem = Self.entryTableProblem(index)
            #expect(problem == nil, "round \(round): \(problem ?? "")")
            if round == 30 {
                // The same from an index made from HEAD.
                try git("update-index", "--split-index", in: fixture.path)
                try git("add", "-A", in: fixture.path)
                try git("commit", "-q", "-m", "round \(round)", in: fixture.path)
            }
        }
        #expect(try fixture.listed() == expected)
        #expect(try fixture.listed(threads: 4) == expected)
        let last = try #require(readBytes(fixture.path + "/.git/index"))
        let blocks = try #require(Self.entryTableBlocks(last))
        #expect(blocks.allSatisfy { $0.count > 0 && $0.count <= 4 * IndexWriter.blockSize }, "\(blocks.map(\.count))")
    }

    /// The blocks (offset, entries) of the IEOT extension of an index file; nil without one.
    static func entryTableBlocks(_ bytes: [UInt8]) -> [(offset: Int, count: Int)]? {
        func u32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        let eoie = bytes.count - 20 - 32
        guard eoie > 12, bytes[eoie..<eoie + 4].elementsEqual("EOIE".utf8) else { return nil }
        let ieot = u32(eoie + 8)
        guard bytes[ieot..<ieot + 4].elementsEqual("IEOT".utf8) else { return nil }
        let length = u32(ieot + 4)
        return stride(from: ieot + 12, to: ieot + 8 + length, by: 8).map { (u32($0), u32($0 + 4)) }
    }

    /// What is wrong with the entry table of an index file (versions 2 and 3), found by
    /// walking every entry; nil when it is true.
    static func entryTableProblem(_ bytes: [UInt8]) -> String? {
        func u32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        let count = u32(8)
        var starts: [Int] = []
        var at = 12
        for _ in 0..<count {
            starts.append(at)
            let flags = Int(bytes[at + 60]) << 8 | Int(bytes[at + 61])
            let fixed = 62 + (flags & 0x4000 != 0 ? 2 : 0)
            var name = flags & 0xFFF
            if name == 0xFFF { name = (bytes[(at + fixed)...].firstIndex(of: 0) ?? at + fixed) - (at + fixed) }
            at += (fixed + name + 8) & ~7
        }
        guard let blocks = entryTableBlocks(bytes) else { return "no entry table" }
        guard u32(bytes.count - 20 - 32 + 8) == at else { return "EOIE names \(u32(bytes.count - 20 - 32 + 8)), the entries end at \(at)" }
        var first = 0
        for (i, block) in blocks.enumerated() {
            guard first < count, starts[first] == block.offset else { return "block \(i) at \(block.offset), entry \(first) at \(first < count ? starts[first] : -1)" }
            guard block.count > 0 else { return "block \(i) is empty" }
            first += block.count
        }
        return first == count ? nil : "the blocks hold \(first) entries of \(count)"
    }

    /// A split index git wrote (`git update-index --split-index`), with hand edits: one file
    /// changed in the work tree, one changed and staged, one deleted, one new and staged, one
    /// staged and then put back in the work tree. The next change replaces it by a whole index
    /// made from HEAD: git lists no `link` and no shared index is left; every hand edit still
    /// in the work tree still shows (`git status`), and the one undone in the work tree is
    /// gone, as it is from the work tree. Also when the shared index is missing (a split index
    /// nothing can read).
    @Test(arguments: [false, true]) func aSplitIndexIsReplacedFromHead(sharedMissing: Bool) throws {
        let fixture = try Fixture(entries: 40)
        try fixture.commitAll()
        let head = try git("rev-parse", "HEAD", in: fixture.path).trimmingCharacters(in: .whitespacesAndNewlines)
        try git("update-index", "--split-index", in: fixture.path)
        try Data("edited\n".utf8).write(to: URL(fileURLWithPath: fixture.path + "/" + Fixture.name(1)))
        try Data("staged\n".utf8).write(to: URL(fileURLWithPath: fixture.path + "/" + Fixture.name(2)))
        try git("add", Fixture.name(2), in: fixture.path)
        unlink(fixture.path + "/" + Fixture.name(3))
        try Data("new\n".utf8).write(to: URL(fileURLWithPath: fixture.path + "/f/new"))
        try git("add", "f/new", in: fixture.path)
        try Data("undone\n".utf8).write(to: URL(fileURLWithPath: fixture.path + "/" + Fixture.name(4)))
        try git("add", Fixture.name(4), in: fixture.path)
        try Data("same\n".utf8).write(to: URL(fileURLWithPath: fixture.path + "/" + Fixture.name(4)))
        #expect(fixture.isSplit && fixture.sharedIndexes.count == 1)
        if sharedMissing { for name in fixture.sharedIndexes { unlink(fixture.path + "/.git/" + name) } }

        let repo = try fixture.open()
        #expect(repo.loadIndexFile() == nil)
        var expected = try fixture.stage([("g/todo", "todo\n")], repo: repo)
        #expect(!fixture.isSplit && fixture.sharedIndexes.isEmpty)
        let status = Set(try fixture.status())
        #expect(status == [" M \(Fixture.name(1))", " M \(Fixture.name(2))", " D \(Fixture.name(3))", "?? f/new", "A  g/todo"], "\(status)")
        // Every other entry as HEAD has it.
        let tree = try git("ls-tree", "-r", head, in: fixture.path)
        for line in tree.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            let fields = parts[0].split(separator: " ")
            expected[String(parts[1])] = "\(fields[0]) \(fields[2]) 0"
        }
        #expect(try fixture.listed() == expected)
        // Files that match HEAD got their stat data: git need not hash them to call them clean.
        #expect(try run(["git", "diff-files", "--quiet", "--", Fixture.name(5)], in: fixture.path).status == 0)
        #expect(try run(["git", "fsck", "--no-dangling"], in: fixture.path).status == 0)
    }

    /// A command that only reads (`dirtyPaths`, as `todo status` and `list` check for hand
    /// edits) reads a split index through a whole copy made from HEAD and writes no index.
    @Test func aReadLeavesASplitIndexAsItIs() throws {
        let fixture = try Fixture(entries: 30)
        try fixture.commitAll()
        try git("update-index", "--split-index", in: fixture.path)
        try Data("edited\n".utf8).write(to: URL(fileURLWithPath: fixture.path + "/" + Fixture.name(7)))
        let before = readBytes(fixture.path + "/.git/index")
        let shared = fixture.sharedIndexes
        let repo = try fixture.open()
        #expect(try repo.dirtyPaths(pathspec: ["f/"]) == [Fixture.name(7)])
        let tree = try repo.commit(try #require(try repo.resolve(reference: "HEAD"))).tree
        #expect(try repo.pathsDiffering(from: tree, paths: [Fixture.name(7), Fixture.name(8)]) == [Fixture.name(7)])
        #expect(readBytes(fixture.path + "/.git/index") == before && fixture.sharedIndexes == shared)
        #expect(listDirectory(fixture.path + "/.git/todo").filter { $0.hasPrefix("index-whole") }.isEmpty)
    }

    /// git's entry table (IEOT, then EOIE last), which git writes for its threaded reads, is
    /// used to find entries; every entry is found through it. A table that lies (offsets not at
    /// entries, in a file whose checksum holds) gives no crash.
    @Test func gitsEntryTableIsReadAndALyingOneDoesNotTrap() throws {
        let fixture = try Fixture(entries: 1000)
        try git("-c", "index.threads=4", "-c", "index.recordOffsetTable=true", "-c", "index.recordEndOfIndexEntries=true", "update-index", "--force-write-index", in: fixture.path)
        let index = try #require(readBytes(fixture.path + "/.git/index"))
        #expect(String(decoding: index.suffix(200), as: UTF8.self).contains("EOIE") && String(decoding: index, as: UTF8.self).contains("IEOT"))
        let repo = try fixture.open()
        let file = try #require(repo.loadIndexFile())
        for i in stride(from: 0, to: 1000, by: 7) {
            #expect(file.lookup(Fixture.name(i)) == .file(id: try #require(ObjectID(hex: fixture.blob)).bytes, mode: 0o100644), "\(i)")
        }
        #expect(file.lookup("f/zzz") == .absent && file.lookup("a") == .absent)

        // The same file with the table's offsets moved off the entries, checksum made again.
        var lying = index
        let ieot = try #require(Self.find(Array("IEOT".utf8), in: lying))
        let blocks = (Int(lying[ieot + 4]) << 24 | Int(lying[ieot + 5]) << 16 | Int(lying[ieot + 6]) << 8 | Int(lying[ieot + 7]) - 4) / 8
        #expect(blocks > 1)
        var rng = SplitMix64(seed: 0x1E07)
        for block in 1..<blocks {
            let at = ieot + 12 + block * 8 + 3
            lying[at] = lying[at] &+ UInt8(truncatingIfNeeded: 8 * (1 + rng.next() % 7))
        }
        let body = Array(lying.dropLast(20))
        lying = body + IndexFile.sha1([.new(body)])
        let scratch = TempDir()
        try Data(lying).write(to: URL(fileURLWithPath: scratch.path + "/index"))
        guard case .whole(let bytes) = IndexFile.load(IndexFile.Place(gitDirectory: scratch.path + "/")) else {
            Issue.record("the lying table's file was not read")
            return
        }
        for i in 0..<1000 { _ = bytes.lookup(Fixture.name(i)) }
        var listed = 0
        bytes.forEachEntry { _, _, _ in listed += 1 }
        #expect(listed == 1000)
    }

    /// An index with random bytes changed, cut or grown, its checksum made right again so that
    /// the parse itself is what is tried: each is read, looked up, listed and changed, and none
    /// traps (a debug build checks every byte read against the file's bounds).
    @Test func damagedIndexFilesNeverTrap() throws {
        let fixture = try Fixture(entries: 300)
        let repo = try fixture.open()
        _ = try fixture.stage([("f/000010", "ten\n"), ("n/new", "new\n")], repo: repo)
        try git("update-index", "--force-remove", "f/000011", in: fixture.path)
        let good = try #require(readBytes(fixture.path + "/.git/index"))
        let scratch = TempDir()
        var rng = SplitMix64(seed: PropertySeed.run)
        var read = 0
        for round in 0..<400 {
            var bytes = good
            switch rng.next() % 4 {
            case 0: bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count))))
            case 1: bytes += (0..<Int(1 + rng.next() % 64)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            default:
                for _ in 0..<(1 + rng.next() % 8) {
                    bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
                }
            }
            // The checksum made right again, so that the parse is what is tried.
            if bytes.count > 20 { bytes = Array(bytes.dropLast(20)) + IndexFile.sha1([.new(Array(bytes.dropLast(20)))]) }
            let dir = scratch.path + "/r\(round)/"
            try FileManager.default.createDirectory(atPath: dir + "todo", withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: dir + "index"))
            guard case .whole(let file) = IndexFile.load(IndexFile.Place(gitDirectory: dir)) else { continue }
            read += 1
            for i in stride(from: 0, to: 320, by: 9) { _ = file.lookup(Fixture.name(i)) }
            _ = file.lookup("n/new")
            var listed = 0
            file.forEachEntry { _, _, _ in listed += 1 }
            let entry = IndexFile.entry(path: "f/000020", id: [UInt8](repeating: 7, count: 20), stat: stat())
            if let rewrite = file.replacing([("f/000020", entry)]) { _ = IndexFile.sha1(rewrite.file.pieces) }
        }
        // Some damage leaves a file that still reads (a changed stat field, an id): those were
        // looked up, listed and rewritten too.
        #expect(read > 0)
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }

}

extension ObjectID {
    /// The id's 20 bytes.
    fileprivate var bytes: [UInt8] { withUnsafeBytes(of: raw.id) { Array($0) } }
}
