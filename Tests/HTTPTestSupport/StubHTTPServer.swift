import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A local HTTP/1.1 server on 127.0.0.1 and an ephemeral port, answering with a handler closure: the one
/// loopback HTTP stub of the test suites (Apple's endpoints for the clients, a notification receiver for
/// the simulator). It records every request it receives.
public final class StubHTTPServer: Sendable {
    public typealias Handler = @Sendable (StubRequest) async -> StubResponse
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    public let port: Int
    private let serverChannel: any Channel
    private let task: Task<Void, Never>
    private let log: RequestLog

    /// The base URL of the server, e.g. `http://127.0.0.1:54321`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far, in order.
    public var requests: [StubRequest] { log.all }

    private init(port: Int, serverChannel: any Channel, task: Task<Void, Never>, log: RequestLog) {
        self.port = port
        self.serverChannel = serverChannel
        self.task = task
        self.log = log
    }

    /// Starts a server; call `shutdown()` when done.
    public static func start(handler: @escaping Handler) async throws -> StubHTTPServer {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
        guard let port = listener.channel.localAddress?.port else { throw ChannelError.unknownLocalAddress }
        let log = RequestLog()
        let channel = listener.channel
        let task = Task {
            await withDiscardingTaskGroup { group in
                try? await listener.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask { await serve(connection, handler: handler, log: log) }
                    }
                }
                group.cancelAll()
            }
        }
        return StubHTTPServer(port: port, serverChannel: channel, task: task, log: log)
    }

    /// Stops listening and ends every connection.
    public func shutdown() async {
        try? await serverChannel.close()
        task.cancel()
        await task.value
    }

    /// Runs `body` with a started server and always shuts it down.
    public static func with<Result>(
        handler: @escaping Handler,
        _ body: (StubHTTPServer) async throws -> Result
    ) async throws -> Result {
        let server = try await start(handler: handler)
        do {
            let result = try await body(server)
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    private static func serve(
        _ connection: Connection,
        handler: Handler,
        log: RequestLog
    ) async {
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let requestHead):
                    head = requestHead
                    body.clear()
                case .body(var chunk):
                    body.writeBuffer(&chunk)
                case .end:
                    guard let requestHead = head else { continue }
                    let request = makeRequest(requestHead, body: body)
                    log.append(request)
                    let response = await handler(request)
                    if let delay = response.delay { try await Task.sleep(for: delay) }
                    var headers = HTTPHeaders(response.headers)
                    headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
                    try await outbound.write(
                        .head(
                            HTTPResponseHead(
                                version: .http1_1, status: .init(statusCode: response.status), headers: headers))
                    )
                    if let bodyDelay = response.bodyDelay { try await Task.sleep(for: bodyDelay) }
                    try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: response.body))))
                    try await outbound.write(.end(nil))
                }
            }
        }
    }

    private static func makeRequest(_ head: HTTPRequestHead, body: ByteBuffer) -> StubRequest {
        let components = URLComponents(string: head.uri)
        var query: [String: [String]] = [:]
        for item in components?.queryItems ?? [] { query[item.name, default: []].append(item.value ?? "") }
        var headers: [String: String] = [:]
        for (name, value) in head.headers { headers[name.lowercased()] = value }
        return StubRequest(
            method: head.method.rawValue,
            path: components?.percentEncodedPath ?? head.uri,
            query: query,
            headers: headers,
            body: Data(body.readableBytesView)
        )
    }
}
