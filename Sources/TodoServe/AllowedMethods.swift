import HTTPTypes
import Hummingbird
import Synchronization

/// The methods each route takes, read from the router once every route is on it, so that a
/// request with a method its address does not take is answered 405 with `Allow` (RFC 9110
/// §15.5.6) rather than 404, and a HEAD of a page is answered as its GET without the body
/// (RFC 9110 §9.3.2).
final class AllowedMethods: Sendable {
    private let routes = Mutex<[(path: [RouterPath.Element], methods: Set<String>)]>([])

    /// Takes the router's routes (`Router.routes`), after the last one was added.
    func record(_ routes: [Router<ServeContext>.RouteDescription]) {
        var byPath: [String: (path: [RouterPath.Element], methods: Set<String>)] = [:]
        for r in routes {
            byPath[r.path.description, default: (r.path.components, [])].methods.insert(r.method.rawValue)
        }
        self.routes.withLock { $0 = Array(byPath.values) }
    }

    /// The methods the routes matching `path` were registered with; empty when no route matches.
    func methods(at path: String) -> Set<String> {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var out = Set<String>()
        routes.withLock { routes in
            for r in routes where Self.matches(r.path, segments) { out.formUnion(r.methods) }
        }
        return out
    }

    /// The `Allow` value: the methods in a fixed order.
    static func allowHeader(_ methods: Set<String>) -> String {
        let order = ["OPTIONS", "GET", "HEAD", "POST", "PUT", "DELETE", "PROPFIND", "PROPPATCH", "REPORT"]
        return (order.filter { methods.contains($0) } + methods.subtracting(order).sorted()).joined(separator: ", ")
    }

    private static func matches(_ pattern: [RouterPath.Element], _ segments: [Substring]) -> Bool {
        for (i, element) in pattern.enumerated() {
            if element.description == "**" { return segments.count >= i }
            guard i < segments.count, element ~= segments[i] else { return false }
        }
        return pattern.count == segments.count
    }
}
