/// One app the ledger serves: where its receipts may come from, how ownership is decided, what it sells.
public struct App: Hashable, Sendable, Codable {
    public var bundleID: String
    /// Apple's numeric app id (`appAppleId`), checked against notifications when present.
    public var appAppleID: Int64?
    /// The environments whose transactions this deployment accepts.
    public var environments: [StoreEnvironment]
    /// Who keeps a subscription chain when another account submits it; default `.activeAutoRenewerKeeps`.
    public var ownershipPolicy: OwnershipPolicy
    public var products: [Product]
    /// How Apple's consumption requests (refund requests) are answered; default `.disabled`.
    public var consumption: ConsumptionPolicy
    /// What SubLedger tells Apple after an apply (Set App Account Token, Finish Transaction); default `.off`.
    public var writeBack: WriteBackPolicy
    /// Where the app is sold on Google Play, if it is: its products with `store: google_play` are bought there.
    public var googlePlay: GooglePlayListing?
    /// Whether its web purchases are reported to Apple (External Purchase Server API); default `.off`.
    public var externalPurchase: ExternalPurchasePolicy

    public init(
        bundleID: String,
        appAppleID: Int64? = nil,
        environments: [StoreEnvironment] = [.production],
        ownershipPolicy: OwnershipPolicy = .activeAutoRenewerKeeps,
        products: [Product],
        consumption: ConsumptionPolicy = .disabled,
        writeBack: WriteBackPolicy = .off,
        googlePlay: GooglePlayListing? = nil,
        externalPurchase: ExternalPurchasePolicy = .off
    ) {
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.environments = environments
        self.ownershipPolicy = ownershipPolicy
        self.products = products
        self.consumption = consumption
        self.writeBack = writeBack
        self.googlePlay = googlePlay
        self.externalPurchase = externalPurchase
    }

    /// The product with id `productID`, if the app sells it.
    public func product(_ productID: String) -> Product? {
        products.first { $0.productID == productID }
    }

    enum CodingKeys: String, CodingKey {
        case bundleID = "bundle_id"
        case appAppleID = "apple_app_id"
        case environments
        case ownershipPolicy = "ownership_policy"
        case products
        case consumption
        case writeBack = "write_back"
        case googlePlay = "google_play"
        case externalPurchase = "external_purchase"
    }

    /// The file's documented key for the ownership policy; `ownership_policy` (a `CodingKeys` case, the key the
    /// stored JSON keeps) is its older synonym.
    private enum FileKeys: String, CodingKey {
        case ownership
    }

    /// Decodes the file format. Environment names match case-insensitively and without underscores
    /// (`production` or `Production`, `local_testing` or `LocalTesting`);
    /// an unknown environment or policy name throws a `CatalogError` with the matching code.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bundleID = try container.decode(String.self, forKey: .bundleID)
        appAppleID = try container.decodeIfPresent(Int64.self, forKey: .appAppleID)
        let rawEnvironments = try container.decodeIfPresent([String].self, forKey: .environments) ?? ["Production"]
        environments = try rawEnvironments.map { [bundleID] raw throws(CatalogError) in
            guard
                let environment = StoreEnvironment.allCases.first(where: {
                    $0.rawValue.lowercased() == String(raw.lowercased().filter { $0 != "_" })
                })
            else { throw CatalogError(code: .unknownEnvironment, subject: bundleID, detail: raw) }
            return environment
        }
        ownershipPolicy = try Self.ownershipPolicy(in: decoder, bundleID: bundleID)
        products = try container.decodeIfPresent([Product].self, forKey: .products) ?? []
        consumption = try container.decodeIfPresent(ConsumptionPolicy.self, forKey: .consumption) ?? .disabled
        writeBack = try container.decodeIfPresent(WriteBackPolicy.self, forKey: .writeBack) ?? .off
        googlePlay = try container.decodeIfPresent(GooglePlayListing.self, forKey: .googlePlay)
        externalPurchase =
            try container.decodeIfPresent(ExternalPurchasePolicy.self, forKey: .externalPurchase) ?? .off
    }

    /// The policy the file names under `ownership:` (catalog names) or `ownership_policy:` (stored names), the
    /// default when neither key is given. Both keys naming the same policy is fine; naming two is refused
    /// (`conflicting_ownership_policy`). A key given without a usable value (YAML `""` and `~` both decode as
    /// null) is refused like any other unknown name, not read as the default: the file meant some policy.
    private static func ownershipPolicy(in decoder: any Decoder, bundleID: String) throws -> OwnershipPolicy {
        let legacy = try decoder.container(keyedBy: CodingKeys.self)
        let documented = try decoder.container(keyedBy: FileKeys.self)
        var stated: OwnershipPolicy?
        if documented.contains(.ownership) {
            let name = try documented.decodeIfPresent(String.self, forKey: .ownership) ?? ""
            guard let policy = OwnershipPolicy(catalogName: name) else {
                throw CatalogError(code: .unknownOwnershipPolicy, subject: bundleID, detail: name)
            }
            stated = policy
        }
        if legacy.contains(.ownershipPolicy) {
            let name = try legacy.decodeIfPresent(String.self, forKey: .ownershipPolicy) ?? ""
            guard let policy = OwnershipPolicy(rawValue: name) else {
                throw CatalogError(code: .unknownOwnershipPolicy, subject: bundleID, detail: name)
            }
            if let stated, stated != policy {
                throw CatalogError(
                    code: .conflictingOwnershipPolicy, subject: bundleID,
                    detail: "ownership: \(stated.catalogName), ownership_policy: \(policy.rawValue)")
            }
            stated = policy
        }
        return stated ?? .activeAutoRenewerKeeps
    }

    /// The package name or bundle id a transaction of `store` names this app by, if the app is sold there.
    public func storeIdentifier(in store: Store) -> String? {
        // A web store (Stripe) names no app: SubLedger states the bundle id in the metadata of what it sells there.
        store == .googlePlay ? googlePlay?.packageName : bundleID
    }
}
