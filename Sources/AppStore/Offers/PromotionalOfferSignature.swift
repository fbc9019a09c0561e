import Crypto
import Foundation
import SubLedgerCore

/// A StoreKit 1 promotional-offer signature (`SKPaymentDiscount`, or StoreKit 2's
/// `Product.SubscriptionOffer.Signature`): what the app passes to StoreKit with the offer identifier.
///
/// Apple's "Generating a signature for promotional offers": the message is `appBundleID`, `keyIdentifier`,
/// `productIdentifier`, `offerIdentifier`, `appAccountToken` (lowercase; empty when there is none), `nonce`
/// (lowercase UUID) and `timestamp` (UNIX milliseconds), joined by U+2063 INVISIBLE SEPARATOR, signed with
/// ECDSA P-256 over SHA-256; the signature is DER, base64-encoded. Apple honours it for 24 hours.
public struct PromotionalOfferSignature: Sendable, Hashable {
    /// The key's identifier, for `keyIdentifier`.
    public var keyIdentifier: String
    /// The one-time nonce as signed: a lowercase UUID.
    public var nonce: String
    /// UNIX time in milliseconds, as signed.
    public var timestamp: Int64
    /// The base64 DER ECDSA signature.
    public var signature: String

    /// The separator Apple joins the fields with: U+2063 INVISIBLE SEPARATOR.
    public static let separator: Character = "\u{2063}"

    /// The exact text Apple verifies, in Apple's field order.
    public static func message(
        bundleID: String, keyIdentifier: String, productID: String, offerIdentifier: String,
        appAccountToken: String?, nonce: UUID, timestamp: Int64
    ) -> String {
        [
            bundleID, keyIdentifier, productID, offerIdentifier, (appAccountToken ?? "").lowercased(),
            nonce.uuidString.lowercased(), String(timestamp),
        ].joined(separator: String(separator))
    }
}

extension OfferSigningKey {
    /// Signs a promotional offer for StoreKit 1 at `timestamp` with `nonce` (generate a new one each time).
    public func promotionalOfferSignature(
        productID: String, offerIdentifier: String, appAccountToken: String?, nonce: UUID, timestamp: Instant
    ) throws(OfferSigningError) -> PromotionalOfferSignature {
        let message = PromotionalOfferSignature.message(
            bundleID: bundleID, keyIdentifier: keyID, productID: productID, offerIdentifier: offerIdentifier,
            appAccountToken: appAccountToken, nonce: nonce, timestamp: timestamp.millisecondsSince1970)
        let signature: P256.Signing.ECDSASignature
        do {
            signature = try privateKey.signature(for: Data(message.utf8))
        } catch {
            throw OfferSigningError(.signingFailed, "the promotional offer could not be signed")
        }
        return PromotionalOfferSignature(
            keyIdentifier: keyID, nonce: nonce.uuidString.lowercased(), timestamp: timestamp.millisecondsSince1970,
            signature: signature.derRepresentation.base64EncodedString())
    }
}
