import Foundation
import GitFormats
import Testing

/// Git bundles (version 2): the headers git writes are read as git means them, the headers
/// written here are ones git takes, and damaged headers are refused by name, never a trap.
@Suite(.timeLimit(.minutes(2))) struct BundleFormatTests {
    func header(_ bytes: [UInt8]) throws(FormatError) -> BundleHeader {
        var result: Result<BundleHeader, FormatError> = .failure(.truncated(.bundle, at: 0, needed: 1))
        bytes.withUnsafeBytes { b in
            do throws(FormatError) { result = .success(try BundleHeader(b)) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    func refusal(_ bytes: [UInt8]) -> FormatError? {
        do throws(FormatError) {
            _ = try header(bytes)
            return nil
        } catch {
            return error
        }
    }

    func raw(_ hex: String) -> [UInt8] {
        let digits = Array(hex.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16) }
    }

    /// A repository with three commits on `main`.
    func repository() throws -> TempDir {
        let dir = TempDir()
        try git("init", "-q", "-b", "main", dir.path, in: "/")
        for n in 1...3 {
            FileManager.default.createFile(atPath: dir.path + "/f\(n)", contents: Data("content \(n)\n".utf8))
            try git("add", ".", in: dir.path)
            try git("commit", "-q", "-m", "commit \(n)", in: dir.path)
        }
        return dir
    }

    @Test func bundlesGitWritesAreRead() throws {
        let repo = try repository()
        try git("bundle", "create", "-q", repo.path + "/full.bundle", "main", in: repo.path)
        try git("bundle", "create", "-q", repo.path + "/more.bundle", "main", "^main~1", in: repo.path)
        let tip = raw(try git("rev-parse", "main", in: repo.path))
        let base = raw(try git("rev-parse", "main~1", in: repo.path))

        let full = Array(try Data(contentsOf: URL(fileURLWithPath: repo.path + "/full.bundle")))
        let h = try header(full)
        #expect(h.prerequisites.isEmpty)
        #expect(h.references == [BundleHeader.Reference(id: tip, name: "refs/heads/main")])
        #expect(Array(full[h.packOffset..<h.packOffset + 4]) == Array("PACK".utf8))
        #expect(h.encoded() == Array(full[..<h.packOffset]), "written as git writes it")

        // git names each prerequisite's commit after its id; the comment is passed over.
        let more = Array(try Data(contentsOf: URL(fileURLWithPath: repo.path + "/more.bundle")))
        let m = try header(more)
        #expect(m.prerequisites == [base])
        #expect(m.references.map(\.id) == [tip])
        #expect(String(decoding: more[..<m.packOffset], as: UTF8.self).contains("commit 2"), "git's line has its comment")
    }

    /// A header written here over git's own pack: `git bundle verify` takes it, a clone of
    /// the full one has the tip, and one with a prerequisite fetches into a clone that has it.
    @Test func bundlesWrittenHereAreGits() throws {
        let repo = try repository()
        try git("bundle", "create", "-q", repo.path + "/more.bundle", "main", "^main~1", in: repo.path)
        let tipHex = try git("rev-parse", "main", in: repo.path).trimmingCharacters(in: .whitespacesAndNewlines)
        let gits = Array(try Data(contentsOf: URL(fileURLWithPath: repo.path + "/more.bundle")))
        let read = try header(gits)
        let ours = BundleHeader(prerequisites: read.prerequisites, references: read.references, packOffset: 0).encoded() + gits[read.packOffset...]
        FileManager.default.createFile(atPath: repo.path + "/ours.bundle", contents: Data(ours))
        #expect(try run(["git", "bundle", "verify", "-q", repo.path + "/ours.bundle"], in: repo.path).status == 0)

        let clone = TempDir()
        try git("clone", "-q", "-b", "main", repo.path, clone.path + "/c", in: "/")
        try git("reset", "-q", "--hard", "main~1", in: clone.path + "/c")
        try git("fetch", "-q", repo.path + "/ours.bundle", "refs/heads/main:refs/heads/fetched", in: clone.path + "/c")
        #expect(try git("rev-parse", "fetched", in: clone.path + "/c").trimmingCharacters(in: .whitespacesAndNewlines) == tipHex)
        #expect(try run(["git", "fsck", "--strict"], in: clone.path + "/c").status == 0)
    }

    /// The fuzz target's seeds (bundles `git bundle create` wrote: whole, with a prerequisite,
    /// with two references) all read.
    @Test func theFuzzSeedsRead() throws {
        let folder = GitFormatsTests.corpus + "bundle"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("real-") }.sorted()
        #expect(names == ["real-full", "real-prerequisite", "real-two-references"])
        for name in names {
            let h = try header(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))))
            #expect(h.references.count == (name == "real-two-references" ? 2 : 1), "\(name)")
            #expect(h.prerequisites.count == (name == "real-full" ? 0 : 1), "\(name)")
        }
    }

    @Test func damagedHeadersAreRefusedByName() throws {
        let id = String(repeating: "ab", count: 20)
        let ok = "# v2 git bundle\n-\(id) a comment\n\(id) refs/heads/main\n\nPACK"
        #expect(refusal(Array(ok.utf8)) == nil)
        func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
        let cases: [(String, [UInt8], (FormatError) -> Bool)] = [
            ("empty", [], { if case .badSignature(.bundle, 0) = $0 { true } else { false } }),
            ("version 3", bytes("# v3 git bundle\n@object-format=sha1\n\n"), { $0 == .unsupportedVersion(.bundle, version: 3) }),
            ("no empty line", bytes("# v2 git bundle\n\(id) refs/heads/main\n"), { if case .truncated(.bundle, _, _) = $0 { true } else { false } }),
            ("no reference", bytes("# v2 git bundle\n-\(id)\n\nPACK"), { if case .invalid(.bundle, .badLine, _) = $0 { true } else { false } }),
            ("prerequisite after a reference", bytes("# v2 git bundle\n\(id) refs/heads/main\n-\(id)\n\nPACK"), {
                if case .invalid(.bundle, .misplacedLine, 73) = $0 { true } else { false }
            }),
            ("short id", bytes("# v2 git bundle\n\(id.dropLast()) refs/heads/main\n\nPACK"), { if case .invalid(.bundle, .badLine, 16) = $0 { true } else { false } }),
            ("not hex", bytes("# v2 git bundle\n-\(id.dropLast())g\n\(id) refs/heads/main\n\nPACK"), {
                if case .invalid(.bundle, .badLine, 16) = $0 { true } else { false }
            }),
            ("no pack", bytes("# v2 git bundle\n\(id) refs/heads/main\n\nKCAP"), { if case .badSignature(.pack, _) = $0 { true } else { false } }),
            ("line too long", bytes("# v2 git bundle\n\(id) refs/heads/" + String(repeating: "x", count: 5000) + "\n\nPACK"), {
                if case .invalid(.bundle, .tooLarge, 16) = $0 { true } else { false }
            }),
            ("too many lines", bytes("# v2 git bundle\n" + String(repeating: "-\(id)\n", count: BundleHeader.maxLines + 1) + "\(id) refs/heads/main\n\nPACK"), {
                if case .invalid(.bundle, .countTooLarge, _) = $0 { true } else { false }
            }),
        ]
        for (name, input, expected) in cases {
            let error = refusal(input)
            #expect(error.map(expected) == true, "\(name): \(String(describing: error))")
        }
        for bad in ["refs/heads/../x", "refs/heads/a.lock", "refs/heads/", "refs//main", "refs/heads/a b", "refs/heads/x@{1}", "main", "refs/heads/.hidden", "refs/heads/a:b"] {
            let error = refusal(bytes("# v2 git bundle\n\(id) \(bad)\n\nPACK"))
            #expect(error.map { if case .invalid(.bundle, .badName, 57) = $0 { true } else { false } } == true, "\(bad): \(String(describing: error))")
        }
        for good in ["HEAD", "refs/heads/main", "refs/tags/v1.0", "refs/heads/a-b_c/d"] {
            #expect(refusal(bytes("# v2 git bundle\n\(id) \(good)\n\nPACK")) == nil, "\(good)")
        }
        // Every cut of a whole header is refused (never read past its end), and so is every
        // single byte changed to a newline or a space in the lines.
        let whole = bytes(ok)
        for cut in 0..<whole.count - 4 {
            #expect(refusal(Array(whole[..<cut])) != nil, "cut at \(cut)")
        }
        for at in 16..<(whole.count - 6) {
            for replacement: UInt8 in [0x0A, 0x20, 0x00, 0xFF] where whole[at] != replacement {
                var changed = whole
                changed[at] = replacement
                _ = refusal(changed)  // either answer; only a trap would fail
            }
        }
    }
}
