import Foundation
import Glibc
import GitFormats
import Testing

@testable import GitKit

/// The split index (docs/FORMAT.md, "The git index"): GitKit's `IndexFile` reads the one git
/// writes and writes one git reads, judged by `git ls-files --stage`; its EWAH bitmaps round
/// trip and refuse what is malformed.
@Suite(.timeLimit(.minutes(10))) struct SplitIndexTests {
    // MARK: EWAH

    @Test func bitmapsRoundTrip() throws {
        var rng = SplitMix64(seed: 0x5EED_1DE8)
        var cases: [[Int]] = [[], [0], [63], [64], [0, 1, 2, 63, 64, 65, 127, 128], [5, 6000, 6001, 100_000], Array(0..<300)]
        for _ in 0..<200 {
            let n = Int(rng.next() % 40)
            let spread = 1 + Int(rng.next() % 5000)
            cases.append(Array(Set((0..<n).map { _ in Int(rng.next() % UInt64(spread)) })).sorted())
        }
        for bits in cases {
            let bytes = EWAH.encode(bits)
            let decoded = try bytes.withUnsafeBytes { try EWAH.decode($0, at: 0, end: bytes.count, limit: 200_000) }
            #expect(decoded.bits == bits, "\(bits)")
            #expect(decoded.end == bytes.count)
        }
    }

    /// Cut short, a literal count beyond the words, a bit at or past the limit, a run of ones
    /// of four billion words: refused, never a trap or a huge allocation. Random bytes too.
    @Test func malformedBitmapsAreRefused() throws {
        let good = EWAH.encode([3, 70, 900])
        func decode(_ bytes: [UInt8], limit: Int = 1000) -> [Int]? {
            // Refused (a `FormatError`) reads as nil here; GitFormatsTests checks the errors.
            bytes.withUnsafeBytes { try? EWAH.decode($0, at: 0, end: bytes.count, limit: limit).bits }
        }
        #expect(decode(good) == [3, 70, 900])
        for cut in 0..<good.count { #expect(decode(Array(good.prefix(cut))) == nil) }
        #expect(decode(good, limit: 900) == nil)
        var manyLiterals = good
        manyLiterals[8] = 0x7F  // the first marker's literal count, far beyond the words
        #expect(decode(manyLiterals) == nil)
        // One marker: a run of ones 2^32 - 1 words long, no literals.
        let ones: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF] + [0, 0, 0, 0]
        #expect(decode(ones) == nil)
        var rng = SplitMix64(seed: 0xBAD_B175)
        for _ in 0..<2000 {
            let bytes = (0..<Int(rng.next() % 64)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if let bits = decode(bytes) { #expect(bits.allSatisfy { $0 < 1000 }) }
        }
    }

    // MARK: The index

    /// A work tree whose index git made with `count` entries `f/<i>` of one blob.
    struct Fixture {
        let dir = TempDir()
        let blob: String
        var path: String { dir.path }

        /// `splitIndex`: `core.splitIndex` set to true, so that even a small index is split.
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

        /// What git lists: path → "mode id stage".
        func listed() throws -> [String: String] {
            var out: [String: String] = [:]
            for line in try git("ls-files", "--stage", in: path).split(separator: "\n") {
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

        var isSplit: Bool {
            guard let bytes = readBytes(path + "/.git/index") else { return false }
            return String(decoding: bytes, as: UTF8.self).contains("link")
        }
    }

    /// From `splitThreshold` entries a change leaves the index split, git lists exactly the
    /// entries, and later changes keep it so with one shared index; below, it stays whole.
    @Test func aLargeIndexIsSplitAndGitReadsIt() throws {
        let small = try Fixture(entries: 50)
        let smallRepo = try small.open()
        _ = try small.stage([("f/000003", "three\n")], repo: smallRepo)
        #expect(!small.isSplit && small.sharedIndexes.isEmpty)

        let fixture = try Fixture(entries: IndexFile.splitThreshold)
        let repo = try fixture.open()
        var expected = try fixture.listed()
        #expect(expected.count == IndexFile.splitThreshold)
        expected.merge(try fixture.stage([("f/000007", "seven\n"), ("g/new", "new\n")], repo: repo)) { $1 }
        #expect(fixture.isSplit)
        #expect(fixture.sharedIndexes.count == 1)
        #expect(try fixture.listed() == expected)
        let shared = fixture.sharedIndexes
        for round in 0..<5 {
            expected.merge(try fixture.stage([(Fixture.name(round * 100), "round \(round)\n"), ("h/\(round)", "h\n")], repo: repo)) { $1 }
            #expect(try fixture.listed() == expected)
        }
        #expect(fixture.sharedIndexes == shared, "a few changes do not rebase")
        // The index holds only what changed: a few kilobytes, not the 10,000 entries.
        var st = stat()
        #expect(stat(fixture.path + "/.git/index", &st) == 0 && st.st_size < 4096)
        // git checks it whole.
        #expect(try run(["git", "fsck", "--no-dangling"], in: fixture.path).status == 0)
    }

    /// With `core.splitIndex` true even a small index is split; replacing, adding and
    /// replacing again follow a model of what git must list, the rebase comes past 20% of
    /// entries outside the shared index and leaves one shared index; false writes it whole and
    /// removes the shared one; `unsplitIndex` (before libgit2 reads it) writes it whole too.
    @Test func changesFollowTheModelThroughRebasesAndUnsplits() throws {
        let fixture = try Fixture(entries: 200, splitIndex: true)
        let repo = try fixture.open()
        var expected = try fixture.listed()
        var shareds: Set<[String]> = []
        var rng = SplitMix64(seed: 0x1DE8)
        for round in 0..<30 {
            var changes: [(name: String, text: String)] = []
            var names = Set<String>()
            for _ in 0..<(1 + Int(rng.next() % 6)) {
                let name = rng.next() % 3 == 0 ? "n/\(rng.next() % 500)" : Fixture.name(Int(rng.next() % 200))
                if names.insert(name).inserted { changes.append((name, "\(name) \(round)\n")) }
            }
            expected.merge(try fixture.stage(changes, repo: repo)) { $1 }
            #expect(fixture.isSplit)
            #expect(fixture.sharedIndexes.count == 1)
            shareds.insert(fixture.sharedIndexes)
            #expect(try fixture.listed() == expected, "round \(round)")
        }
        #expect(shareds.count > 1, "no rebase in 30 rounds")
        // Looked up through the split index: an entry replaced, one added, one shared as git made it.
        let file = try #require(repo.loadIndexFile())
        #expect(file.isSplit && file.count == expected.count)
        for name in [Fixture.name(0), Fixture.name(199), "n/never"] {
            let want = expected[name].map { String($0.split(separator: " ")[1]) }
            switch file.lookup(name) {
            case .file(let id, _): #expect(ObjectID(raw: id[...])?.hex == want, "\(name)")
            case .absent: #expect(want == nil, "\(name)")
            case .conflicted: Issue.record("\(name) conflicted")
            }
        }
        try repo.unsplitIndex()
        #expect(!fixture.isSplit && fixture.sharedIndexes.isEmpty)
        #expect(try fixture.listed() == expected)
        expected.merge(try fixture.stage([("n/again", "again\n")], repo: repo)) { $1 }
        #expect(fixture.isSplit && fixture.sharedIndexes.count == 1)
        try git("config", "core.splitIndex", "false", in: fixture.path)
        expected.merge(try fixture.stage([("n/whole", "whole\n")], repo: repo)) { $1 }
        #expect(!fixture.isSplit && fixture.sharedIndexes.isEmpty)
        #expect(try fixture.listed() == expected)
    }

    /// An index git split itself, with entries it replaced (names empty), deleted and added, is
    /// read as git lists it, and a change through GitKit keeps git's view.
    @Test func gitsOwnSplitIndexIsReadAndChanged() throws {
        let fixture = try Fixture(entries: 300)
        let repo = try fixture.open()
        try git("update-index", "--split-index", in: fixture.path)
        let other = try run(["git", "hash-object", "-w", "--stdin"], in: fixture.path, input: "other\n").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try git("update-index", "--cacheinfo", "100644,\(other),\(Fixture.name(10))", in: fixture.path)
        try git("update-index", "--cacheinfo", "100755,\(other),\(Fixture.name(11))", in: fixture.path)
        try git("update-index", "--force-remove", Fixture.name(12), in: fixture.path)
        try git("update-index", "--add", "--cacheinfo", "100644,\(other),e/added", in: fixture.path)
        #expect(fixture.isSplit && fixture.sharedIndexes.count == 1)
        var expected = try fixture.listed()
        let file = try #require(repo.loadIndexFile())
        #expect(file.isSplit && file.count == expected.count)
        #expect(file.lookup(Fixture.name(10)) == .file(id: try #require(ObjectID(hex: other)).bytes, mode: 0o100644))
        #expect(file.lookup(Fixture.name(11)) == .file(id: try #require(ObjectID(hex: other)).bytes, mode: 0o100755))
        #expect(file.lookup(Fixture.name(12)) == .absent)
        #expect(file.lookup("e/added") == .file(id: try #require(ObjectID(hex: other)).bytes, mode: 0o100644))
        #expect(file.lookup(Fixture.name(13)) == .file(id: try #require(ObjectID(hex: fixture.blob)).bytes, mode: 0o100644))
        var all: [String: String] = [:]
        file.forEachEntry { id, mode, path in all[path] = "\(String(mode, radix: 8)) \(id.hex) 0" }
        #expect(all == expected)
        expected.merge(try fixture.stage([(Fixture.name(11), "eleven\n"), (Fixture.name(12), "back\n"), ("e/added", "x\n")], repo: repo)) { $1 }
        #expect(try fixture.listed() == expected)
        #expect(try run(["git", "update-index", "--refresh"], in: fixture.path).status != 128)
    }

    /// The shared index `todo` writes carries git's entry table (IEOT, then EOIE last), which
    /// git's threaded read uses too; lookups through it find every entry. A table that lies
    /// (offsets not at entries, in a file whose checksum holds) gives no crash.
    @Test func theSharedIndexHasAnEntryTableGitReads() throws {
        let fixture = try Fixture(entries: 1000, splitIndex: true)
        let repo = try fixture.open()
        var expected = try fixture.listed()
        expected.merge(try fixture.stage([("n/one", "one\n")], repo: repo)) { $1 }
        let name = try #require(fixture.sharedIndexes.first)
        let shared = try #require(readBytes(fixture.path + "/.git/" + name))
        let tail = String(decoding: shared.suffix(200), as: UTF8.self)
        #expect(tail.contains("EOIE") && String(decoding: shared, as: UTF8.self).contains("IEOT"))
        #expect(try fixture.listed() == expected)
        #expect(try git("-c", "index.threads=4", "ls-files", "--stage", in: fixture.path).split(separator: "\n").count == expected.count)
        let file = try #require(repo.loadIndexFile())
        for i in stride(from: 0, to: 1000, by: 7) {
            #expect(file.lookup(Fixture.name(i)) == .file(id: try #require(ObjectID(hex: fixture.blob)).bytes, mode: 0o100644), "\(i)")
        }
        #expect(file.lookup("f/zzz") == .absent && file.lookup("a") == .absent)

        // The same file with the table's offsets moved off the entries, checksum made again.
        var lying = shared
        let ieot = try #require(String(decoding: lying, as: UTF8.self).range(of: "IEOT")).lowerBound.utf16Offset(in: String(decoding: lying, as: UTF8.self))
        var rng = SplitMix64(seed: 0x1E07)
        for block in 1..<(1000 / IndexBytes.blockSize) {
            let at = ieot + 12 + block * 8 + 3
            lying[at] = lying[at] &+ UInt8(truncatingIfNeeded: 8 * (1 + rng.next() % 7))
        }
        let body = Array(lying.dropLast(20))
        lying = body + IndexFile.sha1([.new(body)])
        let path = fixture.path + "/lying-index"
        try Data(lying).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let mapping = try #require(MappedFile(fd, size: lying.count))
        // Its table is in order and within the entries, so it is taken, and walked.
        let bytes = try #require(IndexBytes.read(mapping, checked: false, allowLink: false))
        for i in 0..<1000 { _ = bytes.entries(at: Array(Fixture.name(i).utf8), in: 0..<bytes.count) }
        for i in 0..<bytes.count { _ = (bytes.path(at: i), bytes.object(at: i), bytes.entryBytes(i).count) }
    }

    /// A split index and its shared index with random bytes changed, cut or grown, their
    /// checksums (and the shared index's name in the link) made right again so that the parse
    /// itself is what is tried: each is read, looked up, listed, changed and written whole, and
    /// none traps (a debug build checks every byte read against the file's bounds).
    @Test func damagedIndexFilesNeverTrap() throws {
        let fixture = try Fixture(entries: 300, splitIndex: true)
        let repo = try fixture.open()
        _ = try fixture.stage([("f/000010", "ten\n"), ("n/new", "new\n")], repo: repo)
        try git("update-index", "--force-remove", "f/000011", in: fixture.path)
        let goodTop = try #require(readBytes(fixture.path + "/.git/index"))
        let sharedName = try #require(fixture.sharedIndexes.first)
        let goodShared = try #require(readBytes(fixture.path + "/.git/" + sharedName))
        let linkAt = try #require(Self.find(Array("link".utf8), in: goodTop))
        let scratch = TempDir()
        var rng = SplitMix64(seed: PropertySeed.run)
        var read = 0
        for round in 0..<400 {
            var top = goodTop
            var shared = goodShared
            let damageShared = rng.next() % 2 == 0
            func damage(_ bytes: inout [UInt8]) {
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
            }
            if damageShared {
                damage(&shared)
                if shared.count >= 20, linkAt + 28 <= top.count - 20 {
                    top.replaceSubrange(linkAt + 8..<linkAt + 28, with: shared.suffix(20))
                    top = Array(top.dropLast(20)) + IndexFile.sha1([.new(Array(top.dropLast(20)))])
                }
            } else {
                damage(&top)
            }
            let dir = scratch.path + "/r\(round)/"
            try FileManager.default.createDirectory(atPath: dir + "todo", withIntermediateDirectories: true)
            try Data(top).write(to: URL(fileURLWithPath: dir + "index"))
            let name = shared.count >= 20 ? ObjectID(raw: shared.suffix(20)[...])?.hex ?? "x" : "x"
            try Data(shared).write(to: URL(fileURLWithPath: dir + "sharedindex." + name))
            guard let file = IndexFile.load(IndexFile.Place(gitDirectory: dir)) else { continue }
            read += 1
            for i in stride(from: 0, to: 320, by: 9) { _ = file.lookup(Fixture.name(i)) }
            _ = file.lookup("n/new")
            var listed = 0
            file.forEachEntry { _, _, _ in listed += 1 }
            let entry = IndexFile.entry(path: "f/000020", id: [UInt8](repeating: 7, count: 20), stat: stat())
            for rule in [IndexFile.SplitRule.always, .never, .from(10_000)] {
                if let rewrite = file.replacing([("f/000020", entry)], rule: rule) { _ = IndexFile.sha1(rewrite.index.pieces) }
            }
            _ = IndexFile.sha1(file.unsplit().index.pieces)
        }
        // Some damage leaves a file that still reads (a changed stat field, an id): those were
        // looked up, listed and rewritten too.
        #expect(read > 0)
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    /// An index naming a shared index that is not there: no `IndexFile` (libgit2 then says it
    /// cannot read it); nothing traps.
    @Test func aMissingSharedIndexIsNotReadAsEmpty() throws {
        let fixture = try Fixture(entries: 20)
        try git("update-index", "--split-index", in: fixture.path)
        for name in fixture.sharedIndexes { unlink(fixture.path + "/.git/" + name) }
        let repo = try fixture.open()
        #expect(repo.loadIndexFile() == nil)
    }
}

extension ObjectID {
    /// The id's 20 bytes.
    fileprivate var bytes: [UInt8] { withUnsafeBytes(of: raw.id) { Array($0) } }
}
