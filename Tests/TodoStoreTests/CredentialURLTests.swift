import Testing

@testable import TodoStore

/// The user name and password in a remote's URL are read as git reads them; git itself is the
/// judge (`git credential fill` answers from the URL alone when it holds both).
@Suite(.timeLimit(.minutes(5)), .kit)
struct CredentialURLTests {
    @Test(arguments: [
        "alice:secret",
        // Escapes in either case; `+` is not a space in a URL.
        "al%69ce+x:p%40ss%2Bw+rd%3a%2F",
        // A `%` without two hex digits after it stays: at the end, before one digit, before a
        // sign (which a number parser would take), before a non-digit.
        "bob%:tail%",
        "bob%4:x%4",
        "bob%+f:x%-1",
        "bob%zz:x%g0%%41",
        // UTF-8 decoded; bytes that are not UTF-8 become U+FFFD on both sides.
        "j%C3%BCrgen:%E2%82%AC%FF%C3",
    ])
    func userAndPasswordAsGitDecodesThem(_ userinfo: String) throws {
        let url = "https://\(userinfo)@host.example/household.git"
        let ours = try #require(CredentialSource.userPass(inURL: url))
        let git = try run(["git", "-c", "credential.helper=", "credential", "fill"], env: ["GIT_TERMINAL_PROMPT": "0"], input: "url=\(url)\n\n")
        var fields: [String: String] = [:]
        for line in git.stdoutBytes.split(separator: UInt8(ascii: "\n")) {
            let kv = line.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            if kv.count == 2 { fields[String(decoding: kv[0], as: UTF8.self)] = String(decoding: kv[1], as: UTF8.self) }
        }
        #expect(ours.0 == fields["username"], "user name of \(userinfo)")
        #expect(ours.1 == fields["password"], "password of \(userinfo)")
    }
}
