public import TodoCore

/// One member's part of a `todo remind` run, before delivery.
public struct ReminderPlan: Sendable {
    public var member: String
    public var details: MemberDetails
    /// What to send; nil when there is nothing to say or the member had one today.
    public var message: ReminderMessage?
    /// What is the member's now: the state's `theirs` once this plan is delivered.
    public var theirs: Set<String>
    /// The member already had a reminder today (nothing is sent).
    public var remindedToday: Bool
}

extension Household {
    /// What `todo remind` would send to each of `members` (nil: every member the household
    /// uses) on the household's today, given what this machine delivered before (`state`).
    /// `word` is the front end's wording of a reminder's facts; the message's identity hashes
    /// the words, so it stays the same for the same facts and the same wording. With
    /// `atTheirHour` (cron's `todo remind`), a member whose remind-at (default 07:00) the
    /// household's time has not reached yet has no plan: they are left to a later run, and
    /// nothing of theirs is noted.
    public func planReminders(
        members: [String]?, state: ReminderState, atTheirHour: Bool = false,
        word: (ReminderFacts) -> (subject: String, body: String)
    ) throws(StoreError) -> (today: CivilDate, plans: [ReminderPlan]) {
        let (tasks, _) = try snapshot().loadAll()
        let details = try memberDetails().details
        var byFold: [String: MemberDetails] = [:]
        for (name, d) in details { byFold[name.lowercased()] = d }
        let today = clock.today
        let context = try turnContext()
        let minute = clock.minuteOfDay
        var plans: [ReminderPlan] = []
        let everyone: [String]
        if let members { everyone = members } else { everyone = try memberNames() }
        for member in everyone {
            // A member who has left gets nothing (docs/FORMAT.md, "Members").
            if context.roster.hasLeft(member, on: today) { continue }
            let key = member.lowercased()
            let d = byFold[key] ?? MemberDetails()
            if atTheirHour, minute < d.remindMinute { continue }
            let entry = state.members[key]
            var names: Set<String> = [key]
            if let e = d.email { names.insert(e.lowercased()) }
            let r = Reminder(tasks, names: names, today: today, minuteOfDay: minute, previous: entry?.theirs, context: context)
            // At most once a day, or every `everyDays` days when the member chose fewer.
            let last = entry?.day.flatMap { CivilDate(iso: Substring($0)) }
            if let last, today.daysSinceEpoch - last.daysSinceEpoch < (d.everyDays ?? 1), today >= last {
                plans.append(ReminderPlan(member: member, details: d, message: nil, theirs: r.theirs, remindedToday: true))
                continue
            }
            var message: ReminderMessage?
            if !r.isEmpty {
                let facts = r.facts(tasks, member: member, household: name, today: today, context: context)
                let items = facts.overdue + facts.today + facts.new
                let (subject, body) = word(facts)
                message = ReminderMessage(
                    member: member, household: name, subject: subject, body: body,
                    identity: ReminderText.identity(member: member, day: today, subject: subject, body: body))
                message?.day = today
                message?.items = items
            }
            plans.append(ReminderPlan(member: member, details: d, message: message, theirs: r.theirs, remindedToday: false))
        }
        return (today, plans)
    }
}
