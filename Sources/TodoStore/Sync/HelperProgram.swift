import Glibc
import Dispatch
import Subprocess
import SystemPackage
import Synchronization

/// Runs a helper program (git's credential helpers) with `input` on its standard input and
/// returns its standard output; nil if it could not be run, failed, or was still running at
/// `deadline`. A helper still running then is killed, with its process
/// group when it has one of its own (`isolated`), so that a hung helper, or one it started,
/// cannot outlive the sync's `--timeout`.
///
/// libgit2 asks for credentials from a synchronous callback, so this blocks its thread until
/// the run ends or the deadline passes. The run itself needs a thread of Swift concurrency's
/// shared pool: never call this from one (the commands call it from the main thread).
func runProgram(
    _ argv: [String], input: String, environment extra: [String: String] = [:], deadline: ContinuousClock.Instant,
    isolated: Bool = true
) -> String? {
    guard let name = argv.first else { return nil }
    let remaining = (deadline - .now) / .seconds(1)
    guard remaining > 0 else { return nil }
    let outcome = HelperOutcome()
    var options = PlatformOptions()
    if isolated {
        // Its own process group: the kill at the deadline reaches what the helper started.
        options.processGroupID = 0
        options.teardownSequence = [.send(signal: .kill, toProcessGroup: true, allowedDurationToNextStep: .zero)]
    }
    var settings: [Environment.Key: String?] = [:]
    for (key, value) in extra { if let key = Environment.Key(rawValue: key) { settings[key] = value } }
    let environment = Environment.inherit.updating(settings)
    // A helper that exits before reading all its input must not kill us with SIGPIPE.
    let oldPipeHandler = signal(SIGPIPE, SIG_IGN)
    defer { signal(SIGPIPE, oldPipeHandler) }
    let task = Task {
        defer { outcome.finished.signal() }
        guard
            // A helper that cannot be started answers nothing, as one that prints nothing: the caller asks the next helper or says no credentials were found.
            let result = try? await run(
                name.contains("/") ? .path(FilePath(name)) : .name(name), arguments: Arguments(Array(argv.dropFirst())), environment: environment,
                platformOptions: options, input: .string(input), output: .string(limit: 1 << 20), error: .discarded)
        else { return }
        if case .exited(0) = result.terminationStatus {
            outcome.output.withLock { $0 = result.standardOutput }
        }
    }
    if outcome.finished.wait(timeout: .now() + remaining) == .timedOut {
        // Cancelling the run kills the helper (and its group); wait for that, briefly.
        task.cancel()
        _ = outcome.finished.wait(timeout: .now() + 2)
        return nil
    }
    return outcome.output.withLock { $0 }
}

/// What the run hands back to the waiting thread.
private final class HelperOutcome: Sendable {
    let output = Mutex<String?>(nil)
    let finished = DispatchSemaphore(value: 0)
}
