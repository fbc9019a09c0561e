extension OfferType {
    /// The offer a `verifyReceipt` entry describes, which has no `offerType` of its own: a promotional offer
    /// id, else an offer code's name, else (for transactions) an introductory or trial period.
    static func legacy(
        promotionalOfferID: String?, offerCodeRefName: String?, isIntroductory: Bool = false
    ) -> OfferType? {
        if promotionalOfferID != nil { return .promotionalOffer }
        if offerCodeRefName != nil { return .subscriptionOfferCode }
        return isIntroductory ? .introductoryOffer : nil
    }
}
