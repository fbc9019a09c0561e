import Foundation
import Hummingbird
import NIOCore

/// `POST /v1/notifications/appstore`: Apple's server notifications, V2 and V1. Authenticated by the
/// signature (V2) or the shared secret (V1), not by an API key.
///
/// Answers 200 once a notification is stored and applied (a replay is a 200 no-op), 4xx when it can never
/// be accepted, and 5xx only for transient failures, so Apple retries exactly when a retry can help.
struct NotificationsController: Sendable {
    let ingestion: Ingestion

    func register(on router: Router<SubLedgerRequestContext>) {
        router.post("v1/notifications/appstore") { request, context in try await receive(request, context) }
    }

    struct ReceivedBody: ResponseEncodable {
        var status: String
        var notification_type: String?
    }

    func receive(_ request: Request, _ context: SubLedgerRequestContext) async throws -> ReceivedBody {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, code: "body_too_large", message: "the notification body is larger than 1 MiB")
        }
        let result = try await ingestion.receiveNotification(Data(buffer: buffer))
        switch result {
        case .applied(let type): return ReceivedBody(status: "applied", notification_type: type)
        case .duplicate: return ReceivedBody(status: "duplicate", notification_type: nil)
        }
    }
}
