import Foundation
import Testing

/// A raw TCP connection to the server, from a chosen loopback address (127.0.0.2 is another
/// client than 127.0.0.1 to the server), for requests no HTTP client sends: half-sent heads,
/// trickled bodies.
final class RawConnection {
    let fd: Int32

    init(port: Int, from source: String = "127.0.0.1") throws {
        // The socket is this value's only once it is connected: a throw after `self.fd` is set
        // runs `deinit`, which would close the descriptor a second time, and by then its number
        // may be another thread's (a server's output pipe).
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SpawnError(description: "socket: \(String(cString: strerror(errno)))") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = UInt16(port).bigEndian
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) } }
        guard bound == 0, connected == 0 else {
            let e = errno
            close(fd)
            throw SpawnError(description: "connect from \(source): \(String(cString: strerror(e)))")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends all of `text`; false when the server closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// Waits up to `milliseconds` for the server to send something or close; what it sent, ""
    /// when it closed, nil when it did neither.
    func receive(within milliseconds: Int32) -> String? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&p, 1, milliseconds)
        guard ready > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n <= 0 ? "" : String(decoding: buffer[0..<n], as: UTF8.self)
    }

    /// Whether the server has closed the connection (or sent something) by now, without waiting.
    var isClosedByServer: Bool { receive(within: 0) != nil }

    /// Everything the server sends until it closes, waiting at most `seconds` in all.
    func readToEnd(seconds: Int) -> String {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var out = ""
        while ContinuousClock.now < deadline {
            guard let part = receive(within: 500) else { continue }
            if part.isEmpty { break }
            out += part
        }
        return out
    }
}

/// The connection limits of `todo-serve` (docs/THREAT-MODEL.md, "exhaustion"): one address
/// holding many half-sent requests does not keep another address waiting, and a request sent
/// too slowly is cut off.
@Suite(.kit, .timeLimit(.minutes(3)), .serialized)
struct ServeConnectionTests {
    let serveBinary = directoryName(todoBinary) + "/todo-serve"

    func startServer(_ sb: Sandbox) throws -> (ServerProcess, Int) {
        #expect(try sb.todo("init", "--name", "Ann").status == 0)
        let (server, line) = try ServerProcess.start(
            "todo-serve", serveBinary, ["--listen", "127.0.0.1:0", "--sync-every", "0"],
            environment: sb.todoEnvironment(["XDG_STATE_HOME": sb.root + "/state", "TODO_SERVE_TODO": todoBinary]),
            ready: "todo-serve: listening on")
        let port = try #require(Int(line.split(separator: ":").last?.dropLast() ?? ""))
        return (server, port)
    }

    /// 70 half-sent requests from 127.0.0.1 (more than all the server's slots once held): a
    /// request from 127.0.0.2 is answered while some of them are still open, and the server
    /// closes every one of them itself.
    @Test func halfSentRequestsFromOneAddressDoNotHoldUpAnother() throws {
        let sb = try Sandbox()
        let (server, port) = try startServer(sb)
        defer { server.stop() }
        var slow: [RawConnection] = []
        for _ in 0..<70 {
            let c = try RawConnection(port: port)
            c.send("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n")
            slow.append(c)
        }
        let other = try RawConnection(port: port, from: "127.0.0.2")
        #expect(other.send("GET /static/app.css HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"))
        let answer = other.readToEnd(seconds: 60)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(200))")
        // Answered while the first address's allowed connections still wait for their heads.
        let stillOpen = slow.filter { !$0.isClosedByServer }.count
        #expect(stillOpen > 0, "every half-sent request was closed before the other address was answered")
        // Each half-sent request is closed by the server: past the address's share at once,
        // the rest when their time to send the head is up.
        for c in slow { #expect(c.readToEnd(seconds: 60) == "") }
    }

