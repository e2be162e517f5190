import Foundation
import Testing

@testable import GitKit

/// A work repository to copy from and an empty bare one to copy into.
final class TwoRepositories {
    let tmp = TempDir()
    let source: String
    let destination: String
    let from: Repository
    let to: Repository

    init() throws {
        source = tmp.path + "/source"
        destination = tmp.path + "/destination.git"
        try git("init", "-q", "-b", "main", source, in: tmp.path)
        try git("init", "-q", "--bare", destination, in: tmp.path)
        GitLibrary.start()
        from = try Repository.open(path: source)
        to = try Repository.open(path: destination)
    }

    /// Writes `files` in the source and commits them with git; returns the commit.
    func commit(_ files: [String: String], _ message: String) throws -> ObjectID {
        for (path, text) in files {
            let full = source + "/" + path
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: full))
        }
        try git("add", "-A", in: source)
        try git("-c", "user.name=T", "-c", "user.email=t@example.org", "commit", "-q", "-m", message, in: source)
        return try #require(ObjectID(hex: try git("rev-parse", "HEAD", in: source).trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    var packs: Int {
        get throws { try FileManager.default.contentsOfDirectory(atPath: destination + "/objects/pack").filter { $0.hasSuffix(".pack") }.count }
    }
}

/// Moving history between repositories on one machine (path remotes, bulk writes) with the
/// packs GitKit writes itself; the git CLI judges the result.
@Suite(.timeLimit(.minutes(20)), .kit) struct TransferTests {
    /// Loose objects written without fsync by GitKit itself (`synced: false`) are objects git
    /// reads back byte for byte: read-only files under objects/XX/, no temporary file left,
    /// and an object already there left as it was.
    @Test func looseObjectsWrittenWithoutFsyncAreGitsOwn() throws {
        let r = try TwoRepositories()
        let big = String(repeating: "a line of a task's notes, long enough to compress\n", count: 400)
        let first = try r.commit(["a.json": "{}\n", "dir/b.json": big, "empty": ""], "first")
        let objects = try r.from.objectsMissing(reaching: [first], from: [])
        try r.from.copy(objects, to: r.to, looseLimit: Int.max, synced: false)
        try r.to.updateReference("refs/heads/main", to: first, expected: nil, message: "test")
        #expect(try git("fsck", "--full", "--strict", "--no-dangling", in: r.destination).isEmpty)
        let loose = Repository.looseObjects(in: r.destination + "/objects")
        #expect(loose.count == objects.count && loose.count == 6)  // a commit, two trees, three blobs
        for id in objects {
            let type = try git("cat-file", "-t", id.hex, in: r.destination)
            #expect(try git("cat-file", type.trimmingCharacters(in: .whitespacesAndNewlines), id.hex, in: r.destination)
                == (try git("cat-file", type.trimmingCharacters(in: .whitespacesAndNewlines), id.hex, in: r.source)))
            let path = r.destination + "/objects/\(id.hex.prefix(2))/\(id.hex.dropFirst(2))"
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode == 0o444, "\(path) has mode \(String(mode, radix: 8))")
        }
        let folders = try FileManager.default.contentsOfDirectory(atPath: r.destination + "/objects")
        for folder in folders where folder.count == 2 {
            let names = try FileManager.default.contentsOfDirectory(atPath: r.destination + "/objects/" + folder)
            #expect(!names.contains { $0.hasPrefix("tmp_") }, "\(folder): \(names)")
        }
        #expect(try git("count-objects", "-v", in: r.destination).contains("garbage: 0"))
        // Again: every object is there already, and stays as it was.
        let before = try FileManager.default.attributesOfItem(atPath: r.destination + "/objects/\(first.hex.prefix(2))/\(first.hex.dropFirst(2))")
        try r.from.copy(objects, to: r.to, looseLimit: Int.max, synced: false)
        let after = try FileManager.default.attributesOfItem(atPath: r.destination + "/objects/\(first.hex.prefix(2))/\(first.hex.dropFirst(2))")
        #expect(before[.systemFileNumber] as? Int == after[.systemFileNumber] as? Int)
    }

    @Test func sha1MatchesTheStandardVectors() {
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let vectors: [([UInt8], String)] = [
            ([], "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            (Array("abc".utf8), "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8), "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
            (million, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        ]
        for (input, expected) in vectors {
            let whole = SHA1()
            whole.update(input)
            #expect(hex(whole.finish()) == expected)
            // The same bytes fed in uneven pieces, across block boundaries.
            let pieces = SHA1()
            var offset = 0
            var step = 1
            while offset < input.count {
                let end = min(input.count, offset + step)
                pieces.update(Array(input[offset..<end]))
                offset = end
                step = step * 3 % 97 + 1
            }
            #expect(hex(pieces.finish()) == expected)
        }
    }

    /// GitKit's SHA-1 names objects as git does: blobs of sizes around the 64-byte block (their
    /// header included) get the ids `git hash-object` gives, and `removeDamagedLooseObjects`,
    /// which hashes each loose file it reads back, keeps them all and removes only the one whose
    /// file holds another object.
    @Test func sha1NamesObjectsAsGitHashObjectDoes() throws {
        let r = try TwoRepositories()
        var ids: [ObjectID] = []
        for size in [0, 1, 47, 55, 56, 57, 63, 64, 65, 119, 120, 1_000, 100_003] {
            let content = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ size) }
            let file = r.tmp.path + "/blob-\(size)"
            try Data(content).write(to: URL(fileURLWithPath: file))
            let hexID = try git("hash-object", "-w", "--no-filters", file, in: r.source).trimmingCharacters(in: .whitespacesAndNewlines)
            let sha = SHA1()
            sha.update(Array("blob \(size)\0".utf8))
            sha.update(content)
            #expect(hex(sha.finish()) == hexID, "a blob of \(size) bytes")
            ids.append(try #require(ObjectID(hex: hexID)))
        }
        #expect(try r.from.removeDamagedLooseObjects(ids) == 0)
        #expect(try git("count-objects", in: r.source).hasPrefix("\(ids.count) objects"))

        // The file of one object replaced by another's: whole zlib, the wrong content.
        func loose(_ id: ObjectID) -> String { "\(r.source)/.git/objects/\(id.hex.prefix(2))/\(id.hex.dropFirst(2))" }
        try FileManager.default.removeItem(atPath: loose(ids[4]))
        try FileManager.default.copyItem(atPath: loose(ids[5]), toPath: loose(ids[4]))
        #expect(try r.from.removeDamagedLooseObjects(ids) == 1)
        #expect(!FileManager.default.fileExists(atPath: loose(ids[4])))
        #expect(FileManager.default.fileExists(atPath: loose(ids[5])))
    }

    @Test func copiedHistoryIsWholeAndOnlyWhatWasMissing() throws {
        let r = try TwoRepositories()
        // A big blob (several stored blocks), an empty one, nested folders, fifteen more small
        // files (so that the first copy is a pack, the second a few loose objects).
        let big = String(repeating: "0123456789abcdef", count: 10_000)
        var files = ["a/b/one.txt": "one\n", "empty": "", "big": big]
        for i in 0..<15 { files["f/\(i)"] = "file \(i)\n" }
        let first = try r.commit(files, "first")
        let second = try r.commit(["a/b/one.txt": "one, changed\n", "a/two.txt": "two\n"], "second")

        // Everything the first commit needs: commit, 4 trees, 18 blobs, as one pack.
        let initial = try r.from.objectsMissing(reaching: [first], from: [])
        #expect(initial.count == 23)
        try r.from.copy(initial, to: r.to)
        #expect(try r.packs == 1)
        try r.to.updateReference("refs/heads/main", to: first, expected: nil, message: "test")
        #expect(try git("fsck", "--strict", "--no-dangling", in: r.destination).isEmpty)

        // Then only what the second commit adds: commit, root, a, a/b, two blobs, loose.
        let more = try r.from.objectsMissing(reaching: [second], from: [first])
        #expect(more.count == 6)
        try r.from.copy(more, to: r.to)
        #expect(try r.packs == 1)
        #expect(try git("count-objects", in: r.destination).hasPrefix("6 objects"))
        try r.to.updateReference("refs/heads/main", to: second, expected: first, message: "test")
        #expect(try git("fsck", "--strict", "--no-dangling", in: r.destination).isEmpty)
        #expect(try git("cat-file", "-p", "main:big", in: r.destination) == big)
        #expect(try git("cat-file", "-p", "main:a/two.txt", in: r.destination) == "two\n")
        // A second copy of the same objects writes nothing: the destination has them all.
        try r.from.copy(initial + more, to: r.to)
        #expect(try r.packs == 1)
        #expect(try git("count-objects", in: r.destination).hasPrefix("6 objects"))
        // A have the source does not know (rewritten history elsewhere) is ignored.
        let unknown = try #require(ObjectID(hex: String(repeating: "ab", count: 20)))
        #expect(try r.from.objectsMissing(reaching: [second], from: [unknown]).count == initial.count + more.count)
    }

    /// Many packs become two (the largest and one new one), and every object is still there,
    /// whether a ref reaches it or not.
    @Test func consolidatingPacksKeepsEveryObject() throws {
        let r = try TwoRepositories()
        var commits: [ObjectID] = []
        // Six commits of twenty new files each: six packs of 20-odd objects.
        for round in 0..<6 {
            var files: [String: String] = [:]
            for i in 0..<20 { files["r\(round)/\(i)"] = "round \(round) file \(i)\n" }
            let commit = try r.commit(files, "round \(round)")
            try r.from.copy(try r.from.objectsMissing(reaching: [commit], from: commits.suffix(1)), to: r.to)
            commits.append(commit)
        }
        // Only the first four rounds are referenced: the last two stay unreachable.
        try r.to.updateReference("refs/heads/main", to: commits[3], expected: nil, message: "test")
        #expect(try r.packs == 6)
        #expect(try r.to.consolidatePacks(above: 6) == 0)
        #expect(try r.to.consolidatePacks(above: 3) == 5)
        #expect(try r.packs == 2)
        #expect(try git("fsck", "--strict", "--no-dangling", in: r.destination).isEmpty)
        for (n, commit) in commits.enumerated() {
            let listing = try git("ls-tree", "-r", commit.hex, in: r.destination)
            #expect(listing.split(separator: "\n").count == 20 * (n + 1))
        }
        #expect(try git("cat-file", "-p", "\(commits[5].hex):r5/7", in: r.destination) == "round 5 file 7\n")
    }

    func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
