import Glibc
import Foundation
import Testing

// The sync tests' own servers; how they are started, waited for and stopped is the test kit's
// (ServerProcess, LineReader).

/// The login name the tests' sshd lets in: whoever runs the tests.
let loginName: String = {
    guard let pw = getpwuid(geteuid()), let name = pw.pointee.pw_name else { return "root" }
    return String(cString: name)
}()

/// scripts/servers/git_http_server.py with `args`; returns it and its port once it listens.
func startHTTPServer(_ args: [String], home: String) throws -> (ServerProcess, UInt16) {
    let python = try requireProgram("python3")
    try requireGitProgram("git-http-backend")
    let script = packageRoot + "/scripts/servers/git_http_server.py"
    let (server, line) = try ServerProcess.start(
        "git_http_server.py", python, [script] + args, environment: serverEnvironment(home: home),
        ready: "listening on 127.0.0.1 port ")
    let port = try #require(line.split(separator: " ").last.flatMap { UInt16($0) }, "no port in \(line)")
    return (server, port)
}
