import Foundation
import Testing

/// Text from other people, files other tools wrote, edits made by hand, and debris that a
/// killed git process leaves behind.
@Suite(.timeLimit(.minutes(20)), .kit) struct RobustnessTests {
    /// Bytes that must never reach a terminal raw: ESC, BEL, the C1 CSI (U+009B) and the
    /// right-to-left override (U+202E), as UTF-8.
    static let unsafeSequences: [[UInt8]] = [[0x1B], [0x07], [0xC2, 0x9B], [0xE2, 0x80, 0xAE]]

    func expectNoRawControls(_ r: Run, sourceLocation: SourceLocation = #_sourceLocation) {
        for seq in Self.unsafeSequences {
            for stream in [r.stdoutBytes, r.stderrBytes] {
                let found = stream.indices.contains { i in i + seq.count <= stream.count && Array(stream[i..<(i + seq.count)]) == seq }
                #expect(!found, "raw \(seq) in output of \(r)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func controlCharactersAreShownEscaped() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let title = "\u{1B}[31mred\nline2\u{07}"
        let add = try sb.todo(
            "add", title, "--assign", "Eve\u{1B}[7m", "--note", "line1\n\u{1B}[2Jline2\u{9B}", "--json")
        #expect(add.exitCode == 0, "\(add)")
        expectNoRawControls(add)
        let id = try #require(try json(add.stdout)["id"]?.stringValue)
        #expect(try json(add.stdout)["title"] == .string(title), "--json keeps the text, JSON-escaped")
        let rtl = try sb.add("invoice \u{202E}fdp.exe")
        let short = String(id.prefix(4))

        let list = try sb.todo("list")
        expectNoRawControls(list)
        #expect(list.stdout.contains("\\x1b[31mred\\nline2\\x07"), "\(list)")
        #expect(list.stdout.contains("Eve\\x1b[7m"), "\(list)")
        #expect(list.stdout.contains("invoice \\u{202e}fdp.exe"), "\(list)")
        #expect(list.lines.count == 2, "a newline in a title never breaks a row: \(list)")

        let show = try sb.todo("show", short)
        expectNoRawControls(show)
        #expect(show.lines.first == "\(short)  \\x1b[31mred\\nline2\\x07", "\(show)")
        #expect(show.stdout.contains("Assignee: Eve\\x1b[7m\n"), "\(show)")
        #expect(show.stdout.contains("Notes:    line1\n          \\x1b[2Jline2\\x9b\n"), "\(show)")

        #expect(try sb.todo("edit", short, "--title", "\u{1B}[1mbold").exitCode == 0)
        for args in [["log"], ["log", short], ["log", "--json"], ["list", "--json"], ["show", "--json", short],
            ["show", rtl.short], ["rm", short]]
        {
            let r = try sb.todo(args)
            #expect(r.exitCode == 0, "\(r)")
            expectNoRawControls(r)
        }
        let log = try sb.todo("log")
        #expect(log.stdout.contains("add: \\x1b[31mred\\nline2\\x07 (\(short))"), "\(log)")
        #expect(try sb.todo("log", short).stdout.contains(#"title: "\u001b[31mred\nline2\u0007" -> "\u001b[1mbold""#))

        // Error messages quote what was typed, escaped.
        let missing = try sb.todo("show", "\u{1B}[31m")
        #expect(missing.exitCode == 66, "\(missing)")
        expectNoRawControls(missing)

        // The commit message and the file hold no raw control characters either.
        let message = try sb.git("log", "--format=%B")
        expectNoRawControls(message)
        #expect(message.stdout.contains("add: \\x1b[31mred\\nline2\\x07 (\(short))"))
        let file = try sb.committedBytes("tasks/\(id.prefix(2))/\(id).json")
        #expect(!file.contains(0x1B) && !file.contains(0x07))
        #expect(String(decoding: file, as: UTF8.self).contains(#""title": "\u001b[1mbold""#))
        try sb.expectClean()
    }

    @Test func malformedTaskFilesAreNamedAndTheRestStillWorks() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let good = try sb.add("Good task")
        let broken = "ab" + String(repeating: "1", count: 30)
        let huge = "cd" + String(repeating: "2", count: 30)
        let misnamed = "ef" + String(repeating: "3", count: 30)
        let other = "01" + String(repeating: "4", count: 30)
        let paths = (broken: "tasks/ab/\(broken).json", huge: "tasks/cd/\(huge).json", misnamed: "tasks/ef/\(misnamed).json")
        let hugeText = "{\"id\": \"\(huge)\", \"title\": \"big\", \"notes\": \"\(String(repeating: "x", count: 1_100_000))\"}\n"
        try sb.commitByHand(
            [
                (paths.broken, Array("{\"id\": \"\(broken)\", \"title\": ".utf8)),
                (paths.huge, Array(hugeText.utf8)),
                (paths.misnamed, Array("{\"id\": \"\(other)\", \"title\": \"Misfiled\"}\n".utf8)),
                ("tasks/README.md", Array("not a task\n".utf8)),
            ], message: "files from elsewhere")

        let list = try sb.todo("list")
        #expect(list.exitCode == 0, "\(list)")
        #expect(list.lines == ["\(good.short)  Good task"], "\(list)")
        let warnings = list.stderr.split(separator: "\n").map(String.init)
        #expect(warnings.count == 4, "\(list)")
        for (path, reason) in [
            (paths.broken, "not valid JSON"), (paths.huge, "file is larger than 1 MiB"),
            (paths.misnamed, "\"id\" does not match the file name"), ("tasks/README.md", "not a task file"),
        ] {
            #expect(
                warnings.filter { $0.hasPrefix("todo: warning: \(path) cannot be read (") && $0.contains(reason) }.count == 1,
                "\(path): \(list)")
        }
        // Read again (now through the list cache): the same answer.
        let again = try sb.todo("list")
        #expect(again.stdout == list.stdout && again.exitCode == 0)
        #expect(again.stderr.split(separator: "\n").sorted() == list.stderr.split(separator: "\n").sorted(), "\(again)")
        let listJSON = try sb.todo("list", "--json")
        let listed = try json(listJSON.stdout).items.count
        #expect(listJSON.exitCode == 0 && listed == 1, "\(listJSON)")

        for (prefix, path, reason) in [
            // Six characters, so the one good task's random id does not share a prefix (odds about 2e-7).
            ("ab1111", paths.broken, "not valid JSON"), ("cd2222", paths.huge, "file is larger than 1 MiB"),
            ("ef3333", paths.misnamed, "\"id\" does not match the file name"),
        ] {
            for args in [["show", prefix], ["done", prefix], ["show", "--json", prefix]] {
                let r = try sb.todo(args)
                #expect(r.exitCode == 65, "\(r)")
                #expect(r.stderr.contains("The task file \(path) is malformed ("), "\(r)")
                #expect(r.stderr.contains(reason), "\(r)")
                #expect(r.stderr.contains("Repair or remove it with git in the household repository."), "\(r)")
            }
        }

        // Writing other tasks, and the history, still work.
        #expect(try sb.todo("done", good.short).exitCode == 0)
        let added = try sb.todo("add", "Another task")
        #expect(added.exitCode == 0, "\(added)")
        #expect(try sb.todo("log").exitCode == 0)
        try sb.expectClean()
    }

    @Test func aRepairedOrStillBrokenFileIsWarnedAboutOnce() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        _ = try sb.add("Good task")
        let broken = "ab" + String(repeating: "1", count: 30)
        let path = "tasks/ab/\(broken).json"
        try sb.commitByHand([(path, Array("{ not json".utf8))], message: "broken")
        let first = try sb.todo("list")
        #expect(first.stderr.components(separatedBy: path).count - 1 == 1, "\(first)")

        // Broken differently: the cache is patched with the one changed file.
        try sb.commitByHand([(path, Array("[1, 2]\n".utf8))], message: "still broken")
        let second = try sb.todo("list")
        #expect(second.exitCode == 0, "\(second)")
        #expect(second.stderr.components(separatedBy: path).count - 1 == 1, "one warning per file: \(second)")
        #expect(second.stderr.contains("not a JSON object"), "\(second)")
        #expect(!second.stderr.contains("not valid JSON"), "the old reason is gone: \(second)")

        // Repaired: listed, and no warning left.
        try sb.commitByHand([(path, Array("{\"id\": \"\(broken)\", \"title\": \"Repaired\"}\n".utf8))], message: "fixed")
        let third = try sb.todo("list")
        #expect(third.stderr.isEmpty, "\(third)")
        #expect(third.lines.contains { $0.hasSuffix("Repaired") }, "\(third)")
    }

    @Test func aHandEditedFileIsNeverOverwrittenOrCommitted() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("Walk the dog")
        let b = try sb.add("Feed the cat")
        let full = sb.repo() + "/" + a.path
        let original = try #require(readBytes(full))
        let edited = Array(String(decoding: original, as: UTF8.self)
            .replacingOccurrences(of: "Walk the dog", with: "Walk the dog twice").utf8)
        try writeBytes(full, edited)
        let before = try sb.commits()

        for args in [["done", a.short], ["edit", a.short, "--title", "Walk"], ["rm", a.short, b.short]] {
            let r = try sb.todo(args)
            #expect(r.exitCode == 65, "\(r)")
            #expect(r.stderr.contains("Task files in \(sb.repo()) were changed by hand and not committed: \(a.path)."), "\(r)")
            #expect(r.stderr.contains("Commit them (git -C \(sb.repo()) commit -a)"), "\(r)")
            #expect(r.stderr.contains("or discard them (git -C \(sb.repo()) checkout -- .), then try again."), "\(r)")
        }
        #expect(try sb.commits() == before)
        #expect(readBytes(full) == edited, "the hand edit is left as it was")
        #expect(try sb.git("status", "--porcelain").stdout == " M \(a.path)\n")

        // Discarding the edit makes the household usable again.
        #expect(try sb.git("checkout", "--", ".").exitCode == 0)
        let done = try sb.todo("done", a.short)
        #expect(done.exitCode == 0, "\(done)")
        #expect(try sb.commits().count == before.count + 1)
        try sb.expectClean()
    }

    /// Only the files a command is about to write are checked for hand edits (so a write costs
    /// the same at any household size): other tasks can still be changed, the edited task cannot.
    @Test func handEditsBlockOnlyTheTasksTheyTouch() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("Walk the dog")
        let full = sb.repo() + "/" + a.path
        let edited = Array(String(decoding: try #require(readBytes(full)), as: UTF8.self)
            .replacingOccurrences(of: "Walk the dog", with: "Walk the dog twice").utf8)
        try writeBytes(full, edited)
        let before = try sb.commits()

        for args in [["done", a.short], ["edit", a.short, "--title", "Walk"], ["rm", a.short]] {
            let r = try sb.todo(args)
            #expect(r.exitCode == 65, "\(r)")
            #expect(r.stderr.contains("were changed by hand and not committed: \(a.path)"), "\(r)")
            let after = try sb.commits()
            #expect(after == before)
        }

        let other = try sb.todo("add", "Buy milk")
        #expect(other.exitCode == 0, "\(other)")
        #expect(try sb.commits().count == before.count + 1)
        // The hand edit is neither committed nor lost.
        #expect(readBytes(full) == edited)
        #expect(try sb.git("status", "--porcelain").stdout == " M \(a.path)\n")
        #expect(try sb.git("show", "--format=", "--name-only", "HEAD").stdout.contains(a.path) == false)

        #expect(try sb.git("checkout", "--", ".").exitCode == 0)
        #expect(try sb.todo("done", a.short).exitCode == 0)
        try sb.expectClean()

        // Other shapes of a hand edit: staged with git but not committed, staged and then undone
        // in the work tree only, an executable bit, a deleted file.
        let original = try #require(readBytes(full))
        let shapes: [(String, String)] = [
            ("staged", "printf ' ' >> \"$F\" && git -C \"$R\" add -- \"$P\""),
            ("staged then undone in the work tree",
             "cp \"$F\" \"$F.keep\" && printf ' ' >> \"$F\" && git -C \"$R\" add -- \"$P\" && mv \"$F.keep\" \"$F\""),
            ("made executable", "chmod +x \"$F\""),
            ("deleted", "rm \"$F\""),
        ]
        for (shape, script) in shapes {
            let edit = try sb.shell("F='\(full)' R='\(sb.repo())' P='\(a.path)'; \(script)").wait()
            try #require(edit.exitCode == 0, "\(edit)")
            let r = try sb.todo("reopen", a.short)
            #expect(r.exitCode == 65, "\(shape): \(r)")
            #expect(r.stderr.contains("were changed by hand and not committed: \(a.path)"), "\(shape): \(r)")
            #expect(try sb.commits().count == before.count + 2, "\(shape)")
            let reset = try sb.git("reset", "-q", "--hard")
            try #require(reset.exitCode == 0, "\(reset)")
            #expect(readBytes(full) == original)
        }
    }

    @Test func staleGitLockFilesDoNotWedgeTheHousehold() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("Walk the dog")
        let git = sb.repo() + "/.git/"
        let head = try sb.commits()[0]
        try writeBytes(git + "refs/heads/main.lock", Array("\(head)\n".utf8))
        try writeBytes(git + "index.lock", [])
        // They are real locks: git itself refuses to write while they are there.
        #expect(try sb.git("update-ref", "refs/heads/main", head).exitCode != 0)
        #expect(try sb.todo("list").exitCode == 0)

        let before = try sb.commits()
        let add = try sb.todo("add", "Feed the cat")
        #expect(add.exitCode == 0, "\(add)")
        let done = try sb.todo("done", a.short)
        #expect(done.exitCode == 0, "\(done)")
        #expect(try sb.commits().count == before.count + 2)
        #expect(!FileManager.default.fileExists(atPath: git + "refs/heads/main.lock"))
        #expect(!FileManager.default.fileExists(atPath: git + "index.lock"))
        try sb.expectClean()
    }

    @Test func anInterruptedChangeRecordIsRecoveredByTheNextCommand() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("Walk the dog")
        let full = sb.repo() + "/" + a.path
        try sb.leaveInterruptedChange(of: a)
        let add = try sb.todo("add", "Feed the cat")
        #expect(add.exitCode == 0, "\(add)")
        #expect(readBytes(full) == (try sb.committedBytes(a.path)))
        // The record is emptied once the change is complete (the file itself stays).
        #expect(readBytes(sb.repo() + "/.git/todo-pending") ?? [] == [])
        try sb.expectClean()
    }
}
