import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// The page's reads never write the household, as the CLI's (ReadOnlyTests): after every GET
/// route, signed in, every file of the repository and the work tree (refs, objects, index,
/// state files, task files) has the same content, mode and modification time, except the
/// caches docs/FORMAT.md lists (`RepositoryFiles`). A change the store refuses is worded from
/// its typed failure, with nothing written.
@Suite(.kit, .timeLimit(.minutes(5)), .serialized)
struct ServeReadOnlyTests {
    /// A household with a chore, a checklist and a merge driver whose program has gone (a
    /// read must not repair it), and a signed-in member's every GET.
    @Test func everyGetRouteLeavesTheHouseholdUntouched() async throws {
        let f = try ServeFixture()
        let choreID = try f.addChore("Bins", rotation: ["Ann", "Ben"])
        let listID = try f.addList("Shopping", items: ["milk", "eggs"], tags: ["shopping"])
        let stale = "'/gone/todo' merge-driver %O %A %B %P"
        _ = try f.git(["config", "merge.todo.driver", stale])
        let invite = try f.invite("Ben")
        let feed = try f.site.tokens.newFeed(member: "Ann", now: f.site.now()).text

        let gets = [
            "/static/app.css", "/i/\(invite)", "/feed/\(feed).ics", "/", "/tasks", "/tasks?which=all&tag=shopping&assignee=Ann&overdue=1",
            "/t/\(choreID)", "/t/\(listID)", "/add", "/lists", "/changes", "/sync", "/feed", "/phone", "/health",
        ]
        try expectEveryGetRoute(covered: gets)

        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            // Caches settle on the first round, and /changes records its first visit (in the
            // server's state folder, outside the repository); then nothing may move.
            for path in gets { _ = try await client.get(path, device) }
            for path in gets {
                let before = try RepositoryFiles(f.repo)
                let r = try await client.get(path, device)
                #expect(r.status == .ok, "\(path)")
                RepositoryFiles.expectSame(before, try RepositoryFiles(f.repo), "GET \(path)")
            }
            #expect(try f.git(["config", "merge.todo.driver"]) == stale + "\n", "a read leaves the driver as it is")

            // A change a killed command left half done: reads leave it; the next change finishes it.
            let plainID = try f.taskID(titled: "Ann's first chore")
            let taskPath = "tasks/\(plainID.prefix(2))/\(plainID).json"
            let committed = try f.git(["show", "main:" + taskPath])
            try Data("{\"half\": ".utf8).write(to: URL(fileURLWithPath: f.repo + "/" + taskPath))
            let pending = f.repo + "/.git/todo-pending"
            try Data((taskPath + "\n").utf8).write(to: URL(fileURLWithPath: pending))
            for path in gets {
                let before = try RepositoryFiles(f.repo)
                let r = try await client.get(path, device)
                #expect(r.status == .ok, "\(path) (change pending)")
                RepositoryFiles.expectSame(before, try RepositoryFiles(f.repo), "GET \(path) (change pending)")
            }
            let done = try await client.post("/t/\(choreID)/done", device, [("back", "/")])
            #expect(done.status == .seeOther)
            #expect(try String(contentsOfFile: f.repo + "/" + taskPath, encoding: .utf8) == committed, "the change finished the one left")
            #expect(try f.git(["config", "merge.todo.driver"]) != stale + "\n", "a change repairs the driver")
        }
    }

    /// Every `g.get("…")` route in Routes.swift has a path in `covered` (its `:name` parts
    /// standing for any one segment), so a new page cannot skip the test above.
    func expectEveryGetRoute(covered: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let source = try String(contentsOfFile: packageRoot + "/Sources/TodoServe/Routes.swift", encoding: .utf8)
        var routes: [String] = []
        for part in source.components(separatedBy: "g.get(\"").dropFirst() {
            routes.append(String(part.prefix { $0 != "\"" }))
        }
        #expect(routes.count >= 10, "\(routes)", sourceLocation: sourceLocation)
        let paths = covered.map { $0.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0] }
        for route in routes {
            let pattern = route.split(separator: "/", omittingEmptySubsequences: false)
            let hit = paths.contains { path in
                let parts = path.split(separator: "/", omittingEmptySubsequences: false)
                return parts.count == pattern.count && zip(parts, pattern).allSatisfy { $1.hasPrefix(":") ? !$0.isEmpty : $0 == $1 }
            }
            #expect(hit, "GET \(route) is not read by the test", sourceLocation: sourceLocation)
        }
    }

    /// The page does not check the store's rules again: the transaction refuses, and the page
    /// words its typed failure (`ServeWording.failure`) with nothing written.
    @Test func aChangeTheStoreRefusesIsWordedFromItsFailure() async throws {
        let f = try ServeFixture()
        let plainID = try f.taskID(titled: "Ann's first chore")
        let listID = try f.addList("Shopping", items: ["milk"])
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            let commits = try f.commitCount()
            let cases: [(String, Int, String)] = [
                ("/t/\(plainID)/skip", 409, "Not a chore"),
                ("/t/\(listID)/items/\(String(repeating: "0", count: 16))/check", 404, "No such item"),
                ("/t/\(String(repeating: "a", count: 32))/done", 404, "No such task"),
                ("/t/\(String(repeating: "a", count: 32))/items/\(String(repeating: "0", count: 16))/check", 404, "No such task"),
            ]
            for (path, status, title) in cases {
                let r = try await client.post(path, device, [("back", "/")])
                #expect(r.status.code == status, "\(path)")
                #expect(r.text.contains(title), "\(path): \(r.text)")
            }
            #expect(try f.commitCount() == commits)
        }
    }
}
