import Foundation
import Testing

@testable import TodoStore

/// Credential helpers run with the sync's deadline.
@Suite(.timeLimit(.minutes(20)), .kit)
struct HelperProgramTests {
    /// `runProgram` blocks its thread, as libgit2's credential callback does: call it from a
    /// thread of its own, never from one of Swift concurrency's few shared threads.
    func helper(_ argv: [String], input: String = "", environment: [String: String] = [:], seconds: Double = 600) async -> String? {
        await withCheckedContinuation { done in
            Thread.detachNewThread {
                done.resume(returning: runProgram(argv, input: input, environment: environment, deadline: .now + .seconds(seconds)))
            }
        }
    }

    @Test func aHelperGetsItsInputAndItsOutputIsReturned() async {
        let out = await helper(["sh", "-c", "cat; echo done=$EXTRA"], input: "a=b\n", environment: ["EXTRA": "1"])
        #expect(out == "a=b\ndone=1\n")
    }

    @Test func aFailingHelperGivesNothing() async {
        #expect(await helper(["sh", "-c", "echo partial; exit 3"]) == nil)
    }

    @Test func aHelperThatDoesNotExistGivesNothing() async {
        #expect(await helper(["todo-no-such-helper-program"]) == nil)
    }

    @Test func aHungHelperAndWhatItStartedAreKilledAtTheDeadline() async throws {
        let dir = TempDir()
        let pidFile = dir.path + "/pid"
        // The helper starts a grandchild that would hold on for ten minutes, then waits for it.
        // The deadline leaves the helper ample time to start, even on a loaded machine.
        let out = await helper(["sh", "-c", "sleep 600 & echo $! > '\(pidFile)'; wait"], seconds: 10)
        #expect(out == nil)
        let pid = try #require(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        // The kill has been sent; give the system a bounded moment to take the process away.
        var alive = true
        for _ in 0..<100 where alive {
            alive = kill(pid, 0) == 0 && !isZombie(pid)
            if alive { usleep(50_000) }
        }
        #expect(!alive, "the helper's child \(pid) outlived the deadline")
    }

    private func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}
