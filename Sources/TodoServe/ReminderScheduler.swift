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
    /// The last look that found nothing to send: its day, commit and the members due.
    private let lastQuiet = Mutex<String?>(nil)
    /// The last problem told on standard error.
    private let problem = Mutex<String?>(nil)

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
                    try? await _Concurrency.Task.sleep(for: .milliseconds(100))  // cancelled: shutdown, checked next
                    continue
                }
                await self.round()
                // Twice a minute: a member's hour is kept to the minute.
                try? await _Concurrency.Task.sleep(for: .seconds(30))  // cancelled: shutdown, checked next
            }
        }
    }

    /// What one look found to send, with the lock held until it is recorded.
    private final class Round: Sendable {
        let lock: any AnyObject & Sendable
        let path: String
        /// The record, changed by the planning and then by each delivery in turn (on `queue`).
        let state: Mutex<ReminderState>
        let today: CivilDate
        let jobs: [(plan: ReminderPlan, message: ReminderMessage)]
        let settings: ReminderSettings
        let from: String
        let nowMillis: Int64

        init(
            lock: any AnyObject & Sendable, path: String, state: ReminderState, today: CivilDate, jobs: [(plan: ReminderPlan, message: ReminderMessage)],
            settings: ReminderSettings, from: String, nowMillis: Int64
        ) {
            self.lock = lock
            self.path = path
            self.state = Mutex(state)
            self.today = today
            self.jobs = jobs
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
            // Most looks find nobody due: that is told from the members' details and the
            // record alone, without reading every task or taking the lock.
            let minute = h.clock.minuteOfDay
            let day = h.clock.today.description
            let recorded = try ReminderState.load(path)
            let due = try h.memberDetails().details.filter { name, d in
                d.delivery != .stdout && minute >= d.remindMinute && recorded.members[name.lowercased()]?.day != day
            }.keys.map { $0.lowercased() }.sorted()
            guard !due.isEmpty else { return nil }
            // Those due had nothing to say (or had theirs within their every N days) at this
            // commit today: nothing has changed since.
            let look = "\(day) \(try h.headCommit() ?? "") \(due.joined(separator: ","))"
            if lastQuiet.withLock({ $0 == look }) { return nil }
            // Another `todo remind` sends now: the next look.
            let lock = try ReminderState.lock(path)
            var state = try ReminderState.load(path)
            let settings = try ReminderSettings.load(path: configHome + "/todo/remind") { env.get($0) }
            let (today, plans) = try h.planReminders(members: nil, state: state, word: ReminderWording.reminder)
            // No identity (no email of the clone): the same default as `todo remind`'s.
            let from = settings.smtpFrom ?? (try? h.identity().email) ?? "todo@localhost"
            let nowMillis = h.clock.nowMillis()
            var jobs: [(plan: ReminderPlan, message: ReminderMessage)] = []
            let now = ContinuousClock.now
            let waiting = nextTry.withLock { $0 }
            var waitingOne = false
            for plan in plans where plan.details.delivery != .stdout && !plan.remindedToday && minute >= plan.details.remindMinute {
                let key = plan.member.lowercased()
                if let next = waiting[key], next > now {
                    waitingOne = true
                    continue
                }
                guard var message = plan.message else {
                    // Nothing to say: what is theirs is noted, so that it is not "new" later.
                    if state.members[key]?.theirs != plan.theirs {
                        state.members[key, default: .init()].theirs = plan.theirs
                        try state.save(path)
                    }
                    continue
                }
                links?.decorate(&message, base: site.base)
                if state.beginSending(&message, member: plan.member, nowMillis: nowMillis) { try state.save(path) }
                jobs.append((plan, message))
            }
            lastQuiet.withLock { $0 = jobs.isEmpty && !waitingOne ? look : nil }
            round = Round(lock: lock, path: path, state: state, today: today, jobs: jobs, settings: settings, from: from, nowMillis: nowMillis)
        } catch ReminderConfigError.busy {
            return nil
        } catch {
            // Told once (the settings file, the record, the household): not twice a minute.
            let text = "todo-serve: reminders cannot be sent for now: \(Self.why(error)). `todo remind --dry-run` says more."
            if problem.withLock({ old in defer { old = text }; return old != text }) { printError(text) }
            return nil
        }
        problem.withLock { $0 = nil }
        return round
    }

    /// Why a look could not plan, in a clause.
    static func why(_ error: any Error) -> String {
        switch error {
        case let e as StoreError: return ServeWording.failure(e).text
        case ReminderConfigError.unsafeFile(let path, _): return "the settings file \(path) is refused (it must be a file of this user that only they can read)"
        case ReminderConfigError.badSetting(let key, _, _): return "the setting \(key) has a value that cannot be used"
        case ReminderConfigError.badState(let path): return "the record \(path) cannot be read (remove it)"
        case ReminderConfigError.cannotWriteState(let path, _, let errno): return "cannot write \(path) (\(errno))"
        default: return "\(error)"
        }
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
            guard round.state.withLock({ $0.members[key]?.failing != day }) else { return }
            printError(
                "todo-serve: could not remind \(plan.member) by \(plan.details.delivery.rawValue): \(ReminderWording.reason(failure)). It will be tried again.")
            round.state.withLock { $0.members[key, default: .init()].failing = day }
        } else {
            nextTry.withLock { $0[key] = nil }
            round.state.withLock { $0.members[key] = .init(day: day, theirs: plan.theirs, failing: nil) }
        }
        do {
            try round.state.withLock { state throws in try state.save(round.path) }
        } catch {
            printError("todo-serve: cannot record the reminders sent in \(round.path).")
            return
        }
        if failure == nil {
            // For the journal: one line per reminder sent and recorded.
            let line = "todo-serve: reminded \(plan.member) by \(plan.details.delivery.rawValue).\n"
            _ = line.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
        }
    }
}
