import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import WordingSamples

@testable import TodoServe
@testable import TodoStore

/// No page names a `todo` command, a flag, a manual section or a path of the server
/// (docs/ARCHITECTURE.md, "Words"; docs/SERVE.md, "Shared wording"): every error page, every
/// refused form, the sync page after every kind of failure, and every notice, rendered through
/// the routes in process.
@Suite(.kit, .timeLimit(.minutes(5)), .serialized)
struct PageWordingTests {
    /// The paths of this machine a page must not show: the test's folder holds the household,
    /// the state folder and every path in the samples.
    static func expectNeutral(_ html: String, _ what: String, _ f: ServeFixture, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = FrontEndText.visibleText(html: html)
        let problems = FrontEndText.problems(in: text, localPaths: [f.tmp.path, f.home])
        #expect(problems.isEmpty, "\(what): \(problems)\n\(text)", sourceLocation: sourceLocation)
    }

    @Test func everyStoreFailurePageSaysWhatTheMemberCanDo() throws {
        let f = try ServeFixture()
        let errors = WordingSamples.storeErrors(local: f.tmp.path)
        #expect(Set(errors.map(WordingSamples.name)).count == WordingSamples.storeErrorCases)
        for error in errors {
            let (status, title, text) = ServeWording.failure(error)
            Self.expectNeutral(Pages.errorHTML(f.site, PageError(status: status, title: title, text: text)), WordingSamples.name(error), f)
        }
        for status in [400, 401, 403, 404, 405, 413, 414, 421, 422, 429, 431, 500, 503, 507] {
            Self.expectNeutral(Pages.errorHTML(f.site, PageError(status: status)), "status \(status)", f)
        }
    }

    @Test func everyRefusedFormSaysWhyInWordsForThePage() async throws {
        let f = try ServeFixture()
        let id = try f.taskID(titled: "Ann's first chore")
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            let forms: [(String, [(String, String)])] = [
                ("empty title", [("title", "  ")]),
                ("long title", [("title", String(repeating: "x", count: FieldRules.maxTitle + 1))]),
                ("bad date", [("title", "Milk"), ("due", "frydai")]),
                ("long assignee", [("title", "Milk"), ("assignee", String(repeating: "x", count: FieldRules.maxName + 1))]),
                ("long tag", [("title", "Milk"), ("tags", String(repeating: "x", count: FieldRules.maxTag + 1))]),
            ]
            for (i, (what, fields)) in forms.enumerated() {
                let form = String(repeating: String(i), count: 32)
                let r = try await client.post("/add", device, fields + [("form", form)])
                #expect(r.status == .unprocessableContent, "\(what)")
                #expect(r.text.contains("class=\"error\""), "\(what) is refused beside its field")
                Self.expectNeutral(r.text, what, f)
            }
            for (what, text) in [("empty item", " "), ("long item", String(repeating: "y", count: FieldRules.maxItem + 1))] {
                let r = try await client.post("/t/\(id)/items", device, [("text", text)])
                #expect(r.status == .unprocessableContent, "\(what)")
                Self.expectNeutral(r.text, what, f)
            }
        }
    }

    /// `sync-state` keeps the first line of the wording of whichever front end ran the sync;
    /// both record `SyncMessages.describe`, so the page shows a fact without a path or a command.
    @Test func theSyncPageShowsEveryFailureAsAFact() async throws {
        let f = try ServeFixture()
        let failures = WordingSamples.syncErrors(local: f.tmp.path)
        #expect(Set(failures.map { WordingSamples.name($0.problem) }).count == WordingSamples.syncProblemCases)
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            for e in failures {
                // As the sync records it: the first line of what `describe` returns.
                try f.household().recordSync(at: 1_700_000_000_000, error: e, said: Household.firstLine(ServeWording.sync(e)))
                let r = try await client.get("/sync", device)
                #expect(r.status == .ok)
                #expect(r.text.contains("Last problem"), "\(WordingSamples.name(e.problem))")
                Self.expectNeutral(r.text, WordingSamples.name(e.problem), f)
            }
        }
    }

    /// Real syncs the server runs ("Sync now"): without a remote, and with a remote that is a
    /// missing folder of the server; neither page names that folder or a command.
    @Test func theSyncPageAfterARealFailureNamesNoPathOrCommand() async throws {
        let f = try ServeFixture()
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            let none = try await client.post("/sync", device)
            #expect(none.notice == Notice.syncFailed.rawValue)
            let page = try await client.get("/sync", device)
            #expect(page.text.contains("This household has no remote."), "\(page.text)")
            Self.expectNeutral(page.text, "no remote", f)

            try f.household().setRemote(f.tmp.path + "/gone/household.git")
            let gone = try await client.post("/sync", device)
            #expect(gone.notice == Notice.syncFailed.rawValue)
            let after = try await client.get("/sync", device)
            #expect(after.text.contains("Last problem") && !after.text.contains("no remote"), "\(after.text)")
            Self.expectNeutral(after.text, "missing path remote", f)
        }
    }

    @Test func everyNoticeAndPageIsInWordsForThePage() async throws {
        let f = try ServeFixture()
        let id = try f.taskID(titled: "Ann's first chore")
        try await f.application().test(.router) { client in
            let device = try await client.signIn(f, as: "Ann")
            for notice in Notice.allCases {
                let r = try await client.get("/", nil, headers: [.cookie: "todo_session=\(device.cookie); todo_notice=\(notice.rawValue)"])
                #expect(FrontEndText.visibleText(html: r.text).contains(notice.text), "\(notice) shown")
                Self.expectNeutral(r.text, "notice \(notice)", f)
            }
            for path in ["/", "/tasks", "/t/\(id)", "/add", "/lists", "/changes", "/sync", "/feed", "/phone"] {
                Self.expectNeutral(try await client.get(path, device).text, path, f)
            }
        }
        for kind in ReceivedChange.Kind.allCases { Self.expectNeutral(OtherPages.verb(kind), "change \(kind)", f) }
    }
}
