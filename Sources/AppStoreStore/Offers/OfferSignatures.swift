import AppStore
import Foundation
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Makes the signatures StoreKit needs before it shows an offer, with the app's In-App Purchase key from the
/// catalog, and answers the account's introductory-offer eligibility from the ledger (docs/guides/offers.md).
public struct OfferSignatures: OfferSigning {
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

    public func sign(_ request: OfferSignatureRequest, app: StoredApp) async throws -> OfferSignatureAnswer {
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
            var promotional: OfferSignatureAnswer.PromotionalOffer?
            if let offer = request.offerIdentifier {
                let signed = try key.promotionalOfferSignature(
                    productID: productID, offerIdentifier: offer, appAccountToken: request.appAccountToken,
                    nonce: makeNonce(), timestamp: instant)
                promotional = OfferSignatureAnswer.PromotionalOffer(
                    signature: OfferSignatureAnswer.Signature(
                        keyIdentifier: signed.keyIdentifier, nonce: signed.nonce, timestamp: signed.timestamp,
                        signature: signed.signature),
                    jws: try key.promotionalOfferJWS(
                        productID: productID, offerIdentifier: offer, transactionID: transactionID,
                        nonce: makeNonce(), issuedAt: instant))
            }
            return OfferSignatureAnswer(
                request: request, facts: facts, transactionID: transactionID,
                introductoryOfferEligibilityJWS: eligibilityJWS, promotionalOffer: promotional)
        } catch {
            throw OfferError(.signingFailed, error.message)
        }
    }
}
