import Glibc
import Foundation
import Testing

/// A server that breaks the connection after its ref advertisement (scripts/servers/
/// faulty_server.py): a reset, or silence that only `--timeout` ends. libgit2 then writes to a
/// dead socket, which must be an ordinary transient failure, never a death by SIGPIPE.
@Suite(.timeLimit(.minutes(20)), .kit) struct BrokenConnectionTests {
    static let pending = "Not sent yet"

    @Test(arguments: ["git", "http"], ["reset", "stall"])
    func aConnectionBrokenAfterTheAdvertisementIsATransientFailure(scheme: String, fault: String) throws {
        let box = try Sandbox()
        let (server, port) = try startFaultyServer(protocol: scheme, fault: fault, home: box.home)
        defer { server.stop() }
        let url = "\(scheme)://127.0.0.1:\(port)/household.git"
        let alice = try Member("Alice", host: nil)
        try alice.change("init", "--name", "Alice", "--email", alice.email)
        _ = try alice.add(Self.pending)
        try alice.change("remote", "set", url)
        let before = try LocalState(alice)

        let r = try alice.todo("sync", "--timeout", "3")
        #expect(r.signal == nil, "killed by a signal: \(r)")
        #expect(r.exitCode == 75, "\(r)")
        #expect(r.stdout.isEmpty, "\(r)")
        let message = fault == "stall" ? "The household remote did not answer within 3 seconds" : "Could not reach the household remote \(url)"
        #expect(r.stderr.hasPrefix("todo: " + message), "\(r)")
        #expect(r.stderr.contains("Your 1 change is saved and will be sent on the next sync."), "\(r)")
        // The client got past the advertisement and met the fault.
        #expect(server.output.count(containing: "fault: \(fault)") >= 1, "\(server.output.text)")
        if fault == "reset" {
            #expect(server.output.count(containing: "fault: reset") >= 2, "not retried: \(server.output.text)")
        }

        let log = alice.syncLog.split(separator: "\n")
        #expect(log.count == 1, "\(alice.syncLog)")
        #expect(
            log.last.map { $0.contains("remote=\(url) outcome=error class=transient") && $0.contains(message) } == true,
            "\(alice.syncLog)")

        let status = try alice.todo("status")
        #expect(status.exitCode == 0, "\(status)")
        #expect(status.stdout.contains("Last error: " + message), "\(status)")
        let json = try json(try alice.todo("status", "--json").stdout)
        #expect(json["lastError"]?.stringValue?.hasPrefix(message) == true, "\(json)")
        #expect(json["lastErrorClass"] == .string("transient"), "\(json)")

        try expectUntouched(alice, since: before, pending: [Self.pending])
    }

    /// scripts/servers/faulty_server.py; returns it and its port once it listens.
    func startFaultyServer(protocol proto: String, fault: String, home: String) throws -> (ServerProcess, UInt16) {
        let python = try requireProgram("python3")
        let script = packageRoot + "/scripts/servers/faulty_server.py"
        let (server, line) = try ServerProcess.start(
            "faulty_server.py", python, [script, "--protocol", proto, "--fault", fault, "--lifetime", "170"],
            environment: serverEnvironment(home: home), ready: "listening on 127.0.0.1 port ")
        let port = try #require(line.split(separator: " ").last.flatMap { UInt16($0) }, "no port in \(line)")
        return (server, port)
    }
}

/// `todo list | head -1`: a reader that goes away after the first line ends the command
/// quietly, with status 0 and nothing on stderr.
@Suite(.timeLimit(.minutes(20)), .kit) struct ClosedOutputTests {
    @Test func aReaderThatLeavesAfterTheFirstLineEndsTheCommandQuietly() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        // Far more output than a pipe holds, so that `todo` is still writing when the reader leaves.
        let tasks = (0..<1500).map { jsonObject(["title": "Task number \($0) with a title long enough to fill a pipe quickly"]) }
        let imported = try sb.todo("import", try sb.file("many.json", jsonArray(tasks)))
        try #require(imported.exitCode == 0, "\(imported)")
        for args in [["list"], ["list", "--json"], ["log"], ["list", "--all"]] {
            let (r, first) = try readFirstLine(sb, args)
            #expect(r.signal == nil, "killed by a signal: \(r)")
            #expect(r.exitCode == 0, "\(r)")
            #expect(r.stderr.isEmpty, "\(r)")
            #expect(!first.isEmpty, "\(args): no first line")
        }
    }

    /// Runs `todo args` with standard output on a pipe, reads its first line and closes the
    /// pipe, as `head -1` does. SIGPIPE has its default disposition in the child, as a shell
    /// gives it.
    func readFirstLine(_ sb: Sandbox, _ args: [String]) throws -> (Run, String) {
        let (_, errPath) = sb.nextIO()
        let (spawned, reader) = try spawnReadingStdout(
            todoBinary, args, environment: sb.todoEnvironment([:]), stdinPath: sb.root + "/io/empty", stderrPath: errPath)
        let fds = [reader]
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = read(fds[0], &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || byte == 0x0A { break }
            line.append(byte)
        }
        close(fds[0])
        let run = spawned.wait()
        return (run, String(decoding: line, as: UTF8.self))
    }
}
