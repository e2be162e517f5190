import Glibc
import GitKit
import Testing

/// A sync's deadline ends its own transfer's sockets and no other socket of the process (a
/// server keeps serving while one of its syncs times out).
@Suite(.timeLimit(.minutes(1))) struct TransferSocketsTests {
    /// A listening socket on 127.0.0.1 and its port.
    func listener() throws -> (Int32, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        try #require(bound == 0)
        try #require(listen(fd, 8) == 0)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (fd, UInt16(bigEndian: addr.sin_port))
    }

    func connectTo(_ port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = port.bigEndian
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(rc == 0)
        return fd
    }

    @Test func aTransfersDeadlineShutsItsSocketsOnly() throws {
        let (server, port) = try listener()
        defer { close(server) }
        let transfer = TransferSockets()
        transfer.begin()
        let mine = try connectTo(port)
        transfer.end()
        let unrelated = try connectTo(port)  // another transfer's, or a server's: untouched
        defer { [mine, unrelated].forEach { close($0) } }
        // `end` forgot the transfer's sockets: nothing to shut afterwards.
        #expect(transfer.shutDown() == 0)

        let live = TransferSockets()
        live.begin()
        let watched = try connectTo(port)
        defer { close(watched) }
        #expect(live.shutDown() == 1, "the live transfer's socket, and nothing else")
        live.end()
        var byte: UInt8 = 0
        #expect(recv(watched, &byte, 1, 0) == 0, "a shut socket reads end of file at once")
        #expect(send(unrelated, "x", 1, Int32(MSG_NOSIGNAL)) == 1, "another socket still works")
    }
}
