import Foundation
import Testing

@testable import GitKit

/// Moving history between repositories on one machine (path remotes, bulk writes) with the
/// packs GitKit writes itself; the git CLI judges the result.
@Suite struct TransferTests {
    @Test func sha1MatchesTheStandardVectors() {
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let vectors: [([UInt8], String)] = [
            ([], "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            (Array("abc".utf8), "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8), "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
            (million, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        ]
        for (input, expected) in vectors {
            var whole = SHA1()
            whole.update(input)
            #expect(hex(whole.finish()) == expected)
            // The same bytes fed in uneven pieces, across block boundaries.
            var pieces = SHA1()
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

    @Test func copiedHistoryIsWholeAndOnlyWhatWasMissing() throws {
        let tmp = TempDir()
        let source = tmp.path + "/source"
        let destination = tmp.path + "/destination.git"
        try git("init", "-q", "-b", "main", source, in: tmp.path)
        try git("init", "-q", "--bare", destination, in: tmp.path)
        func commit(_ files: [String: String], _ message: String) throws {
            for (path, text) in files {
                let full = source + "/" + path
                try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: full))
            }
            try git("add", "-A", in: source)
            try git("-c", "user.name=T", "-c", "user.email=t@example.org", "commit", "-q", "-m", message, in: source)
        }
        // A big blob (several stored blocks), an empty one, nested folders, fifteen more small
        // files (so that the first copy is a pack, the second a few loose objects).
        let big = String(repeating: "0123456789abcdef", count: 10_000)
        var files = ["a/b/one.txt": "one\n", "empty": "", "big": big]
        for i in 0..<15 { files["f/\(i)"] = "file \(i)\n" }
        try commit(files, "first")
        let first = try git("rev-parse", "HEAD", in: source).trimmingCharacters(in: .whitespacesAndNewlines)
        try commit(["a/b/one.txt": "one, changed\n", "a/two.txt": "two\n"], "second")
        let second = try git("rev-parse", "HEAD", in: source).trimmingCharacters(in: .whitespacesAndNewlines)

        GitLibrary.start()
        let from = try Repository.open(path: source)
        let to = try Repository.open(path: destination)
        let firstID = try #require(ObjectID(hex: first))
        let secondID = try #require(ObjectID(hex: second))

        // Everything the first commit needs: commit, 4 trees, 18 blobs, as one pack.
        let initial = try from.objectsMissing(reaching: [firstID], from: [])
        #expect(initial.count == 23)
        try from.copy(initial, to: to)
        let packDir = destination + "/objects/pack"
        #expect(try FileManager.default.contentsOfDirectory(atPath: packDir).filter { $0.hasSuffix(".pack") }.count == 1)
        try to.updateReference("refs/heads/main", to: firstID, expected: nil, message: "test")
        #expect(try git("fsck", "--strict", "--no-dangling", in: destination).isEmpty)

        // Then only what the second commit adds: commit, root, a, a/b, two blobs, loose.
        let more = try from.objectsMissing(reaching: [secondID], from: [firstID])
        #expect(more.count == 6)
        try from.copy(more, to: to)
        #expect(try FileManager.default.contentsOfDirectory(atPath: packDir).filter { $0.hasSuffix(".pack") }.count == 1)
        #expect(try git("count-objects", in: destination).hasPrefix("6 objects"))
        try to.updateReference("refs/heads/main", to: secondID, expected: firstID, message: "test")
        #expect(try git("fsck", "--strict", "--no-dangling", in: destination).isEmpty)
        #expect(try git("cat-file", "-p", "main:big", in: destination) == big)
        #expect(try git("cat-file", "-p", "main:a/two.txt", in: destination) == "two\n")
        // A second copy of the same objects writes nothing: the destination has them all.
        let packs = try FileManager.default.contentsOfDirectory(atPath: packDir)
        try from.copy(initial + more, to: to)
        #expect(try FileManager.default.contentsOfDirectory(atPath: packDir) == packs)
        #expect(try git("count-objects", in: destination).hasPrefix("6 objects"))
        // A have the source does not know (rewritten history elsewhere) is ignored.
        let unknown = try #require(ObjectID(hex: String(repeating: "ab", count: 20)))
        #expect(try from.objectsMissing(reaching: [secondID], from: [unknown]).count == initial.count + more.count)
    }

    func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
