import Crypto
import Foundation
import SubLedgerCore

extension OfferSigningKey {
    /// A StoreKit 2 promotional-offer JWS (`Product.PurchaseOption.promotionalOffer(_:compactJWS:)`), as Apple's
    /// `PromotionalOfferV2SignatureCreator` makes it: ES256, header `kid`/`typ`, `aud` `promotional-offer`.
    public func promotionalOfferJWS(
        productID: String, offerIdentifier: String, transactionID: String?, nonce: UUID, issuedAt: Instant
    ) throws(OfferSigningError) -> String {
        try compactJWS(
            OfferJWSClaims.PromotionalOffer(
                iss: issuerID, iat: Self.seconds(issuedAt), bid: bundleID, nonce: nonce.uuidString.lowercased(),
                productId: productID, offerIdentifier: offerIdentifier, transactionId: transactionID))
    }

    /// A StoreKit 2 introductory-offer eligibility JWS (`Product.PurchaseOption.introductoryOfferEligibility(
    /// compactJWS:)`), as Apple's `IntroductoryOfferEligibilitySignatureCreator` makes it: `aud`
    /// `introductory-offer-eligibility`, `allowIntroductoryOffer`, and a transaction id of the customer.
    public func introductoryOfferEligibilityJWS(
        productID: String, allowIntroductoryOffer: Bool, transactionID: String, nonce: UUID, issuedAt: Instant
    ) throws(OfferSigningError) -> String {
        try compactJWS(
            OfferJWSClaims.IntroductoryOfferEligibility(
                iss: issuerID, iat: Self.seconds(issuedAt), bid: bundleID, nonce: nonce.uuidString.lowercased(),
                productId: productID, allowIntroductoryOffer: allowIntroductoryOffer, transactionId: transactionID))
    }

    /// `iat` is a JWT NumericDate: whole seconds, rounded down as Apple's libraries do.
    private static func seconds(_ instant: Instant) -> Int64 {
        let milliseconds = instant.millisecondsSince1970
        return milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
    }

    private func compactJWS(_ claims: some Encodable) throws(OfferSigningError) -> String {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let header = Base64URL.encode(try encoder.encode(OfferJWSClaims.Header(kid: keyID)))
            let payload = Base64URL.encode(try encoder.encode(claims))
            let signature = try privateKey.signature(for: Data("\(header).\(payload)".utf8))
            return "\(header).\(payload).\(Base64URL.encode(signature.rawRepresentation))"
        } catch {
            throw OfferSigningError(.signingFailed, "the offer JWS could not be signed")
        }
    }
}
