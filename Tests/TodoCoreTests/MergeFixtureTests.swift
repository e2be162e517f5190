import Foundation
import Testing

@testable import TodoCore

/// Runs every folder of `fixtures/merge/` both ways round (docs/MERGE.md, "Fixtures").
///
/// Set `TODO_FIXTURES_ACTUAL=<dir>` to have each case's merged bytes written to `<dir>/<case>.json`
/// for review when writing a new case.
@Suite(.timeLimit(.minutes(20)), .kit) struct MergeFixtureTests {
    /// One case for each row of the merge table; more may be added.
    static let requiredCases = [
        "different-fields", "same-field-different-values", "same-field-same-value", "tags-add-add-remove",
        "delete-vs-edit", "restore-after-delete", "complete-vs-rename", "slow-clock-after-seeing",
        "modify-delete", "add-add", "one-side-malformed", "both-malformed", "unknown-field-stamped",
        "chore-completions-both-members", "chore-completion-from-stale-replica", "chore-swap-vs-pass",
    ]

    @Test func everyRowHasACase() {
        let names = Set(MergeFixture.all().map(\.name))
        for name in Self.requiredCases { #expect(names.contains(name), "fixtures/merge/\(name) is missing") }
    }

    @Test(arguments: MergeFixture.all())
    func fixture(_ c: MergeFixture) throws {
        let path = "fixtures/merge/\(c.name)"
        #expect(c.readme != nil, "\(path)/README is missing")
        let forward = TaskMerge.merge(base: c.base, ours: c.ours, theirs: c.theirs, path: path)
        let backward = TaskMerge.merge(base: c.base, ours: c.theirs, theirs: c.ours, path: path)
        if let dir = ProcessInfo.processInfo.environment["TODO_FIXTURES_ACTUAL"], let bytes = forward.bytes {
            try Data(bytes).write(to: URL(fileURLWithPath: dir).appendingPathComponent("\(c.name).json"))
        }

        guard let expected = c.expected else {
            for outcome in [forward, backward] {
                guard case .failed(let failure) = outcome else {
                    Issue.record("\(path): expected the merge to fail")
                    continue
                }
                #expect(failure.path == path)
            }
            return
        }

        for (direction, outcome) in [("ours/theirs", forward), ("theirs/ours", backward)] {
            guard case .merged(let bytes, let entries, let warnings) = outcome else {
                Issue.record("\(path) (\(direction)): merge failed: \(outcome)")
                continue
            }
            #expect(
                bytes == expected,
                "\(path) (\(direction)) differs from expected.json:\n\(String(decoding: bytes, as: UTF8.self))")
            let stored = try TaskCodec.decode(bytes).conflicts.map { try ConflictEntry(json: $0) }
            for entry in entries {
                #expect(stored.contains(entry), "\(path): reported entry \(entry.id) is not in the file")
            }
            if c.ours == nil || c.theirs == nil || !decodes(c.ours) || !decodes(c.theirs) {
                #expect(warnings.contains { $0.path == path }, "\(path): no warning names the file")
            }
        }
        if case .merged(_, let e1, _) = forward, case .merged(_, let e2, _) = backward { #expect(e1 == e2) }

        // The expected file is canonical and a fixed point of the merge.
        let task = try TaskCodec.decode(expected)
        #expect(TaskCodec.encode(task) == expected, "\(path)/expected.json is not canonical")
        #expect(TaskMerge.merge(base: c.base, ours: expected, theirs: expected, path: path).bytes == expected)

        let described = try #require(c.expectedConflicts, "\(path)/expected-conflicts.json is missing")
        guard case .array(let wanted) = try JSONParser.parse(described) else {
            Issue.record("\(path)/expected-conflicts.json is not an array")
            return
        }
        #expect(task.conflicts.count == wanted.count, "\(path): \(task.conflicts.count) entries, expected \(wanted.count)")
        for (n, (want, got)) in zip(wanted, task.conflicts).enumerated() {
            try expectEntry(got, matches: want, "\(path) entry \(n)")
        }
    }

    func decodes(_ bytes: [UInt8]?) -> Bool {
        guard let bytes else { return false }
        return (try? TaskCodec.decode(bytes)) != nil
    }

    /// Every key given in the description must match the entry: "kept" and "lost" against the
    /// entry's kept and lost values, other keys against the entry's own members.
    func expectEntry(_ got: JSONValue, matches want: JSONValue, _ label: String) throws {
        guard case .object(let keys) = want else {
            Issue.record("\(label): description is not an object")
            return
        }
        let entry = try ConflictEntry(json: got)
        #expect(entry.id == ConflictEntry.contentID(kind: entry.kind, task: entry.task, field: entry.field, kept: entry.kept, lost: entry.lost))
        for (key, value) in keys {
            switch key {
            case "kept": #expect(entry.kept.value == value, "\(label): kept \(JSONWriter.compact(entry.kept.value))")
            case "lost": #expect(entry.lost.value == value, "\(label): lost \(JSONWriter.compact(entry.lost.value))")
            default: #expect(got[key] == value, "\(label): \(key) is \(got[key].map(JSONWriter.compact) ?? "absent")")
            }
        }
    }
}
