import Synchronization

/// A thread-safe counter for attempts and events seen from connection threads.
final class Counter: Sendable {
    private let storage = Atomic<Int>(0)

    /// Adds one and returns the new value.
    @discardableResult
    func increment() -> Int {
        storage.add(1, ordering: .sequentiallyConsistent).newValue
    }

    var value: Int { storage.load(ordering: .sequentiallyConsistent) }
}
