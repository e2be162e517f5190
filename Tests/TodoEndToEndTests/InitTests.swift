import Foundation
import Testing

/// `todo init`, `todo households`, and how commands treat a household that is missing,
/// badly named or cannot be written.
@Suite(.timeLimit(.minutes(20)), .kit) struct InitTests {
    @Test func initTakesTheIdentityFromFlags() throws {
        let sb = try Sandbox()
        let r = try sb.todo("init", "--name", "Alice", "--email", "alice@example.org")
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stdout == "Created household \"home\" in \(sb.repo()) for Alice <alice@example.org>.\n")
        #expect(r.stderr.isEmpty)

        // One commit on main holding only .gitattributes, authored by the member.
        #expect(try sb.git("symbolic-ref", "HEAD").stdout == "refs/heads/main\n")
        #expect(try sb.commits().count == 1)
        #expect(try sb.subject() == "init: household home")
        #expect(try sb.author() == "Alice <alice@example.org>")
        #expect(try sb.git("log", "-1", "--format=%cn <%ce>").stdout == "Alice <alice@example.org>\n")
        #expect(try sb.git("ls-tree", "-r", "--name-only", "HEAD").stdout == ".gitattributes\n")
        #expect(try sb.committedBytes(".gitattributes") == Array("tasks/**/*.json merge=todo\n".utf8))

        // The clone's identity and replica id live in .git/config.
        #expect(try sb.git("config", "--local", "user.name").stdout == "Alice\n")
        #expect(try sb.git("config", "--local", "user.email").stdout == "alice@example.org\n")
        let replica = try sb.git("config", "--local", "todo.replica").stdout.trimmingCharacters(in: .newlines)
        #expect(replica.count == 16 && replica.allSatisfy { $0.isHexDigit && !$0.isUppercase }, "replica \(replica)")
        try sb.expectClean()
    }

    @Test func initTakesTheIdentityFromGitConfig() throws {
        let sb = try Sandbox()
        try writeBytes(sb.home + "/.gitconfig", Array("[user]\n\tname = Bob Builder\n\temail = bob@example.org\n".utf8))
        let r = try sb.todo("init")
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stdout.hasSuffix(" for Bob Builder <bob@example.org>.\n"), "\(r)")
        #expect(try sb.author() == "Bob Builder <bob@example.org>")

        // Flags win over git's config.
        let cabin = try sb.todo("init", "-H", "cabin", "--name", "Carol")
        #expect(cabin.exitCode == 0, "\(cabin)")
        #expect(try sb.author(household: "cabin") == "Carol <bob@example.org>")
    }

    @Test func aSecondInitFailsAndChangesNothing() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let before = try sb.commits()
        let again = try sb.todo("init", "--name", "Mallory", "--email", "m@example.org")
        #expect(again.exitCode == 73, "\(again)")
        #expect(again.stderr.contains("Household \"home\" already exists at \(sb.repo())"), "\(again)")
        #expect(again.stdout.isEmpty)
        #expect(try sb.commits() == before)
        #expect(try sb.git("config", "--local", "user.name").stdout == "Alice\n")
        try sb.expectClean()
    }

    @Test func householdsListsRepositoriesAndMarksTheCurrentOne() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        try sb.initHousehold("cabin")
        // Neither a plain directory nor a file is a household.
        try FileManager.default.createDirectory(atPath: sb.todoHome + "/notes", withIntermediateDirectories: true)
        try writeBytes(sb.todoHome + "/README", Array("x\n".utf8))

        let r = try sb.todo("households")
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stdout == "  cabin\n* home\n")
        let other = try sb.todo("households", env: ["TODO_HOUSEHOLD": "cabin"])
        #expect(other.stdout == "* cabin\n  home\n")

        // TODO_HOUSEHOLD selects the household; --household wins over it.
        #expect(try sb.todo("add", "Stack wood", env: ["TODO_HOUSEHOLD": "cabin"]).exitCode == 0)
        #expect(try sb.subject(household: "cabin").hasPrefix("add: Stack wood ("))
        #expect(try sb.commits("home").count == 1)
        #expect(try sb.todo("add", "-H", "home", "Buy milk", env: ["TODO_HOUSEHOLD": "cabin"]).exitCode == 0)
        #expect(try sb.subject(household: "home").hasPrefix("add: Buy milk ("))
        #expect(try sb.commits("cabin").count == 2)
    }

    @Test func householdsWithNoHomeDirectoryPrintsNothing() throws {
        let sb = try Sandbox()
        let r = try sb.todo("households")
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stdout.isEmpty)
    }

    @Test func anUnknownHouseholdSaysToRunInit() throws {
        let sb = try Sandbox()
        let list = try sb.todo("list")
        #expect(list.exitCode == 66, "\(list)")
        #expect(list.stderr.contains("There is no household \"home\" in \(sb.todoHome)"), "\(list)")
        #expect(list.stderr.contains("Run `todo init` to create it."), "\(list)")

        try sb.initHousehold()
        let add = try sb.todo("add", "-H", "cabin", "Stack wood")
        #expect(add.exitCode == 66, "\(add)")
        #expect(add.stderr.contains("Run `todo init --household cabin` to create it."), "\(add)")
        #expect(!FileManager.default.fileExists(atPath: sb.repo("cabin")))
        for command in [["show", "abcd"], ["done", "abcd"], ["log"], ["import", "-"]] {
            let r = try sb.todo(command + ["-H", "cabin"], stdin: "[]")
            #expect(r.exitCode == 66, "\(r)")
        }
    }

    @Test(arguments: ["../escape", ".hidden", "a b", "with/slash", String(repeating: "x", count: 65), "ümlaut"])
    func anInvalidHouseholdNameIsAUsageError(_ name: String) throws {
        let sb = try Sandbox()
        for command in [["init", "--name", "A", "--email", "a@example.org"], ["list"], ["add", "Buy milk"]] {
            let r = try sb.todo(command + ["--household", name])
            #expect(r.exitCode == 64, "\(r)")
            #expect(r.stderr.contains("is not a valid household name"), "\(r)")
        }
        #expect(!FileManager.default.fileExists(atPath: sb.todoHome))
    }

    @Test func anUnwritableTodoHomeExits73AndSaysWhy() throws {
        // Tests may run as root, for whom permissions do not stop a write: put TODO_HOME under a
        // regular file instead, which fails for everyone with "Not a directory".
        let sb = try Sandbox()
        try writeBytes(sb.root + "/file", Array("not a directory\n".utf8))
        sb.todoHome = sb.root + "/file/todo"
        let r = try sb.todo("init", "--name", "Alice", "--email", "alice@example.org")
        #expect(r.exitCode == 73, "\(r)")
        #expect(r.stderr.contains("Cannot write to \(sb.root)/file/todo (Not a directory)"), "\(r)")
        #expect(r.stderr.contains("(Not a directory). Nothing was changed.\nCheck its permissions, or set TODO_HOME to a writable directory."), "\(r)")
        #expect(r.stdout.isEmpty)
    }
}
