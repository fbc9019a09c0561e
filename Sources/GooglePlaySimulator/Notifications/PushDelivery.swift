import AsyncHTTPClient
import Foundation
import GooglePlay
import Logging
import NIOCore
import SubLedgerCore

/// Posts notifications as Pub/Sub push requests: the envelope with base64 `data`, and an OIDC token signed by
/// the simulator's key in `Authorization`.
struct PushDelivery: Sendable {
    let httpClient: HTTPClient
    let timeout: Duration
    let keys: SimulatorKeys
    let subscriptionName: String
    let logger: Logger

    func push(
        _ record: NotificationRecord, to url: String, audience: String, email: String, authenticated: Bool,
        at: Instant, wallNow: Instant
    ) async -> NotificationRecord.Attempt {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(
            name: "User-Agent", value: "APIs-Google; (+https://developers.google.com/webmasters/APIs-Google.html)")
        do {
            let envelope = PushBody(
                message: .init(
                    data: record.data, messageId: record.messageId,
                    message_id: record.messageId,
                    publishTime: GoogleTime.format(Instant(millisecondsSince1970: record.publishTime)),
                    publish_time: GoogleTime.format(Instant(millisecondsSince1970: record.publishTime))),
                subscription: subscriptionName)
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(envelope)))
            if authenticated {
                let token = try keys.pushToken(audience: audience, email: email, now: wallNow)
                request.headers.add(name: "Authorization", value: "Bearer " + token)
            }
        } catch {
            return .init(at: at.millisecondsSince1970, httpStatus: nil, result: "no_response")
        }
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        do {
            let response = try await httpClient.execute(request, timeout: .nanoseconds(nanoseconds), logger: logger)
            _ = try await response.body.collect(upTo: 1024 * 1024)
            let status = Int(response.status.code)
            // Pub/Sub takes 102, 200, 201, 202 and 204 as an acknowledgement.
            let acknowledged = [102, 200, 201, 202, 204].contains(status)
            return .init(
                at: at.millisecondsSince1970, httpStatus: status, result: acknowledged ? "acknowledged" : "http_error")
        } catch {
            logger.debug("push failed", metadata: ["error": "\(error)"])
            return .init(at: at.millisecondsSince1970, httpStatus: nil, result: "no_response")
        }
    }

    private struct PushBody: Encodable {
        struct Message: Encodable {
            var data: String
            var messageId: String
            var message_id: String
            var publishTime: String
            var publish_time: String
        }
        var message: Message
        var subscription: String
    }
}
