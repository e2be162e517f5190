import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// One rule for an item whose text is already on the list, whichever front end adds it: the
/// store adds it once, and its text and tick stay (docs/ARCHITECTURE.md, "The store owns every
/// rule"). The command line's `edit --add-item` (the store's `TaskEdit`), the page's form and
/// a phone's new to-do in the list's collection each change nothing, and each says so.
@Suite(.kit, .timeLimit(.minutes(5)), .serialized)
struct ItemOnTheListTests {
    @Test func anItemAlreadyOnTheListIsAddedByNoFrontEnd() async throws {
        let d = try CalDAVRouteTests.DAV()
        let listID = try #require(TaskID(d.list))
        let milk = Checklist.key("milk")
        try await d.f.application().test(.router) { client in
            // Milk is ticked first, so that keeping its tick shows.
            let device = try await client.signIn(d.f, as: "Ann")
            #expect(try await client.post("/t/\(d.list)/items/\(milk)/check", device, [("back", "/lists")]).notice == "checked")
            let before = try d.f.commitCount()
            let items = try d.task(d.list).checklist

            // The command line's call (`todo edit ID --add-item milk`).
            var edit = TaskEdit()
            edit.addItems = ["milk"]
            let outcome = try d.f.household().edit(listID.hex, edit)
            #expect(outcome.commit == nil)

            // The page: back to the list, saying milk is known.
            let page = try await client.post("/t/\(d.list)/items", device, [("text", "milk")])
            #expect(page.status == .seeOther && page.notice == "item-known")

            // A phone: a new to-do "milk" in the list's collection is refused, naming why.
            let phone = try await client.execute(
                uri: d.shopping + "MILK-2.ics", method: .put, headers: d.h([.contentType: "text/calendar"]),
                body: CalDAVRouteTests.vtodo(uid: "MILK-2", summary: "milk"))
            #expect(phone.status == .conflict)
            #expect(phone.text.contains("already on the list"))
            let fetched = try await client.execute(uri: d.shopping + "MILK-2.ics", method: .get, headers: d.h())
            #expect(fetched.status == .notFound)

            #expect(try d.f.commitCount() == before)
            #expect(try d.task(d.list).checklist == items)
            #expect(try d.task(d.list).checklist.filter { $0.key == milk }.map(\.state) == [.checked])
        }
    }
}
