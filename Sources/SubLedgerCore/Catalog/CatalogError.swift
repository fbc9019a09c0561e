/// A defect in the catalog: a code for programs, the product or app at fault, and the offending value.
public struct CatalogError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, machine-readable reason; new codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case emptyBundleID = "empty_bundle_id"
            case invalidBundleID = "invalid_bundle_id"
            case duplicateBundleID = "duplicate_bundle_id"
            case noEnvironments = "no_environments"
            case unknownEnvironment = "unknown_environment"
            case unverifiableEnvironmentWithProduction = "unverifiable_environment_with_production"
            case unknownOwnershipPolicy = "unknown_ownership_policy"
            case conflictingOwnershipPolicy = "conflicting_ownership_policy"
            case emptyProductID = "empty_product_id"
            case invalidProductID = "invalid_product_id"
            case duplicateProductID = "duplicate_product_id"
            case unknownProductType = "unknown_product_type"
            case consumableWithoutCredits = "consumable_without_credits"
            case creditsOnNonConsumable = "credits_on_non_consumable"
            case entitlementsOnConsumable = "entitlements_on_consumable"
            case emptyEntitlementID = "empty_entitlement_id"
            case subscriptionWithoutGroup = "subscription_without_group"
            case nonRenewingWithoutDuration = "non_renewing_without_duration"
            case durationOnRenewableOrOneTime = "duration_on_wrong_type"
            case invalidConsumptionPolicy = "invalid_consumption_policy"
            case missingAppleAppID = "missing_apple_app_id"
            case unknownStore = "unknown_store"
            case invalidPackageName = "invalid_package_name"
            case googlePlayProductWithoutListing = "google_play_product_without_listing"
            case invalidGooglePlayPush = "invalid_google_play_push"
            case invalidExternalPurchase = "invalid_external_purchase"
        }

        private let value: Value

        private init(_ value: Value) { self.value = value }

        public static let emptyBundleID = Code(.emptyBundleID)
        /// A bundle id breaking `IdentifierRule.bundleID` (over 255 characters, or outside `A-Z a-z 0-9 . _ -`):
        /// the API refuses such ids at its edge, so the app could never be reached.
        public static let invalidBundleID = Code(.invalidBundleID)
        /// Two apps share a bundle id.
        public static let duplicateBundleID = Code(.duplicateBundleID)
        /// An app accepts no environment at all.
        public static let noEnvironments = Code(.noEnvironments)
        public static let unknownEnvironment = Code(.unknownEnvironment)
        /// An app accepts `Production` and also `Xcode` or `LocalTesting`, whose data nobody can verify: anyone
        /// could then forge purchases that grant the same entitlements as real ones (see docs/reference/catalog.md).
        public static let unverifiableEnvironmentWithProduction = Code(.unverifiableEnvironmentWithProduction)
        /// `ownership` names no catalog name (`seed_rule`, `transfer_on_restore`, `keep_first_owner`), or
        /// `ownership_policy` no stored name, or either key is given without a value.
        public static let unknownOwnershipPolicy = Code(.unknownOwnershipPolicy)
        /// `ownership` and its older synonym `ownership_policy` are both given and name different policies.
        public static let conflictingOwnershipPolicy = Code(.conflictingOwnershipPolicy)
        public static let emptyProductID = Code(.emptyProductID)
        /// A product id breaking `IdentifierRule.productID` (over 255 characters, or outside `A-Z a-z 0-9 . _ -`).
        public static let invalidProductID = Code(.invalidProductID)
        /// Two products of one app share a product id.
        public static let duplicateProductID = Code(.duplicateProductID)
        public static let unknownProductType = Code(.unknownProductType)
        /// A consumable states no positive `credits`.
        public static let consumableWithoutCredits = Code(.consumableWithoutCredits)
        /// `credits` on a product that is not a consumable.
        public static let creditsOnNonConsumable = Code(.creditsOnNonConsumable)
        /// A consumable lists entitlements; consumables grant credits only.
        public static let entitlementsOnConsumable = Code(.entitlementsOnConsumable)
        public static let emptyEntitlementID = Code(.emptyEntitlementID)
        /// An auto-renewable subscription states no subscription group.
        public static let subscriptionWithoutGroup = Code(.subscriptionWithoutGroup)
        /// A non-renewing subscription states no positive `duration_days`; Apple gives it no expiry.
        public static let nonRenewingWithoutDuration = Code(.nonRenewingWithoutDuration)
        /// `duration_days` on a product that is not a non-renewing subscription.
        public static let durationOnRenewableOrOneTime = Code(.durationOnRenewableOrOneTime)
        /// An app's `consumption` names an unknown `refund_preference` (decline, grant, no_preference) or
        /// `endpoint` (v2, v1); the subject is the key, the detail the value.
        public static let invalidConsumptionPolicy = Code(.invalidConsumptionPolicy)
        /// An app that accepts `Production` states no `apple_app_id`: Apple's Production notifications, whose
        /// signed payload names the app by that id, would all be refused.
        public static let missingAppleAppID = Code(.missingAppleAppID)
        /// A product's `store` is neither `app_store` nor `google_play`.
        public static let unknownStore = Code(.unknownStore)
        /// `google_play.package_name` is not an Android application id (dot-separated segments of letters,
        /// digits and `_`, each starting with a letter, at least two, at most 255 characters).
        public static let invalidPackageName = Code(.invalidPackageName)
        /// A product with `store: google_play` in an app without a `google_play` listing.
        public static let googlePlayProductWithoutListing = Code(.googlePlayProductWithoutListing)
        /// `google_play.push_audience` and `push_service_account` are not both given, or one is not usable (the
        /// audience 1 to 2048 printable ASCII characters, the service account `name@domain`).
        public static let invalidGooglePlayPush = Code(.invalidGooglePlayPush)
        /// `external_purchase.report` without `apple_app_id` (the token names the app by it) or without a
        /// `tax_country` of three capital letters (ISO 3166-1 alpha-3).
        public static let invalidExternalPurchase = Code(.invalidExternalPurchase)

        public var description: String { value.rawValue }
    }

    public var code: Code
    /// The bundle id or product id at fault.
    public var subject: String
    /// The offending value (an unknown type or environment name), when there is one.
    public var detail: String?

    public init(code: Code, subject: String, detail: String? = nil) {
        self.code = code
        self.subject = subject
        self.detail = detail
    }

    public var description: String {
        let base = "catalog error \(code) at '\(subject)'"
        return detail.map { "\(base): '\($0)'" } ?? base
    }
}
