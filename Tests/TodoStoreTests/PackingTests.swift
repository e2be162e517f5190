import Foundation
import Testing

@testable import GitKit

/// `Repository.packEverything` on a bare repository like a path remote: what it keeps, what it
/// removes, and what it leaves to others (docs/FORMAT.md, "Housekeeping").
@Suite(.timeLimit(.minutes(5))) struct PackingTests {
    /// Six pushes' packs become one with deltas; objects no reference reaches, which were in
    /// those packs, are kept; a pack that appears while the run works is left alone.
    @Test func onePackHoldsEverythingAndNewPacksAreLeftAlone() throws {
        let r = try TwoRepositories()
        var commits: [ObjectID] = []
        for round in 0..<6 {
            var files: [String: String] = [:]
            for i in 0..<20 { files["r\(round)/\(i)"] = "round \(round) file \(i), with some text to compress\n" }
            let commit = try r.commit(files, "round \(round)")
            try r.from.copy(try r.from.objectsMissing(reaching: [commit], from: commits.suffix(1)), to: r.to)
            commits.append(commit)
        }
        // The last two rounds are not referenced (a push killed before its ref moved).
        try r.to.updateReference("refs/heads/main", to: commits[3], expected: nil, message: "test")
        #expect(try r.packs == 6)

        var arrived: String?
        let outcome = try r.to.packEverything(removingTemporariesOlderThan: 0) { point in
            guard point == "packed" else { return }
            // Someone else's push lands now: a pack of objects the new pack also holds.
            let ids = (try? git("rev-list", "--objects", commits[1].hex, in: r.destination)) ?? ""
            arrived = try? run(["git", "pack-objects", "-q", r.destination + "/objects/pack/pack"], in: r.destination, input: ids).stdout
        }
        let newcomer = try #require(arrived?.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(outcome.packsRemoved == 6)
        #expect(outcome.objectsPacked == 6 * 23)  // a commit, two trees and twenty blobs each
        let names = try FileManager.default.contentsOfDirectory(atPath: r.destination + "/objects/pack")
        #expect(names.contains("pack-\(newcomer).pack") && names.contains("pack-\(newcomer).idx"), "\(names)")
        #expect(try r.packs == 2)
        #expect(try git("fsck", "--full", "--strict", "--no-dangling", in: r.destination).isEmpty)
        for (n, commit) in commits.enumerated() {
            let listing = try git("ls-tree", "-r", commit.hex, in: r.destination)
            #expect(listing.split(separator: "\n").count == 20 * (n + 1))
        }
        // Deltas: git lists chains for the objects stored as deltas.
        let ours = try #require(outcome.packName)
        #expect(try git("verify-pack", "-v", "objects/pack/\(ours).idx", in: r.destination).contains("chain length = 1:"))
    }

    /// Loose objects go once the new pack holds them; those it does not hold (nothing refers to
    /// them) are handed back, untouched.
    @Test func looseObjectsGoOnlyIntoThePack() throws {
        let r = try TwoRepositories()
        let first = try r.commit(["a": "one\n", "b": "two\n"], "first")
        try r.from.copy(try r.from.objectsMissing(reaching: [first], from: []), to: r.to)
        try r.to.updateReference("refs/heads/main", to: first, expected: nil, message: "test")
        let stray = try run(["git", "hash-object", "-w", "--stdin"], in: r.destination, input: "nobody refers to this\n").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Repository.looseObjects(in: r.destination + "/objects").count == 5)

        let outcome = try r.to.packEverything(removingTemporariesOlderThan: 0)
        #expect(outcome.objectsPacked == 4 && outcome.looseRemoved == 4)
        #expect(outcome.unreachable.map(\.id.hex) == [stray])
        #expect(outcome.references != nil)
        #expect(Repository.looseObjects(in: r.destination + "/objects").map(\.id.hex) == [stray])
        #expect(try git("fsck", "--full", "--strict", "--no-dangling", in: r.destination).isEmpty)
    }

    /// A bulk copy's pack (objects whole, `PackWriter`) is told apart from one with deltas,
    /// whoever wrote it: `packEverything` and `git pack-objects` compress every object.
    @Test func packsWrittenWholeAreRecognised() throws {
        let r = try TwoRepositories()
        var files: [String: String] = [:]
        for i in 0..<40 { files["t/\(i)"] = "task \(i), with the same long text as its neighbours to delta against\n" }
        let commit = try r.commit(files, "forty files")
        try r.from.copy(try r.from.objectsMissing(reaching: [commit], from: []), to: r.to)
        try r.to.updateReference("refs/heads/main", to: commit, expected: nil, message: "test")
        let objects = r.destination + "/objects"
        let whole = Repository.packNames(in: objects)
        #expect(whole.count == 1)
        #expect(whole.allSatisfy { Repository.isWrittenWhole(pack: objects + "/pack/" + $0 + ".pack") })
        #expect(Repository.packsWrittenWhole(in: objects, largerThan: 0) == whole)
        #expect(Repository.packsWrittenWhole(in: objects, largerThan: 1 << 20).isEmpty)
        // Kept (a `.keep` beside it): housekeeping leaves it, so it does not count.
        FileManager.default.createFile(atPath: objects + "/pack/" + whole[0] + ".keep", contents: Data())
        #expect(Repository.packsWrittenWhole(in: objects, largerThan: 0).isEmpty)
        try FileManager.default.removeItem(atPath: objects + "/pack/" + whole[0] + ".keep")

        let outcome = try r.to.packEverything(removingTemporariesOlderThan: 0)
        let ours = try #require(outcome.packName)
        #expect(Repository.packNames(in: objects) == [ours])
        #expect(!Repository.isWrittenWhole(pack: objects + "/pack/" + ours + ".pack"))
        let ids = try git("rev-list", "--objects", commit.hex, in: r.destination)
        let theirs = try run(["git", "pack-objects", "-q", objects + "/pack/pack"], in: r.destination, input: ids).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!Repository.isWrittenWhole(pack: objects + "/pack/pack-" + theirs + ".pack"))
        #expect(Repository.packsWrittenWhole(in: objects, largerThan: 0).isEmpty)
        #expect(try git("fsck", "--full", "--strict", "--no-dangling", in: r.destination).isEmpty)
    }
}

