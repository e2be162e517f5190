import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore

/// A request's context: the peer's address, and the client the limits count it under.
struct ServeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's IP address (nil in the in-process test client).
    let peer: String?
    /// Set by `Guard`: the peer, or the client a trusted proxy names.
    var client = "unknown"
    /// Set by `Guard`: whether the page was asked for over HTTPS (directly or via the proxy).
    var secure = false

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress?.ipAddress
    }
}

/// What every request passes first (docs/THREAT-MODEL.md, "Controls"): size limits, the
/// client's rate limits, the `Host` check (DNS rebinding), the `Origin` check on a POST, and the
/// security headers on every answer, errors included. Failures are plain pages, never a trace.
struct Guard: RouterMiddleware {
    typealias Context = ServeContext
    static let maxBody = 16 * 1024
    static let maxURL = 2 * 1024
    static let maxHeaders = 8 * 1024

    let site: Site
    /// The methods each route takes, recorded once every route is on the router.
    let allowed: AllowedMethods

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        (context.client, context.secure) = Self.client(
            peer: context.peer, config: site.config,
            forwardedFor: request.headers[values: HTTPField.Name("X-Forwarded-For")!],
            forwardedProto: request.headers[HTTPField.Name("X-Forwarded-Proto")!])
        var response: Response
        // Behind a trusted proxy the connections are the proxy's: each client it names may have
        // at most as many requests in flight as an address may hold connections (ConnectionGuard).
        let proxied = context.peer.map { site.config.trustProxy.contains($0) } ?? false
        let slots = site.limiter.connections
        do {
            if proxied {
                guard slots.take(context.client) else { throw PageError(status: 429, retryAfter: 1) }
            }
            defer { if proxied { slots.give(context.client) } }
            response = try await RequestReading.$current.withValue(RequestReading()) {
                try await screened(request, context: context, next: next)
            }
        } catch let error as DAVError {
            response = error.response
        } catch let error as PageError {
            response = Pages.error(site, error)
            if let allow = error.allow { response.headers[.allow] = allow }
        } catch let error as HTTPError {
            response = Pages.error(site, PageError(status: Int(error.status.code)))
        } catch {
            response = Pages.error(site, PageError(status: 500))
        }
        Self.addSecurityHeaders(&response.headers)
        // A HEAD gets the headers only, whatever answered it (a refusal's page included).
        return request.method == .head ? response.createHeadResponse() : response
    }

    /// Who the client is, for the limits, and whether it asked over HTTPS: the peer and the
    /// server's own TLS, unless the peer is a `--trust-proxy` address; then the rightmost
    /// `X-Forwarded-For` entry (the one that proxy added) and its `X-Forwarded-Proto`. A
    /// request the proxy sends without naming its client is from a client whose address is
    /// unknown (`unknownBehindProxy`), never this machine: Basic needs https, and every such
    /// request shares one budget, apart from the clients the proxy names.
    static func client(peer: String?, config: ServeConfig, forwardedFor: [String], forwardedProto: String?) -> (String, Bool) {
        guard let peer, config.trustProxy.contains(peer) else { return (peer ?? "unknown", config.usesTLS) }
        let forwarded = forwardedFor.last?.split(separator: ",", omittingEmptySubsequences: false).last?.trimmed() ?? ""
        return (forwarded.isEmpty ? unknownBehindProxy : forwarded, config.usesTLS || forwardedProto?.lowercased() == "https")
    }

    /// The client a request from a trusted proxy counts as when the proxy names none: not an
    /// address, so no check takes it for this machine, and one key for the limits.
    static let unknownBehindProxy = "unknown client behind the proxy"

    private func screened(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if request.uri.string.utf8.count > Self.maxURL { throw PageError(status: 414) }
        var headerBytes = 0
        for field in request.headers { headerBytes += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
        if headerBytes > Self.maxHeaders { throw PageError(status: 431) }
        let isPost = request.method == .post
        let dav = DAVAuth.carriesCredentials(request, prefix: site.prefix)
        if let wait = site.limiter.admit(context.client, isPost: isPost, dav: dav) { throw PageError(status: 429, retryAfter: wait) }
        // One Host only: HTTP/1.1 takes the first, a proxy in front may have checked another.
        if !request.headers[values: HTTPField.Name("Host")!].isEmpty { throw PageError(status: 400) }
        guard let authority = request.head.authority, let (host, port) = splitHostPort(authority),
            site.config.allowedHosts.contains(host.lowercased())
        else { throw PageError(status: 421) }
        // An absolute-form target's authority (`AbsoluteFormTarget`) is checked as Host is, and
        // must name what Host names.
        let targets = request.headers[values: HTTPField.Name(AbsoluteFormTarget.header)!]
        if let target = targets.first {
            guard targets.count == 1, let (targetHost, targetPort) = splitHostPort(target),
                site.config.allowedHosts.contains(targetHost.lowercased())
            else { throw PageError(status: 421) }
            if targetHost.lowercased() != host.lowercased() || targetPort != port { throw PageError(status: 400) }
        }
        // A method the address does not take: 405 naming those it does. A page's GET takes
        // HEAD too (`Routes.router`: answered as the GET, without the body).
        let registered = allowed.methods(at: request.uri.path)
        let takes = registered.union(registered.contains("GET") ? ["HEAD"] : [])
        if !registered.isEmpty && !takes.contains(request.method.rawValue) {
            throw PageError(status: 405, allow: AllowedMethods.allowHeader(takes))
        }
        if isPost {
            if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > Self.maxBody {
                throw PageError(status: 413)
            }
            // A browser names the page a form was sent from (`Referrer-Policy: same-origin` on
            // every page here lets it, for this server's own forms). `Origin: null` is what a
            // sandboxed or opaque page sends: it names no site this server serves, so it is
            // refused, which also stops a foreign page signing a browser in as someone else
            // (the sign-in POST has no CSRF value). A request without Origin is not a browser's
            // form; the CSRF value decides.
            if let origin = request.headers[.origin] {
                guard let url = BaseURL.parse(origin), url.path.isEmpty, Self.isOwnOrigin(url, config: site.config, port: site.port) else {
                    throw PageError(status: 403)
                }
            }
        }
        return try await next(request, context)
    }

    /// Whether a browser's `Origin` is one of this server's own: scheme, host and port of
    /// `--base-url`, or the listen address's scheme and port with a name the server answers to.
    /// A port left out is the scheme's (80, 443).
    static func isOwnOrigin(_ origin: BaseURL, config: ServeConfig, port: Int) -> Bool {
        func effectivePort(_ u: BaseURL) -> Int { u.port ?? (u.scheme == "https" ? 443 : 80) }
        if let base = config.baseURL, base.scheme == origin.scheme, base.host == origin.host, effectivePort(base) == effectivePort(origin) {
            return true
        }
        return origin.scheme == (config.usesTLS ? "https" : "http") && config.allowedHosts.contains(origin.host)
            && effectivePort(origin) == port
    }

    static func addSecurityHeaders(_ headers: inout HTTPFields) {
        headers[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'none'; style-src 'self'; img-src 'self'; manifest-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
    }
}

/// A request refused or failed: the status, and the page's words (defaults by status).
struct PageError: Error {
    var status: Int
    var title: String?
    var text: String?
    var retryAfter: Int?
    /// A 405's `Allow`: the methods the address takes.
    var allow: String?

    init(status: Int, title: String? = nil, text: String? = nil, retryAfter: Int? = nil, allow: String? = nil) {
        self.status = status
        self.title = title
        self.text = text
        self.retryAfter = retryAfter
        self.allow = allow
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    func trimmed() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }
}
