import GooglePlay

/// Range checks of a package definition before it is accepted: every id bounded and free of control
/// characters, ids unique within their scope, prices and day counts within Google's ranges.
enum CatalogValidation {
    static let gracePeriodDays: Set<Int> = [0, 3, 7, 14, 30]

    static func check(_ package: PackageDefinition) throws(SimulatorError) {
        try identifier(package.packageName, "package_name", maximum: WireText.maximumPackageNameLength)
        guard package.subscriptions.count + package.products.count <= 1000 else {
            throw SimulatorError(.badRequest, "at most 1000 products a package")
        }
        var productIds: Set<String> = []
        for subscription in package.subscriptions {
            try identifier(subscription.productId, "product_id")
            guard productIds.insert(subscription.productId).inserted else {
                throw SimulatorError(.badRequest, "product_id \(subscription.productId) is repeated")
            }
            guard !subscription.basePlans.isEmpty, subscription.basePlans.count <= 50 else {
                throw SimulatorError(.badRequest, "a subscription has 1 to 50 base plans")
            }
            var basePlanIds: Set<String> = []
            for plan in subscription.basePlans {
                try identifier(plan.basePlanId, "base_plan_id", maximum: 63)
                guard basePlanIds.insert(plan.basePlanId).inserted else {
                    throw SimulatorError(.badRequest, "base_plan_id \(plan.basePlanId) is repeated")
                }
                try price(plan.priceMicros, plan.currencyCode)
                guard gracePeriodDays.contains(plan.gracePeriodDays) else {
                    throw SimulatorError(.badRequest, "grace_period_days must be 0, 3, 7, 14 or 30")
                }
                guard (0...60).contains(plan.accountHoldDays) else {
                    throw SimulatorError(.badRequest, "account_hold_days must be 0 to 60")
                }
                guard plan.offers.count <= 50 else { throw SimulatorError(.badRequest, "at most 50 offers a plan") }
                var offerIds: Set<String> = []
                for offer in plan.offers {
                    try identifier(offer.offerId, "offer_id", maximum: 63)
                    guard offerIds.insert(offer.offerId).inserted else {
                        throw SimulatorError(.badRequest, "offer_id \(offer.offerId) is repeated")
                    }
                    for tag in offer.offerTags ?? [] { try identifier(tag, "offer_tags", maximum: 20) }
                    if let days = offer.freeTrialDays, !(1...365).contains(days) {
                        throw SimulatorError(.badRequest, "free_trial_days must be 1 to 365")
                    }
                    guard (offer.offerTags ?? []).count <= 20 else {
                        throw SimulatorError(.badRequest, "at most 20 offer_tags")
                    }
                }
            }
        }
        for product in package.products {
            try identifier(product.productId, "product_id")
            guard productIds.insert(product.productId).inserted else {
                throw SimulatorError(.badRequest, "product_id \(product.productId) is repeated")
            }
            try price(product.priceMicros, product.currencyCode)
        }
    }

    static func identifier(_ text: String, _ field: String, maximum: Int = 150) throws(SimulatorError) {
        guard WireText.isAcceptable(text, maximumLength: maximum),
            text.unicodeScalars.allSatisfy({ $0.isASCII && $0 != " " && $0 != "/" && $0 != "%" })
        else {
            throw SimulatorError(.badRequest, "\(field) must be 1 to \(maximum) printable ASCII characters")
        }
    }

    static func price(_ micros: Int64, _ currency: String) throws(SimulatorError) {
        guard micros >= 0, micros <= 1_000_000_000_000_000 else {
            throw SimulatorError(.badRequest, "price_micros must be 0 to 10^15")
        }
        guard currency.utf8.count == 3, currency.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) }) else {
            throw SimulatorError(.badRequest, "currency_code must be three capital letters")
        }
    }
}
