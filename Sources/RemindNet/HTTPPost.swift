import SystemPackage
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import TodoCore
import TodoStore

/// A reminder POSTed as plain text (ntfy's publish API and any receiver like it) through
/// async-http-client: the Idempotency-Key, a Title when the subject is plain ASCII, the Done
/// buttons as ntfy's `Actions` and the member's page as `Click`.
enum HTTPPost {
    static func send(_ request: NetworkDelivery, url: String) async throws(DeliveryFailure) {
        guard let parts = URLParts(url) else { throw .refused(.notHTTPURL(url: url)) }
        let message = request.message
        let timeout = TimeAmount.seconds(Int64(request.timeoutSeconds))
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: NetworkSender.tlsConfiguration(request.settings), redirectConfiguration: .disallow,
            timeout: .init(connect: timeout, read: timeout))
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        var post = HTTPClientRequest(url: url)
        post.method = .POST
        for (name, value) in headers(message, token: request.settings.postToken) { post.headers.add(name: name, value: value) }
        post.body = .bytes(ByteBuffer(string: message.body))
        let outcome: Result<(Int, String), any Error>
        do {
            let response = try await client.execute(post, deadline: .now() + timeout)
            _ = try? await response.body.collect(upTo: 1 << 20)  // the status decides; the body is only read off
            let said = "HTTP/\(response.version.major).\(response.version.minor) \(response.status.code) \(response.status.reasonPhrase)"
            outcome = .success((Int(response.status.code), said))
        } catch {
            outcome = .failure(error)
        }
        try? await client.shutdown()  // the answer is in; a client that does not close cleanly loses nothing
        switch outcome {
        case .success(let (code, said)):
            if (200...299).contains(code) { return }
            let answer = DeliveryProblem.httpAnswer(host: parts.host, status: code, said: ReminderText.line(said))
            throw code >= 500 || code == 408 || code == 429 ? .transient(answer) : .refused(answer)
        case .failure(let error):
            if let e = error as? HTTPClientError {
                if e == .readTimeout || e == .deadlineExceeded { throw .transient(.answerTimedOut) }
                if e == .connectTimeout { throw .transient(.cannotConnect(host: parts.host, port: parts.port, errno: .timedOut)) }
                if e == .remoteConnectionClosed { throw .transient(.connectionBroke(nil)) }
            }
            throw NetworkSender.failure(error, host: parts.host, port: parts.port)
        }
    }

    /// The headers of the POST, in order.
    static func headers(_ message: ReminderMessage, token: String?) -> [(String, String)] {
        var headers = [("Content-Type", "text/plain; charset=utf-8"), ("Idempotency-Key", message.messageID), ("User-Agent", "todo")]
        if message.subject.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { headers.append(("Title", message.subject)) }
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if let click = message.click { headers.append(("Click", click)) }
        if !message.links.isEmpty {
            // ntfy's JSON form of the header, all ASCII (any other character as \u), so a
            // label keeps every letter of its title.
            let actions = message.links.prefix(3).map { link in
                "{\"action\":\"http\",\"label\":\(asciiJSON(link.label)),\"url\":\(asciiJSON(link.url)),\"method\":\"POST\",\"clear\":true}"
            }
            headers.append(("Actions", "[" + actions.joined(separator: ",") + "]"))
        }
        return headers
    }

    /// `text` as a JSON string of ASCII only: controls, `"`, `\` and every character past
    /// U+007E escaped as `\uXXXX` (UTF-16, surrogate pairs for the rest).
    static func asciiJSON(_ text: String) -> String {
        var out = "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default:
                let hex = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out + "\""
    }
}
