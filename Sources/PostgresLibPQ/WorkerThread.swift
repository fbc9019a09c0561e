import Foundation

/// A dedicated OS thread that runs submitted jobs one at a time, in order.
///
/// Blocking libpq calls run here, never on Swift's cooperative pool: a thread blocked in `poll`/`recv`
/// on the cooperative pool would starve every other task in the process.
final class WorkerThread: @unchecked Sendable {
    // `condition` guards `jobs` and `isStopping`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var isStopping = false

    init(name: String) {
        let thread = Thread { [self] in
            self.runLoop()
        }
        thread.name = name
        thread.start()
    }

    /// Queues a job; false once `stop()` was called (the job is not run).
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !isStopping else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Lets already queued jobs finish, then ends the thread.
    func stop() {
        condition.lock()
        isStopping = true
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` on this thread and returns its result to the awaiting task.
    ///
    /// `body` need not escape: it is released on the worker before the task resumes, which is what
    /// `withoutActuallyEscaping` requires.
    func run<T: Sendable>(_ body: @Sendable () throws -> T) async throws -> T {
        try await withoutActuallyEscaping(body) { escapable in
            let box = JobBox(escapable)
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let accepted = submit {
                    continuation.resume(with: box.run())
                }
                if !accepted {
                    _ = box.take()
                    continuation.resume(
                        throwing: PostgresError(.poolClosed, message: "connection thread has stopped"))
                }
            }
        }
    }

    private func runLoop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !isStopping {
                condition.wait()
            }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}

/// Holds a job's body until it runs, then lets go of it before the result is delivered.
private final class JobBox<T>: @unchecked Sendable {
    // Touched by the submitting task (creation, or `take` when rejected) and then only by the worker.
    private var body: (@Sendable () throws -> T)?

    init(_ body: @escaping @Sendable () throws -> T) {
        self.body = body
    }

    func take() -> (@Sendable () throws -> T)? {
        defer { body = nil }
        return body
    }

    func run() -> Result<T, any Error> {
        guard let body = take() else {
            return .failure(PostgresError(.poolClosed, message: "job was already taken"))
        }
        return Result { try body() }
    }
}
