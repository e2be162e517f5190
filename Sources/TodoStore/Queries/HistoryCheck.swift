import Dispatch
import Glibc
import GitKit
import Synchronization

/// The check of received commits (`Incoming.firstProblem`) spread over threads. The commits, in
/// the order of the single-threaded walk, are handed out in runs of `chunk` to threads that each
/// hold their own `Repository` handle and `TreeChanges` (libgit2 is thread-safe with separate
/// handles). Each commit is checked against its first parent alone, so the outcome is the
/// single-threaded walk's: the first commit in walk order whose check finds a problem or fails.
/// No thread stops before the first such commit found so far, and none takes commits past it.
final class HistoryCheck: Sendable {
    /// What the check of one commit found.
    enum Finding: Sendable {
        case problem(FormatViolation)
        case failure(any Error)
    }

    /// Commits handed out at a time: neighbours in the walk share trees, which each thread's
    /// `TreeChanges` reads once.
    static let chunk = 64
    /// Progress is reported every this many commits, as the single-threaded walk did.
    static let progressStep = 256
    /// Below this many commits, one thread: opening a handle per thread would cost more than
    /// it saves.
    static let fewCommits = 512

    private struct State {
        /// The first commit not handed out yet.
        var next = 0
        var done = 0
        /// The earliest commit in walk order whose check found something, so far.
        var first: (index: Int, finding: Finding)?
        /// Threads `start` started, and of them still running.
        var started = 0
        var running = 0
        var abandoned = false
    }

    /// The commits to check, in walk order.
    let commits: [ObjectID]
    private let state = Mutex(State())
    /// Signalled by a thread every `progressStep` commits and when it ends.
    private let wake = DispatchSemaphore(value: 0)

    /// A tree checked in full: a commit whose tree it is has nothing to report.
    let verified: ObjectID?

    /// The repository's packs, read without libgit2 (`Incoming.validate`'s `packs`).
    let packs: PackFiles?

    init(_ commits: [ObjectID], verified: ObjectID? = nil, packs: PackFiles? = nil) {
        self.commits = commits
        self.verified = verified
        self.packs = packs
    }

    /// The threads for `count` commits: one per online CPU, at most 4; one for few commits.
    static func threads(for count: Int) -> Int {
        count < fewCommits ? 1 : cores
    }

    /// One thread per online CPU, at most 4: for the check, and the clone's writing of files.
    static var cores: Int { max(1, min(4, sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Where the threads run: a queue of its own gets a thread for each at once, where the
    /// global queues' few threads may all be held by callers that wait (todo-serve's).
    static let queue = DispatchQueue(label: "todo.history-check", attributes: .concurrent)

    /// Starts `threads` threads, each on a new handle of `repo`'s repository (opened here, so
    /// that a failure to open one is thrown to the caller). With one thread, nothing starts
    /// unless the caller has other work to do `beside` the check: `finish` then checks every
    /// commit on the caller's thread with `repo`.
    func start(_ repo: Repository, threads: Int, beside: Bool = false) throws {
        guard threads > 1 || beside else { return }
        let handles = try (0..<threads).map { _ in Repository.Handoff(try Repository.open(path: repo.gitDirectory)) }
        state.withLock {
            $0.started = handles.count
            $0.running = handles.count
        }
        for handle in handles {
            Self.queue.async {
                self.work(handle.repo) { _ in self.wake.signal() }
                self.state.withLock { $0.running -= 1 }
                self.wake.signal()
            }
        }
    }

    /// Waits for the threads `start` started (or, if it started none, checks every commit
    /// here with `repo`) and returns the first commit in walk order whose check found
    /// something. `progress` gets (done, total) on this thread, rising: 0 first, then every
    /// `progressStep` commits.
    func finish(_ repo: Repository, progress: ((Int, Int) -> Void)?) -> (index: Int, finding: Finding)? {
        let total = commits.count
        var reported = 0
        func report(upTo done: Int) {
            guard let progress else { return }
            while reported < total && reported <= done {
                progress(reported, total)
                reported += Self.progressStep
            }
        }
        report(upTo: 0)
        if state.withLock({ $0.started }) == 0 {
            work(repo) { report(upTo: $0) }
        } else {
            while true {
                wake.wait()
                let (done, running) = state.withLock { ($0.done, $0.running) }
                report(upTo: done)
                if running == 0 { break }
            }
        }
        return state.withLock { $0.first }
    }

    /// Stops the threads (each after its current commit) and waits for them; for a caller
    /// that gives up on the outcome.
    func abandon() {
        state.withLock { $0.abandoned = true }
        while state.withLock({ $0.running }) > 0 { wake.wait() }
    }

    /// Checks runs of commits until none is left before the first finding; `step` gets the
    /// count of commits done (by every thread) each time it reaches a multiple of
    /// `progressStep`.
    private func work(_ repo: Repository, step: (Int) -> Void) {
        let trees = TreeChanges(repo, packs: packs)
        while let run = take() {
            for i in run {
                let finding: Finding?
                do {
                    finding = try Incoming.problem(repo, commit: commits[i], trees: trees, verified: verified).map(Finding.problem)
                } catch {
                    finding = .failure(error)
                }
                let (done, stop) = state.withLock { s in
                    s.done += 1
                    if let finding, i < s.first?.index ?? Int.max { s.first = (i, finding) }
                    return (s.done, s.abandoned || i + 1 >= s.first?.index ?? Int.max)
                }
                if done % Self.progressStep == 0 { step(done) }
                if stop { break }
            }
        }
    }

    /// The next run of commits, none past the first finding; nil when there is none.
    private func take() -> Range<Int>? {
        state.withLock { s in
            let end = min(commits.count, s.first?.index ?? Int.max)
            guard !s.abandoned, s.next < end else { return nil }
            let run = s.next..<min(s.next + Self.chunk, end)
            s.next = run.upperBound
            return run
        }
    }
}

/// A value, or the error making it failed with, that another thread makes once; `wait` returns
/// it (as often as asked) once it is there.
final class Outcome<Value: Sendable>: Sendable {
    /// What `wait` would throw were it ever to find no value (it cannot: `set` signals after).
    struct Unset: Error {}

    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<Result<Value, any Error>?>(nil)

    func set(_ make: () throws -> Value) {
        let made = Result { try make() }
        result.withLock { $0 = made }
        done.signal()
    }

    func wait() throws -> Value {
        done.wait()
        defer { done.signal() }
        // Set before the semaphore was signalled, so never nil here.
        return try (result.withLock { $0 } ?? .failure(Unset())).get()
    }
}
