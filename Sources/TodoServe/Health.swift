import Hummingbird
import TodoStore

/// `GET /health`, for a service manager or a monitor: 200 `ok` when the household opens and
/// its `main` reads, else 503 `unavailable`; no session needed, and nothing else said (no path,
/// no cause: the server's log and `todo doctor` have those).
enum Health {
    static func answer(_ site: Site) async throws -> Response {
        try await site.workers.read {
            do throws(StoreError) {
                _ = try site.openForReading().snapshot()
                return DAVRoutes.plain(200, "ok")
            } catch {
                return DAVRoutes.plain(503, "unavailable")
            }
        }
    }
}
