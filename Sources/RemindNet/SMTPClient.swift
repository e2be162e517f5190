import Glibc
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import TodoCore
import TodoStore

/// One SMTP conversation (RFC 5321) over swift-nio: without TLS for a relay on this machine or
/// the local network, STARTTLS (RFC 3207) or TLS from the first byte (RFC 8314), the server's
/// certificate checked against the system's authorities. The whole conversation is bounded by
/// the request's timeout.
struct SMTPClient {
    let request: NetworkDelivery
    let from: String
    let to: String

    var settings: ReminderSettings { request.settings }

    func send() async throws(DeliveryFailure) {
        guard let host = settings.smtpHost else { throw .refused(.sendmailFailed(program: settings.sendmail)) }
        let security = settings.smtpSecurity ?? (ReminderSettings.isLoopback(host) ? .none : .starttls)
        let port = settings.smtpPort ?? (security == .tls ? 465 : security == .starttls ? 587 : 25)
        if security == .none && settings.smtpUser != nil && !ReminderSettings.isLoopback(host) {
            throw .refused(.loginInClear)
        }
        let timeout = TimeAmount.seconds(Int64(request.timeoutSeconds))
        let context: NIOSSLContext?
        do {
            context = security == .none ? nil : try NIOSSLContext(configuration: NetworkSender.tlsConfiguration(settings))
        } catch {
            throw .refused(.tls(host: host, said: ReminderText.line(String(describing: error))))
        }
        let serverName = Self.isAddress(host) ? nil : host
        let (stream, continuation) = AsyncThrowingStream<String, any Error>.makeStream()
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(timeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if security == .tls, let context {
                            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                        }
                        try channel.pipeline.syncOperations.addHandler(LineHandler(continuation))
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            throw NetworkSender.failure(error, host: host, port: port)
        }
        let timedOut = NIOLockedValueBox(false)
        let timer = channel.eventLoop.scheduleTask(in: timeout) {
            timedOut.withLockedValue { $0 = true }
            channel.close(promise: nil)
        }
        defer {
            timer.cancel()
            channel.close(promise: nil)
        }
        var conversation = Conversation(channel: channel, lines: stream.makeAsyncIterator(), host: host, port: port, timedOut: timedOut)
        try await conversation.expect(.connection)
        var features = try await conversation.command("EHLO \(Self.hostName())", .ehlo)
        if security == .starttls, let context {
            guard features.contains(where: { $0.uppercased().dropFirst(4).hasPrefix("STARTTLS") }) else {
                throw .refused(.noStartTLS(host: host))
            }
            _ = try await conversation.command("STARTTLS", .startTLS)
            do {
                try await channel.eventLoop.submit {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName), position: .first)
                }.get()
            } catch {
                throw NetworkSender.failure(error, host: host, port: port)
            }
            features = try await conversation.command("EHLO \(Self.hostName())", .ehlo)
        }
        if let user = settings.smtpUser {
            guard features.contains(where: { $0.uppercased().contains("AUTH") && $0.uppercased().contains("PLAIN") }) else {
                throw .refused(.noAuthPlain(host: host))
            }
            let password = settings.smtpPassword ?? ""
            _ = try await conversation.command("AUTH PLAIN " + Base64.encode([0] + Array(user.utf8) + [0] + Array(password.utf8)), .login)
        }
        let eight = features.contains { $0.uppercased().contains("8BITMIME") }
        _ = try await conversation.command("MAIL FROM:<\(from)>" + (eight ? " BODY=8BITMIME" : ""), .sender(from))
        _ = try await conversation.command("RCPT TO:<\(to)>", .recipient(to))
        _ = try await conversation.command("DATA", .data)
        try await conversation.write(request.message.smtpData(from: from, to: to, nowMillis: request.nowMillis))
        try await conversation.expect(.message)
        // The message was accepted; a server that hangs up before QUIT loses nothing.
        try? await conversation.write("QUIT\r\n")
    }

    /// Whether `host` is an IP address (no name to send in TLS's server name).
    static func isAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil  // not an address: a name
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(cString: buffer)
        return name.isEmpty || !name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) ? "localhost" : name
    }
}

/// The conversation's side: write a command, read its (multi-line) answer.
private struct Conversation {
    let channel: any Channel
    var lines: AsyncThrowingStream<String, any Error>.AsyncIterator
    let host: String
    let port: Int
    let timedOut: NIOLockedValueBox<Bool>

    mutating func command(_ line: String, _ step: SMTPStep) async throws(DeliveryFailure) -> [String] {
        try await write(line + "\r\n")
        return try await expect(step)
    }

    mutating func write(_ text: String) async throws(DeliveryFailure) {
        do {
            try await channel.writeAndFlush(ByteBuffer(string: text)).get()
        } catch {
            // The write failed because the connection ended: why it ended (a TLS failure, a
            // reset) is what the lines' end says.
            do {
                while try await lines.next() != nil {}
            } catch let cause {
                throw fault(cause)
            }
            throw fault(error)
        }
    }

    /// The answer to `step`, when its code is 2xx or 3xx.
    @discardableResult
    mutating func expect(_ step: SMTPStep) async throws(DeliveryFailure) -> [String] {
        var answer: [String] = []
        while true {
            let line: String?
            do {
                line = try await lines.next()
            } catch {
                throw fault(error)
            }
            guard let line else {
                if timedOut.withLockedValue({ $0 }) { throw .transient(.answerTimedOut) }
                throw .transient(.smtpClosed(host: host))
            }
            answer.append(line)
            let bytes = Array(line.utf8)
            guard bytes.count >= 3, let code = Int(String(decoding: bytes[0..<3], as: UTF8.self)) else {
                throw .transient(.notSMTP(host: host))
            }
            if bytes.count > 3 && bytes[3] == 0x2D { continue }
            guard (200...399).contains(code) else {
                let said = DeliveryProblem.smtpAnswer(host: host, step: step, code: code, said: ReminderText.line(line))
                throw code >= 500 ? .refused(said) : .transient(said)
            }
            return answer
        }
    }

    func fault(_ error: any Error) -> DeliveryFailure {
        if timedOut.withLockedValue({ $0 }) { return .transient(.answerTimedOut) }
        if error is LineTooLong { return .transient(.lineTooLong) }
        return NetworkSender.failure(error, host: host, port: port)
    }
}

private struct LineTooLong: Error {}

/// Splits what arrives into lines (CRLF or LF) for the conversation.
private final class LineHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let continuation: AsyncThrowingStream<String, any Error>.Continuation
    private var buffer: [UInt8] = []

    init(_ continuation: AsyncThrowingStream<String, any Error>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        buffer += bytes.readBytes(length: bytes.readableBytes) ?? []
        while let nl = buffer.firstIndex(of: 0x0A) {
            var line = Array(buffer[..<nl])
            buffer.removeSubrange(...nl)
            if line.last == 0x0D { line.removeLast() }
            continuation.yield(String(decoding: line, as: UTF8.self))
        }
        if buffer.count > 65536 {
            continuation.finish(throwing: LineTooLong())
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }
}
