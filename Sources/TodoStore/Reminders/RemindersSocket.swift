import Glibc
import SystemPackage

/// A TCP connection for the plain-text protocols reminders speak (SMTP without TLS, HTTP):
/// connect with a deadline, write all, read lines. Every wait is bounded by `timeout`.
final class PlainSocket {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let timeout: Int32

    /// Connects to `host`:`port`; throws why not.
    init(host: String, port: Int, timeoutSeconds: Int) throws(DeliveryFailure) {
        timeout = Int32(timeoutSeconds * 1000)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw .transient(.addressNotFound(host: host, code: rc))
        }
        defer { freeaddrinfo(list) }
        var lastError: Errno?
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let a = node {
            node = a.pointee.ai_next
            let s = socket(a.pointee.ai_family, a.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), a.pointee.ai_protocol)
            guard s >= 0 else { continue }
            let flags = fcntl(s, F_GETFL)
            _ = fcntl(s, F_SETFL, flags | O_NONBLOCK)
            var r = connect(s, a.pointee.ai_addr, a.pointee.ai_addrlen)
            if r != 0 && errno == EINPROGRESS {
                var p = pollfd(fd: s, events: Int16(POLLOUT), revents: 0)
                if poll(&p, 1, timeout) == 1 {
                    var err: Int32 = 0
                    var len = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len)
                    if err == 0 { r = 0 } else { errno = err }
                } else {
                    errno = ETIMEDOUT
                }
            }
            if r == 0 {
                _ = fcntl(s, F_SETFL, flags)
                fd = s
                return
            }
            lastError = Errno(rawValue: errno)
            close(s)
        }
        throw .transient(.cannotConnect(host: host, port: port, errno: lastError))
    }

    deinit { close(fd) }

    func write(_ bytes: [UInt8]) throws(DeliveryFailure) {
        var offset = 0
        while offset < bytes.count {
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&p, 1, timeout) == 1 else { throw .transient(.sendTimedOut) }
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .transient(.connectionBroke(Errno(rawValue: errno)))
            }
            offset += n
        }
    }

    func write(_ text: String) throws(DeliveryFailure) { try write(Array(text.utf8)) }

    /// One line without its CRLF; nil at the end of the stream. Lines are at most 64 KiB.
    func readLine() throws(DeliveryFailure) -> String? {
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<nl])
                buffer.removeSubrange(...nl)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard buffer.count < 65536 else { throw .transient(.lineTooLong) }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, timeout) == 1 else { throw .transient(.answerTimedOut) }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n < 0 {
                if errno == EINTR { continue }
                throw .transient(.connectionBroke(Errno(rawValue: errno)))
            }
            if n == 0 {
                if buffer.isEmpty { return nil }
                let rest = buffer
                buffer = []
                return String(decoding: rest, as: UTF8.self)
            }
            buffer += chunk[0..<n]
        }
    }
}

enum Base64 {
    static func encode(_ bytes: [UInt8]) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let b0 = bytes[i]
            let b1 = i + 1 < bytes.count ? bytes[i + 1] : 0
            let b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
            out.append(table[Int(b0 >> 2)])
            out.append(table[Int((b0 & 3) << 4 | b1 >> 4)])
            out.append(i + 1 < bytes.count ? table[Int((b1 & 15) << 2 | b2 >> 6)] : 0x3D)
            out.append(i + 2 < bytes.count ? table[Int(b2 & 63)] : 0x3D)
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
