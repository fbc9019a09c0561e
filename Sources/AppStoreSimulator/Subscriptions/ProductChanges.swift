import AppStore
import SubLedgerCore

extension SimulatorState {
    /// Changes a subscription's product within its group, as the App Store does:
    /// an upgrade (a higher level) or a crossgrade of equal duration takes effect now, on the same original
    /// transaction id, the old transaction marked upgraded with the upgrade's moment as its cancellation date
    /// (`cancellation_date`, `revocationDate`: Apple dates an upgraded plan's end so) and no reason; a downgrade,
    /// or a crossgrade to another duration, takes effect at the next renewal. Choosing the current product again
    /// cancels a pending change.
    mutating func changeProduct(_ id: String, to productID: String, _ context: Context) throws(SimulatorError)
        -> String
    {
        var chain = try chain(containing: id)
        try requirePurchaser(chain)
        let app = try app(chain.bundleID)
        let account = try account(chain.appleID)
        let target = try app.product(productID)
        let current = try app.product(chain.productID)
        let key = AccountAppKey(appleID: chain.appleID, bundleID: chain.bundleID)
        guard target.type == .autoRenewable, target.subscriptionGroupID == chain.groupID else {
            throw SimulatorError(.badRequest, "\(productID) is not in subscription group \(chain.groupID)")
        }
        guard chain.isEntitled || chain.status == .billingRetry else {
            throw SimulatorError(.conflict, "subscription \(chain.originalTransactionID) has ended; purchase again")
        }
        if target.productID == chain.productID {
            guard chain.autoRenewProductID != target.productID else {
                throw SimulatorError(.conflict, "already subscribed to \(productID)")
            }
            chain.autoRenewProductID = target.productID
            save(chain)
            mirrorStatus(of: chain)
            emit("DID_CHANGE_RENEWAL_PREF", key: key, transactionID: chain.latestTransactionID)
            return chain.latestTransactionID
        }
        let targetLevel = target.groupLevel ?? 1
        let currentLevel = current.groupLevel ?? 1
        let immediate =
            targetLevel < currentLevel || (targetLevel == currentLevel && target.duration == current.duration)
        guard immediate else {
            chain.autoRenewProductID = target.productID
            chain.autoRenewEnabled = true
            save(chain)
            mirrorStatus(of: chain)
            emit("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", key: key, transactionID: chain.latestTransactionID)
            return chain.latestTransactionID
        }
        var old = try transaction(chain.latestTransactionID)
        old.isUpgraded = true
        old.revocationDate = context.now
        save(old)
        let first = try transaction(chain.transactionIDs[0])
        let expires = (target.duration ?? .oneMonth).end(from: context.now, sandbox: context.sandboxDurations)
        let record = insertTransaction(
            account: account, app: app, product: target, originalTransactionID: chain.originalTransactionID,
            originalPurchaseDate: first.originalPurchaseDate, purchaseDate: context.now, expiresDate: expires,
            reason: .purchase, appAccountToken: chain.appAccountToken, applicationUsername: chain.applicationUsername,
            usernameLost: chain.usernameLost, legacyReceipt: chain.legacyReceipts)
        chain.transactionIDs.append(record.transactionID)
        chain.productID = target.productID
        chain.autoRenewProductID = target.productID
        chain.autoRenewEnabled = true
        chain.expiresDate = expires
        chain.status = chain.billingFailing ? chain.status : .active
        if !chain.billingFailing {
            chain.gracePeriodExpiresDate = nil
            chain.billingRetryStartedAt = nil
            chain.expirationIntent = nil
            chain.status = .active
        }
        save(chain)
        for (_, memberOriginalID) in chain.familyShares.sorted(by: { $0.key < $1.key }) {
            guard var member = chains[memberOriginalID], member.status != .revoked else { continue }
            var memberOld = try transaction(member.latestTransactionID)
            memberOld.isUpgraded = true
            memberOld.revocationDate = memberOld.revocationDate ?? context.now
            save(memberOld)
            let memberAccount = try self.account(member.appleID)
            let copy = insertTransaction(
                account: memberAccount, app: app, product: target, originalTransactionID: member.originalTransactionID,
                originalPurchaseDate: try transaction(member.transactionIDs[0]).originalPurchaseDate,
                purchaseDate: context.now, expiresDate: expires, reason: .purchase, ownership: .familyShared)
            member.transactionIDs.append(copy.transactionID)
            member.productID = target.productID
            member.autoRenewProductID = target.productID
            member.expiresDate = expires
            member.status = chain.status
            save(member)
        }
        emit("DID_CHANGE_RENEWAL_PREF", "UPGRADE", key: key, transactionID: record.transactionID)
        return record.transactionID
    }
}
