import Foundation
import Logging
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore

/// Customer support lookups: from an Apple order id, a transaction id, an app account token or an account id
/// to the account that owns the purchase, the chain's state now, its ledger timeline and what to tell the
/// customer. Used by `subledger support`, `/v1/admin/lookup/...` and the admin page's search box.
///
/// The ledger is asked first; Apple only for an order id (Look Up Order ID) and for a transaction id the ledger
/// does not hold (Get Transaction Info). What Apple returns is applied only when asked (`apply`), as an input
/// with no submitter, through the same `LedgerStore.apply` as every other input: ownership then follows the
/// app account token, and without one the chain stays unclaimed until the customer restores purchases.
public struct SupportLookup: Sendable {
    let store: LedgerStore
    let catalog: CatalogStore
    /// Which chains an id names, and whether an account is known.
    let support: SupportStore
    let appTransactions: AppTransactionStore
    /// The App Store's lookups with Apple (Look Up Order ID, Get Transaction Info), when it is registered.
    let apple: (any StorePurchaseLookup)?
    /// The ids the registered stores declare for support (`StoreSupportID`).
    public let storeIDs: [StoreSupportID]
    let logger: Logger
    let now: @Sendable () -> Instant

    /// The support and app-transaction stores are on `store`'s pool; `apple` asks Apple (nil: never asked).
    public init(
        store: LedgerStore, catalog: CatalogStore, apple: (any StorePurchaseLookup)?,
        storeIDs: [StoreSupportID] = [], logger: Logger, now: @escaping @Sendable () -> Instant
    ) {
        self.store = store
        self.catalog = catalog
        self.support = SupportStore(pool: store.pool)
        self.appTransactions = AppTransactionStore(pool: store.pool)
        self.apple = apple
        self.storeIDs = storeIDs
        self.logger = logger
        self.now = now
    }

    /// The lookups of the stores `registry` holds, through `context`.
    public init(registry: StoreRegistry, context: StoreContext) {
        self.init(
            store: context.store, catalog: context.catalog,
            apple: registry[.appStore]?.purchaseLookup(context), storeIDs: registry.supportIDs, logger: context.logger,
            now: context.now)
    }

    // MARK: - Entry points

    /// Answers `query` for the app `bundleID` (which may be left out when exactly one app is configured).
    /// With `apply`, transactions Apple knows and the ledger does not are applied before answering.
    public func lookUp(_ query: SupportQuery, bundleID: String?, apply: Bool = false) async throws -> SupportAnswer {
        let app = try await resolveApp(bundleID)
        return try await lookUp(query, app: app, apply: apply)
    }

