import Hummingbird
import TodoCore
import TodoStore

/// REPORT sync-collection (RFC 6578; docs/CALDAV.md, "Reads and sync"): the items that changed
/// since a token, found from the tree difference between the token's commit and now.
enum DAVSync {
    static let d = DAVNamespace.dav

    static func answer(
        _ r: DAVRequest, _ h: HouseholdReader, _ state: DAVState, _ c: DAVCollection, _ root: DAVElement, _ wanted: DAVPropRequest
    ) throws -> Response {
        let tokenText = root.child(d, "sync-token")?.text.trimmed() ?? ""
        var limit: Int?
        if let n = root.child(d, "limit")?.child(d, "nresults") {
            guard let value = Int(n.text.trimmed()), value >= 0 else { throw DAVRefusal(status: 400, reason: "The limit is not a number.") }
            limit = value
        }
        let props = DAVProps(r: r, state: state)
        let items = state.items(c, member: r.member)
        var targets: [DAVTarget] = []
        if tokenText.isEmpty {
            targets = items.map { .resource(r.href(c, $0), .item(c, $0)) }
        } else {
            guard let (commit, day) = DAVToken.parse(tokenText) else { throw invalidToken }
            // No answer was ever made for a later day (a day ahead allows for a change of zone):
            // refused before any chore's schedule is run to it.
            guard day <= state.today.adding(days: 1) else { throw invalidToken }
            if commit != state.commit || day != state.today {
                let (old, new) = try changes(r, h, state, c, commit: commit, day: day)
                let before = Dictionary(old.map { ($0.name, $0.etag) }, uniquingKeysWith: { a, _ in a })
                let names = Set(new.map(\.name))
                for item in new where before[item.name] != item.etag {
                    targets.append(.resource(r.href(c, item), .item(c, item)))
                }
                for item in old where !names.contains(item.name) {
                    targets.append(.status(r.href(c) + DAVWriter.encodePathSegment(item.name), 404))
                }
            }
        }
        if let limit, targets.count > limit {
            throw DAVRefusal(
                status: 507, dav: "number-of-matches-within-limits",
                reason: "More items changed than the limit allows; ask again without a limit.")
        }
        return try DAVRoutes.multistatus(props, wanted, targets, syncToken: state.token)
    }

    static var invalidToken: DAVRefusal {
        DAVRefusal(status: 403, dav: "valid-sync-token", reason: "This sync token is unknown here; sync again from the start.")
    }

    /// The items of the collection then and now: only the changed tasks' when the day is the
    /// same and only task files changed, every item otherwise.
    static func changes(
        _ r: DAVRequest, _ h: HouseholdReader, _ state: DAVState, _ c: DAVCollection, commit: String, day: CivilDate
    ) throws -> (old: [DAVItem], new: [DAVItem]) {
        let now = try r.site.store { () throws(StoreError) in try h.snapshot() }
        guard now.commitHex == state.commit else { throw DAVRefusal(status: 503, reason: "The household changed meanwhile; sync again.") }
        if commit.isEmpty { return ([], state.items(c, member: r.member)) }
        // A commit `main` does not reach, or a day before the day it was made, was never in a
        // token this server gave: refused before the household is read as of then.
        guard let old = now.atCommit(commit), now.reaches(old), let made = old.committedAt,
            day >= DAVRender.day(made * 1000, state.zone)
        else { throw invalidToken }
        var only: [TaskID: String]?
        var ids = Set<TaskID>()
        if day == state.today, let changed = try r.site.store({ () throws(StoreError) in try now.changedTasks(since: old) }),
            !changed.contains(where: { $0.id == HouseholdSettings.id })
        {
            var then: [TaskID: String] = [:]
            for c in changed {
                ids.insert(c.id)
                if let blob = c.old { then[c.id] = blob }
            }
            only = then
        }
        let then = try r.site.davState(h, old: old, day: day, only: only)
        let before = then.items(c, member: r.member)
        let after = only == nil ? state.items(c, member: r.member) : state.items(c, member: r.member).filter { ids.contains($0.task) }
        return (before, after)
    }
}
