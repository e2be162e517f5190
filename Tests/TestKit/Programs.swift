import Foundation
import Testing

// The programs tests run besides `todo`. A missing one fails the test and names the Debian
// package that installs it: CI installs them all with scripts/servers/install.sh, so a skip
// would only hide a missing install step.

/// The Debian package that installs each program the tests run; scripts/servers/install.sh
/// installs every one of them.
public let debianPackages: [String: String] = [
    "git": "git", "git-daemon": "git", "git-http-backend": "git",
    "sshd": "openssh-server",
    "ssh": "openssh-client", "ssh-keygen": "openssh-client", "ssh-agent": "openssh-client", "ssh-add": "openssh-client",
    "ssh-keyscan": "openssh-client",
    "python3": "python3", "openssl": "openssl", "strace": "strace", "cc": "gcc",
    "sh": "dash", "unshare": "util-linux", "mount": "mount", "readelf": "binutils",
    "nm": "binutils", "curl": "curl",
]

public let serverInstallHint = "run scripts/servers/install.sh (as root it installs what the tests need)"

/// Why `name` is needed and how to get it, for a failing test.
public func missingProgramMessage(_ name: String, at path: String? = nil) -> String {
    let package = debianPackages[name].map { "the Debian package \($0) installs it" } ?? "no Debian package is known for it"
    return "\(path ?? name) is not installed: \(package); \(serverInstallHint)"
}

/// Where a program is: the system directories first (the test servers' packages put their
/// programs there, and sshd is often outside an ordinary user's PATH), then `$PATH`.
public func findProgram(_ name: String) -> String? {
    let system = ["/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/local/bin", "/usr/local/sbin"]
    let path = (environment("PATH") ?? "").split(separator: ":").map(String.init)
    return (system + path).lazy.map { $0 + "/" + name }.first(where: isExecutableFile)
}

/// A program a test needs: a missing one fails the test, naming the package that installs it.
@discardableResult
public func requireProgram(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    try #require(findProgram(name), "\(missingProgramMessage(name))", sourceLocation: sourceLocation)
}

/// git's own helper programs (`git-daemon`, `git-http-backend`) live in `git --exec-path`.
public func requireGitProgram(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let execPath = gitExecPath ?? "(git --exec-path failed)"
    try #require(
        isExecutableFile(execPath + "/" + name), "\(missingProgramMessage(name, at: execPath + "/" + name))",
        sourceLocation: sourceLocation)
}

/// Where `git` is; tests judge what `todo` wrote with the git CLI.
public let gitBinary: String = findProgram("git") ?? "/usr/bin/git"

public let gitExecPath: String? = {
    guard let r = try? runProcess(gitBinary, ["--exec-path"]), r.exitCode == 0 else { return nil }
    return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}()
