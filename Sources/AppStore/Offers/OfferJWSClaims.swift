/// The claims of the JWS StoreKit 2 takes for offers (Apple's "Generating JWS to sign App Store requests"):
/// `iss` issuer id, `iat` issue time in UNIX seconds, `aud` the feature, `bid` bundle id, `nonce` a lowercase
/// UUID, then the feature's own claims. Field names are Apple's; an absent optional claim is left out, as
/// Apple's libraries do.
enum OfferJWSClaims {
    /// `aud` of a promotional offer (`PromotionalOfferV2SignatureCreator`).
    static let promotionalOfferAudience = "promotional-offer"
    /// `aud` of an introductory-offer eligibility (`IntroductoryOfferEligibilitySignatureCreator`).
    static let introductoryOfferEligibilityAudience = "introductory-offer-eligibility"

    struct Header: Encodable {
        var alg = "ES256"
        var kid: String
        var typ = "JWT"
    }

    struct PromotionalOffer: Encodable {
        var iss: String
        var iat: Int64
        var aud = OfferJWSClaims.promotionalOfferAudience
        var bid: String
        var nonce: String
        var productId: String
        var offerIdentifier: String
        /// Optional but recommended by Apple: any transaction id of the customer, or the app transaction id.
        var transactionId: String?
    }

    struct IntroductoryOfferEligibility: Encodable {
        var iss: String
        var iat: Int64
        var aud = OfferJWSClaims.introductoryOfferEligibilityAudience
        var bid: String
        var nonce: String
        var productId: String
        var allowIntroductoryOffer: Bool
        /// Required by Apple: any transaction id of the customer, or the app transaction id.
        var transactionId: String
    }
}
