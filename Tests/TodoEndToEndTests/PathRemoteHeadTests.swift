import Foundation
import Testing

/// A bare repository made with `git init --bare` (no `-b`) keeps HEAD at `refs/heads/master`, a
/// branch it never gets: the sync that pushes `main` to such a path remote points HEAD at `main`,
/// so that a plain `git clone` of it checks the household out. A HEAD that names a branch the
/// remote has is someone's choice and stays.
@Suite(.timeLimit(.minutes(10)), .kit) struct PathRemoteHeadTests {
    func git(_ sb: Sandbox, _ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let r = try sb.gitRun(args)
        try #require(r.exitCode == 0, "\(r)", sourceLocation: sourceLocation)
        return r
    }

    @Test func aSyncPointsAHeadNamingNoBranchAtMain() throws {
        let sb = try Sandbox()
        let remote = sb.root + "/family.git"
        try git(sb, "init", "-q", "--bare", remote)
        #expect(try git(sb, "--git-dir", remote, "symbolic-ref", "HEAD").stdout == "refs/heads/master\n")
        try sb.initHousehold()
        let milk = try sb.add("Buy milk")
        #expect(try sb.todo("remote", "set", remote).exitCode == 0)
        let sync = try sb.todo("sync")
        #expect(sync.exitCode == 0 && sync.stderr.isEmpty, "\(sync)")
        #expect(try git(sb, "--git-dir", remote, "symbolic-ref", "HEAD").stdout == "refs/heads/main\n")

        let copy = sb.root + "/copy"
        let clone = try git(sb, "clone", remote, copy)
        #expect(!clone.stderr.contains("warning"), "\(clone)")
        #expect(try git(sb, "-C", copy, "symbolic-ref", "HEAD").stdout == "refs/heads/main\n")
        #expect(try git(sb, "-C", copy, "rev-parse", "HEAD").stdout == (try sb.git("rev-parse", "main").stdout))
        #expect(FileManager.default.fileExists(atPath: copy + "/" + milk.path))
        #expect(try git(sb, "--git-dir", remote, "fsck", "--strict", "--no-progress").exitCode == 0)
    }

    @Test func aHeadNamingABranchTheRemoteHasIsLeftAlone() throws {
        let sb = try Sandbox()
        let remote = sb.root + "/family.git"
        try git(sb, "init", "-q", "--bare", "-b", "notes", remote)
        let work = sb.root + "/notes"
        try git(sb, "init", "-q", work)
        try git(sb, "-C", work, "-c", "user.name=Kim", "-c", "user.email=kim@example.org", "commit", "-q", "--allow-empty", "-m", "notes")
        try git(sb, "-C", work, "push", "-q", remote, "HEAD:refs/heads/notes")
        try sb.initHousehold()
        _ = try sb.add("Buy milk")
        #expect(try sb.todo("remote", "set", remote).exitCode == 0)
        let sync = try sb.todo("sync")
        #expect(sync.exitCode == 0 && sync.stderr.isEmpty, "\(sync)")
        #expect(try git(sb, "--git-dir", remote, "symbolic-ref", "HEAD").stdout == "refs/heads/notes\n")
        #expect(try git(sb, "--git-dir", remote, "rev-parse", "main").stdout == (try sb.git("rev-parse", "main").stdout))
    }
}
