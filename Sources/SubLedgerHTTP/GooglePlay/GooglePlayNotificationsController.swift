import Foundation
import Hummingbird
import SubLedgerUseCases

/// `POST /v1/notifications/google`: Google Play's real-time developer notifications, as a Pub/Sub push
/// subscription delivers them. Authenticated by the push's OIDC token (`Authorization: Bearer`), not by an API key.
///
/// Answers 200 once a notification is stored and applied (a redelivery is a 200 no-op), 4xx when it can never be
/// accepted, and 503 when Google could not be asked (the notification is kept and applied later), so Pub/Sub
/// redelivers exactly when that can help. An unknown package, an app without push settings and a token that does
/// not verify all answer the same 401; which one it was is logged.
struct GooglePlayNotificationsController: Sendable {
    let stores: StorePorts

    func register(on router: some RouterMethods<SubLedgerRequestContext>) {
        router.post("v1/notifications/google") { request, context in try await receive(request, context) }
    }

    struct ReceivedBody: ResponseEncodable {
        var status: String
        var notification_type: String?
    }

    /// The challenge of the route's 401 answers.
    static let challenge = "Bearer realm=\"Google Play real-time developer notifications\""

    func receive(_ request: Request, _ context: SubLedgerRequestContext) async throws -> ReceivedBody {
        let buffer = try await request.collectBody(context: context)
        try RequestText.checkBody(buffer)
        let result: PushOutcome
        do {
            result = try await stores.receive(
                StorePush(
                    store: .googlePlay, body: Data(buffer: buffer), credential: request.headers[.authorization]))
        } catch let error as IngestionError where error.code == .invalidPushToken {
            context.logger.info("google play notification refused", metadata: ["reason": "\(error)"])
            var refusal = APIError(.unauthorized, code: .invalidPushToken, message: "the push token did not verify")
            refusal.challenge = Self.challenge
            throw refusal
        }
        switch result {
        case .applied(let type): return ReceivedBody(status: "applied", notification_type: type)
        case .duplicate: return ReceivedBody(status: "duplicate", notification_type: nil)
        case .test: return ReceivedBody(status: "test", notification_type: "TEST_NOTIFICATION")
        }
    }
}
