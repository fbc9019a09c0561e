import Foundation
import HTTPTestSupport
import Synchronization

/// A local endpoint receiving the simulator's notifications (the shared `StubHTTPServer`): answers each POST
/// with the next scripted status, then 200.
final class NotificationReceiver: Sendable {
    private let server: StubHTTPServer

    var url: String { server.baseURL + "/notifications" }
    /// Bodies received, in arrival order.
    var bodies: [Data] { server.requests.map(\.body) }

    private init(server: StubHTTPServer) {
        self.server = server
    }

    static func start(statuses: [Int] = []) async throws -> NotificationReceiver {
        let script = StatusScript(statuses)
        let server = try await StubHTTPServer.start { _ in .empty(status: script.next()) }
        return NotificationReceiver(server: server)
    }

    func shutdown() async {
        await server.shutdown()
    }
}

/// The statuses a receiver still has to answer, shared with the server's connection tasks.
private final class StatusScript: Sendable {
    private let statuses: Mutex<[Int]>

    init(_ statuses: [Int]) { self.statuses = Mutex(statuses) }

    func next() -> Int { statuses.withLock { $0.isEmpty ? 200 : $0.removeFirst() } }
}
