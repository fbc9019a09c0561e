import Foundation
import HTTPTypes
import Hummingbird
import SubLedgerUseCases

/// `POST /v1/notifications/paddle`: Paddle's notifications, signed in `Paddle-Signature` with the endpoint secret key
/// of the app's notification setting, not authenticated by an API key.
///
/// Answers 200 once a notification is stored and applied (a redelivery is a 200 no-op), 4xx when it can never be
/// accepted, and 503 when Paddle could not be asked (the notification is kept and applied later), so Paddle retries
/// exactly when that can help.
struct PaddleNotificationsController: Sendable {
    let stores: StorePorts

    func register(on router: some RouterMethods<SubLedgerRequestContext>) {
        router.post("v1/notifications/paddle") { request, context in try await receive(request, context) }
    }

    struct ReceivedBody: ResponseEncodable {
        var status: String
        var event_type: String?
    }

    /// The challenge of the route's 401 answers.
    static let challenge = "Paddle-Signature realm=\"Paddle notifications\""

    static let signatureField = HTTPField.Name("Paddle-Signature")!

    func receive(_ request: Request, _ context: SubLedgerRequestContext) async throws -> ReceivedBody {
        let buffer = try await request.collectBody(context: context)
        let push = StorePush(
            store: .paddle, body: Data(buffer: buffer), credential: request.headers[Self.signatureField])
        let result: PushOutcome
        do {
            do {
                try RequestText.checkBody(buffer)
            } catch {
                // The signature is checked first whatever the body holds: a body that is not text is a 400 only
                // once it is signed, and a 401 otherwise.
                try await stores.configuredPort(for: .paddle)?.authenticate(push)
                throw error
            }
            result = try await stores.receive(push)
        } catch let error as IngestionError where error.code == .invalidSignature {
            context.logger.info("paddle notification refused", metadata: ["reason": "\(error)"])
            var refusal = APIError(
                .unauthorized, code: .invalidSignature, message: "the Paddle-Signature did not verify")
            refusal.challenge = Self.challenge
            throw refusal
        }
        switch result {
        case .applied(let type): return ReceivedBody(status: "applied", event_type: type)
        case .duplicate: return ReceivedBody(status: "duplicate", event_type: nil)
        case .test: return ReceivedBody(status: "test", event_type: nil)
        }
    }
}
