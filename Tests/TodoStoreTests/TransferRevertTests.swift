import Foundation
import Testing

@testable import GitKit

/// A commit that brings back an earlier tree (a revert, or `todo doctor --fix` restoring a
/// file) must not hide what the earlier commit with that tree added.
@Suite(.timeLimit(.minutes(20))) struct TransferRevertTests {
    @Test func aRevertedTreeStillCarriesWhatItsFirstCommitAdded() throws {
        let r = try TwoRepositories()
        let first = try r.commit(["a/one.txt": "one\n"], "first")
        // Not yet copied: adds b/x.txt, then changes a/one.txt, then changes it back, so the
        // fourth commit's tree is the second's.
        let second = try r.commit(["b/x.txt": "x\n"], "second")
        _ = try r.commit(["a/one.txt": "broken\n"], "third")
        let fourth = try r.commit(["a/one.txt": "one\n"], "fourth")
        #expect(try r.from.commit(fourth).tree == r.from.commit(second).tree)

        try r.from.copy(try r.from.objectsMissing(reaching: [first], from: []), to: r.to)
        try r.to.updateReference("refs/heads/main", to: first, expected: nil, message: "test")
        try r.from.copy(try r.from.objectsMissing(reaching: [fourth], from: [first]), to: r.to)
        try r.to.updateReference("refs/heads/main", to: fourth, expected: first, message: "test")
        #expect(try git("fsck", "--strict", "--no-dangling", in: r.destination).isEmpty)
        #expect(try git("cat-file", "-p", "main:b/x.txt", in: r.destination) == "x\n")
    }
}
