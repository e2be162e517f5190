import Glibc
import Foundation
import Testing

/// The test kit keeps its promises: a process sees only the environment it is given, its output
/// is whole however much it prints, a hung one is killed with everything it started, a wait on a
/// server line ends, and every program the tests run is installed.
@Suite(.timeLimit(.minutes(20)), .kit) struct TestKitTests {
    @Test func aProcessGetsOnlyTheHermeticEnvironmentAndWhatTheTestGives() throws {
        let r = try runProcess("/usr/bin/env", [], environment: ["TODO_EXTRA": "1"])
        #expect(r.exitCode == 0, "\(r)")
        let names = Set(r.lines.map { String($0.prefix { $0 != "=" }) })
        #expect(names == ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "GIT_CONFIG_NOSYSTEM", "TODO_EXTRA"], "\(r)")
        #expect(r.lines.contains("PATH=\(minimalPath)") && r.lines.contains("HOME=\(absentHome)"), "\(r)")
    }

    /// Ids are seeded (docs/TESTING.md): the same seed and clock give the same replica and
    /// task ids on every run; another sandbox of the same test gets other ids.
    @Test func idsAreTheSameOnEveryRun() throws {
        let first = try Sandbox()
        let again = try Sandbox()
        let other = try Sandbox()
        #expect(first.idSeed != again.idSeed && first.idSeed != other.idSeed)
        again.idSeed = first.idSeed
        var ids: [String] = []
        for sb in [first, again, other] {
            try sb.initHousehold()
            for title in ["milk", "eggs", "bread"] { _ = try sb.add(title) }
            let listed = try json(try sb.todo("list", "--json").stdout).items ?? []
            ids.append(listed.compactMap { $0["id"]?.stringValue }.sorted().joined(separator: " "))
        }
        #expect(ids[0].count > 90)
        #expect(ids[0] == ids[1], "one seed, one clock: the same ids")
        #expect(ids[0] != ids[2], "another seed: other ids")
    }

    @Test func bothStreamsAreWholeHoweverMuchIsPrintedAndStandardInputArrives() throws {
        let big = try runProcess("/bin/sh", ["-c", "head -c 3000000 /dev/zero; head -c 2000000 /dev/zero >&2"])
        #expect(big.exitCode == 0 && big.stdoutBytes.count == 3_000_000 && big.stderrBytes.count == 2_000_000)
        let echoed = try runProcess("/bin/cat", [], stdin: .text("milk\nbread\n"))
        #expect(echoed.stdout == "milk\nbread\n", "\(echoed)")
        let nothing = try runProcess("/bin/cat", [])
        #expect(nothing.exitCode == 0 && nothing.stdoutBytes.isEmpty, "standard input is empty: \(nothing)")
        let elsewhere = try runProcess("/bin/pwd", [], directory: "/usr")
        #expect(elsewhere.stdout == "/usr\n", "\(elsewhere)")
    }

    /// The shell prints the pid of a child it started in the background, then waits for ever.
    @Test func aProcessPastItsDeadlineIsKilledWithItsWholeGroupAndTheTestSeesItsOutput() throws {
        let error = #expect(throws: SpawnError.self) {
            try runProcess("/bin/sh", ["-c", "sleep 600 & echo $!; echo waiting >&2; wait"], timeout: .seconds(10))
        }
        let text = error?.description ?? ""
        #expect(text.contains("was killed, still running after 10.0 seconds"), "\(text)")
        #expect(text.contains("--- stderr:\nwaiting\n"), "what it printed so far is shown: \(text)")
        let lines = text.split(separator: "\n")
        let child = try #require(lines.firstIndex(of: "--- stdout:").flatMap { pid_t(lines[$0 + 1]) }, "\(text)")
        // Gone, a zombie waiting for init to reap it, or killed and not yet scheduled to die
        // (SIGKILL, bit 9, pending): a loaded machine may take a while to run it once more.
        let status = (try? String(contentsOfFile: "/proc/\(child)/status", encoding: .utf8)) ?? ""
        let fields = Dictionary(
            status.split(separator: "\n").map { line in
                (String(line.prefix { $0 != ":" }), line.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces))
            }, uniquingKeysWith: { first, _ in first })
        let killPending = ["SigPnd", "ShdPnd"].contains { UInt64(fields[$0] ?? "", radix: 16).map { $0 & 0x100 != 0 } ?? false }
        let gone = status.isEmpty || fields["State"]?.hasPrefix("Z") == true
        #expect(gone || killPending, "the background sleep \(child) lives on:\n\(status)")
    }

    /// A server that never says it is ready: the wait ends, the test fails (here expectedly),
    /// and the server is not tried again on another port.
    @Test func aServerThatNeverSaysItIsReadyIsNotWaitedForForEver() throws {
        var thrown: (any Error)?
        withKnownIssue("the wait records the missing line as a failure") {
            do {
                _ = try ServerProcess.start(
                    "mute", "/bin/sh", ["-c", "echo starting; exec sleep 600"], environment: [:], ready: "listening",
                    timeout: .seconds(3))
            } catch {
                thrown = error
            }
        }
        let error = try #require(thrown as? SpawnError, "\(String(describing: thrown))")
        #expect(error.description.contains("mute was not ready in time:\nstarting"), "\(error)")
    }

    /// CI installs them all with scripts/servers/install.sh; this names whatever it missed.
    @Test func everyProgramTheTestsRunIsInstalled() throws {
        for (program, package) in debianPackages.sorted(by: { $0.key < $1.key }) {
            let found = program.hasPrefix("git-") ? gitExecPath.map { isExecutableFile($0 + "/" + program) } ?? false : findProgram(program) != nil
            #expect(found, "\(missingProgramMessage(program))")
            #expect(missingProgramMessage(program).contains("the Debian package \(package) installs it"))
        }
    }
}
