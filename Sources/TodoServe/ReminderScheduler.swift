import Dispatch
import Glibc
import RemindNet
import ServiceLifecycle
import Synchronization
import TodoCore
import TodoStore
import TodoWording

/// The hub's reminders (docs/SERVE.md, "Reminders from the hub"): each member whose reminders
/// go by mail or POST gets theirs at their hour (`todo member set --remind-at`, default 07:00,
/// household time), or as soon as the server runs that household day if it was down then. The
/// rules are `todo remind`'s, on the same record of what was sent
/// (`$XDG_STATE_HOME/todo/reminders/HOUSEHOLD.state`, under its lock): a reminder is recorded
/// once delivered, never before, so a run killed between the two sends it again, with the same
/// Message-ID or Idempotency-Key; a `todo remind` from cron and the server never both send one.
/// Members by standard output are left to `todo remind`.
final class ReminderScheduler: Service, Sendable {
    let site: Site
    let links: ReminderLinks?
    private let queue = DispatchQueue(label: "todo-serve.remind")
    /// A member whose delivery failed is tried again after this long, not at every look.
    private let retryAfter: Duration
    private let nextTry = Mutex<[String: ContinuousClock.Instant]>([:])

    init(site: Site, links: ReminderLinks?, retryAfter: Duration = .seconds(300)) {
        self.site = site
        self.links = links
        self.retryAfter = retryAfter
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !_Concurrency.Task.isCancelled {
                // The links start with the address served: known once the port is bound.
                if self.site.port == 0 {
                    try? await _Concurrency.Task.sleep(for: .milliseconds(100))
                    continue
                }
                await self.round()
                // Twice a minute: a member's hour is kept to the minute.
                try? await _Concurrency.Task.sleep(for: .seconds(30))
            }
        }
    }

    /// What one look found to send, with the lock held until it is recorded.
    private final class Round: @unchecked Sendable {
        let lock: AnyObject
        let path: String
        var state: ReminderState
        let today: CivilDate
        var jobs: [(plan: ReminderPlan, message: ReminderMessage)] = []
        let settings: ReminderSettings
        let from: String
        let nowMillis: Int64

        init(lock: AnyObject, path: String, state: ReminderState, today: CivilDate, settings: ReminderSettings, from: String, nowMillis: Int64) {
            self.lock = lock
            self.path = path
            self.state = state
            self.today = today
            self.settings = settings
            self.from = from
            self.nowMillis = nowMillis
        }
    }

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in queue.async { continuation.resume(returning: body()) } }
    }

    /// One look: plan under the lock, deliver each due reminder, record each at once.
    func round() async {
        guard let round = await onQueue({ self.prepare() }) else { return }
        for (plan, message) in round.jobs {
            let failure = await deliver(plan, message, round)
            await onQueue { self.record(plan, failure, round) }
        }
        withExtendedLifetime(round.lock) {}
    }

    private func prepare() -> Round? {
        let env = site.environment
        let h: HouseholdReader
        do { h = try site.openForReading() } catch { return nil }
        let path = env.stateHome + "/todo/reminders/\(h.name).state"
        let configHome = env.get("XDG_CONFIG_HOME") ?? (env.userHome + "/.config")
        let round: Round
        do {
            // Another `todo remind` sends now: the next look.
            let lock = try ReminderState.lock(path)
            let state = try ReminderState.load(path)
            let settings = try ReminderSettings.load(path: configHome + "/todo/remind") { env.get($0) }
            let (today, plans) = try h.planReminders(members: nil, state: state, word: ReminderWording.reminder)
            let from = settings.smtpFrom ?? (try? h.identity().email) ?? "todo@localhost"
            round = Round(lock: lock, path: path, state: state, today: today, settings: settings, from: from, nowMillis: h.clock.nowMillis())
            let minute = h.clock.minuteOfDay
            let now = ContinuousClock.now
            let waiting = nextTry.withLock { $0 }
            for plan in plans where plan.details.delivery != .stdout && !plan.remindedToday && minute >= plan.details.remindMinute {
                let key = plan.member.lowercased()
                if let next = waiting[key], next > now { continue }
                guard var message = plan.message else {
                    // Nothing to say: what is theirs is noted, so that it is not "new" later.
                    if round.state.members[key]?.theirs != plan.theirs {
                        round.state.members[key, default: .init()].theirs = plan.theirs
                        try round.state.save(path)
                    }
                    continue
                }
                links?.decorate(&message, plan: plan, day: today, base: site.base)
                round.jobs.append((plan, message))
            }
        } catch {
            return nil
        }
        return round
    }

    private func deliver(_ plan: ReminderPlan, _ message: ReminderMessage, _ round: Round) async -> DeliveryFailure? {
        let settings = round.settings
        switch plan.details.delivery {
        case .stdout:
            return nil
        case .mail:
            guard let email = plan.details.email else { return .refused(.noEmail(member: plan.member)) }
            if settings.smtpHost == nil {
                let sender = ReminderSender(settings: settings, defaultFrom: round.from, networkHelper: nil, nowMillis: round.nowMillis)
                return await onQueue {
                    do throws(DeliveryFailure) {
                        try sender.mail(message, to: email)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            return await NetworkSender.deliver(
                NetworkDelivery(target: .mail(from: round.from, to: email), message: message, settings: settings, nowMillis: round.nowMillis, timeoutSeconds: 30))
        case .post:
            guard let url = plan.details.postURL else { return .refused(.noPostURL(member: plan.member)) }
            return await NetworkSender.deliver(
                NetworkDelivery(target: .post(url: url), message: message, settings: settings, nowMillis: round.nowMillis, timeoutSeconds: 30))
        }
    }

    /// Records a delivery at once; a failure is told on standard error once a day.
    private func record(_ plan: ReminderPlan, _ failure: DeliveryFailure?, _ round: Round) {
        let key = plan.member.lowercased()
        let day = round.today.description
        if let failure {
            nextTry.withLock { $0[key] = ContinuousClock.now + retryAfter }
            guard round.state.members[key]?.failing != day else { return }
            printError(
                "todo-serve: could not remind \(plan.member) by \(plan.details.delivery.rawValue): \(ReminderWording.reason(failure)). It will be tried again.")
            round.state.members[key, default: .init()].failing = day
        } else {
            nextTry.withLock { $0[key] = nil }
            round.state.members[key] = .init(day: day, theirs: plan.theirs, failing: nil)
        }
        do {
            try round.state.save(round.path)
        } catch {
            printError("todo-serve: cannot record the reminders sent in \(round.path).")
        }
    }
}
