import Foundation
import Logging
import Stripe
import StripeClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Paid Checkout Sessions an app server submits for its account (`POST /v1/purchases/stripe`): stored first, then
/// the session and the subscription or payment it created read back from Stripe and applied with the account as submitter.
/// When Stripe cannot be asked, the submission stays stored and the renewal job verifies it again.
struct StripeCheckoutSubmissions: Sendable {
    let store: LedgerStore
    let gateway: StripeGateway
    let logger: Logger
    let now: @Sendable () -> Instant

    /// The stored body: the same session is the same text, so a replay finds its stored row.
    static func body(sessionID: String) -> String { #"{"checkout_session_id":"\#(sessionID)"}"# }

    static func sessionID(storedBody: String) throws -> String {
        struct Body: Decodable { var checkout_session_id: String }
        return try JSONDecoder().decode(Body.self, from: Data(storedBody.utf8)).checkout_session_id
    }

    func submit(sessionID: String, account: AccountID, app: StoredApp) async throws -> SubmissionOutcome {
        guard app.stripe != nil, app.definition.products.contains(where: { $0.store == .stripe }) else {
            throw IngestionError(.invalidPurchase, "\(app.bundleID) does not sell through Stripe")
        }
        let id = try await IngestionStep.store.traced(app: app.bundleID) {
            try await store.storeSubmission(
                kind: .stripeCheckout, body: Self.body(sessionID: sessionID), account: account, app: app)
        }
        return try await verifyStored(id, sessionID: sessionID, account: account, app: app)
    }

    func verifyStored(_ id: Int64, sessionID: String, account: AccountID?, app: StoredApp) async throws
        -> SubmissionOutcome
    {
        let input: LedgerInput
        do {
            input = try await IngestionStep.verify.traced(app: app.bundleID) {
                try await read(sessionID: sessionID, account: account, app: app)
            }
        } catch let refusal as IngestionError {
            try await store.markSubmission(
                id, failed: refusal.code.rawValue + ": " + refusal.message, retryable: refusal.isTransient, now: now())
            throw refusal
        }
        let applied = try await IngestionStep.apply.traced(app: app.bundleID) {
            try await store.apply(input, app: app, reference: .submission(id), now: now())
        }
        LedgerMetrics.record(applied)
        let answered = applied.submitter ?? account
        var entitlements: [Entitlement] = []
        if let answered { entitlements = try await store.entitlements(for: answered, app: app, at: now()) }
        return SubmissionOutcome(
            inputID: id, environment: input.environment, outcomes: applied.decision.transactionOutcomes,
            ignored: [], entitlements: entitlements, account: answered)
    }

    /// The session's subscription (subscription mode) or one-time payment (payment mode) as the ledger's input with
    /// `account` as submitter. A session not paid yet, or another app's, is refused.
    func read(sessionID: String, account: AccountID?, app: StoredApp) async throws -> LedgerInput {
        let client = try await gateway.client(for: app)
        let session: StripeCheckoutSession
        do {
            session = try await client.checkoutSession(sessionID)
        } catch {
            throw IngestionError(error)
        }
        guard session.status == "complete" else {
            throw IngestionError(
                .purchaseNotCompleted, "the Checkout Session is not paid (\(session.status ?? "no status"))")
        }
        let readBack = StripeReadBack(client: client, logger: logger)
        var input: LedgerInput
        switch session.mode {
        case "subscription":
            guard let subscription = session.subscription?.id else {
                throw IngestionError(.invalidPurchase, "the Checkout Session did not create a subscription")
            }
            guard
                let read = try await readBack.input(
                    subscription: subscription, kind: .stripeCheckout, app: app, observedAt: now())
            else {
                throw IngestionError(.invalidPurchase, "the Checkout Session's subscription was sold for another app")
            }
            input = read
        case "payment":
            guard let paymentIntent = session.paymentIntent?.id else {
                throw IngestionError(.invalidPurchase, "the Checkout Session did not create a payment")
            }
            guard
                let read = try await readBack.input(
                    paymentIntent: paymentIntent, kind: .stripeCheckout, app: app, observedAt: now())
            else {
                throw IngestionError(
                    .invalidPurchase, "the Checkout Session's payment was not started by SubLedger for this app")
            }
            input = read
        default:
            throw IngestionError(.invalidPurchase, "the Checkout Session neither subscribes nor pays once")
        }
        input.submitter = account
        return input
    }
}
