/// Adjustments: refunds (waiting for Paddle's approval, which the simulated sandbox gives ten minutes later, as
/// Paddle's sandbox does), credits (approved at once) and chargebacks (the control route: the bank's dispute).
extension PaddleWorld.State {
    static let refundApprovalDelay: Int64 = 600

    mutating func createAdjustment(_ body: RequestFields) throws(PaddleFailure) -> PaddleJSON {
        let action = try body.oneOf("action", ["refund", "credit"], required: true) ?? "refund"
        let type = try body.oneOf("type", ["full", "partial"]) ?? "partial"
        let reason = try body.string("reason", required: true, maxLength: 1024) ?? ""
        let transactionID = try body.string("transaction_id", required: true, maxLength: 64) ?? ""
        let transaction = try object(transactionID, prefix: "txn_")
        let status = transaction["status"]?.string ?? ""
        if action == "refund", status != "completed" { throw .refundStatus(transactionID) }
        if action == "credit", !["billed", "completed", "past_due"].contains(status) {
            throw PaddleFailure(
                status: 400, code: "adjustment_transaction_invalid_status_for_credit",
                detail: "The transaction being adjusted (credit) has a non supported status. ID: \(transactionID)")
        }
        if adjustments(of: transactionID).contains(where: { $0["status"]?.string == "pending_approval" }) {
            throw .pendingRefund
        }
        var requested: [(itemID: String, type: String, amount: Int64?)] = []
        if type == "full" {
            if body.has("items"), !(body.values["items"]?.isNull ?? true) {
                throw .invalidField("items", "items are not allowed when the adjustment type is full")
            }
            requested = (transaction["details"]?["line_items"]?.array ?? []).compactMap {
                $0["id"]?.string.map { ($0, "full", nil) }
            }
        } else {
            guard let items = try body.array("items", maxCount: 100), !items.isEmpty else {
                throw .invalidField("items", "must have at least one item")
            }
            for (index, item) in items.enumerated() {
                let fields = RequestFields(item, path: "items[\(index)].")
                let itemID = try fields.string("item_id", required: true, maxLength: 64) ?? ""
                let itemType = try fields.oneOf("type", ["full", "partial"], required: true) ?? "partial"
                let amount = itemType == "partial" ? try fields.amount("amount") : nil
                requested.append((itemID, itemType, amount))
            }
        }
        return try makeAdjustment(
            transaction: transaction, action: action, type: type, reason: reason, requested: requested)
    }

    func adjustments(of transactionID: String) -> [PaddleJSON] {
        (idsByKind["adjustment"] ?? []).compactMap { objects[$0] }.filter {
            $0["transaction_id"]?.string == transactionID
        }
    }

    /// What is left to adjust on one line: its total less every adjustment not rejected.
    func remaining(_ lineItem: PaddleJSON, of transactionID: String) -> Int64 {
        var left = Money.value(lineItem["totals"]?["total"])
        for adjustment in adjustments(of: transactionID)
        where ["approved", "pending_approval"].contains(adjustment["status"]?.string ?? "") {
            for item in adjustment["items"]?.array ?? [] where item["item_id"] == lineItem["id"] {
                left -= Money.value(item["totals"]?["total"])
            }
        }
        return max(0, left)
    }

