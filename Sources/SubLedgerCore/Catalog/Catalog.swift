/// The configured apps and their products: what the ledger may accept and what each product grants.
///
/// File format (JSON or YAML, snake_case keys):
/// ```yaml
/// apps:
///   - bundle_id: com.example.app
///     apple_app_id: 123456789
///     environments: [production, sandbox]
///     ownership: seed_rule   # or transfer_on_restore, keep_first_owner (older key: ownership_policy)
///     products:
///       - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: "2100", entitlements: [pro] }
///       - { product_id: coins.100, type: consumable, credits: 100 }
///       - { product_id: pass.30d, type: non_renewing, duration_days: 30, entitlements: [pro] }
///       - { product_id: lifetime, type: non_consumable, entitlements: [pro] }
///     consumption: { enabled: true, refund_preference: decline, endpoint: v2 }   # optional; see ConsumptionPolicy
/// ```
/// Decoding checks names (product type, environment, policy); `validate()` checks the rest.
public struct Catalog: Hashable, Sendable, Codable {
    public var apps: [App]

    public init(apps: [App]) {
        self.apps = apps
    }

    /// The app with bundle id `bundleID`, if configured.
    public func app(bundleID: String) -> App? {
        apps.first { $0.bundleID == bundleID }
    }
}
