import AppStore
import SeededRandom
import SubLedgerCore

extension SimulatorState {
    /// Creates `request.count` chains, each on a new Apple ID, with history in the past: a mix of active,
    /// expired (auto-renew turned off), refunded and upgraded chains, drawn from `SplitMix64(seed:)`.
    /// Their events are dropped: existing subscribers produce no notifications when they are seeded.
    mutating func seedChains(_ request: BulkSeedRequest, _ context: Context) throws(SimulatorError) -> BulkSeedResult {
        guard (1...BulkSeedRequest.maximumCount).contains(request.count) else {
            throw SimulatorError(.badRequest, "count must be 1 to \(BulkSeedRequest.maximumCount)")
        }
        let app = try app(request.bundleID)
        let subscriptions = app.products.values.filter { $0.type == .autoRenewable }
            .sorted { ($0.subscriptionGroupID ?? "", $0.productID) < ($1.subscriptionGroupID ?? "", $1.productID) }
        let base: ProductDefinition
        if let productID = request.productID {
            base = try app.product(productID)
            guard base.type == .autoRenewable else {
                throw SimulatorError(.badRequest, "\(productID) is not a subscription")
            }
        } else {
            guard let first = subscriptions.first else {
                throw SimulatorError(.badRequest, "\(app.bundleID) has no auto-renewable subscription")
            }
            let group = subscriptions.filter { $0.subscriptionGroupID == first.subscriptionGroupID }
            base = group.max { ($0.groupLevel ?? 1, $1.productID) < ($1.groupLevel ?? 1, $0.productID) } ?? first
        }
        let peers = subscriptions.filter {
            $0.subscriptionGroupID == base.subscriptionGroupID && ($0.groupLevel ?? 1) < (base.groupLevel ?? 1)
        }
        let upgrade: ProductDefinition?
        if let upgradeID = request.upgradeProductID {
            let product = try app.product(upgradeID)
            guard peers.contains(where: { $0.productID == upgradeID }) else {
                throw SimulatorError(.badRequest, "\(upgradeID) is not a higher tier in \(base.productID)'s group")
            }
            upgrade = product
        } else {
            upgrade = peers.min { ($0.groupLevel ?? 1, $0.productID) < ($1.groupLevel ?? 1, $1.productID) }
        }
        let environment = request.environment ?? .sandbox
        let seed = request.seed ?? 1
        var random = SplitMix64(seed: seed)
        let now = context.now
        let period =
            (base.duration ?? .oneMonth).end(from: now, sandbox: context.sandboxDurations)
            .millisecondsSince1970 - now.millisecondsSince1970
        var seeded: [BulkSeedResult.Chain] = []
        seeded.reserveCapacity(request.count)
        var total = 0
        for index in 0..<request.count {
            let accountID = "bulk-\(seed)-\(index)"
            let account = try createAppleID(
                AppleIDDefinition(appleID: "\(accountID)@example.com", environment: environment))
            var kind = ["active", "expired", "refunded", "upgraded"][Int(random.next() % 4)]
            if kind == "upgraded", upgrade == nil { kind = "active" }
            let periods = Int64(1 + random.next() % 6)
            let offset = Int64(random.next() % 1000) * period / 2000  // up to half a period
            let start: Instant =
                kind == "expired"
                ? now.adding(milliseconds: -(periods + 1) * period - offset)
                : now.adding(milliseconds: -periods * period + period / 2 - offset)
            var past = context
            past.now = start
            let purchase = PurchaseRequest(
                appleID: account.appleID, bundleID: app.bundleID, productID: base.productID, useFreeTrial: false)
            guard let originalID = try self.purchase(purchase, past).transactionID else {
                throw SimulatorError(.internalError, "the seeded purchase made no transaction")
            }
            var renewals = 0
            while let chain = self.chains[originalID], renewals < 64,
                kind == "expired" ? Int64(renewals + 1) < periods : chain.expiresDate <= now
            {
                try appendRenewal(originalID, start: chain.expiresDate, past)
                renewals += 1
            }
            switch kind {
            case "expired":
                if var chain = self.chains[originalID] {
                    chain.autoRenewEnabled = false
                    chain.status = chain.expiresDate <= now ? .expired : chain.status
                    chain.expirationIntent = .customerCancelled
                    save(chain)
                }
            case "refunded":
                if let chain = self.chains[originalID] {
                    _ = try refund(chain.latestTransactionID, reason: Int(random.next() % 2), date: nil, context)
                }
            case "upgraded":
                if let upgrade { _ = try changeProduct(originalID, to: upgrade.productID, context) }
            default:
                break
            }
            let count = self.chains[originalID]?.transactionIDs.count ?? 1
            total += count
            seeded.append(
                .init(
                    accountID: accountID, originalTransactionID: originalID, environment: environment, kind: kind,
                    transactions: count))
        }
        events.removeAll()
        return BulkSeedResult(chains: seeded, transactions: total)
    }
}
