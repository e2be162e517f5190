import GitKit
public import TodoCore

/// A change to one member's details; nil leaves a field as it is, "" clears it.
public struct MemberChange: Sendable {
    public var email: String?
    public var via: String?
    public var postURL: String?
    public var every: String?
    public var remindAt: String?

    public init(email: String? = nil, via: String? = nil, postURL: String? = nil, every: String? = nil, remindAt: String? = nil) {
        self.email = email
        self.via = via
        self.postURL = postURL
        self.every = every
        self.remindAt = remindAt
    }
}

extension Household {
    /// Every member's contact details recorded in the settings file, keyed by name as spelled
    /// there, and the values that were left out because they do not fit their key.
    public func memberDetails() throws(StoreError) -> (details: [String: MemberDetails], problems: [MemberFieldProblem]) {
        let snap = try snapshot()
        return MemberFields.details(in: snap.settings())
    }

    /// Every name the household uses for a member (docs/FORMAT.md): assignees, rotations, who
    /// made changes, and the names with details.
    public func memberNames() throws(StoreError) -> [String] {
        let (tasks, _) = try snapshot().loadAll()
        var names = CalendarFeed.members(tasks)
        for name in try memberDetails().details.keys { names.insert(name) }
        for m in try roster().members.values { names.insert(m.name) }
        // Folded by case: the first spelling in byte order stands for the others.
        var byFold: [String: String] = [:]
        for n in names {
            let k = n.lowercased()
            if let old = byFold[k], old.utf8.lexicographicallyPrecedes(n.utf8) { continue }
            byFold[k] = n
        }
        return byFold.values.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The household's spelling of `name` (compared ignoring case) when the household uses it,
    /// counting the running member and commit authors; nil when it does not.
    public func knownMember(_ name: String) throws(StoreError) -> String? {
        let names = try memberNames()
        if let hit = names.first(where: { $0.lowercased() == name.lowercased() }) { return hit }
        // No identity here: names are matched against the household's alone.
        if let me = try? identity().name, me.lowercased() == name.lowercased() { return me }
        // An author matched by name keeps the author's spelling; one matched by email, as typed.
        if let author = ((try? history(limit: 1, author: name)) ?? []).first?.authorName {
            return author.lowercased() == name.lowercased() ? author : name
        }
        return nil
    }

    /// `name` as the roster, the member details or this clone's identity spell it (compared
    /// ignoring case), found without reading every task as `knownMember` does: a member
    /// acting through the server is spelled at each change, and reading 10,000 tasks for it
    /// took over half the time of a change from the page. Nil when none of them names `name`.
    func spellingWithoutTasks(_ name: String) -> String? {
        // Each source that cannot be read is passed over: `knownMember` then reads them all,
        // and a transaction reports an unreadable settings file itself.
        if let m = try? roster().member(name) { return m.name }
        let folded = name.lowercased()
        // Unreadable: passed over, as above.
        if let details = try? memberDetails().details,
            let hit = details.keys.filter({ $0.lowercased() == folded }).min(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        {
            return hit
        }
        if let me = try? identity().name, me.lowercased() == folded { return me }  // no identity: passed over
        return nil
    }

    /// The email recorded in the member details of `name` (compared ignoring case), if any.
    public func memberEmail(_ name: String) throws(StoreError) -> String? {
        let details = try memberDetails().details
        let spelled = details.keys.filter { $0.lowercased() == name.lowercased() }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return spelled.lazy.compactMap { details[$0]?.email }.first
    }

    /// Records `change` for `name` in the settings file, in one commit; nil when nothing changes.
    @discardableResult
    public func setMember(_ name: String, _ change: MemberChange) throws(StoreError) -> String? {
        let stamper = try stamper()
        let (_, commit) = try transact { snap in
            var task = try HouseholdSettings.task(in: snap, stamper: stamper)
            // The key keeps the spelling already recorded for this member, if any.
            let spelled = task.extra.keys.compactMap(MemberFields.parse).map(\.name).filter { $0.lowercased() == name.lowercased() }
                .min { $0.utf8.lexicographicallyPrecedes($1.utf8) } ?? name
            var changed = false
            for (field, value) in [(MemberFields.email, change.email), (MemberFields.via, change.via), (MemberFields.postURL, change.postURL), (MemberFields.every, change.every), (MemberFields.remindAt, change.remindAt)] {
                guard let value else { continue }
                let key = MemberFields.key(field, spelled)
                if task.extra[key]?.stringValue == value || (task.extra[key] == nil && value.isEmpty) { continue }
                try task.write(key, .string(value), stamp: stamper.stamp(after: task))
                changed = true
            }
            guard changed else { return Update(tasks: [], message: "", value: ()) }
            return Update(tasks: [task], message: "member: \(spelled)", value: ())
        }
        return commit
    }
}
