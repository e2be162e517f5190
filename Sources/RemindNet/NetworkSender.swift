import Glibc
import NIOCore
import NIOPosix
import NIOSSL
import SystemPackage
import TodoCore
public import TodoStore

/// Reminders over the network: SMTP (`SMTPClient`) and HTTP POST (`HTTPPost`). Failures are
/// values, as `todo remind` words them (`DeliveryFailure`). Used by the server's scheduler and by
/// `todo-serve deliver-reminder`, which `todo remind` runs.
public enum NetworkSender {
    /// Delivers `request`; nil when the receiver took it.
    public static func deliver(_ request: NetworkDelivery) async -> DeliveryFailure? {
        do {
            switch request.target {
            case .mail(let from, let to):
                try await SMTPClient(request: request, from: from, to: to).send()
            case .post(let url):
                try await HTTPPost.send(request, url: url)
            }
            return nil
        } catch {
            return error
        }
    }

    /// The `NetworkDelivery` on standard input (`todo-serve deliver-reminder`); nil when it is
    /// not one.
    public static func readRequest() -> NetworkDelivery? {
        var input: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(0, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            input += chunk[0..<n]
            if input.count > 4 << 20 { break }
        }
        return NetworkDelivery.decode(input)
    }

    /// The TLS client settings: the system's authorities, and the file of `tls.ca` beside them.
    static func tlsConfiguration(_ settings: ReminderSettings) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        if let ca = settings.caFile { tls.additionalTrustRoots = [.file(ca)] }
        return tls
    }

    /// What went wrong talking to `host`:`port`, as a delivery failure.
    static func failure(_ error: any Error, host: String, port: Int) -> DeliveryFailure {
        if let f = error as? DeliveryFailure { return f }
        if let e = error as? NIOConnectionError {
            if e.connectionErrors.isEmpty && (e.dnsAError != nil || e.dnsAAAAError != nil) {
                return .transient(.addressNotFound(host: host))
            }
            let last = e.connectionErrors.last?.error
            if case ChannelError.connectTimeout? = last as? ChannelError {
                return .transient(.cannotConnect(host: host, port: port, errno: .timedOut))
            }
            return .transient(.cannotConnect(host: host, port: port, errno: (last as? IOError).map { Errno(rawValue: $0.errnoCode) }))
        }
        if let e = error as? ChannelError {
            if case .connectTimeout = e { return .transient(.cannotConnect(host: host, port: port, errno: .timedOut)) }
            return .transient(.connectionBroke(nil))
        }
        if let e = error as? IOError { return .transient(.connectionBroke(Errno(rawValue: e.errnoCode))) }
        return .transient(.tls(host: host, said: tlsReason(error)))
    }

    /// The TLS library's reason, short: "CERTIFICATE_VERIFY_FAILED" rather than its whole
    /// error with file and line.
    static func tlsReason(_ error: any Error) -> String {
        let text = String(describing: error)
        let marker = "OPENSSL_internal:"
        var rest = Substring(text)
        while !rest.isEmpty {
            if rest.hasPrefix(marker) { return String(rest.dropFirst(marker.count).prefix { $0 != " " && $0 != "]" && $0 != ")" }) }
            rest = rest.dropFirst()
        }
        return ReminderText.line(text)
    }
}
