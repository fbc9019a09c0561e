import AsyncHTTPClient
import Foundation
import Logging
import NIOCore

extension PaddleWorld {
    /// Sends every notification due and not taken by another sender, in the order the events happened, signed as
    /// Paddle signs: `Paddle-Signature: ts=<wall clock seconds>;h1=<HMAC-SHA256 of "ts:body">`. The timestamp is
    /// the wall clock, not the simulated one, because receivers (the SDK's `Verifier`) check it against theirs.
    func deliverDue(client: HTTPClient, timeout: Duration, wallClock: @Sendable () -> Int64, logger: Logger) async {
        while true {
            let due = state.withLock { $0.dueNotifications() }
            guard !due.isEmpty else { return }
            for notification in due {
                let status = await Self.post(
                    notification.body, to: notification.url, secretKey: notification.secretKey, client: client,
                    timeout: timeout, timestamp: wallClock(), logger: logger)
                state.withLock { $0.record(notification.index, status: status) }
            }
        }
    }

    private static func post(
        _ body: Data, to url: String, secretKey: String, client: HTTPClient, timeout: Duration, timestamp: Int64,
        logger: Logger
    ) async -> Int? {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Paddle")
        request.headers.add(
            name: PaddleSignature.headerName,
            value: PaddleSignature.header(body: body, secretKey: secretKey, timestamp: timestamp))
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(
                request, timeout: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000))
            _ = try? await response.body.collect(upTo: 1 << 20)
            return Int(response.status.code)
        } catch {
            logger.debug("paddle-sim notification failed", metadata: ["url": "\(url)", "error": "\(error)"])
            return nil
        }
    }
}
