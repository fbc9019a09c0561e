import AppStore
import Foundation
import SubLedgerCore
import SubLedgerStore

/// Makes the signatures StoreKit needs before it shows an offer, with the app's In-App Purchase key from the
/// catalog, and answers the account's introductory-offer eligibility from the ledger (docs/guides/offers.md).
public struct OfferSignatures: Sendable {
    let store: OfferEligibilityStore
    let now: @Sendable () -> Instant
    let makeNonce: @Sendable () -> UUID

    /// `makeNonce` gives each signature its one-time nonce (Apple: a new one for every signature).
    public init(
        store: OfferEligibilityStore, now: @escaping @Sendable () -> Instant,
        makeNonce: @escaping @Sendable () -> UUID = { UUID() }
    ) {
        self.store = store
        self.now = now
        self.makeNonce = makeNonce
    }

    /// Everything one request gets back.
    public struct Answer: Sendable, Hashable {
        public var request: OfferSignatureRequest
        public var facts: OfferEligibilityFacts
        /// The transaction id signed into the JWS: the request's, else the account's latest in the ledger.
        public var transactionID: String?
        /// The introductory-offer eligibility JWS; `nil` when no transaction id of the customer is known,
        /// since Apple requires one in it.
        public var introductoryOfferEligibilityJWS: String?
        /// Present when the request named an offer identifier.
        public var promotionalOffer: PromotionalOffer?
    }

    /// A promotional offer signed both ways.
    public struct PromotionalOffer: Sendable, Hashable {
        /// For StoreKit 1 (`SKPaymentDiscount`) or StoreKit 2's `Product.SubscriptionOffer.Signature`.
        public var signature: PromotionalOfferSignature
        /// For StoreKit 2's `promotionalOffer(_:compactJWS:)`.
        public var jws: String
    }

    /// Signs what `request` asks for `app`. Throws `OfferError` for a missing or unusable key.
    public func sign(_ request: OfferSignatureRequest, app: StoredApp) async throws -> Answer {
        guard let credentials = app.serverAPI else {
            throw OfferError(
                .keyNotConfigured,
                "\(app.bundleID) has no In-App Purchase key: add server_api (issuer_id, key_id, private_key_file) "
                    + "to its catalog entry and apply the catalog")
        }
        let key: OfferSigningKey
        do {
            key = try OfferSigningKey(
                bundleID: app.bundleID, issuerID: credentials.issuerID, keyID: credentials.keyID,
                privateKeyPEM: credentials.privateKeyPEM)
        } catch {
            throw OfferError(.keyUnusable, "the In-App Purchase key of \(app.bundleID) cannot sign: \(error.message)")
        }
        let facts = try await store.facts(
            of: request.account, subscriptionGroupID: request.subscriptionGroupID, app: app)
        let instant = now()
        let transactionID = request.transactionID ?? facts.latestTransactionID
        let productID = request.product.productID
        do {
            let eligibilityJWS = try transactionID.map { (id) throws(OfferSigningError) in
                try key.introductoryOfferEligibilityJWS(
                    productID: productID, allowIntroductoryOffer: facts.isEligibleForIntroductoryOffer,
                    transactionID: id, nonce: makeNonce(), issuedAt: instant)
            }
            var promotional: PromotionalOffer?
            if let offer = request.offerIdentifier {
                promotional = PromotionalOffer(
                    signature: try key.promotionalOfferSignature(
                        productID: productID, offerIdentifier: offer, appAccountToken: request.appAccountToken,
                        nonce: makeNonce(), timestamp: instant),
                    jws: try key.promotionalOfferJWS(
                        productID: productID, offerIdentifier: offer, transactionID: transactionID,
                        nonce: makeNonce(), issuedAt: instant))
            }
            return Answer(
                request: request, facts: facts, transactionID: transactionID,
                introductoryOfferEligibilityJWS: eligibilityJWS, promotionalOffer: promotional)
        } catch {
            throw OfferError(.signingFailed, error.message)
        }
    }
}
