import Foundation
import Testing

// What the kit remembers about one running test case: whether it failed, the temporary
// directories it is done with, and whether it drew on the property seed. The `.kit` trait on a
// suite (or test) provides it; without the trait the kit still works, only less precisely.

/// The environment variable that keeps a failed test's temporary directories for a look with
/// git afterwards; their paths are printed.
public let keepTemporaryVariable = "TODO_KEEP_TEMP"

final class TestScope: @unchecked Sendable {
    @TaskLocal static var current: TestScope?

    /// When the test's time limit passes, counted from when its body starts. Swift Testing's
    /// own check runs on the shared pool of threads, which blocked tests can fill (two threads on
    /// a two-core machine): the kit's waits look at this instead and end the test themselves.
    let deadline: ContinuousClock.Instant?

    init(timeLimit: Duration?) {
        deadline = timeLimit.map { .now + $0 }
    }

    /// Why the running test must stop: Swift Testing cancelled it, or its time limit passed.
    static var stopReason: String? {
        if Task.isCancelled { return "the test was cancelled (past its time limit)" }
        if let deadline = current?.deadline, ContinuousClock.now >= deadline { return "the test ran past its time limit" }
        return nil
    }

    private let lock = NSLock()
    private var failed = false
    private var ended = false
    private var leftBehind: [String] = []
    private var usedSeed = false

    /// Notes an issue of the test; adds the seed to it when the test is a random one.
    func record(_ issue: Issue) -> Issue {
        lock.lock()
        defer { lock.unlock() }
        if issue.isFailure { failed = true }
        guard usedSeed else { return issue }
        var issue = issue
        issue.comments.append(Comment(rawValue: PropertySeed.replay))
        return issue
    }

    func noteSeedUsed() {
        lock.lock()
        usedSeed = true
        lock.unlock()
    }

    /// A temporary directory of this test that nobody uses any more: removed or kept when the
    /// test ends (at once when it has ended already).
    func leave(_ path: String) {
        lock.lock()
        if ended {
            let failed = failed
            lock.unlock()
            TemporaryDirectory.dispose(path, failed: failed)
        } else {
            leftBehind.append(path)
            lock.unlock()
        }
    }

    func end(threw: Bool) {
        lock.lock()
        ended = true
        failed = failed || threw
        let (paths, failed) = (leftBehind, failed)
        leftBehind = []
        lock.unlock()
        for path in paths { TemporaryDirectory.dispose(path, failed: failed) }
    }
}

/// The kit's per-test bookkeeping: a failed test's temporary directories are kept when
/// `TODO_KEEP_TEMP` is set, and every issue of a random test names the seed that replays it.
public struct TestKitTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> TestKitTrait? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let scope = TestScope(timeLimit: test.timeLimit)
        let watcher = IssueHandlingTrait.compactMapIssues { scope.record($0) }
        do {
            try await watcher.provideScope(for: test, testCase: testCase) {
                try await TestScope.$current.withValue(scope) { try await function() }
            }
        } catch {
            scope.end(threw: true)
            throw error
        }
        scope.end(threw: false)
    }
}

extension Trait where Self == TestKitTrait {
    /// The test kit's bookkeeping (see `TestKitTrait`); put it on every suite.
    public static var kit: TestKitTrait { TestKitTrait() }
}

/// A temporary directory, removed when the last reference goes, after the test that made it
/// ended; kept when that test failed and `TODO_KEEP_TEMP` is set.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String
    private let scope: TestScope?

    /// A new empty directory named after `label` in the system's temporary directory.
    public init(_ label: String = "todo-test") {
        var template = Array((NSTemporaryDirectory() + "/\(label).XXXXXX").utf8CString)
        if let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) {
            path = resolvedPath(String(cString: made))
        } else {
            Issue.record("mkdtemp in \(NSTemporaryDirectory()) failed: \(String(cString: strerror(errno)))")
            path = NSTemporaryDirectory() + "/\(label)-\(UUID().uuidString)"
            try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        scope = TestScope.current
    }

    deinit {
        if let scope {
            scope.leave(path)
        } else {
            // Made outside a test with the `.kit` trait: whether the test failed is unknown.
            Self.dispose(path, failed: true)
        }
    }

    static func dispose(_ path: String, failed: Bool) {
        if failed && environment(keepTemporaryVariable) != nil {
            print("\(keepTemporaryVariable): kept \(path)")
        } else {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
