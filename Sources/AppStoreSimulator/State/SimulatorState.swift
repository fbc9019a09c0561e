import AppStore
import Crypto
import Foundation
import SeededRandom
import SubLedgerCore

/// Everything the simulated App Store knows; mutated only under `SimulatorEngine`'s lock.
struct SimulatorState: Sendable {
    /// What an operation needs to know about time.
    struct Context: Sendable {
        var now: Instant
        var sandboxDurations: Bool
    }

    struct GroupKey: Hashable, Sendable {
        var appleID: String
        var bundleID: String
        var groupID: String
    }

    let seed: UInt64
    var apps: [String: AppRecord] = [:]
    var accounts: [String: AppleIDDescription] = [:]
    var transactions: [String: TransactionRecord] = [:]
    var transactionsByKey: [AccountAppKey: [String]] = [:]
    /// The Apple ID and app of each `appTransactionId`, from the first transaction of that Apple ID in the app
    /// (Get App Transaction Info accepts it as well as a transaction id).
    var appTransactionKeys: [String: AccountAppKey] = [:]
    var chains: [String: SubscriptionChainRecord] = [:]
    var chainByGroup: [GroupKey: String] = [:]
    /// Family copies of non-subscription purchases: purchaser's transaction id → member → member's copy.
    var familyCopies: [String: [String: String]] = [:]
    var orders: [String: [String]] = [:]
    var askToBuy: [String: AskToBuyRecord] = [:]
    /// Bumped on every change to an Apple ID's purchases in an app; receipts are cached per version.
    var versions: [AccountAppKey: Int] = [:]
    var ids: IdentifierFactory
    var events: [SimulatorEvent] = []
    var receipts = ReceiptBook()
    var notifications = NotificationLog()
    /// Renewal-date extensions (`Subscriptions/Extensions.swift`).
    var extensions = ExtensionsBook()
    /// Send Consumption Information calls received (Consumption/ConsumptionEndpoint.swift).
    var consumptionReceived: [ReceivedConsumptionInformation] = []
    /// Set App Account Token and Finish Transaction calls accepted (WriteBacks/).
    var serverWriteBacks: [ServerWriteBack] = []
    /// External Purchase tokens issued and reports accepted (ExternalPurchase/).
    var externalPurchases = ExternalPurchaseBook()
    /// When each chain's latest state was signed, by original transaction id (a one-time purchase is a chain of
    /// its own). Every notification signs a new state strictly after the one before, even while the manual clock
    /// stands still, so two states of one chain never carry the same `signedDate`.
    var chainSignedAt: [String: Instant] = [:]
    private var sequence = 0
    private var accountCounter = 0

    init(seed: UInt64) {
        self.seed = seed
        self.ids = IdentifierFactory(seed: seed)
    }

    // MARK: Signing time

    /// The instant a new state of the chain is signed at: now, or a millisecond after its previous state when
    /// that was signed at now or later.
    mutating func signingInstantForNewState(of originalTransactionID: String, now: Instant) -> Instant {
        var instant = now
        if let previous = chainSignedAt[originalTransactionID], previous >= now {
            instant = previous.adding(milliseconds: 1)
        }
        chainSignedAt[originalTransactionID] = instant
        return instant
    }

    /// The instant a verifyReceipt answer for `key` is dated at (its `request_date`): now, never before a state of
    /// the receipt's chains was signed. The answer shows those chains as they stand at that instant, so the next
    /// state of any of them is signed strictly after it: a refund made next is never older than the receipt that
    /// showed the transaction clean.
    mutating func receiptAnsweringInstant(for key: AccountAppKey, now: Instant) -> Instant {
        let chains = Set(transactions(of: key).map(\.originalTransactionID)).filter { chainSignedAt[$0] != nil }
        let instant = chains.compactMap { chainSignedAt[$0] }.reduce(now, max)
        for chain in chains { chainSignedAt[chain] = instant }
        return instant
    }

    /// The instant a read signs the chain's current state at: now, never before that state was signed.
    func signingInstant(of originalTransactionID: String, now: Instant) -> Instant {
        max(now, chainSignedAt[originalTransactionID] ?? now)
    }

    // MARK: Lookups

    func app(_ bundleID: String) throws(SimulatorError) -> AppRecord {
        guard let app = apps[bundleID] else { throw SimulatorError(.notFound, "app \(bundleID) does not exist") }
        return app
    }

    func account(_ appleID: String) throws(SimulatorError) -> AppleIDDescription {
        guard let account = accounts[appleID] else {
            throw SimulatorError(.notFound, "Apple ID \(appleID) does not exist")
        }
        return account
    }

