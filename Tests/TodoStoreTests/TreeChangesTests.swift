import Foundation
import Testing

@testable import GitKit

/// `TreeChanges`, which the check of received commits reads trees through: every entry whose
/// id or mode differs from the older tree's entry of that name, or that the older tree lacks,
/// is returned (with that older entry); the others are not.
@Suite(.timeLimit(.minutes(5))) struct TreeChangesTests {
    @Test func everyEntryThatDiffersIsReturnedWithItsOlderEntry() throws {
        GitLibrary.start()
        let dir = TempDir()
        try git("init", "-q", "--bare", dir.path, in: dir.path)
        func blob(_ text: String) throws -> String {
            try run(["git", "hash-object", "-w", "--stdin"], in: dir.path, input: text).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func tree(_ lines: [String]) throws -> ObjectID {
            let hex = try run(["git", "mktree"], in: dir.path, input: lines.joined(separator: "\n") + "\n").stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return try #require(ObjectID(hex: hex))
        }
        let one = try blob("one\n"), two = try blob("two\n"), three = try blob("three\n")
        let inner = try tree(["100644 blob \(one)\tx"])
        let inner2 = try tree(["100644 blob \(two)\tx"])
        let old = try tree([
            "100644 blob \(one)\ta", "100644 blob \(one)\tb", "040000 tree \(inner)\td", "100644 blob \(one)\te",
            "100644 blob \(one)\tgone",
        ])
        let new = try tree([
            "100644 blob \(one)\ta", "100644 blob \(two)\tb", "100644 blob \(three)\tc", "040000 tree \(inner2)\td",
            "100755 blob \(one)\te", "040000 tree \(inner)\tf",
        ])
        let repo = try Repository.open(path: dir.path)
        let changes = TreeChanges(repo, limit: 3)
        let changed = try changes.changed(new, since: old)
        #expect(changed.map(\.entry.name) == ["b", "c", "d", "e", "f"])
        #expect(changed.map { $0.old?.id.hex } == [one, nil, inner.hex, one, nil])
        #expect(changed.first { $0.entry.name == "e" }?.entry.mode == 0o100755)
        #expect(changed.first { $0.entry.name == "d" }?.old?.kind == .tree)
        // Against nothing, every entry; against itself, none; the small limit makes it forget
        // trees in between, which changes nothing.
        #expect(try changes.changed(new, since: nil).map(\.entry.name) == ["a", "b", "c", "d", "e", "f"])
        #expect(try changes.changed(new, since: new).isEmpty)
        #expect(try changes.changed(inner2, since: inner).map(\.entry.id.hex) == [two])
        #expect(try changes.changed(old, since: new).map(\.entry.name) == ["b", "d", "e", "gone"])
    }
}

