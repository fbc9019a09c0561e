import Foundation
import Hummingbird
import NIOCore
import SubLedgerUseCases

/// `POST /v1/notifications/appstore`: Apple's server notifications, V2 and V1. Authenticated by the
/// signature (V2) or the shared secret (V1), not by an API key.
///
/// Answers 200 once a notification is stored and applied (a replay is a 200 no-op), 4xx when it can never
/// be accepted, and 5xx only for transient failures, so Apple retries exactly when a retry can help.
///
/// The route is open to anyone, so its refusals reveal nothing about the configuration: an unknown bundle id,
/// an environment the app does not accept and a failed signature (or shared secret) all answer the same 401;
/// which one it was is logged at info level.
struct NotificationsController: Sendable {
    let stores: StorePorts

    func register(on router: some RouterMethods<SubLedgerRequestContext>) {
        router.post("v1/notifications/appstore") { request, context in try await receive(request, context) }
    }

    struct ReceivedBody: ResponseEncodable {
        var status: String
        var notification_type: String?
    }

    /// The challenge of the route's 401 answers: the credential is the body's signature, not a header.
    static let challenge = "Signature realm=\"App Store Server Notifications\""

    /// The ingestion's refusals of a notification for a reason tied to the configuration.
    static let refusalCodes: Set<IngestionError.Code> = [
        .unknownApp, .environmentNotAllowed, .invalidSignature, .invalidNotification,
        // A configured app that cannot verify the claimed environment (no `apple_app_id` for Production):
        // our fault, logged as an error below, but answered like the rest so the answer reveals nothing.
        // Apple retries any non-2xx, so nothing is lost once the catalog is fixed.
        .appMisconfigured,
    ]

    func receive(_ request: Request, _ context: SubLedgerRequestContext) async throws -> ReceivedBody {
        let buffer = try await request.collectBody(context: context)
        try RequestText.checkBody(buffer)
        let body = Data(buffer: buffer)
        let result: PushOutcome
        do {
            result = try await stores.receive(StorePush(store: .appStore, body: body))
        } catch let error as IngestionError where Self.refusalCodes.contains(error.code) {
            if error.code == .appMisconfigured {
                context.logger.error("notification refused: the app is misconfigured", metadata: ["reason": "\(error)"])
            } else {
                context.logger.info("notification refused", metadata: ["reason": "\(error)"])
            }
            throw Self.refusal(isV2: Self.isV2(body))
        }
        switch result {
        case .applied(let type): return ReceivedBody(status: "applied", notification_type: type)
        case .duplicate: return ReceivedBody(status: "duplicate", notification_type: nil)
        case .test: return ReceivedBody(status: "test", notification_type: nil)
        }
    }

    /// The one answer to every refused notification of a version: the code tells V2 from V1 only, which the
    /// sender chose.
    static func refusal(isV2: Bool) -> APIError {
        var error =
            isV2
            ? APIError(.unauthorized, code: .invalidSignature, message: "the notification did not verify")
            : APIError(.unauthorized, code: .invalidNotification, message: "the V1 notification was refused")
        error.challenge = challenge
        return error
    }

    /// Whether the body is a V2 notification (`{"signedPayload": ...}`), as the ingestion reads it.
    private static func isV2(_ body: Data) -> Bool {
        struct Shape: Decodable { var signedPayload: String? }
        return (try? JSONDecoder().decode(Shape.self, from: body))?.signedPayload != nil
    }
}
