import GooglePlay
import GooglePlayClients
import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

extension GooglePlayIngestion {
    /// The most missing orders one reading fills in (a century of weekly renewals); past it, the rest are counted
    /// in a warning.
    static let maximumEarlierOrders = 10_000

    /// `reading` with the orders of its lineage that the ledger does not hold yet, read through the Orders API
    /// (and its latest order's period start, which Google's purchase does not state, from that order):
    /// a subscription first heard of after its first renewal (notifications out of order, a first submission
    /// late, a poll that missed a renewal) ends with every order on the ledger (its first order's `grant`, each
    /// renewal's `extend`, each order's revenue), as when each order was heard of in turn.
    ///
    /// The orders looked for: the read token's orders before its latest (`base`, `base..0`, …, up to the latest),
    /// and every order of each token of the lineage that the chain walk met for the first time (`chain.metTokens`).
    /// The stored chain is read once; what it or the reading holds is not asked for, and a latest order it holds keeps
    /// the period start it was stored with. The missing orders (and a new latest renewal) are read with
    /// `orders.batchGet`; when Google refuses a batch because an order is gone (404), each is read alone, and an
    /// order Google no longer has is skipped (logged at notice with its id), as is an order never paid. Any other
    /// failure is `google_play_unavailable` (or Google's refusal of SubLedger's account): the submission or
    /// notification is tried again later, never applied without the orders.
    func withEarlierOrders(
        _ reading: GooglePlayReading, token: String, purchase: SubscriptionPurchaseV2, chain: FoundChain,
        client: GooglePlayDeveloperAPI, packageName: String, app: StoredApp
    ) async throws -> GooglePlayReading {
        // Each wanted order id with the token (and Google's answer for it) it was bought under.
        var wanted: [(id: String, token: String, purchase: SubscriptionPurchaseV2)] = []
        func want(_ purchase: SubscriptionPurchaseV2, token: String, includingLatest: Bool) {
            guard let raw = purchase.primaryLineItem?.latestSuccessfulOrderId ?? purchase.latestOrderId,
                let latest = GoogleOrderID(raw)
            else { return }
            var ids: [String] = []
            if latest.renewal != nil || includingLatest { ids.append(latest.base) }
            if let renewal = latest.renewal {
                let through = includingLatest ? renewal : renewal - 1
                if through >= 0 {
                    // Bounded: the newest renewals of a token with more than a reading fills.
                    let first = max(0, through - Self.maximumEarlierOrders + 1)
                    if first > 0 {
                        ids.removeAll()
                        logger.warning(
                            "Google Play token has more orders than one reading fills; the oldest are not read",
                            metadata: ["order_id": "\(raw)", "read": "\(Self.maximumEarlierOrders)"])
                    }
                    ids += (first...through).map { "\(latest.base)..\($0)" }
                }
            }
            wanted += ids.map { (id: $0, token: token, purchase: purchase) }
        }
        want(purchase, token: token, includingLatest: false)
        for met in chain.metTokens { want(met.purchase, token: met.token, includingLatest: true) }
        var reading = reading
        // The reading's renewal orders (the read token's latest, and the newest token's latest when it joined):
        // Google's purchase states no start for their periods (the observation estimates one), their orders do.
        var periodsToRead: [String: (index: Int, token: String, purchase: SubscriptionPurchaseV2)] = [:]
        if let first = reading.transactions.first, GoogleOrderID(first.transactionID)?.renewal != nil {
            periodsToRead[first.transactionID] = (0, token, purchase)
        }
        if reading.transactions.count > 1, let newest = reading.newestTokenPurchase,
            GoogleOrderID(reading.transactions[1].transactionID)?.renewal != nil
        {
            periodsToRead[reading.transactions[1].transactionID] = (1, newest.token, newest.purchase)
        }
        guard !wanted.isEmpty || !periodsToRead.isEmpty else { return reading }

        let key = ChainKey(environment: reading.environment, chainID: chain.chainID)
        let stored = try await store.chain(key, app: app)
        var held = Set(reading.transactions.map(\.transactionID))
        if let stored { held.formUnion(stored.transactions.map(\.transaction.transactionID)) }
        var seen: Set<String> = []
        var missing = wanted.filter { !held.contains($0.id) && seen.insert($0.id).inserted }
        for (id, estimate) in periodsToRead.sorted(by: { $0.value.index < $1.value.index }) {
            if let known = stored?.transactions.first(where: { $0.transaction.transactionID == id }) {
                // Read before: the start it was stored with stands, so a later estimate does not move it.
                reading.transactions[estimate.index].purchaseDate = known.transaction.purchaseDate
            } else {
                missing.append((id: id, token: estimate.token, purchase: estimate.purchase))
            }
        }
        guard !missing.isEmpty else { return reading }
        if missing.count > Self.maximumEarlierOrders {
            logger.warning(
                "Google Play lineage has more missing orders than one reading fills; the rest are not on the ledger",
                metadata: [
                    "chain": "\(chain.chainID)", "missing": "\(missing.count)",
                    "filled": "\(Self.maximumEarlierOrders)",
                ])
            missing = Array(missing.suffix(Self.maximumEarlierOrders))
        }

        let orders = try await readOrders(missing.map { $0.id }, client: client, packageName: packageName)
        var byID: [String: (token: String, purchase: SubscriptionPurchaseV2)] = [:]
        for entry in missing { byID[entry.id] = (entry.token, entry.purchase) }
        var filled: [Transaction] = []
        for order in orders {
            guard let id = order.orderId, let source = byID.removeValue(forKey: id) else { continue }
            let transaction: Transaction
            do throws(GooglePlayMappingError) {
                transaction = try order.transaction(
                    purchaseToken: source.token, of: source.purchase, packageName: packageName,
                    chainID: chain.chainID)
            } catch {
                if periodsToRead[id] != nil {
                    // The observation's estimate stands.
                    logger.notice(
                        "Google Play order's period could not be read; its start is estimated",
                        metadata: ["order_id": "\(id)", "failure": "\(error)"])
                    continue
                }
                guard error.code == .notPurchased else { throw Self.refusal(error) }
                logger.notice(
                    "Google Play order never paid; not on the ledger",
                    metadata: ["order_id": "\(id)", "state": "\(error.field)"])
                continue
            }
            if let estimate = periodsToRead[id] {
                reading.transactions[estimate.index].purchaseDate = transaction.purchaseDate
            } else {
                filled.append(transaction)
            }
        }
        reading.transactions += filled.sorted { $0.purchaseDate < $1.purchaseDate }
        return reading
    }

