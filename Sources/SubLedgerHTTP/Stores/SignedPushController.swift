import Foundation
import HTTPTypes
import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// `POST /v1/notifications/{store}` for every registered store whose pushes are signed in a header with the app's
/// shared secret (`StorePushRoute.isSignedInHeader`): Stripe's webhook events in `Stripe-Signature`, Paddle's
/// notifications in `Paddle-Signature`. Such a route is authenticated by its signature, not by an API key, and is
/// mounted from the store's registration, so a store of this kind brings no route of its own.
///
/// Answers 200 once a push is stored and applied (a redelivery is a 200 no-op), 401 with the store's challenge when
/// its signature does not verify, other 4xx when it can never be accepted, and 503 when the store could not be asked
/// (the push is kept and applied later), so the store retries exactly when that can help.
struct SignedPushController: Sendable {
    let store: Store
    let route: StorePushRoute
    let stores: StorePorts

    /// A controller for each route of `registry` signed in a header.
    static func all(in registry: StoreRegistry, stores: StorePorts) -> [SignedPushController] {
        registry.stores.compactMap { store in
            guard let route = registry[store]?.pushRoute, route.isSignedInHeader else { return nil }
            return SignedPushController(store: store, route: route, stores: stores)
        }
    }

    func register(on router: some RouterMethods<SubLedgerRequestContext>) {
        router.post(RouterPath(String(route.path.drop { $0 == "/" }))) { request, context in
            try await receive(request, context)
        }
    }

    struct ReceivedBody: ResponseEncodable {
        var status: String
        var event_type: String?
    }

    /// The challenge of the route's 401 answers.
    var challenge: String {
        "\(route.credentialHeader ?? "Signature") realm=\"\(route.challengeRealm ?? store.displayName)\""
    }

    func receive(_ request: Request, _ context: SubLedgerRequestContext) async throws -> ReceivedBody {
        let buffer = try await request.collectBody(context: context)
        let header = route.credentialHeader.flatMap { HTTPField.Name($0) }
        let push = StorePush(
            store: store, body: Data(buffer: buffer), credential: header.flatMap { request.headers[$0] })
        let result: PushOutcome
        do {
            do {
                try RequestText.checkBody(buffer)
            } catch {
                // The signature is checked first whatever the body holds: a body that is not text is a 400 only
                // once it is signed, and a 401 otherwise, as any other body is.
                try await stores.configuredPort(for: store)?.authenticate(push)
                throw error
            }
            result = try await stores.receive(push)
        } catch let error as IngestionError where error.code == .invalidSignature {
            context.logger.info(
                "store push refused", metadata: ["store": "\(store.rawValue)", "reason": "\(error)"])
            var refusal = APIError(
                .unauthorized, code: .invalidSignature,
                message: "the \(route.credentialHeader ?? "signature") did not verify")
            refusal.challenge = challenge
            throw refusal
        }
        switch result {
        case .applied(let type): return ReceivedBody(status: "applied", event_type: type)
        case .duplicate: return ReceivedBody(status: "duplicate", event_type: nil)
        case .test: return ReceivedBody(status: "test", event_type: nil)
        }
    }
}
