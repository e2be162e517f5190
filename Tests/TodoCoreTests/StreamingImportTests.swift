import TestKit
import Testing

@testable import TodoCore

/// An import file is read one task at a time (`TaskImport.collect`), yet refuses what reading
/// it whole refused, with the same words: the task at fault by its number, and a syntax error
/// anywhere before any task's fault.
@Suite(.timeLimit(.minutes(5)), .kit) struct StreamingImportTests {
    /// `count` tasks as a JSON array (pretty, one per line) or one object per line, with
    /// `bad` (0-based) given a priority no task may have.
    func document(_ count: Int, bad: Int?, lines: Bool = false) -> [UInt8] {
        let objects = (0..<count).map { i in
            i == bad ? #"{"title": "Task \#(i)", "priority": "urgent"}"# : #"{"title": "Task \#(i)", "tags": ["t\#(i % 5)"]}"#
        }
        let text = lines ? objects.joined(separator: "\n") + "\n" : "[\n" + objects.joined(separator: ",\n") + "\n]\n"
        return Array(text.utf8)
    }

    @Test func aLargeArrayIsReadWhole() throws {
        let batch = try TaskImport.parseBatch(document(5_000, bad: nil))
        #expect(batch.tasks.count == 5_000)
        #expect(batch.tasks.last?.title == "Task 4999" && batch.tasks.last?.tags == ["t4"])
        #expect(try TaskImport.parse(document(5_000, bad: nil, lines: true)).map(\.title) == batch.tasks.map(\.title))
    }

    @Test(arguments: [false, true]) func aBadTaskFarIntoTheFileIsNamed(lines: Bool) {
        #expect(throws: ImportError(index: 4_321, .notAPriority(field: "priority"))) {
            try TaskImport.parseBatch(document(5_000, bad: 4_321, lines: lines))
        }
        #expect(throws: ImportError(index: 4_321, .notAPriority(field: "priority"))) {
            try TaskImport.parse(document(5_000, bad: 4_321, lines: lines))
        }
    }

    /// Only the first task at fault is named, however many follow.
    @Test func theFirstBadTaskIsNamed() {
        var objects = (0..<3_000).map { #"{"title": "Task \#($0)"}"# }
        objects[1_000] = #"{"title": " "}"#
        objects[2_000] = "7"
        #expect(throws: ImportError(index: 1_000, .emptyTitle)) {
            try TaskImport.parseBatch(Array(("[" + objects.joined(separator: ",") + "]").utf8))
        }
    }

    /// A syntax error at the end of a file outweighs a bad task before it, as when the file was
    /// parsed whole before any task was read: the array is then read as one object per line,
    /// whose first line (`[`) is not JSON.
    @Test func aSyntaxErrorAfterABadTaskIsReportedAsNotJSON() throws {
        var truncated = document(5_000, bad: 10)
        truncated.removeLast(3)
        let error = try #require(throws: ImportError.self) { try TaskImport.parseBatch(truncated) }
        #expect(error.index == nil)
        guard case .notJSON(let line, _) = error.problem else {
            Issue.record("\(error)")
            return
        }
        #expect(line == 1)
    }

    /// One object per line: the first line that is not JSON is named, even after a bad task.
    @Test func aBrokenLineAfterABadTaskIsNamed() throws {
        var text = String(decoding: document(3_000, bad: 5, lines: true), as: UTF8.self)
        text += "{\"title\": \n"
        let error = try #require(throws: ImportError.self) { try TaskImport.parseBatch(Array(text.utf8)) }
        guard case .notJSON(let line, _) = error.problem else {
            Issue.record("\(error)")
            return
        }
        #expect(line == 3_001 && error.index == nil)
    }

    /// A recurring instance is folded into its template wherever it stands in the file.
    @Test func anInstanceBeforeItsTemplateIsFolded() throws {
        let text = #"""
            {"uuid": "11111111-2222-4333-8444-555555555555", "description": "Water", "status": "completed", "parent": "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", "due": "20251110T000000Z"}
            {"uuid": "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", "description": "Water", "status": "recurring", "recur": "weekly", "due": "20251103T000000Z"}
            """#
        let batch = try TaskImport.parseBatch(Array(text.utf8))
        #expect(batch.tasks.count == 1)
        #expect(batch.tasks.first?.occurrences.count == 1)
    }
}