    /// The orders `ids` name: one `orders.batchGet` (in requests of up to 1000); when Google refuses it because one
    /// is gone (404), each alone, skipping (and logging) those Google no longer has.
    private func readOrders(_ ids: [String], client: GooglePlayDeveloperAPI, packageName: String) async throws
        -> [GooglePlayOrder]
    {
        do throws(GooglePlayAPIError) {
            return try await client.orders(packageName: packageName, ids: ids)
        } catch  where error.code == .notFound {
            // Google names no order in its refusal: find the gone ones one by one.
        } catch {
            throw Self.ordersRefusal(error)
        }
        var orders: [GooglePlayOrder] = []
        for id in ids {
            do throws(GooglePlayAPIError) {
                orders.append(try await client.order(packageName: packageName, id: id))
            } catch  where error.code == .notFound || error.code == .purchaseNoLongerAvailable {
                logger.notice(
                    "Google Play no longer has an order of the lineage; it is not on the ledger",
                    metadata: ["order_id": "\(id)"])
            } catch {
                throw Self.ordersRefusal(error)
            }
        }
        return orders
    }

    /// Google failing to give a lineage's orders: the ingestion is tried again later.
    static func ordersRefusal(_ error: GooglePlayAPIError) -> IngestionError {
        switch error.code {
        case .unauthorized, .permissionDenied, .invalidGrant, .tokenExchangeRefused:
            return refusal(error)
        default:
            return IngestionError(
                .googlePlayUnavailable,
                "Google Play's orders of the purchase could not be read (\(error.code)); it will be credited when "
                    + "Google answers", retryAfter: .seconds(retryAfterSeconds))
        }
    }
}