    /// The admin page's search: detects what `text` is (`SupportQuery.candidates`) and answers the first
    /// candidate that any app knows. Every app's ledger is asked first; then Apple, for a transaction id no
    /// ledger holds and for text shaped like an order id that no account has, and only for apps with a Server
    /// API key. Nothing is applied.
    public func search(_ text: String) async throws -> AdminSearchResult {
        let candidates = SupportQuery.candidates(text, storeIDs: storeIDs)
        guard !candidates.isEmpty else {
            return .refused(
                query: text, reason: "not an order id, a transaction id, an app account token or an account id")
        }
        let apps = try await catalog.apps().sorted { $0.bundleID < $1.bundleID }
        var appleFailure: SupportError?
        for askingApple in [false, true] {
            for candidate in candidates {
                let needsApple: Bool
                switch candidate {
                case .order: needsApple = true
                // Apple is asked only about an id that could be one of its transactions (decimal digits).
                case .transaction(let id):
                    needsApple = askingApple
                    if askingApple, !SupportQuery.couldBeAppleTransactionID(id) { continue }
                case .appAccountToken, .account, .appTransaction, .purchaseToken, .stripe, .store: needsApple = false
                }
                guard needsApple == askingApple else { continue }
                for app in apps where !askingApple || app.serverAPI != nil {
                    do {
                        return .support(
                            try await lookUp(candidate, app: app, apply: false, consultingApple: askingApple))
                    } catch let error as SupportError where Self.notFoundCodes.contains(error.code) {
                        continue
                    } catch let error as SupportError
                        where [.appleUnavailable, .appleRefused, .serverAPINotConfigured].contains(error.code)
                    {
                        appleFailure = error
                    }
                }
            }
        }
        if let appleFailure { return .refused(query: text, reason: appleFailure.message) }
        return .notFound(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static let notFoundCodes: Set<SupportError.Code> = [
        .orderNotFound, .transactionNotFound, .appAccountTokenNotFound, .accountNotFound, .appTransactionNotFound,
        .purchaseTokenNotFound, .stripeIDNotFound, .storeIDNotFound,
    ]

    func lookUp(
        _ query: SupportQuery, app: StoredApp, apply: Bool, consultingApple: Bool = true
    ) async throws -> SupportAnswer {
        switch query {
        case .order(let orderID): try await order(orderID, app: app, apply: apply)
        case .transaction(let id): try await transaction(id, app: app, apply: apply, consultingApple: consultingApple)
        case .appAccountToken(let value): try await token(value, app: app)
        case .account(let value): try await account(value, app: app)
        case .appTransaction(let id): try await appTransaction(id, app: app)
        case .purchaseToken(let token): try await purchaseToken(token, app: app)
        case .stripe(let kind, let id): try await stripe(kind, id, app: app)
        case .store(let kind, let id): try await storeID(kind, id, app: app)
        }
    }

    // MARK: - Each kind

    private func order(_ orderID: String, app: StoredApp, apply: Bool) async throws -> SupportAnswer {
        let apple = try askable()
        for environment in try apple.environments(of: app) {
            // A customer's order is in one environment only.
            let transactions = try await apple.order(orderID, app: app, environment: environment)
            guard !transactions.isEmpty else { continue }
            return try await answerFromApple(
                .order(orderID), transactions: transactions, environment: environment, app: app, apply: apply)
        }
        throw SupportError(.orderNotFound, "Apple knows no order \(orderID) for \(app.bundleID)")
    }

    private func transaction(
        _ id: String, app: StoredApp, apply: Bool, consultingApple: Bool
    ) async throws -> SupportAnswer {
        let keys = try await support.chainKeys(transactionID: id, app: app)
        if !keys.isEmpty {
            return try await answer(.transaction(id), keys: keys, app: app, expectedAccount: nil)
        }
        guard consultingApple else {
            throw SupportError(.transactionNotFound, "no transaction \(id) in the ledger of \(app.bundleID)")
        }
        guard app.serverAPI != nil else {
            throw SupportError(
                .transactionNotFound,
                "no transaction \(id) in the ledger of \(app.bundleID); Apple was not asked (the app has no Server API key)"
            )
        }
        let apple = try askable()
        for environment in try apple.environments(of: app) {
            do {
                let transaction = try await apple.transaction(id, app: app, environment: environment)
                return try await answerFromApple(
                    .transaction(id), transactions: [transaction], environment: environment, app: app, apply: apply)
            } catch let error as SupportError where error.code == .transactionNotFound {
                continue
            }
        }
        throw SupportError(
            .transactionNotFound, "neither the ledger nor Apple knows transaction \(id) of \(app.bundleID)")
    }

    /// The chain a Google Play purchase token's purchase is on (its lineage's, for a subscription).
    private func purchaseToken(_ token: String, app: StoredApp) async throws -> SupportAnswer {
        guard let key = try await GooglePlayRecords(pool: store.pool).chain(ofToken: token, appID: app.appID) else {
            throw SupportError(.purchaseTokenNotFound, "no Google Play purchase of \(app.bundleID) has this token")
        }
        return try await answer(.purchaseToken(token), keys: [key], app: app, expectedAccount: nil)
    }

    /// The chains a Stripe id names: a subscription or a one-time purchase's payment intent is a chain and a paid
    /// invoice a transaction of the ledger; a customer names every purchase of theirs, a charge the one it paid. The ledger alone is
    /// asked (it keeps each Stripe transaction's customer and charge).
    private func stripe(_ kind: SupportQuery.StripeKind, _ id: String, app: StoredApp) async throws -> SupportAnswer {
        let keys: [ChainKey]
        switch kind {
        case .subscription, .invoice, .paymentIntent:
            // Stripe's chains only: another web store's `sub_…` is not a Stripe subscription.
            keys = try await support.chainKeys(transactionID: id, source: .stripeAPI, app: app)
        case .customer: keys = try await support.chainKeys(stripe: .customer, id: id, app: app)
        case .charge: keys = try await support.chainKeys(stripe: .charge, id: id, app: app)
        }
        guard !keys.isEmpty else {
            throw SupportError(
                .stripeIDNotFound,
                "no Stripe purchase of \(app.bundleID) names \(kind.kindName.replacingOccurrences(of: "_", with: " ")) \(id)"
            )
        }
        return try await answer(.stripe(kind, id), keys: keys, app: app, expectedAccount: nil)
    }

    /// The chains an id a store declares names (`StoreSupportID`): a transaction or chain kept under it, or every
    /// purchase of the store's customer. The ledger alone is asked.
    private func storeID(_ kind: StoreSupportID, _ id: String, app: StoredApp) async throws -> SupportAnswer {
        let keys: [ChainKey]
        switch kind.names {
        case .chainOrTransaction: keys = try await support.chainKeys(transactionID: id, app: app)
        case .customer:
            keys = try await support.chainKeys(customer: id, source: .storeAPI(kind.store), app: app)
        }
        guard !keys.isEmpty else {
            throw SupportError(
                .storeIDNotFound,
                "no \(kind.store.displayName) purchase of \(app.bundleID) names \(kind.kindName.replacingOccurrences(of: "_", with: " ")) \(id)"
            )
        }
        return try await answer(.store(kind, id), keys: keys, app: app, expectedAccount: nil)
    }

    private func token(_ token: OrderID, app: StoredApp) async throws -> SupportAnswer {
        let order = try await store.order(token, app: app)
        var keys = try await support.chainKeys(appAccountToken: token, app: app)
        if let fulfilledBy = order?.fulfilledBy {
            keys += try await support.chainKeys(transactionID: fulfilledBy, app: app)
        }
        guard order != nil || !keys.isEmpty else {
            throw SupportError(
                .appAccountTokenNotFound,
                "no order and no transaction of \(app.bundleID) carries that app account token")
        }
        var answer = try await answer(
            .appAccountToken(token), keys: Array(Set(keys)).sorted(), app: app, expectedAccount: order?.account)
        if let order {
            answer.order = SupportAnswer.Order(
                orderID: order.id.rawValue, accountID: order.account.rawValue, productID: order.productID,
                state: order.state.rawValue, fulfilledTransactionID: order.fulfilledBy)
            answer.accountID = order.account.rawValue
            if answer.chains.isEmpty {
                answer.advice =
                    "Account \(order.account) started a purchase of \(order.productID), but no purchase with this token "
                    + "has reached SubLedger. If the customer was charged, ask for the order id from Apple's receipt "
                    + "e-mail and look it up, or ask them to restore purchases in the app."
            }
        }
        return answer
    }

    /// The chains whose transactions carry the app transaction id, and who claimed the app purchase.
    private func appTransaction(_ id: String, app: StoredApp) async throws -> SupportAnswer {
        let keys = try await support.chainKeys(appTransactionID: id, app: app)
        let claims = try await appTransactions.claims(appTransactionID: id, app: app)
        guard !keys.isEmpty || !claims.isEmpty else {
            throw SupportError(
                .appTransactionNotFound,
                "no transaction and no app purchase of \(app.bundleID) has app transaction \(id)")
        }
        let purchases = Dictionary(grouping: claims, by: \.environment).sorted { $0.key.rawValue < $1.key.rawValue }
            .compactMap { environment, claims -> SupportAnswer.AppPurchase? in
                guard let latest = claims.max(by: { $0.sequence < $1.sequence }) else { return nil }
                return SupportAnswer.AppPurchase(
                    appTransactionID: id, environment: environment.rawValue, ownerAccountID: latest.account.rawValue,
                    originalPurchaseDate: latest.originalPurchaseDate,
                    preorderDate: latest.preorderDate,
                    claims: claims.sorted { $0.sequence < $1.sequence }.map {
                        .init(accountID: $0.account.rawValue, claimedAt: $0.claimedAt)
                    })
            }
        let owner = purchases.first.flatMap { try? AccountID($0.ownerAccountID) }
        var answer = try await answer(.appTransaction(id), keys: keys, app: app, expectedAccount: owner)
        answer.appPurchases = purchases
        if let owner { answer.accountID = owner.rawValue }
        if answer.chains.isEmpty, let owner {
            answer.advice =
                "Account \(owner) owns this purchase of the app; it has no in-app purchase in the ledger."
        }
        return answer
    }

    private func account(_ account: AccountID, app: StoredApp) async throws -> SupportAnswer {
        guard try await support.accountExists(account, app: app) else {
            throw SupportError(.accountNotFound, "\(app.bundleID) has no account \(account)")
        }
        let chains = try await store.chains(for: account, app: app)
        var answer = try await answer(
            .account(account), keys: chains.map(\.key), app: app, expectedAccount: account, accountTimeline: true)
        answer.accountID = account.rawValue
        let grants = try await EntitlementGrantStore(pool: store.pool).grants(of: account, app: app)
        if !grants.isEmpty {
            answer.grants = grants.map { record in
                SupportAnswer.Grant(
                    grantID: record.grant.grantID, entitlementID: record.grant.entitlementID,
                    environment: record.grant.environment.rawValue, startsAt: record.grant.startsAt,
                    endsAt: record.grant.endsAt, revokedAt: record.grant.revokedAt, grantedBy: record.grantedBy,
                    revokedBy: record.revokedBy, reason: record.reason)
            }
        }
        if chains.isEmpty, !grants.isEmpty {
            answer.advice =
                "Account \(account) has no purchase in the ledger; what it holds was granted by hand (below)."
        } else if chains.isEmpty {
            answer.advice =
                "Account \(account) has no purchase in the ledger. If the customer was charged, ask for the order id "
                + "from Apple's receipt e-mail and look it up, or ask them to restore purchases in the app."
        }
        return answer
    }

    // MARK: - Building the answer

    /// The answer for transactions Apple returned: which of them the ledger lacks, applied first when asked.
    private func answerFromApple(
        _ query: SupportQuery, transactions: [Transaction], environment: StoreEnvironment, app: StoredApp,
        apply: Bool
    ) async throws -> SupportAnswer {
        var unrecorded: [String] = []
        for transaction in transactions {
            let chain = try await store.chain(transaction.chainKey, app: app)
            if chain?.transaction(transaction.transactionID) == nil { unrecorded.append(transaction.transactionID) }
        }
        let keys = Array(Set(transactions.map(\.chainKey))).sorted()
        let applying = apply && !unrecorded.isEmpty
        if applying { try await applyFromApple(transactions, keys: keys, environment: environment, app: app) }
        var answer = try await answer(query, keys: keys, app: app, expectedAccount: nil)
        answer.apple = SupportAnswer.AppleRecord(
            environment: environment.rawValue, transactionIDs: transactions.map(\.transactionID),
            unrecordedTransactionIDs: unrecorded, applied: applying)
        if !unrecorded.isEmpty && !applying {
            answer.advice =
                "Apple knows this purchase but SubLedger has no record of "
                + (unrecorded.count == transactions.count ? "it" : "part of it")
                + ". Ask the customer to open the app signed in to their account and restore purchases, "
                + "or apply Apple's transactions now (subledger support ... --apply)."
                + (answer.chains.isEmpty ? "" : " " + answer.advice)
        } else if applying {
            answer.advice =
                "SubLedger had no record of this purchase; Apple's transactions were applied now. " + answer.advice
        }
        return answer
    }

    /// Applies Apple's transactions with no submitter (a `poll` input: SubLedger's own question to Apple), then
    /// brings each subscription up to date with Get All Subscription Statuses, as the renewal job would.
    private func applyFromApple(
        _ transactions: [Transaction], keys: [ChainKey], environment: StoreEnvironment, app: StoredApp
    ) async throws {
        let instant = now()
        let input = LedgerInput(
            kind: .poll, bundleID: app.bundleID, environment: environment, submitter: nil,
            transactions: transactions, observedAt: instant)
        let applied = try await store.apply(input, app: app, reference: .none, now: instant)
        LedgerMetrics.record(applied)
        logger.notice(
            "support lookup applied Apple's transactions",
            metadata: [
                "bundle_id": "\(app.bundleID)", "transactions": "\(transactions.count)",
                "entries": "\(applied.newEntries)",
            ])
        for key in keys {
            guard let chain = try await store.chain(key, app: app), chain.header.productType == .autoRenewable else {
                continue
            }
            do {
                try await apple?.refresh(key, app: app)
            } catch {
                // The order's own transactions are applied; the renewal job will bring the chain up to date.
                logger.warning("support lookup could not refresh a chain", metadata: ["error": "\(error)"])
            }
        }
    }

    private func answer(
        _ query: SupportQuery, keys: [ChainKey], app: StoredApp, expectedAccount: AccountID?,
        accountTimeline: Bool = false
    ) async throws -> SupportAnswer {
        let instant = now()
        var snapshots: [ChainSnapshot] = []
        for key in keys {
            if let chain = try await store.chain(key, app: app) { snapshots.append(chain) }
        }
        let scope = ReportScope(bundleID: app.bundleID)
        let originals = Array(Set(snapshots.map(\.key.chainID))).sorted()
        let account = accountTimeline ? query.id : nil
        let events: [TimelineEvent] = try await store.pool.withConnection { connection in
            if let account { return try Reports.account(account, on: connection, scope: scope).events }
            return try originals.flatMap { try Reports.original($0, on: connection, scope: scope).events }
        }
        // Several chains' trails merged in the reports' order: time, then inputs before what they caused, then row.
        let rank = { (event: TimelineEvent) in TimelineEvent.Category.allCases.firstIndex(of: event.category) ?? 0 }
        let timeline = events.sorted { left, right in
            (left.at, rank(left), left.rowID ?? 0, left.transactionID ?? "")
                < (right.at, rank(right), right.rowID ?? 0, right.transactionID ?? "")
        }
        let chains = snapshots.map { snapshot in
            Self.chain(snapshot, app: app, expectedAccount: expectedAccount, events: timeline, now: instant)
        }
        let advice: String =
            switch chains.count {
            case 0: "SubLedger has no purchase for this \(query.kindName.replacingOccurrences(of: "_", with: " "))."
            case 1: chains[0].advice
            default: chains.map { "\($0.productID) (\($0.originalTransactionID)): \($0.advice)" }.joined(separator: " ")
            }
        return SupportAnswer(
            kind: SupportAnswer.Kind(rawValue: query.kindName) ?? .transaction, query: query.id,
            bundleID: app.bundleID, at: instant, accountID: chains.first?.ownerAccountID, order: nil,
            apple: nil, chains: chains, advice: advice, timeline: timeline)
    }

    static func chain(
        _ snapshot: ChainSnapshot, app: StoredApp, expectedAccount: AccountID?, events: [TimelineEvent], now: Instant
    ) -> SupportAnswer.Chain {
        let state = snapshot.state(at: now, in: app.definition)
        let changes = snapshot.bindingChanges.sorted { $0.sequence < $1.sequence }
        let ownership = changes.enumerated().map { index, change in
            SupportAnswer.Ownership(
                accountID: change.to.rawValue, fromAccountID: change.from?.rawValue, reason: change.reason.rawValue,
                startedAt: change.at, endedAt: index + 1 < changes.count ? changes[index + 1].at : nil)
        }
        var submitters: [String] = []
        for event in events
        where event.category == .receipt && event.environment == snapshot.key.environment.rawValue {
            if let account = event.accountID, !submitters.contains(account) { submitters.append(account) }
        }
        let latest = snapshot.latestTransaction(at: now)
        return SupportAnswer.Chain(
            environment: snapshot.key.environment.rawValue, store: ChainRefreshRoute(of: snapshot).store.rawValue,
            originalTransactionID: snapshot.key.chainID,
            productID: snapshot.header.productID, productType: snapshot.header.productType.rawValue,
            ownerAccountID: snapshot.header.owner?.rawValue, state: state.name,
            expirationReason: state.expirationReason?.name, expiresAt: snapshot.header.latestExpiry,
            willAutoRenew: snapshot.header.renewalInfo?.willAutoRenew,
            revokedAt: latest?.revocation(inForceAt: now)?.revocationDate, submittedBy: submitters,
            ownership: ownership,
            advice: CustomerAdvice.advice(for: snapshot, state: state, expectedAccount: expectedAccount, now: now))
    }

    // MARK: - Apps and Apple

    private func resolveApp(_ bundleID: String?) async throws -> StoredApp {
        if let bundleID {
            guard IdentifierRule.bundleID.accepts(bundleID), let app = try await catalog.app(bundleID: bundleID) else {
                throw SupportError(.unknownApp, "no app is configured under that bundle id")
            }
            return app
        }
        let apps = try await catalog.apps()
        guard apps.count == 1 else {
            throw SupportError(
                .appRequired,
                apps.isEmpty ? "no app is configured" : "several apps are configured: name one (bundle_id)")
        }
        return apps[0]
    }

    /// The App Store's lookups with Apple; refuses when this process has none.
    private func askable() throws(SupportError) -> any StorePurchaseLookup {
        guard let apple else {
            throw SupportError(
                .serverAPINotConfigured, "this process is not configured for the App Store; Apple cannot be asked")
        }
        return apple
    }
}
