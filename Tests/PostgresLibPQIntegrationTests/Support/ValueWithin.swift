import Synchronization

/// `operation`'s value, or nil when it has not finished within `bound` (it is left running): a bound against a hang,
/// so a test reports a caller that never finishes instead of waiting for it forever.
func valueWithin<T: Sendable>(
    _ bound: Duration, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T? {
    let first = FirstOutcome<T>()
    let outcome = await withCheckedContinuation { continuation in
        first.wait(continuation)
        Task {
            do { first.resume(.success(try await operation())) } catch { first.resume(.failure(error)) }
        }
        Task {
            try? await Task.sleep(for: bound)
            first.resume(nil)
        }
    }
    return try outcome?.get()
}

/// Resumes its waiter once, with whichever outcome comes first.
private final class FirstOutcome<T: Sendable>: Sendable {
    private let waiter = Mutex<CheckedContinuation<Result<T, any Error>?, Never>?>(nil)

    func wait(_ continuation: CheckedContinuation<Result<T, any Error>?, Never>) {
        waiter.withLock { $0 = continuation }
    }

    func resume(_ outcome: Result<T, any Error>?) {
        waiter.withLock { $0.take() }?.resume(returning: outcome)
    }
}
