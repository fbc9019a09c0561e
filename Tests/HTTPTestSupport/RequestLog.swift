import Synchronization

/// The requests a stub server received, shared with its connection tasks.
final class RequestLog: Sendable {
    private let storage = Mutex<[StubRequest]>([])

    func append(_ request: StubRequest) { storage.withLock { $0.append(request) } }

    var all: [StubRequest] { storage.withLock { $0 } }
}
