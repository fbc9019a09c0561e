import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A local HTTP server receiving notifications; answers each POST with the next scripted status (then 200).
final class NotificationReceiver: Sendable {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    let port: Int
    private let channel: any Channel
    private let task: Task<Void, Never>
    private let log: ReceiverLog

    var url: String { "http://127.0.0.1:\(port)/notifications" }
    /// Bodies received, in arrival order.
    var bodies: [Data] { log.bodies }

    private init(port: Int, channel: any Channel, task: Task<Void, Never>, log: ReceiverLog) {
        self.port = port
        self.channel = channel
        self.task = task
        self.log = log
    }

    /// Sets the statuses of the next answers.
    func script(_ statuses: [Int]) { log.script(statuses) }

    static func start(statuses: [Int] = []) async throws -> NotificationReceiver {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
        let port = listener.channel.localAddress?.port ?? 0
        let log = ReceiverLog(statuses: statuses)
        let task = Task {
            await withDiscardingTaskGroup { group in
                try? await listener.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask { await serve(connection, log: log) }
                    }
                }
                group.cancelAll()
            }
        }
        return NotificationReceiver(port: port, channel: listener.channel, task: task, log: log)
    }

    func shutdown() async {
        try? await channel.close()
        task.cancel()
        await task.value
    }

    private static func serve(_ connection: Connection, log: ReceiverLog) async {
        try? await connection.executeThenClose { inbound, outbound in
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head:
                    body.clear()
                case .body(var chunk):
                    body.writeBuffer(&chunk)
                case .end:
                    let status = log.receive(Data(body.readableBytesView))
                    var headers = HTTPHeaders()
                    headers.add(name: "Content-Length", value: "0")
                    try await outbound.write(
                        .head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: status), headers: headers)))
                    try await outbound.write(.end(nil))
                }
            }
        }
    }
}

/// What a receiver got, and the statuses it still has to answer.
final class ReceiverLog: Sendable {
    private let state: Mutex<(bodies: [Data], statuses: [Int])>

    init(statuses: [Int]) { state = Mutex(([], statuses)) }

    var bodies: [Data] { state.withLock { $0.bodies } }

    func script(_ statuses: [Int]) { state.withLock { $0.statuses = statuses } }

    /// Records a body and returns the status to answer.
    func receive(_ body: Data) -> Int {
        state.withLock { state in
            state.bodies.append(body)
            return state.statuses.isEmpty ? 200 : state.statuses.removeFirst()
        }
    }
}
