import Synchronization

/// Per-client limits (docs/THREAT-MODEL.md, "exhaustion"): 120 requests and 30 POSTs per
/// 10 s, 10 failed token checks per 10 minutes. A client is its peer address, or the rightmost
/// `X-Forwarded-For` entry from a trusted proxy. A CalDAV request that carries credentials
/// (`DAVAuth.carriesCredentials`) counts in a budget of its own instead, 1,200 per minute, so a
/// phone's first sync of a few hundred items is not held back by the page's budget; its failed
/// sign-ins count towards the same lock-out as the page's.
final class RateLimiter: Sendable {
    struct Limits: Sendable {
        var requests = 120
        var posts = 30
        var window: Duration = .seconds(10)
        var failures = 10
        var failureWindow: Duration = .seconds(600)
        var davRequests = 1_200
        var davWindow: Duration = .seconds(60)
    }

    private struct Counts {
        var windowStart: ContinuousClock.Instant
        var requests = 0
        var posts = 0
        var failureStart: ContinuousClock.Instant
        var failures = 0
        var davStart: ContinuousClock.Instant
        var davRequests = 0

        init(since now: ContinuousClock.Instant) {
            windowStart = now
            failureStart = now
            davStart = now
        }
    }

    let limits: Limits
    private let clients = Mutex<[String: Counts]>([:])
    /// Open connections per address, and requests in flight per client behind a trusted proxy.
    let connections: ClientSlots

    init(limits: Limits = Limits(), perClient: Int = ConnectionLimits().perClient) {
        self.limits = limits
        connections = ClientSlots(perClient: perClient)
    }

    /// Counts a request; returns the seconds to wait when the client is over a limit. `dav`: a
    /// CalDAV request with credentials, counted in the DAV budget and not the page's.
    func admit(_ client: String, isPost: Bool, dav: Bool = false, now: ContinuousClock.Instant = .now) -> Int? {
        clients.withLock { clients in
            if clients.count > 10_000 {
                clients = clients.filter {
                    now - $0.value.windowStart < limits.window || now - $0.value.failureStart < limits.failureWindow
                        || now - $0.value.davStart < limits.davWindow
                }
            }
            var c = clients[client] ?? Counts(since: now)
            if now - c.windowStart >= limits.window {
                c.windowStart = now
                c.requests = 0
                c.posts = 0
            }
            if now - c.failureStart >= limits.failureWindow {
                c.failureStart = now
                c.failures = 0
            }
            if now - c.davStart >= limits.davWindow {
                c.davStart = now
                c.davRequests = 0
            }
            if dav {
                c.davRequests += 1
            } else {
                c.requests += 1
                if isPost { c.posts += 1 }
            }
            clients[client] = c
            if c.failures >= limits.failures { return Self.seconds(limits.failureWindow - (now - c.failureStart)) }
            if dav {
                return c.davRequests > limits.davRequests ? Self.seconds(limits.davWindow - (now - c.davStart)) : nil
            }
            if c.requests > limits.requests || c.posts > limits.posts {
                return Self.seconds(limits.window - (now - c.windowStart))
            }
            return nil
        }
    }

    /// A wrong or unknown token from this client.
    func failed(_ client: String, now: ContinuousClock.Instant = .now) {
        clients.withLock { clients in
            var c = clients[client] ?? Counts(since: now)
            if now - c.failureStart >= limits.failureWindow {
                c.failureStart = now
                c.failures = 0
            }
            c.failures += 1
            clients[client] = c
        }
    }

    /// Whole seconds of a wait for `Retry-After`, at least one.
    private static func seconds(_ wait: Duration) -> Int { max(1, Int(wait / .seconds(1))) }
}
