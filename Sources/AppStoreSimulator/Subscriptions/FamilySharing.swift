import AppStore
import SubLedgerCore

extension SimulatorState {
    /// Shares a subscription or non-consumable with a family member, who gets a `FAMILY_SHARED` copy
    /// with its own transaction ids; returns the member's transaction id.
    mutating func shareWithFamily(_ id: String, memberAppleID: String, _ context: Context) throws(SimulatorError)
        -> String
    {
        let member = try account(memberAppleID)
        let purchased = try transaction(id)
        guard purchased.ownership == .purchased else {
            throw SimulatorError(.badRequest, "only the purchaser's transactions can be shared")
        }
        guard member.appleID != purchased.appleID else {
            throw SimulatorError(.badRequest, "the purchaser cannot share with themselves")
        }
        guard member.environment == purchased.environment else {
            throw SimulatorError(.badRequest, "family members must be in the purchaser's environment")
        }
        let app = try app(purchased.bundleID)
        let product = try app.product(purchased.productID)
        let memberKey = AccountAppKey(appleID: member.appleID, bundleID: app.bundleID)
        switch product.type {
        case .autoRenewable:
            var chain = try chain(containing: id)
            guard chain.familyShares[member.appleID] == nil else {
                throw SimulatorError(.conflict, "already shared with \(member.appleID)")
            }
            guard chain.isEntitled else { throw SimulatorError(.conflict, "the subscription is not active") }
            let latest = try transaction(chain.latestTransactionID)
            let copy = insertTransaction(
                account: member, app: app, product: try app.product(chain.productID), originalTransactionID: nil,
                originalPurchaseDate: context.now, purchaseDate: context.now, expiresDate: latest.expiresDate,
                reason: .purchase, ownership: .familyShared)
            var memberChain = SubscriptionChainRecord(
                originalTransactionID: copy.transactionID, appleID: member.appleID, bundleID: app.bundleID,
                environment: member.environment, groupID: chain.groupID, productID: chain.productID,
                autoRenewProductID: chain.autoRenewProductID, expiresDate: chain.expiresDate,
                transactionIDs: [copy.transactionID], recentSubscriptionStartDate: context.now)
            memberChain.ownership = .familyShared
            memberChain.sharedFromOriginalTransactionID = chain.originalTransactionID
            memberChain.autoRenewEnabled = chain.autoRenewEnabled
            memberChain.status = chain.status
            chain.familyShares[member.appleID] = copy.transactionID
            save(chain)
            save(memberChain)
            emit("SUBSCRIBED", "INITIAL_BUY", key: memberKey, transactionID: copy.transactionID)
            return copy.transactionID
        case .nonConsumable:
            guard purchased.revocationDate == nil else { throw SimulatorError(.conflict, "the purchase is refunded") }
            guard familyCopies[purchased.transactionID]?[member.appleID] == nil else {
                throw SimulatorError(.conflict, "already shared with \(member.appleID)")
            }
            let copy = insertTransaction(
                account: member, app: app, product: product, originalTransactionID: nil,
                originalPurchaseDate: context.now, purchaseDate: context.now, expiresDate: nil, reason: .purchase,
                ownership: .familyShared)
            familyCopies[purchased.transactionID, default: [:]][member.appleID] = copy.transactionID
            emit("ONE_TIME_CHARGE", key: memberKey, transactionID: copy.transactionID)
            return copy.transactionID
        case .consumable, .nonRenewing:
            throw SimulatorError(.badRequest, "\(product.type.rawValue) products cannot be family shared")
        }
    }

    /// Stops sharing with a family member: their copy is revoked (REVOKE); returns their transaction id.
    mutating func revokeFamilySharing(_ id: String, memberAppleID: String, _ context: Context) throws(SimulatorError)
        -> String
    {
        let purchased = try transaction(id)
        if purchased.productType == .autoRenewable {
            var chain = try chain(containing: id)
            guard let memberChainID = chain.familyShares.removeValue(forKey: memberAppleID) else {
                throw SimulatorError(.notFound, "not shared with \(memberAppleID)")
            }
            save(chain)
            try revokeFamilyCopy(chainID: memberChainID, at: context.now)
            return chains[memberChainID]?.latestTransactionID ?? memberChainID
        }
        guard let memberTransactionID = familyCopies[purchased.transactionID]?.removeValue(forKey: memberAppleID) else {
            throw SimulatorError(.notFound, "not shared with \(memberAppleID)")
        }
        try revokeFamilyTransaction(memberTransactionID, at: context.now)
        return memberTransactionID
    }
}
