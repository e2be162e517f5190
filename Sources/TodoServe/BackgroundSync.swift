import Dispatch
import Glibc
import ServiceLifecycle
import Synchronization
import TodoStore

/// What a sync the server ran came to, for the notice after "Sync now".
enum SyncRun: Sendable, Equatable {
    case done
    /// Another sync (this server's or cron's) was running.
    case skipped
    case failed(String)
}

/// `--sync-every` (docs/SERVE.md, "Background sync"): a sync every period, and one 10 s after
/// the last change (at most 60 s after the first); never two at once. The store writes
/// `sync-state` and the sync log as for cron's `todo sync --quiet`.
final class BackgroundSync: Service, Sendable {
    let every: Int64
    /// A change's sync waits this long for the next change (10 s), at most `debounceCap` (60 s)
    /// after the first.
    let debounce: Double
    let debounceCap: Double
    private let site = Mutex<WeakSite?>(nil)
    /// When a change asked for a sync: due time, and when the first unsynced change came.
    private let pending = Mutex<(due: ContinuousClock.Instant?, first: ContinuousClock.Instant?)>((nil, nil))
    private let running = Mutex(false)
    /// Stopped when the server shuts down: a sync under way ends at its network step, at once
    /// (docs/SERVE.md, "TLS, proxy, exit codes, signals").
    private let stopper = SyncStop()
    private let queue = DispatchQueue(label: "todo-serve.sync")

    init(every: Int64, debounce: Double = 10, debounceCap: Double = 60) {
        self.every = every
        self.debounce = debounce
        self.debounceCap = debounceCap
    }

    func attach(_ site: Site) { self.site.withLock { $0 = WeakSite(site) } }

    /// A change was committed: a sync in 10 s, pushed back by later changes up to 60 s.
    func changed() {
        guard every > 0 else { return }
        let now = ContinuousClock.now
        pending.withLock { p in
            let first = p.first ?? now
            p = (min(now + .seconds(debounce), first + .seconds(debounceCap)), first)
        }
    }

    /// The service: waits for the next period or a change's due time (looking again every
    /// second, so a change moves the deadline), syncs, and again, until shutdown.
    func run() async throws {
        guard every > 0 else {
            // Cancelled means shutdown has begun: what this waits for is happening.
            try? await gracefulShutdown()
            stopper.stop()
            return
        }
        await withGracefulShutdownHandler {
            await self.periodically()
        } onGracefulShutdown: {
            self.stopper.stop()
        }
    }

    private func periodically() async {
        await cancelWhenGracefulShutdown {
            var nextPeriodic = ContinuousClock.now + .seconds(self.every)
            while !Task.isCancelled {
                let due = self.pending.withLock { $0.due }
                let wait = min(nextPeriodic, due ?? nextPeriodic) - .now
                if wait > .zero {
                    // Cancelled: shutdown, which the loop checks next.
                    try? await Task.sleep(for: min(wait, .seconds(1)))
                    continue
                }
                self.pending.withLock { $0 = (nil, nil) }
                nextPeriodic = ContinuousClock.now + .seconds(self.every)
                _ = await self.syncNow()
            }
        }
    }

    /// Runs one sync unless one is running already.
    func syncNow() async -> SyncRun {
        let started = running.withLock { r -> Bool in
            if r { return false }
            r = true
            return true
        }
        guard started else { return .skipped }
        defer { running.withLock { $0 = false } }
        guard let site = site.withLock({ $0?.site }) else { return .skipped }
        return await withCheckedContinuation { [stopper] continuation in
            queue.async { continuation.resume(returning: Self.sync(site, stopper)) }
        }
    }

    private static func sync(_ site: Site, _ stopper: SyncStop) -> SyncRun {
        let h: Household
        do { h = try site.openForSync() } catch { return .failed(ServeWording.failure(error).text) }
        var options = SyncOptions()
        options.timeout = 60
        options.home = site.environment.userHome
        options.certificateFile = site.environment.get("GIT_SSL_CAINFO")
        // An encrypted remote opens with this account's device key, as `todo sync` would.
        options.identityFile = DeviceIdentity.defaultPath(home: site.environment.userHome, configHome: site.environment.get("XDG_CONFIG_HOME"))
        options.logDirectory = site.environment.stateHome + "/todo"
        options.describe = { ServeWording.sync($0) }
        options.stop = stopper
        do {
            let report = try h.sync(options)
            // Each device's token is tied to its membership now; a leaver's are marked ended.
            do {
                try site.bindMemberships()
            } catch let e as StoreError {
                return .failed(ServeWording.failure(e).text)
            } catch {
                return .failed("The server could not record the membership of each signed-in device (its state folder: \(error)); every request still checks the roster itself.")
            }
            site.maintainIfDue(afterSync: true)
            return report.skipped ? .skipped : .done
        } catch {
            return .failed(ServeWording.sync(error))
        }
    }}
