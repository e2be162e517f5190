import Glibc
import Synchronization

/// Per-client limits (docs/THREAT-MODEL.md, "exhaustion"): 120 requests and 30 POSTs per
/// 10 s, 10 failed token checks per 10 minutes. A client is its peer address, or the rightmost
/// `X-Forwarded-For` entry from a trusted proxy.
final class RateLimiter: Sendable {
    struct Limits: Sendable {
        var requests = 120
        var posts = 30
        var window = 10.0
        var failures = 10
        var failureWindow = 600.0
    }

    private struct Counts {
        var windowStart = 0.0
        var requests = 0
        var posts = 0
        var failureStart = 0.0
        var failures = 0
    }

    let limits: Limits
    private let clients = Mutex<[String: Counts]>([:])

    init(limits: Limits = Limits()) { self.limits = limits }

    /// Counts a request; returns the seconds to wait when the client is over a limit.
    func admit(_ client: String, isPost: Bool, now: Double = monotonicSeconds()) -> Int? {
        clients.withLock { clients in
            if clients.count > 10_000 {
                clients = clients.filter { now - $0.value.windowStart < limits.window || now - $0.value.failureStart < limits.failureWindow }
            }
            var c = clients[client] ?? Counts()
            if now - c.windowStart >= limits.window {
                c.windowStart = now
                c.requests = 0
                c.posts = 0
            }
            if now - c.failureStart >= limits.failureWindow {
                c.failureStart = now
                c.failures = 0
            }
            c.requests += 1
            if isPost { c.posts += 1 }
            clients[client] = c
            if c.failures >= limits.failures { return max(1, Int(limits.failureWindow - (now - c.failureStart))) }
            if c.requests > limits.requests || c.posts > limits.posts {
                return max(1, Int(limits.window - (now - c.windowStart)))
            }
            return nil
        }
    }

    /// A wrong or unknown token from this client.
    func failed(_ client: String, now: Double = monotonicSeconds()) {
        clients.withLock { clients in
            var c = clients[client] ?? Counts()
            if now - c.failureStart >= limits.failureWindow {
                c.failureStart = now
                c.failures = 0
            }
            c.failures += 1
            clients[client] = c
        }
    }
}

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
