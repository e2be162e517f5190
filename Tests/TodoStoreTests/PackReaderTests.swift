import Foundation
import Testing

@testable import GitKit

/// `PackReader`, which the check of received history reads packs through without libgit2, and
/// the parsers of trees and commits beside it (`ParsedTree`, `TreeChanges.treeAndFirstParent`):
/// every object reads as git gives it; damaged packs and indexes give nil, never a trap; the
/// parsers take only what libgit2 takes, and read it as libgit2 does.
@Suite(.timeLimit(.minutes(5))) struct PackReaderTests {
    /// A bare repository with a history of `count` commits that change task files in a few
    /// folders (so that trees are deltas of each other), a 200 KB blob and a changed copy of it
    /// (copies from far into a base), and an empty blob; repacked by git with long delta chains.
    func repackedHistory(_ count: Int) throws -> (dir: TempDir, repo: Repository) {
        let dir = TempDir()
        try git("init", "-q", "--bare", "-b", "main", dir.path, in: dir.path)
        var script = ""
        func data(_ text: String) { script += "data \(text.utf8.count)\n\(text)\n" }
        var rng = SplitMix64(seed: 7)
        let large = (0..<200_000).map { _ in Character(UnicodeScalar(UInt8(97 + rng.int(26)))) }
        for i in 1...count {
            script += "commit refs/heads/main\nmark :\(i)\ncommitter Test <test@example.org> \(1_700_000_000 + i) +0000\n"
            data("change \(i)")
            if i > 1 { script += "from :\(i - 1)\n" }
            let folder = String(format: "%02x", i % 5)
            script += "M 100644 inline tasks/\(folder)/\(folder)\(String(format: "%030x", i % 40)).json\n"
            data("{\"title\":\"task \(i % 40)\",\"version\":\(i)}\n")
            if i == 3 {
                script += "M 100644 inline big\n"
                data(String(large))
                script += "M 100644 inline empty\n"
                data("")
            }
            if i == 4 {
                var changed = large
                changed.replaceSubrange(150_000..<150_010, with: Array("0123456789"))
                script += "M 100644 inline big\n"
                data(String(changed))
            }
        }
        let r = try run(["git", "fast-import", "--quiet"], in: dir.path, input: script)
        #expect(r.status == 0, "\(r.stderr)")
        try git("repack", "-q", "-a", "-d", "-f", "--depth=50", "--window=50", in: dir.path)
        GitLibrary.start()
        return (dir, try Repository.open(path: dir.path))
    }

    /// Every object: id, type, size, as `git cat-file --batch-check` lists them.
    func objects(_ path: String) throws -> [(id: ObjectID, type: String, size: Int)] {
        let listed = try git("cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype) %(objectsize)", in: path)
        return try listed.split(separator: "\n").map { line in
            let parts = line.split(separator: " ")
            return (try #require(ObjectID(hex: String(parts[0]))), String(parts[1]), Int(parts[2])!)
        }
    }

    @Test func everyObjectOfARepackedHistoryReadsAsGitGivesIt() throws {
        let (dir, _) = try repackedHistory(300)
        let listed = try objects(dir.path)
        let deltas = try git("verify-pack", "-v", dir.path + "/objects/pack/" + #require(packIndex(dir.path)), in: dir.path)
        // The fixture is what it is for: chains of deltas, some long.
        #expect(deltas.contains("chain length = 10"))
        let reader = PackReader(PackFiles(gitDirectory: dir.path + "/"))
        let kinds: [String: PackReader.Kind] = ["commit": .commit, "tree": .tree, "blob": .blob, "tag": .tag]
        for object in listed {
            let read = try #require(reader.read(object.id), "\(object.id) \(object.type)")
            #expect(read.kind == kinds[object.type])
            #expect(read.bytes.count == object.size)
            #expect(reader.size(object.id) == object.size)
            let expected = try run(["git", "cat-file", object.type, object.id.hex], in: dir.path).stdoutBytes
            #expect(read.bytes == expected, "\(object.id) \(object.type)")
        }
        // A fresh reader (nothing cached) gives sizes from the entries' headers alone.
        let fresh = PackReader(PackFiles(gitDirectory: dir.path + "/"))
        for object in listed { #expect(fresh.size(object.id) == object.size) }
        #expect(reader.read(try #require(ObjectID(hex: String(repeating: "ab", count: 20)))) == nil)
    }

    func packIndex(_ path: String) -> String? {
        (try? FileManager.default.contentsOfDirectory(atPath: path + "/objects/pack"))?.first { $0.hasSuffix(".idx") }
    }

    @Test func damagedPacksAndIndexesGiveNothingOrTheObjectNeverATrap() throws {
        let (dir, _) = try repackedHistory(120)
        let listed = try objects(dir.path)
        let name = try #require(packIndex(dir.path))
        let base = dir.path + "/objects/pack/" + String(name.dropLast(4))
        let goodPack = try #require(FileManager.default.contents(atPath: base + ".pack")).map { $0 }
        let goodIndex = try #require(FileManager.default.contents(atPath: base + ".idx")).map { $0 }
        let original = PackReader(PackFiles(gitDirectory: dir.path + "/"))
        var expected: [ObjectID: [UInt8]] = [:]
        for object in listed { expected[object.id] = original.read(object.id)?.bytes }
        let scratch = TempDir()
        try FileManager.default.createDirectory(atPath: scratch.path + "/objects/pack", withIntermediateDirectories: true)
        var rng = SplitMix64(seed: PropertySeed.run)
        var answered = 0
        for round in 0..<150 {
            var pack = goodPack
            var index = goodIndex
            let damageIndex = rng.chance(30)
            func damage(_ bytes: inout [UInt8], from: Int) {
                switch rng.int(4) {
                case 0: bytes = Array(bytes.prefix(from + rng.int(bytes.count - from)))
                default:
                    for _ in 0..<(1 + rng.int(12)) { bytes[from + rng.int(bytes.count - from)] = UInt8(truncatingIfNeeded: rng.next()) }
                }
            }
            if damageIndex { damage(&index, from: 0) } else { damage(&pack, from: 12) }
            try Data(pack).write(to: URL(fileURLWithPath: scratch.path + "/objects/pack/pack-x.pack"))
            try Data(index).write(to: URL(fileURLWithPath: scratch.path + "/objects/pack/pack-x.idx"))
            let reader = PackReader(PackFiles(gitDirectory: scratch.path + "/"))
            for object in listed.shuffled(using: &rng).prefix(60) {
                _ = reader.size(object.id)
                guard let read = reader.read(object.id) else { continue }
                answered += 1
                // A damaged index may send an id to another object's entry; the pack's content
                // itself is only ever given whole (zlib's checksum).
                if !damageIndex, read.bytes != expected[object.id] {
                    Issue.record("round \(round): \(object.id) read differently from a damaged pack; \(PropertySeed.replay)")
                }
            }
        }
        // Most damage leaves most objects readable.
        #expect(answered > 0)
    }

    /// An empty bare repository.
    func emptyRepository() throws -> (TempDir, Repository) {
        let dir = TempDir()
        try git("init", "-q", "--bare", dir.path, in: dir.path)
        GitLibrary.start()
        return (dir, try Repository.open(path: dir.path))
    }

    /// `bytes` with one to `edits` random edits (a byte removed, one of `pieces` put in or put
    /// in place of one), 70 percent of them from `from` on.
    static func edited(_ bytes: [UInt8], edits: Int, pieces: [UInt8], from: Int = 0, rng: inout SplitMix64) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<(1 + rng.int(edits)) {
            let at = rng.chance(70) ? from + rng.int(bytes.count - from) : rng.int(bytes.count)
            switch rng.int(3) {
            case 0: bytes.remove(at: at)
            case 1: bytes.insert(rng.pick(pieces), at: at)
            default: bytes[at] = rng.pick(pieces)
            }
        }
        return bytes
    }

    /// Writes `bytes` as an object of `type` whatever they are (`git hash-object --literally`).
    static func write(_ bytes: [UInt8], type: String, in path: String) throws -> ObjectID {
        let file = path + "/object-\(UInt64.random(in: 0...UInt64.max))"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let written = try run(["git", "hash-object", "-t", type, "--literally", "-w", file], in: path)
        return try #require(ObjectID(hex: written.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// A commit as git writes it, and variants made by random edits; for each, the parser
    /// answers only when libgit2 takes the commit, and then as libgit2 reads it.
    @Test func theCommitParserTakesOnlyWhatLibgit2TakesAndReadsItTheSame() throws {
        let (dir, repo) = try emptyRepository()
        let tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
        let parent = "0123456789abcdef0123456789abcdef01234567"
        let canonical = Array(
            ("tree \(tree)\nparent \(parent)\nparent \(String(repeating: "1", count: 40))\n"
                + "author A U Thor <a@example.org> 1700000000 +0100\ncommitter C O Mitter <c@example.org> 1700000001 -0230\n\nmessage\n").utf8)
        let found = try #require(TreeChanges.treeAndFirstParent(canonical))
        #expect(found.tree.hex == tree && found.parent?.hex == parent)
        #expect(TreeChanges.treeAndFirstParent(Array("tree \(tree)\nauthor <a> 1\ncommitter <c>\n".utf8))?.parent == nil)
        // Signatures at the edges of what libgit2 takes: no time, no digits, too many, no e-mail.
        let signatures = [
            "A <a>", "A <a> 1", "A <a> 1 +0100", "A <a> 1x", "A <a>  1", "A <a> x", "A <a> ", "A <a>x", "A <a> +1", "A <a> -1",
            "A <a> 99999999999999999999 +0000", "A <a> 999999999999999999", "A a>", "A <a", "A >a<", "<a> 1", "", "A <a> 1 junk",
        ]
        var cases = signatures.map { Array("tree \(tree)\nauthor \($0)\ncommitter C <c> 1 +0000\n\nm".utf8) }
        cases += signatures.map { Array("tree \(tree)\nauthor A <a> 1 +0000\nauthor \($0)\ncommitter C <c> 1 +0000\n".utf8) }
        cases += signatures.map { Array("tree \(tree)\nparent \(parent)\nauthor A <a> 1 +0000\ncommitter \($0)\n".utf8) }
        cases += [
            "tree \(tree.uppercased())\nauthor A <a> 1\ncommitter C <c> 1\n", "tree \(tree.dropLast())\nauthor A <a> 1\ncommitter C <c> 1\n",
            "tree \(tree)\nparent \(parent.dropLast())\nauthor A <a> 1\ncommitter C <c> 1\n", "tree \(tree)\ncommitter C <c> 1\n",
            "tree \(tree)\nauthor A <a> 1\n", "tree \(tree)\nauthor A <a> 1\ncommitter C <c> 1", "parent \(parent)\ntree \(tree)\n",
        ].map { Array($0.utf8) }
        var rng = SplitMix64(seed: PropertySeed.run)
        let pieces = Array(" <>\n0123456789+-abcdefABCDEF".utf8) + [0, 0xFF]
        let signaturesStart = canonical.firstIndex(of: 0x61)!  // "author"
        // Mostly within the signatures, where the parser has most to decide.
        for _ in 0..<400 { cases.append(Self.edited(canonical, edits: 3, pieces: pieces, from: signaturesStart, rng: &rng)) }
        var taken = 0
        for (round, bytes) in cases.enumerated() {
            guard let ours = TreeChanges.treeAndFirstParent(bytes) else { continue }
            taken += 1
            let id = try Self.write(bytes, type: "commit", in: dir.path)
            do {
                let theirs = try repo.commitTreeAndFirstParent(id)
                #expect(theirs.tree == ours.tree && theirs.parent == ours.parent, "round \(round); \(PropertySeed.replay)")
            } catch {
                Issue.record("round \(round): parsed here, refused by libgit2 (\(error)): \(String(decoding: bytes, as: UTF8.self)); \(PropertySeed.replay)")
            }
        }
        #expect(taken > 10)
    }

    /// A tree's bytes and random edits of them: the parser answers only when libgit2 takes the
    /// tree, and then with libgit2's entries.
    @Test func theTreeParserTakesOnlyWhatLibgit2TakesAndReadsItTheSame() throws {
        let (dir, repo) = try emptyRepository()
        let id = { (n: UInt8) in [UInt8](repeating: n, count: 20) }
        let canonical =
            Array("100644 a.json".utf8) + [0] + id(1) + Array("40000 tasks".utf8) + [0] + id(2) + Array("100755 x".utf8) + [0] + id(3)
        let parsed = try #require(ParsedTree(canonical))
        #expect((0..<3).map { parsed.entry($0).name } == ["a.json", "tasks", "x"])
        #expect((0..<3).map { parsed.entry($0).mode } == [0o100644, 0o40000, 0o100755])
        #expect(parsed.entry(1).kind == .tree)
        var rng = SplitMix64(seed: PropertySeed.run ^ 0x7265)
        let pieces = Array(" 0123478a".utf8) + [0]
        var taken = 0
        for round in 0..<200 {
            let bytes = Self.edited(canonical, edits: 2, pieces: pieces, rng: &rng)
            guard let ours = ParsedTree(bytes) else { continue }
            taken += 1
            let tree = try Self.write(bytes, type: "tree", in: dir.path)
            do {
                let theirs = try repo.treeEntries(tree)
                let mine = ours.entries.indices.map { ours.entry($0) }
                #expect(theirs.map(\.name) == mine.map(\.name), "round \(round); \(PropertySeed.replay)")
                #expect(theirs.map(\.id) == mine.map(\.id) && theirs.map(\.mode) == mine.map(\.mode) && theirs.map(\.kind) == mine.map(\.kind))
            } catch {
                Issue.record("round \(round): parsed here, refused by libgit2 (\(error)); \(PropertySeed.replay)")
            }
        }
        #expect(taken > 10)
    }

    /// A new version of a tree is taken without parsing only when it differs from the old one
    /// inside ids alone; a name or mode changed in place, or a length, needs the parse.
    @Test func aTreeIsTakenUnparsedOnlyWhenOnlyIdsDiffer() throws {
        let id = { (n: UInt8) in [UInt8](repeating: n, count: 20) }
        func tree(_ entries: [(String, [UInt8])]) -> [UInt8] { entries.flatMap { Array($0.0.utf8) + [0] + $0.1 } }
        let old = try #require(ParsedTree(tree([("100644 a", id(1)), ("40000 bb", id(2)), ("100644 c", id(3))])))
        let same = try #require(ParsedTree.sameLayout(tree([("100644 a", id(1)), ("40000 bb", id(9)), ("100644 c", id(0x20))]), as: old))
        #expect(same.changed == [1, 2])
        #expect(same.tree.entry(2).id == ObjectID(raw: id(0x20)[...]))
        #expect(ParsedTree.sameLayout(old.bytes, as: old)?.changed == [])
        for other in [
            tree([("100644 a", id(1)), ("40000 bc", id(2)), ("100644 c", id(3))]),  // a name
            tree([("100755 a", id(1)), ("40000 bb", id(2)), ("100644 c", id(3))]),  // a mode
            tree([("100644 a", id(1)), ("40000 bb", id(2)), ("100644 cc", id(3))]),  // a length
        ] {
            #expect(ParsedTree.sameLayout(other, as: old) == nil)
        }
    }

    /// Read through the packs or through libgit2, a history's trees compare the same, commit
    /// by commit; and so do commits' trees and parents, and blobs' sizes.
    @Test func historyReadThroughThePacksComparesAsThroughLibgit2() throws {
        let (dir, repo) = try repackedHistory(200)
        let packs = PackFiles(gitDirectory: dir.path + "/")
        let direct = TreeChanges(repo, limit: 16, packs: packs)
        let through = TreeChanges(repo, limit: 16)
        let tip = try #require(try repo.resolve(reference: "refs/heads/main"))
        var commits = 0
        func describe(_ changes: [ChangedEntry]) -> [String] {
            changes.map { "\($0.entry.name) \($0.entry.id) \($0.entry.mode) \($0.old.map { "\($0.id) \($0.mode)" } ?? "-")" }
        }
        // What changed, by name, from libgit2's lists of entries.
        func expected(_ tree: ObjectID, since old: ObjectID?) throws -> [String] {
            let before = Dictionary(uniqueKeysWithValues: try old.map { try repo.treeEntries($0) }?.map { ($0.name, $0) } ?? [])
            return try repo.treeEntries(tree).compactMap { e in
                let o = before[e.name]
                if let o, o.id == e.id, o.mode == e.mode { return nil }
                return "\(e.name) \(e.id) \(e.mode) \(o.map { "\($0.id) \($0.mode)" } ?? "-")"
            }
        }
        var inPlace = 0
        try repo.walk(from: tip, sorted: false) { commit in
            commits += 1
            let a = try direct.commitTreeAndFirstParent(commit)
            let b = try repo.commitTreeAndFirstParent(commit)
            #expect(a.tree == b.tree && a.parent == b.parent)
            let old = try b.parent.map { try repo.commitTreeAndFirstParent($0).tree }
            #expect(describe(try direct.changed(a.tree, since: old)) == (try expected(a.tree, since: old)))
            #expect(describe(try through.changed(a.tree, since: old)) == (try expected(a.tree, since: old)))
            for entry in try repo.treeEntries(a.tree) where entry.kind == .tree {
                let oldEntry = try old.flatMap { try repo.treeEntries($0).first { $0.name == entry.name }?.id }
                #expect(describe(try direct.changed(entry.id, since: oldEntry)) == (try expected(entry.id, since: oldEntry)))
                #expect(describe(try through.changed(entry.id, since: oldEntry)) == (try expected(entry.id, since: oldEntry)))
                if let oldEntry, try repo.treeEntries(oldEntry).map(\.name) == repo.treeEntries(entry.id).map(\.name) { inPlace += 1 }
                for file in try repo.treeEntries(entry.id) where file.kind == .blob {
                    #expect(try direct.size(file.id) == (try repo.blobSize(file.id)))
                }
            }
            return true
        }
        #expect(commits == 200)
        // Most folders changed in place (the same names), which the comparison of halves is for.
        #expect(inPlace > 100)
    }
}
