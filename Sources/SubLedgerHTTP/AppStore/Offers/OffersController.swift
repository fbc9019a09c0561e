import Foundation
import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// `POST /v1/offers/signatures`: the signatures StoreKit needs to show an account a promotional offer, and its
/// introductory-offer eligibility from the ledger, signed with the app's In-App Purchase key.
struct OffersController: Sendable {
    let apps: AppDirectory
    /// The App Store's signatures; `nil` when this process is not configured for it.
    let signatures: (any OfferSigning)?

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.post("offers/signatures") { request, context in try await sign(request, context) }
    }

    struct SignatureRequestBody: JSONRequestBody {
        var account_id: String?
        var product_id: String?
        var offer_identifier: String?
        var app_account_token: String?
        var transaction_id: String?
        static let fields: Set<String> = [
            "account_id", "product_id", "offer_identifier", "app_account_token", "transaction_id",
        ]
        static let refusesNull = true
    }

    struct IntroductoryOfferUseBody: Codable {
        var transaction_id: String
        var original_transaction_id: String
        var product_id: String
        var environment: String
        var purchased_at: String?
    }

    struct IntroductoryOfferBody: Codable {
        /// Whether the account may get an introductory offer in the group (Apple's `allowIntroductoryOffer`).
        var eligible: Bool
        /// The transaction that already used one, when not eligible.
        var used_by: IntroductoryOfferUseBody?
        /// StoreKit 2 `introductoryOfferEligibility(compactJWS:)`; null when no transaction id is known.
        var jws: String?
    }

    struct PromotionalOfferBody: Codable {
        var offer_identifier: String
        /// StoreKit 1 `SKPaymentDiscount` / StoreKit 2 `Product.SubscriptionOffer.Signature`.
        var key_identifier: String
        var nonce: String
        var timestamp: Int64
        var signature: String
        /// The app account token signed in (empty when none): the app must pass the same one.
        var app_account_token: String
        /// StoreKit 2 `promotionalOffer(_:compactJWS:)`.
        var jws: String
    }

    struct SignaturesBody: ResponseEncodable {
        var account_id: String
        var product_id: String
        var subscription_group_id: String
        var transaction_id: String?
        var introductory_offer: IntroductoryOfferBody
        var promotional_offer: PromotionalOfferBody?
    }

    func sign(_ request: Request, _ context: SubLedgerRequestContext) async throws -> SignaturesBody {
        let app = try await apps.app(for: try context.requireKey())
        let body = try await request.decodeJSON(as: SignatureRequestBody.self, context: context)
        let parsed = try OfferSignatureRequest(
            accountID: body.account_id, productID: body.product_id, offerIdentifier: body.offer_identifier,
            appAccountToken: body.app_account_token, transactionID: body.transaction_id, app: app.definition)
        guard let signatures else {
            throw IngestionError(.appMisconfigured, "this server is not configured for the App Store")
        }
        let answer = try await signatures.sign(parsed, app: app)
        let used = answer.facts.introductoryOffer
        return SignaturesBody(
            account_id: parsed.account.rawValue, product_id: parsed.product.productID,
            subscription_group_id: parsed.subscriptionGroupID, transaction_id: answer.transactionID,
            introductory_offer: IntroductoryOfferBody(
                eligible: answer.facts.isEligibleForIntroductoryOffer,
                used_by: used.map {
                    IntroductoryOfferUseBody(
                        transaction_id: $0.transactionID, original_transaction_id: $0.chainID,
                        product_id: $0.productID, environment: $0.environment.rawValue,
                        purchased_at: Representation.time($0.purchaseDate))
                },
                jws: answer.introductoryOfferEligibilityJWS),
            promotional_offer: answer.promotionalOffer.map {
                PromotionalOfferBody(
                    offer_identifier: parsed.offerIdentifier ?? "", key_identifier: $0.signature.keyIdentifier,
                    nonce: $0.signature.nonce, timestamp: $0.signature.timestamp, signature: $0.signature.signature,
                    app_account_token: parsed.appAccountToken ?? "", jws: $0.jws)
            })
    }
}