    mutating func makeAdjustment(
        transaction: PaddleJSON, action: String, type: String, reason: String,
        requested: [(itemID: String, type: String, amount: Int64?)]
    ) throws(PaddleFailure) -> PaddleJSON {
        let transactionID = transaction["id"]?.string ?? ""
        let lineItems = transaction["details"]?["line_items"]?.array ?? []
        var items: [PaddleJSON] = []
        var sums: (subtotal: Int64, tax: Int64, total: Int64) = (0, 0, 0)
        for (index, request) in requested.enumerated() {
            guard let line = lineItems.first(where: { $0["id"]?.string == request.itemID }) else {
                throw .invalidField("items[\(index)].item_id", "is not an item of transaction \(transactionID)")
            }
            let left = remaining(line, of: transactionID)
            let amount = request.amount ?? left
            guard amount > 0, amount <= left else { throw .amountTooHigh("items[\(index)].amount") }
            let lineTotal = Money.value(line["totals"]?["total"])
            let tax = Money.share(amount, Money.value(line["totals"]?["tax"]), lineTotal)
            sums = (sums.subtotal + amount - tax, sums.tax + tax, sums.total + amount)
            items.append([
                "id": .string(newID("adjitm_")), "item_id": .string(request.itemID), "type": .string(request.type),
                "amount": Money.text(amount), "proration": nil,
                "totals": ["subtotal": Money.text(amount - tax), "tax": Money.text(tax), "total": Money.text(amount)],
            ])
        }
        let totals = transaction["details"]?["totals"] ?? .null
        // Paddle's fee is given back in proportion to what is refunded.
        let fee = Money.share(sums.total, Money.value(totals["fee"]), Money.value(totals["grand_total"]))
        let currency = transaction["currency_code"] ?? "USD"
        // Paddle keeps its fee on a chargeback; a refund gives it back.
        let retained = action == "chargeback" ? fee : 0
        let id = newID("adj_")
        let adjustment: PaddleJSON = [
            "id": .string(id), "action": .string(action), "type": .string(type),
            "transaction_id": .string(transactionID), "subscription_id": transaction["subscription_id"] ?? nil,
            "customer_id": transaction["customer_id"] ?? nil, "reason": .string(reason),
            "credit_applied_to_balance": action == "credit" ? false : nil, "currency_code": currency,
            "status": action == "refund" ? "pending_approval" : "approved", "items": .array(items),
            "totals": [
                "subtotal": Money.text(sums.subtotal), "tax": Money.text(sums.tax), "total": Money.text(sums.total),
                "fee": Money.text(fee), "earnings": Money.text(sums.subtotal - (fee - retained)),
                "retained_fee": Money.text(retained), "currency_code": currency,
            ],
            "payout_totals": nil,
            "tax_rates_used": [
                [
                    "tax_rate": .string(Money.rate(taxBasisPoints)),
                    "totals": [
                        "subtotal": Money.text(sums.subtotal), "tax": Money.text(sums.tax),
                        "total": Money.text(sums.total),
                    ],
                ]
            ],
            "created_at": nowText, "updated_at": nowText,
        ]
        insert(adjustment, kind: "adjustment")
        if action == "refund" {
            refundApprovals[id] = now + Self.refundApprovalDelay
        } else {
            statePayout(of: id)
        }
        refreshAdjustedTotals(transactionID)
        emit("adjustment.created", adjustment)
        return adjustment
    }

    /// Paddle states an approved adjustment in the seller's payout currency (`payout_totals`), at the rate its
    /// transaction was paid out at.
    mutating func statePayout(of id: String) {
        guard let adjustment = objects[id], let totals = adjustment["totals"] else { return }
        let currency = adjustment["currency_code"]?.string ?? "USD"
        var payout = payoutTotals(totals, currency: currency, retained: Money.value(totals["retained_fee"]))
        if adjustment["action"]?.string == "chargeback" {
            payout["chargeback_fee"] = ["amount": "1500", "original": nil]
        }
        payout["exchange_rate"] = nil
        update(id, stamp: false) { $0["payout_totals"] = payout }
    }

    mutating func refreshAdjustedTotals(_ transactionID: String) {
        let list = adjustments(of: transactionID)
        update(transactionID, stamp: false) { transaction in
            let adjusted = Self.adjustedTotals(transaction, adjustments: list)
            transaction["details"]?["adjusted_totals"] = adjusted
        }
    }

    /// Paddle approving or rejecting a pending refund (on the clock, or `/control/adjustments/{id}/approve|reject`).
    mutating func decideRefund(_ id: String, approve: Bool) throws(PaddleFailure) {
        let adjustment = try object(id, prefix: "adj_")
        guard adjustment["status"]?.string == "pending_approval" else {
            throw .badRequest("adjustment \(id) is not pending approval")
        }
        refundApprovals[id] = nil
        update(id) { $0["status"] = .string(approve ? "approved" : "rejected") }
        if approve { statePayout(of: id) }
        refreshAdjustedTotals(adjustment["transaction_id"]?.string ?? "")
        emit("adjustment.updated", id: id)
    }

    /// A chargeback: the customer's bank takes back `amount` (all that is left when nil) of a completed transaction.
    mutating func chargeback(_ transactionID: String, amount: Int64?) throws(PaddleFailure) -> PaddleJSON {
        let transaction = try object(transactionID, prefix: "txn_")
        guard transaction["status"]?.string == "completed" else { throw .refundStatus(transactionID) }
        let lines = transaction["details"]?["line_items"]?.array ?? []
        var requested: [(itemID: String, type: String, amount: Int64?)] = []
        var left = amount
        for line in lines {
            let available = remaining(line, of: transactionID)
            guard available > 0, left.map({ $0 > 0 }) ?? true else { continue }
            let take = min(available, left ?? available)
            left = left.map { $0 - take }
            requested.append((line["id"]?.string ?? "", take == available ? "full" : "partial", take))
        }
        guard !requested.isEmpty, (left ?? 0) == 0 else { throw .amountTooHigh("amount") }
        let adjustment = try makeAdjustment(
            transaction: transaction, action: "chargeback", type: amount == nil ? "full" : "partial",
            reason: "chargeback", requested: requested)
        let id = adjustment["id"]?.string ?? ""
        update(id, stamp: false) { $0["status"] = "approved" }
        refreshAdjustedTotals(transactionID)
        return objects[id] ?? .null
    }
}