    func transaction(_ id: String) throws(SimulatorError) -> TransactionRecord {
        guard let transaction = transactions[id] else {
            throw SimulatorError(.notFound, "transaction \(id) does not exist")
        }
        return transaction
    }

    /// The chain of an original transaction id, or of any transaction in it.
    func chain(containing id: String) throws(SimulatorError) -> SubscriptionChainRecord {
        if let chain = chains[id] { return chain }
        if let transaction = transactions[id], let chain = chains[transaction.originalTransactionID] { return chain }
        throw SimulatorError(.notFound, "no subscription contains transaction \(id)")
    }

    func version(_ key: AccountAppKey) -> Int { versions[key, default: 0] }

    /// Every transaction of an Apple ID in an app, in creation order.
    func transactions(of key: AccountAppKey) -> [TransactionRecord] {
        (transactionsByKey[key] ?? []).compactMap { transactions[$0] }
    }

    // MARK: Mutation helpers

    mutating func touch(_ key: AccountAppKey) { versions[key, default: 0] += 1 }

    mutating func save(_ chain: SubscriptionChainRecord) {
        chains[chain.originalTransactionID] = chain
        touch(AccountAppKey(appleID: chain.appleID, bundleID: chain.bundleID))
    }

    mutating func save(_ transaction: TransactionRecord) {
        transactions[transaction.transactionID] = transaction
        touch(AccountAppKey(appleID: transaction.appleID, bundleID: transaction.bundleID))
    }

    mutating func emit(_ type: String, _ subtype: String? = nil, key: AccountAppKey, transactionID: String?) {
        events.append(SimulatorEvent(type: type, subtype: subtype, key: key, transactionID: transactionID))
    }

    /// Stores a new transaction; `originalTransactionID` nil makes it its own original.
    mutating func insertTransaction(
        account: AppleIDDescription,
        app: AppRecord,
        product: ProductDefinition,
        originalTransactionID: String?,
        originalPurchaseDate: Instant?,
        purchaseDate: Instant,
        expiresDate: Instant?,
        reason: TransactionReason,
        quantity: Int = 1,
        ownership: InAppOwnershipType = .purchased,
        isFreeTrial: Bool = false,
        appAccountToken: String? = nil,
        applicationUsername: String? = nil,
        usernameLost: Bool = false,
        legacyReceipt: Bool = false,
        orderID: String? = nil,
        price: Int64? = nil,
        offer: OfferRedemption? = nil,
        commitment: TransactionRecord.CommitmentPeriod? = nil
    ) -> TransactionRecord {
        let id = ids.transactionID(environment: account.environment)
        sequence += 1
        let record = TransactionRecord(
            transactionID: id,
            originalTransactionID: originalTransactionID ?? id,
            webOrderLineItemID: product.type == .autoRenewable
                ? ids.webOrderLineItemID(environment: account.environment) : nil,
            productID: product.productID,
            productType: product.type,
            subscriptionGroupID: product.subscriptionGroupID,
            bundleID: app.bundleID,
            appleID: account.appleID,
            environment: account.environment,
            purchaseDate: purchaseDate,
            originalPurchaseDate: originalPurchaseDate ?? purchaseDate,
            expiresDate: expiresDate,
            quantity: quantity,
            appAccountToken: appAccountToken,
            applicationUsername: applicationUsername,
            usernameLost: usernameLost,
            ownership: ownership,
            reason: reason,
            isFreeTrial: isFreeTrial,
            offerPeriod: isFreeTrial
                ? product.freeTrial?.rawValue : offer.map { _ in product.duration?.rawValue ?? "P1M" },
            offer: offer,
            commitment: commitment,
            orderID: orderID ?? ids.orderID(),
            price: isFreeTrial ? 0 : (offer?.price ?? price ?? product.price ?? 0) * Int64(max(quantity, 1)),
            currency: product.currency ?? "USD",
            storefront: account.storefront,
            legacyReceipt: legacyReceipt,
            sequence: sequence
        )
        let key = AccountAppKey(appleID: account.appleID, bundleID: app.bundleID)
        if transactionsByKey[key] == nil {
            let appTransactionID = SignedPayloads.appTransactionID(
                appleID: account.appleID, bundleID: app.bundleID, environment: account.environment)
            appTransactionKeys[appTransactionID] = key
        }
        transactionsByKey[key, default: []].append(id)
        orders[record.orderID, default: []].append(id)
        save(record)
        return record
    }

    // MARK: Catalog

