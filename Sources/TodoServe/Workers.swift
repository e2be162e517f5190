import Dispatch
import Synchronization

/// Where blocking work runs (libgit2, `flock`, `fsync`): never on Hummingbird's event loops.
/// Two reader queues serve page views; one writer queue serialises every change, so requests
/// never wait for each other on the household lock, only for the CLI, cron or a sync.
final class Workers: Sendable {
    private let readers = [DispatchQueue(label: "todo-serve.read.1"), DispatchQueue(label: "todo-serve.read.2")]
    private let writer = DispatchQueue(label: "todo-serve.write")
    private let next = Atomic<Int>(0)

    init() {}

    /// Runs `body` on one of the reader queues.
    func read<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let n = next.add(1, ordering: .relaxed).oldValue
        return try await run(on: readers[n & 1], body)
    }

    /// Runs `body` on the writer queue, after the writes before it.
    func write<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await run(on: writer, body)
    }

    private func run<T: Sendable>(on queue: DispatchQueue, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        // The request's reading (`RequestReading`) goes along: task-local values stay with
        // the task, not the queue's thread.
        let reading = RequestReading.current
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try RequestReading.$current.withValue(reading) { try body() } }) }
        }
    }
}
