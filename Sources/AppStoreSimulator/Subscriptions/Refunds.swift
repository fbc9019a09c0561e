import AppStore
import SubLedgerCore

extension SimulatorState {
    /// Apple customer support refunds a transaction: `cancellation_date` / `revocationDate`, reason and the
    /// share refunded (`percentage`, thousandths of a percent; below 100 000 a prorated refund) are set.
    ///
    /// Refunding a subscription's current period revokes the subscription, prorated or not (access ends at
    /// the revocation date); family copies are revoked too.
    mutating func refund(
        _ transactionID: String, reason: Int, date: Int64?, percentage: Int = 100_000, _ context: Context
    ) throws(SimulatorError) -> String {
        var record = try transaction(transactionID)
        guard record.ownership == .purchased else {
            throw SimulatorError(.badRequest, "family-shared transactions are revoked, not refunded")
        }
        guard record.revocationDate == nil else {
            throw SimulatorError(.conflict, "transaction \(transactionID) is already refunded")
        }
        guard reason == 0 || reason == 1 else { throw SimulatorError(.badRequest, "reason must be 0 or 1") }
        guard (0...100_000).contains(percentage) else {
            throw SimulatorError(.badRequest, "percentage must be 0 to 100000 (thousandths of a percent)")
        }
        let when = date.map(Instant.init(millisecondsSince1970:)) ?? context.now
        record.revocationDate = when
        record.revocationReason = reason
        record.revocationPercentage = percentage
        save(record)
        let key = AccountAppKey(appleID: record.appleID, bundleID: record.bundleID)
        emit("REFUND", key: key, transactionID: record.transactionID)
        if record.productType == .autoRenewable, var chain = chains[record.originalTransactionID],
            chain.latestTransactionID == record.transactionID
        {
            chain.status = .revoked
            save(chain)
            for (_, memberOriginalID) in chain.familyShares.sorted(by: { $0.key < $1.key }) {
                try revokeFamilyCopy(chainID: memberOriginalID, at: when)
            }
        } else if let copies = familyCopies[record.transactionID] {
            for (_, memberTransactionID) in copies.sorted(by: { $0.key < $1.key }) {
                try revokeFamilyTransaction(memberTransactionID, at: when)
            }
        }
        return record.transactionID
    }

    /// Apple declines the customer's refund request: `REFUND_DECLINED`; the purchase stands.
    mutating func declineRefund(_ transactionID: String, _ context: Context) throws(SimulatorError) -> String {
        let record = try transaction(transactionID)
        guard record.ownership == .purchased else {
            throw SimulatorError(.badRequest, "only the purchaser asks for a refund")
        }
        guard record.revocationDate == nil else {
            throw SimulatorError(.conflict, "transaction \(transactionID) is already refunded")
        }
        emit(
            "REFUND_DECLINED", key: AccountAppKey(appleID: record.appleID, bundleID: record.bundleID),
            transactionID: record.transactionID)
        return record.transactionID
    }

    /// Apple reverses a refund: the revocation is withdrawn and the subscription is active again if in period.
    mutating func reverseRefund(_ transactionID: String, _ context: Context) throws(SimulatorError) -> String {
        var record = try transaction(transactionID)
        guard record.isRefunded, record.ownership == .purchased else {
            throw SimulatorError(.conflict, "transaction \(transactionID) is not refunded")
        }
        record.revocationDate = nil
        record.revocationReason = nil
        record.revocationPercentage = nil
        save(record)
        if record.productType == .autoRenewable, var chain = chains[record.originalTransactionID],
            chain.latestTransactionID == record.transactionID, chain.status == .revoked
        {
            chain.status = chain.expiresDate > context.now ? .active : .expired
            save(chain)
        }
        emit(
            "REFUND_REVERSED", key: AccountAppKey(appleID: record.appleID, bundleID: record.bundleID),
            transactionID: record.transactionID)
        return record.transactionID
    }

    /// Revokes a family member's copy of a subscription (REVOKE to the member).
    mutating func revokeFamilyCopy(chainID: String, at instant: Instant) throws(SimulatorError) {
        guard var member = chains[chainID], member.status != .revoked else { return }
        member.status = .revoked
        member.autoRenewEnabled = false
        save(member)
        try revokeFamilyTransaction(member.latestTransactionID, at: instant)
    }

    /// Revokes one family-shared transaction (REVOKE to the member).
    mutating func revokeFamilyTransaction(_ transactionID: String, at instant: Instant) throws(SimulatorError) {
        var record = try transaction(transactionID)
        guard record.revocationDate == nil else { return }
        record.revocationDate = instant
        record.revocationReason = 0
        save(record)
        emit(
            "REVOKE", key: AccountAppKey(appleID: record.appleID, bundleID: record.bundleID),
            transactionID: record.transactionID)
    }
}