    mutating func createApp(_ definition: AppDefinition) throws(SimulatorError) -> AppDescription {
        let bundleID = definition.bundleID.trimmingCharacters(in: .whitespaces)
        guard !bundleID.isEmpty else { throw SimulatorError(.badRequest, "bundle_id is required") }
        guard apps[bundleID] == nil else { throw SimulatorError(.conflict, "app \(bundleID) already exists") }
        let version = definition.notificationVersion?.uppercased() ?? "V2"
        guard version == "V1" || version == "V2" else {
            throw SimulatorError(.badRequest, "notification_version must be V1 or V2")
        }
        let label = "app:" + bundleID
        let derived = SeedDerivation.bytes(seed: seed, label: label)
        let secret = definition.sharedSecret ?? derived.prefix(16).map { String(format: "%02x", $0) }.joined()
        let issuerBytes = SeedDerivation.bytes(seed: seed, label: label + ":issuer")
        var random = SplitMix64(seed: issuerBytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) })
        let issuerID = definition.issuerID ?? random.uuid()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let keyID = definition.keyID ?? String(derived.suffix(10).map { alphabet[Int($0) % alphabet.count] })
        let publicKey: P256.Signing.PublicKey
        var privateKeyPEM: String?
        if let pem = definition.publicKeyPEM {
            do {
                publicKey = try P256.Signing.PublicKey(pemRepresentation: pem)
            } catch {
                throw SimulatorError(.badRequest, "public_key_pem is not a P-256 public key")
            }
        } else {
            let privateKey = SeedDerivation.signingKey(seed: seed, label: label + ":server-api")
            publicKey = privateKey.publicKey
            privateKeyPEM = privateKey.pemRepresentation
        }
        var products: [String: ProductDefinition] = [:]
        for product in definition.products ?? [] {
            let normalized = try Self.validated(product)
            products[normalized.productID] = normalized
        }
        let description = AppDescription(
            bundleID: bundleID,
            appAppleID: definition.appAppleID ?? ids.appAppleID(),
            sharedSecret: secret,
            applicationVersion: definition.applicationVersion ?? "1.0",
            notificationURL: definition.notificationURL,
            notificationVersion: version,
            gracePeriodDays: max(definition.gracePeriodDays ?? 0, 0),
            billingRetryDays: max(definition.billingRetryDays ?? 60, 1),
            serverAPI: ServerAPICredentials(
                issuerID: issuerID, keyID: keyID, privateKeyPEM: privateKeyPEM,
                publicKeyPEM: publicKey.pemRepresentation),
            products: products.values.sorted { $0.productID < $1.productID }
        )
        apps[bundleID] = AppRecord(description: description, publicKey: publicKey, products: products)
        return description
    }

    mutating func addProduct(bundleID: String, _ definition: ProductDefinition) throws(SimulatorError)
        -> AppDescription
    {
        var app = try app(bundleID)
        let product = try Self.validated(definition)
        app.products[product.productID] = product
        app.description.products = app.products.values.sorted { $0.productID < $1.productID }
        apps[bundleID] = app
        return app.description
    }

    mutating func updateApp(
        bundleID: String, gracePeriodDays: Int?, notificationURL: String?,
        notificationVersion: String?
    ) throws(SimulatorError) -> AppDescription {
        var app = try app(bundleID)
        if let gracePeriodDays { app.description.gracePeriodDays = max(gracePeriodDays, 0) }
        if let notificationURL { app.description.notificationURL = notificationURL.isEmpty ? nil : notificationURL }
        if let version = notificationVersion?.uppercased() {
            guard version == "V1" || version == "V2" else {
                throw SimulatorError(.badRequest, "notification_version must be V1 or V2")
            }
            app.description.notificationVersion = version
        }
        apps[bundleID] = app
        return app.description
    }

    private static func validated(_ product: ProductDefinition) throws(SimulatorError) -> ProductDefinition {
        guard !product.productID.isEmpty else { throw SimulatorError(.badRequest, "product_id is required") }
        return product.normalized()
    }

    mutating func createAppleID(_ definition: AppleIDDefinition) throws(SimulatorError) -> AppleIDDescription {
        accountCounter += 1
        let appleID = definition.appleID ?? "customer-\(accountCounter)@example.com"
        guard accounts[appleID] == nil else { throw SimulatorError(.conflict, "Apple ID \(appleID) already exists") }
        let environment = definition.environment ?? .sandbox
        guard environment == .sandbox || environment == .production else {
            throw SimulatorError(.badRequest, "environment must be Sandbox or Production")
        }
        let account = AppleIDDescription(
            appleID: appleID, environment: environment, storefront: definition.storefront ?? "USA")
        accounts[appleID] = account
        return account
    }
}