    /// Behind --trust-proxy the proxy's connections are not capped by its address (its clients
    /// are, per request): a 21st connection from the proxy's address is answered while 20 of
    /// its connections wait for their heads.
    @Test func aTrustedProxysConnectionsAreNotCappedByItsAddress() throws {
        let sb = try Sandbox()
        #expect(try sb.todo("init", "--name", "Ann").status == 0)
        let (server, line) = try ServerProcess.start(
            "todo-serve", serveBinary,
            ["--listen", "127.0.0.1:0", "--sync-every", "0", "--trust-proxy", "127.0.0.1", "--base-url", "https://nas.example/todo"],
            environment: sb.todoEnvironment(["XDG_STATE_HOME": sb.root + "/state", "TODO_SERVE_TODO": todoBinary]),
            ready: "todo-serve: listening on")
        defer { server.stop() }
        let port = try #require(Int(line.split(separator: ":").last?.dropLast() ?? ""))
        var waiting: [RawConnection] = []
        for n in 0..<20 {
            let c = try RawConnection(port: port)
            c.send("GET /todo/health HTTP/1.1\r\nHost: nas.example\r\nX-Forwarded-For: 10.0.0.\(n)\r\n")
            waiting.append(c)
        }
        let last = try RawConnection(port: port)
        #expect(last.send("GET /todo/health HTTP/1.1\r\nHost: nas.example\r\nX-Forwarded-For: 10.0.0.99\r\nConnection: close\r\n\r\n"))
        let answer = last.readToEnd(seconds: 60)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(200))")
        #expect(answer.hasSuffix("ok\n"), "\(answer)")
    }

    /// Twenty stops and starts on one port while a client keeps asking for /health: every start
    /// binds (says it listens; no exit 75 "in use"), every stop exits 0, and the client is
    /// answered by each run.
    @Test func twentyRestartsOnOnePortEachBindWhileAClientKeepsAsking() throws {
        let sb = try Sandbox()
        let (first, port) = try startServer(sb)
        first.stop()
        let asking = Asker(port: port)
        asking.start()
        defer { asking.finish() }
        for round in 1...20 {
            let before = asking.answered
            let (server, line) = try ServerProcess.start(
                "todo-serve", serveBinary, ["--listen", "127.0.0.1:\(port)", "--sync-every", "0"],
                environment: sb.todoEnvironment(["XDG_STATE_HOME": sb.root + "/state", "TODO_SERVE_TODO": todoBinary]),
                ready: "todo-serve: listening on")
            #expect(line.contains("127.0.0.1:\(port)/"), "round \(round): \(line)")
            #expect(asking.waitForAnswers(after: before), "round \(round): the client got no answer from this run")
            let status = server.terminate()
            #expect(status & 0x7f == 0 && (status >> 8) & 0xff == 0, "round \(round): \(status)\n\(server.output.text)")
        }
    }

    /// A body sent a byte a second is cut off: the connection is closed before the body is
    /// whole, so a client cannot hold a connection for as long as it likes by trickling.
    @Test func aTrickledBodyIsCutOff() throws {
        let sb = try Sandbox()
        let (server, port) = try startServer(sb)
        defer { server.stop() }
        let c = try RawConnection(port: port)
        let length = 60
        #expect(c.send("POST /i HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(length)\r\n\r\n"))
        var sent = 0
        var answer: String?
        while sent < length {
            guard c.send("a") else { break }
            sent += 1
            // The trickle's pace: a byte a second, unless the server answers or closes first.
            if let got = c.receive(within: 1000) {
                answer = got
                break
            }
        }
        #expect(sent < length, "the whole body was taken, a byte a second")
        #expect(answer == nil || answer == "", "\(answer ?? "")")
    }
}

/// A client on a thread of its own asking for /health over and over, new connection each time,
/// refused connections (between runs) counted apart.
final class Asker: @unchecked Sendable {
    let port: Int
    private let condition = NSCondition()
    private var count = 0
    private var stopping = false
    private var thread: Thread?

    init(port: Int) { self.port = port }

    var answered: Int {
        condition.lock()
        defer { condition.unlock() }
        return count
    }

    func start() {
        let t = Thread { [self] in
            while true {
                condition.lock()
                let stop = stopping
                condition.unlock()
                if stop { break }
                guard let c = try? RawConnection(port: port) else {
                    usleep(5_000)  // refused between runs: no busy loop beside the starting server
                    continue
                }
                c.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
                if c.readToEnd(seconds: 10).hasPrefix("HTTP/1.1 200") {
                    condition.lock()
                    count += 1
                    condition.broadcast()
                    condition.unlock()
                }
            }
        }
        thread = t
        t.start()
    }

    /// Waits (at most 60 s) for an answer after `before` answers; whether one came.
    func waitForAnswers(after before: Int) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 60)
        condition.lock()
        defer { condition.unlock() }
        while count <= before {
            if Date() >= deadline { return false }
            _ = condition.wait(until: min(deadline, Date(timeIntervalSinceNow: 0.25)))
        }
        return true
    }

    func finish() {
        condition.lock()
        stopping = true
        condition.unlock()
    }
}
