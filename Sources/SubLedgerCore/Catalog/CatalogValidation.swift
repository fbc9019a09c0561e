extension Catalog {
    /// Every defect of the catalog, in file order; empty when the catalog is usable.
    public var validationErrors: [CatalogError] {
        var errors: [CatalogError] = []
        var seenBundleIDs: Set<String> = []
        for app in apps {
            if !seenBundleIDs.insert(app.bundleID).inserted {
                errors.append(CatalogError(code: .duplicateBundleID, subject: app.bundleID))
            }
            errors += app.validationErrors
        }
        return errors
    }

    /// Throws the first defect of the catalog, if any.
    public func validate() throws(CatalogError) {
        if let first = validationErrors.first { throw first }
    }

    /// What a catalog needs before it is served, beyond being consistent: every app that accepts Production
    /// and sells on the App Store states its `apple_app_id`, without which none of its Production notifications
    /// can be verified (an app whose products are all sold by other stores, on Google Play or the web, needs none;
    /// an app with no product and no Google Play listing is taken for an App Store app). Values built in code (tests,
    /// tools) may leave it out; a catalog file an operator applies may not.
    public var servingErrors: [CatalogError] {
        apps.filter {
            $0.environments.contains(.production) && $0.appAppleID == nil
                && ($0.products.contains { $0.store == .appStore } || ($0.products.isEmpty && $0.googlePlay == nil))
        }
        .map { CatalogError(code: .missingAppleAppID, subject: $0.bundleID) }
    }

    /// Throws the first defect of the catalog, then the first thing it lacks to be served (`servingErrors`).
    public func validateForServing() throws(CatalogError) {
        try validate()
        if let first = servingErrors.first { throw first }
    }
}

extension App {
    /// Every defect of this app's configuration, in file order.
    public var validationErrors: [CatalogError] {
        var errors: [CatalogError] = []
        if bundleID.isEmpty {
            errors.append(CatalogError(code: .emptyBundleID, subject: bundleID))
        } else if !IdentifierRule.bundleID.accepts(bundleID) {
            // The API refuses such ids at its edge, so an app named so could never be reached.
            errors.append(CatalogError(code: .invalidBundleID, subject: String(bundleID.prefix(64))))
        }
        if environments.isEmpty { errors.append(CatalogError(code: .noEnvironments, subject: bundleID)) }
        // Xcode and local-testing data carries no App Store signature, so it is accepted unverified (as Apple's
        // library does) only by apps that opt in, and never by an app that also serves real customers.
        if environments.contains(.production),
            let unverifiable = environments.first(where: { $0 == .xcode || $0 == .localTesting })
        {
            errors.append(
                CatalogError(
                    code: .unverifiableEnvironmentWithProduction, subject: bundleID, detail: unverifiable.rawValue))
        }
        if let listing = googlePlay, !GooglePlayListing.isPackageName(listing.packageName) {
            errors.append(CatalogError(code: .invalidPackageName, subject: bundleID))
        }
        if let listing = googlePlay, !listing.hasValidPushSettings {
            errors.append(CatalogError(code: .invalidGooglePlayPush, subject: bundleID))
        }
        // A token names the app by bundle and Apple id; reports name the country the sales are taxed in.
        if externalPurchase.report, appAppleID == nil || !externalPurchase.isValid {
            errors.append(CatalogError(code: .invalidExternalPurchase, subject: bundleID))
        }
        var seenProductIDs: Set<String> = []
        for product in products {
            if !seenProductIDs.insert(product.productID).inserted {
                errors.append(CatalogError(code: .duplicateProductID, subject: product.productID))
            }
            if product.store == .googlePlay, googlePlay == nil {
                errors.append(CatalogError(code: .googlePlayProductWithoutListing, subject: product.productID))
            }
            errors += product.validationErrors
        }
        return errors
    }
}

extension Product {
    /// Every defect of this product's configuration.
    public var validationErrors: [CatalogError] {
        var errors: [CatalogError] = []
        func fail(_ code: CatalogError.Code) { errors.append(CatalogError(code: code, subject: productID)) }
        if productID.isEmpty {
            fail(.emptyProductID)
        } else if !IdentifierRule.productID.accepts(productID) {
            errors.append(CatalogError(code: .invalidProductID, subject: String(productID.prefix(64))))
        }
        if entitlementIDs.contains(where: \.isEmpty) { fail(.emptyEntitlementID) }
        switch type {
        case .consumable:
            if (creditsPerUnit ?? 0) <= 0 { fail(.consumableWithoutCredits) }
            if !entitlementIDs.isEmpty { fail(.entitlementsOnConsumable) }
        case .autoRenewable, .nonRenewing, .nonConsumable:
            if creditsPerUnit != nil { fail(.creditsOnNonConsumable) }
        }
        switch type {
        case .nonRenewing:
            if (durationDays ?? 0) <= 0 { fail(.nonRenewingWithoutDuration) }
        case .autoRenewable, .nonConsumable, .consumable:
            if durationDays != nil { fail(.durationOnRenewableOrOneTime) }
        }
        if type == .autoRenewable, (subscriptionGroupID ?? "").isEmpty { fail(.subscriptionWithoutGroup) }
        return errors
    }
}
