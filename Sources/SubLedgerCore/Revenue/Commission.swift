/// The store's commission (Apple's commission, Google Play's service fee) on a sale, in parts per million of the
/// price after tax.
public enum Commission {
    /// 30 %: the standard rate.
    public static let standardPPM: Int64 = 300_000
    /// 15 %: the Small Business Program, and subscription renewals after a year of paid service.
    public static let reducedPPM: Int64 = 150_000

    /// Why a sale's commission is what it is.
    public enum Basis: String, Sendable, Hashable, Codable {
        case standard
        case smallBusiness = "small_business"
        case secondYear = "second_year"
        /// Google Play's 15 % on every auto-renewing subscription sale, from the first.
        case googlePlaySubscription = "google_play_subscription"
        /// A web sale (a store that takes no commission, such as Stripe): the payment processor's fee is stated per
        /// charge.
        case web
    }

    /// The basis of a sale in `store`, by each store's rules:
    /// - App Store: `basis(smallBusiness:accruedPaidMilliseconds:)`.
    /// - Google Play: 15 % on every auto-renewing subscription sale (`subscription`), whatever came before; its other
    ///   sales as the App Store's (15 % in the program, else 30 %).
    /// - A store that takes no commission (`Store.takesCommission`: a web checkout such as Stripe): none (`web`).
    public static func basis(
        of store: Store, subscription: Bool, smallBusiness: Bool, accruedPaidMilliseconds: Int64
    ) -> Basis {
        guard store.takesCommission else { return .web }
        if store == .googlePlay, subscription { return .googlePlaySubscription }
        return basis(smallBusiness: smallBusiness, accruedPaidMilliseconds: accruedPaidMilliseconds)
    }

    /// The App Store's rate of a sale: 15 % when the app is in the Small Business Program on the purchase day, or
    /// when the subscriber had a year of paid service in the group before it (`PaidServiceDays`); else 30 %. The
    /// reports' aggregates, whose facts already carry the reduced rate as `second_year`, read it with this too.
    public static func basis(smallBusiness: Bool, accruedPaidMilliseconds: Int64) -> Basis {
        if smallBusiness { return .smallBusiness }
        if accruedPaidMilliseconds >= PaidServiceDays.oneYearMilliseconds { return .secondYear }
        return .standard
    }

    /// The rate for `basis`, in parts per million.
    public static func ppm(_ basis: Basis) -> Int64 {
        switch basis {
        case .standard: standardPPM
        case .smallBusiness, .secondYear, .googlePlaySubscription: reducedPPM
        case .web: 0
        }
    }
}