/// Where a geometric repack splits the packs (docs/FORMAT.md, "Geometric packing").
@Suite(.timeLimit(.minutes(1))) struct GeometricSplitTests {
    typealias Pack = GeometricSplit.Pack

    @Test func aProgressionIsKeptAndOnlyTheLooseObjectsAreRolledUp() {
        let split = GeometricSplit(packs: [Pack(name: "a", objects: 100), Pack(name: "b", objects: 1_000), Pack(name: "c", objects: 10_000)], looseObjects: 40)
        #expect(split.rolled.isEmpty && split.kept == ["a", "b", "c"])
        #expect(GeometricSplit.isProgression([10_000, 100, 1_000]))
    }

    @Test func packsOfAlikeSizeAreRolledUpBelowTheProgression() {
        let split = GeometricSplit(
            packs: [Pack(name: "big", objects: 50_000), Pack(name: "x", objects: 500), Pack(name: "y", objects: 400), Pack(name: "z", objects: 450)],
            looseObjects: 0)
        #expect(split.rolled == ["y", "z", "x"] && split.kept == ["big"])
        #expect(!GeometricSplit.isProgression([50_000, 500, 400, 450]))
    }

    @Test func aKeptPackSmallerThanTwiceWhatIsRolledUpIsRolledUpToo() {
        let split = GeometricSplit(packs: [Pack(name: "s", objects: 1_000), Pack(name: "l", objects: 100_000)], looseObjects: 600)
        #expect(split.rolled == ["s"] && split.kept == ["l"])
        let everything = GeometricSplit(packs: [Pack(name: "s", objects: 1_000), Pack(name: "l", objects: 3_000)], looseObjects: 1_000)
        #expect(everything.kept.isEmpty && everything.rolled == ["s", "l"])
    }

    @Test func aPackWrittenWholeIsAlwaysRolledUp() {
        let split = GeometricSplit(
            packs: [Pack(name: "import", objects: 1_000, writtenWhole: true), Pack(name: "old", objects: 20_000)], looseObjects: 0)
        #expect(split.rolled == ["import"] && split.kept == ["old"])
        // A large one takes everything with it: a full repack.
        let large = GeometricSplit(
            packs: [Pack(name: "import", objects: 90_000, writtenWhole: true), Pack(name: "old", objects: 20_000)], looseObjects: 0)
        #expect(large.kept.isEmpty && large.rolled == ["old", "import"])
        #expect(GeometricSplit(packs: [], looseObjects: 10).kept.isEmpty)
    }
}
