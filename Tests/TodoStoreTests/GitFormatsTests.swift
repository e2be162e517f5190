import Foundation
import GitFormats
import Testing

/// GitFormats' decoders refuse damaged bytes with the named `FormatError` that says what was
/// wrong and where, never a trap; the seed corpus of the fuzz targets (Tests/Fuzz/corpus), made
/// from real objects, decodes; inputs the fuzzers found are kept here as regressions.
@Suite(.timeLimit(.minutes(2))) struct GitFormatsTests {
    /// `body` over `bytes`' buffer.
    func over<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(FormatError) -> T) throws(FormatError) -> T {
        var result: Result<T, FormatError>?
        bytes.withUnsafeBytes { b in
            do throws(FormatError) { result = .success(try body(b)) } catch { result = .failure(error) }
        }
        return try result!.get()
    }

    func error<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(FormatError) -> T) -> FormatError? {
        do throws(FormatError) {
            _ = try over(bytes, body)
            return nil
        } catch {
            return error
        }
    }

    static var corpus: String { URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path + "/Fuzz/corpus/" }

    /// The seeds of `target`'s corpus made from real objects (`real-…`; the others are inputs
    /// the fuzzers kept, valid or not), without their prefix.
    func seeds(_ target: String) throws -> [(name: String, bytes: [UInt8])] {
        let folder = Self.corpus + target
        return try FileManager.default.contentsOfDirectory(atPath: folder).sorted().filter { $0.hasPrefix("real-") }.map {
            (String($0.dropFirst(5)), Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0))))
        }
    }

    // MARK: The byte reader

    @Test func theReaderNeverReadsPastItsEnd() throws {
        let bytes: [UInt8] = [1, 2, 3, 4, 5]
        bytes.withUnsafeBytes { b in
            var reader = ByteReader(b, end: 4, part: .index)
            #expect(reader.uint32(at: 0) == 0x0102_0304)
            #expect(reader.uint32(at: 1) == nil && reader.byte(at: 4) == nil && reader.byte(at: -1) == nil)
            #expect(reader.slice(at: 2, count: Int.max) == nil && reader.slice(at: Int.max, count: 1) == nil)
            #expect(throws: FormatError.truncated(.index, at: 0, needed: 4)) { try reader.readUInt64() }
            #expect((try? reader.readUInt16()) == 0x0102)
            #expect(throws: FormatError.truncated(.index, at: 2, needed: 1)) { try reader.readBytes(3) }
            #expect(throws: FormatError.self) { try reader.skip(-1) }
            #expect(reader.clampedSlice(3..<100).count == 1 && reader.clampedSlice(-5 ..< -1).isEmpty)
        }
    }

    // MARK: Pack index and entries

    @Test func packIndexesAreCheckedWhenRead() throws {
        let good = try #require(try seeds("idx").first { $0.name == "repack.idx" }).bytes
        let index = try over(good) { b throws(FormatError) in try PackIndex(b, packSize: 1 << 20).count }
        #expect(index > 0)
        var signature = good
        signature[1] = 0
        #expect(error(signature) { b throws(FormatError) in try PackIndex(b, packSize: 1 << 20) } == .badSignature(.packIndex, at: 0))
        var version = good
        version[7] = 3
        #expect(error(version) { b throws(FormatError) in try PackIndex(b, packSize: 1 << 20) } == .unsupportedVersion(.packIndex, version: 3))
        var falling = good
        falling[8 + 4 * 10 + 3] = 0xFF  // fan-out entry 10 above entry 11
        #expect(error(falling) { b throws(FormatError) in try PackIndex(b, packSize: 1 << 20) } == .invalid(.packIndex, .fanOutDecreases, at: 8 + 4 * 11))
        #expect(error(Array(good.prefix(1000))) { b throws(FormatError) in try PackIndex(b, packSize: 1 << 20) } == .truncated(.packIndex, at: 1000, needed: 72))
        // Every offset of an index for a pack too small for them is refused, not read.
        #expect(error(good) { b throws(FormatError) in try PackIndex(b, packSize: 40).offset(at: 0) } == .invalid(.packIndex, .outOfRange, at: 1032 + 24 * index))
    }

    @Test func packEntriesAndDeltasAreRefusedByName() throws {
        let pack: [UInt8] = Array("PACK".utf8) + [0, 0, 0, 2, 0, 0, 0, 1] + [0x95, 0x80, 0x80, 0x80, 0x01] + [UInt8](repeating: 0, count: 20)
        #expect(error(pack) { b throws(FormatError) in try PackEntryHeader(pack: b, at: 12, maxSize: 1 << 20) } == .invalid(.packEntry, .tooLarge, at: 12))
        let longSize: [UInt8] = Array(pack.prefix(12)) + [0x95] + [UInt8](repeating: 0x80, count: 7) + [0x01] + [UInt8](repeating: 0, count: 20)
        #expect(error(longSize) { b throws(FormatError) in try PackEntryHeader(pack: b, at: 12, maxSize: 1 << 20) } == .invalid(.packEntry, .numberTooLong, at: 20))
        #expect(error(Array(pack.prefix(13) + [UInt8](repeating: 0, count: 20))) { b throws(FormatError) in try PackEntryHeader(pack: b, at: 12, maxSize: 1 << 20) } == .truncated(.packEntry, at: 13, needed: 1))
        let type5: [UInt8] = Array(pack.prefix(12)) + [0x53] + [UInt8](repeating: 0, count: 20)
        #expect(error(type5) { b throws(FormatError) in try PackEntryHeader(pack: b, at: 12, maxSize: 1 << 20) } == .invalid(.packEntry, .unknownType, at: 12))
        let farBase: [UInt8] = Array(pack.prefix(12)) + [0x63, 0x20] + [UInt8](repeating: 0, count: 20)
        #expect(error(farBase) { b throws(FormatError) in try PackEntryHeader(pack: b, at: 12, maxSize: 1 << 20) } == .invalid(.packEntry, .outOfRange, at: 13))
        #expect(error(pack) { b throws(FormatError) in try PackEntryHeader(pack: b, at: pack.count - 20, maxSize: 1 << 20) } == .invalid(.packEntry, .outOfRange, at: pack.count - 20))

        let base = Array("hello, world".utf8)
        func apply(_ delta: [UInt8]) -> FormatError? {
            do throws(FormatError) {
                _ = try Delta.apply(delta, to: base, maxSize: 1 << 20)
                return nil
            } catch { return error }
        }
        #expect(try Delta.apply([12, 5, 0x91, 7, 5], to: base, maxSize: 100) == Array("world".utf8))
        #expect(apply([11, 5, 0x91, 7, 5]) == .invalid(.delta, .baseSizeMismatch, at: 0))
        #expect(apply([12, 5, 0x91, 9, 5]) == .invalid(.delta, .copyOutsideBase, at: 2))
        #expect(apply([12, 4, 0x91, 7, 5]) == .invalid(.delta, .resultSizeMismatch, at: 2))
        #expect(apply([12, 6, 0x91, 7, 5]) == .invalid(.delta, .resultSizeMismatch, at: 5))
        #expect(apply([12, 5, 0x00]) == .invalid(.delta, .reservedOpcode, at: 2))
        #expect(apply([12, 5, 0x05, 0x61]) == .truncated(.delta, at: 3, needed: 4))
        #expect(apply([12, 5, 0x91]) == .truncated(.delta, at: 3, needed: 1))
        #expect(apply([12] + [UInt8](repeating: 0xFF, count: 9) + [1]) == .invalid(.delta, .numberTooLong, at: 10))
        #expect(apply([12, 0xFF, 0xFF, 0xFF, 0x7F]) == .invalid(.delta, .tooLarge, at: 1))
    }

    // MARK: Trees, commits, loose objects

    @Test func treesCommitsAndLooseHeadersAreRefusedByName() throws {
        for (name, tree) in try seeds("tree") { #expect(!(try TreeFormat.entries(tree)).isEmpty, "\(name)") }
        let id = [UInt8](repeating: 7, count: 20)
        #expect(try TreeFormat.entries(Array("100644 a".utf8) + [0] + id).first == TreeFormat.Entry(mode: 0o100644, start: 0, name: 7, length: 1))
        func tree(_ bytes: [UInt8]) -> FormatError? {
            do throws(FormatError) { _ = try TreeFormat.entries(bytes); return nil } catch { return error }
        }
        #expect(tree(Array("100644 a".utf8) + [0] + id.prefix(19)) == .truncated(.tree, at: 9, needed: 1))
        #expect(tree(Array("1006448 a".utf8) + [0] + id) == .invalid(.tree, .badMode, at: 0))
        #expect(tree(Array("100644 ".utf8) + [0] + id) == .invalid(.tree, .badName, at: 7))
        #expect(tree(Array("100644 abc".utf8)) == .truncated(.tree, at: 7, needed: 1))

        for (name, commit) in try seeds("commit") { #expect((try? CommitHeader(commit)) != nil, "\(name)") }
        func commit(_ text: String) -> FormatError? {
            do throws(FormatError) { _ = try CommitHeader(Array(text.utf8)); return nil } catch { return error }
        }
        let treeLine = "tree " + String(repeating: "ab", count: 20) + "\n"
        #expect(try CommitHeader(Array((treeLine + "author A <a> 1\ncommitter C <c> 42 +0000\n").utf8)).time == 42)
        #expect(commit("tree 12\n") == .invalid(.commit, .badLine, at: 0))
        #expect(commit(treeLine + "author A a 1\n") == .invalid(.commit, .badSignatureLine, at: 46))
        #expect(commit(treeLine + "author A <a> 1\ncommitter C <c> x\n") == .invalid(.commit, .badSignatureLine, at: 77))
        #expect(commit(treeLine + "author A <a> 1\ncommitter C <c> 1") == .truncated(.commit, at: 61, needed: 1))
        #expect(commit(treeLine + "committer C <c> 1\n") == .invalid(.commit, .badLine, at: 46))

        for (name, loose) in try seeds("loose") {
            let header = try loose.withUnsafeBytes { try LooseHeader($0) }
            #expect(header.size == loose.count - header.contentStart, "\(name)")
        }
        func loose(_ text: String) -> FormatError? {
            error(Array(text.utf8)) { b throws(FormatError) in try LooseHeader(b) }
        }
        #expect(loose("blob 12\u{0}") == nil)
        #expect(loose("blobs 1\u{0}") == .invalid(.looseHeader, .unknownType, at: 0))
        #expect(loose("blob 1x\u{0}") == .invalid(.looseHeader, .badSize, at: 6))
        #expect(loose("blob 01\u{0}") == .invalid(.looseHeader, .badSize, at: 5))
        #expect(loose("blob 12") == .truncated(.looseHeader, at: 7, needed: 1))
        #expect(loose("tag " + String(repeating: "9", count: 30) + "\u{0}") == .invalid(.looseHeader, .badSize, at: 22))
    }

    // MARK: The index

    @Test func indexFilesAreRefusedByName() throws {
        let seeds = try seeds("index")
        for (name, file) in seeds where name != "split-link" {
            let count = try over(file) { b throws(FormatError) in try IndexBytes(bytes: b, owner: nil, checksum: nil).count }
            #expect(count > 0, "\(name)")
        }
        let whole = try #require(seeds.first { $0.name == "whole-v2" }).bytes
        func read(_ bytes: [UInt8]) -> FormatError? {
            error(bytes) { b throws(FormatError) in try IndexBytes(bytes: b, owner: nil, checksum: nil) }
        }
        var version = whole
        version[7] = 4
        #expect(read(version) == .unsupportedVersion(.index, version: 4))
        var signature = whole
        signature[0] = 0x64
        #expect(read(signature) == .badSignature(.index, at: 0))
        var many = whole
        many[8] = 0x7F
        #expect(read(many) == .invalid(.index, .countTooLarge, at: 8))
        var extended = whole
        extended[12 + 60] |= 0x40  // the first entry's extended flag, in a version 2 file
        #expect(read(extended) == .invalid(.indexEntry, .badFlags, at: 12 + 60))
        // Three entries announced, the third cut short.
        let cut = Array(whole.prefix(8)) + [0, 0, 0, 3] + Array(whole[12..<200]) + [UInt8](repeating: 0, count: 20)
        #expect(read(cut) == .truncated(.indexEntry, at: 172, needed: 62))
        // A checksum that does not match.
        let bad = error(whole) { b throws(FormatError) in
            try IndexBytes(bytes: b, owner: nil, checksum: { _ in [UInt8](repeating: 0, count: 20) })
        }
        #expect(bad == .invalid(.index, .badChecksum, at: whole.count - 20))
    }

    // MARK: The pack writer

    /// A pack `PackWriter` makes (objects whole: an empty blob, a small one, one of 200,000
    /// bytes, more than one stored block) is one git indexes and finds every object in (by the
    /// id `git hash-object` gives its bytes); its trailer is the SHA-1 `sha1sum` gives.
    @Test func packsTheWriterMakesAreGits() throws {
        final class CollectingHash: StreamHash {
            var all: [UInt8] = []
            func update(_ bytes: [UInt8]) { all += bytes }
            func finish() -> [UInt8] {
                let dir = TempDir()
                FileManager.default.createFile(atPath: dir.path + "/all", contents: Data(all))
                let hex = (try? run(["sha1sum", dir.path + "/all"]).stdout.prefix(40)).map(String.init) ?? ""  // a failure shows as git refusing the pack
                return stride(from: 0, to: hex.count, by: 2).compactMap { UInt8(hex.dropFirst($0).prefix(2), radix: 16) }
            }
        }
        let blobs: [[UInt8]] = [[], Array("small\n".utf8), (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }]
        var pack: [UInt8] = []
        var writer = PackWriter(count: blobs.count, hash: CollectingHash()) { pack += $0 }
        for blob in blobs { try blob.withUnsafeBufferPointer { try writer.append(type: 3, $0) } }
        try writer.finish()
        let dir = TempDir()
        try git("init", "-q", dir.path, in: "/")
        let packPath = dir.path + "/.git/objects/pack/pack-written.pack"
        FileManager.default.createFile(atPath: packPath, contents: Data(pack))
        try git("index-pack", packPath, in: dir.path)
        for blob in blobs {
            FileManager.default.createFile(atPath: dir.path + "/blob", contents: Data(blob))
            let id = try git("hash-object", "blob", in: dir.path).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try git("cat-file", "-s", id, in: dir.path).trimmingCharacters(in: .whitespacesAndNewlines) == "\(blob.count)")
        }
        #expect(try run(["git", "fsck", "--strict"], in: dir.path).status == 0)
    }

    // MARK: Inputs the fuzzers found

    /// A split index is refused as one when its `link` is found, nothing of the link decoded:
    /// one git wrote (`git update-index --split-index`), and two whose `link` bitmaps asked
    /// for billions of positions (Tests/Fuzz/regressions: a run of ones 2^32 words long made
    /// an earlier decoder allocate 32 GB, a shorter one took seconds).
    @Test func splitIndexesAreRefusedWithoutDecodingTheirLink() throws {
        let folder = Self.corpus + "../regressions/"
        let split = try #require(try Self.splitIndexFromGit())
        let linkAt = try #require((0..<split.count - 4).first { Array(split[$0..<$0 + 4]) == Array("link".utf8) })
        #expect(error(split) { b throws(FormatError) in try IndexBytes(bytes: b, owner: nil, checksum: nil) } == .invalid(.indexExtension, .splitIndex, at: linkAt))
        for name in ["index-link-run-of-ones", "index-link-long-run"] {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: folder + name)))
            let refused = error(bytes) { b throws(FormatError) in try IndexBytes(bytes: b, owner: nil, checksum: nil) }
            guard case .invalid(.indexExtension, .splitIndex, _)? = refused else {
                Issue.record("\(name): \(String(describing: refused))")
                continue
            }
        }
    }

    /// The index of a repository of three files that git split.
    static func splitIndexFromGit() throws -> [UInt8]? {
        let dir = TempDir()
        try git("init", "-q", dir.path, in: "/")
        for name in ["a", "b", "c"] { try Data(name.utf8).write(to: URL(fileURLWithPath: dir.path + "/" + name)) }
        try git("add", ".", in: dir.path)
        try git("update-index", "--split-index", in: dir.path)
        return FileManager.default.contents(atPath: dir.path + "/.git/index").map(Array.init)
    }

    /// Tests/Fuzz/regressions/commit-time-of-many-digits: an author line whose time has
    /// hundreds of digits overflowed the time as it was added up (a trap); a time of more
    /// than 18 digits is refused before its next digit is added.
    @Test func aCommitTimeOfManyDigitsIsRefusedNotOverflowed() throws {
        let folder = Self.corpus + "../regressions/"
        let input = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "commit-time-of-many-digits")))
        #expect(error(input) { b throws(FormatError) in try CommitHeader(b) } == .invalid(.commit, .badSignatureLine, at: 56))
        let treeLine = "tree " + String(repeating: "ab", count: 20) + "\n"
        let eighteen = String(repeating: "9", count: 18)
        #expect(try CommitHeader(Array((treeLine + "author A <a> 1\ncommitter C <c> \(eighteen)\n").utf8)).time == Int64(eighteen))
        #expect(error(Array((treeLine + "author A <a> 1\ncommitter C <c> \(eighteen)9\n").utf8)) { b throws(FormatError) in try CommitHeader(b) } == .invalid(.commit, .badSignatureLine, at: 77))
    }
}
