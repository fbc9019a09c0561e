import Foundation

extension StripeWorld.State {
    /// `POST /v1/subscriptions/{id}`: `cancel_at_period_end`, `metadata`, `pause_collection` (`''` resumes), and a
    /// plan change (`items[0][id]` with `items[0][price]`) invoiced at once for the rest of the period, the unused
    /// time of the old price credited (`proration_behavior`: `always_invoice`, the default here, or `none`).
    mutating func updateSubscription(_ id: String, _ form: FormParameters) throws(StripeFailure) -> JSONValue {
        let subscription = try object(id, kind: "subscription")
        guard !["canceled", "incomplete_expired"].contains(subscription["status"]?.string ?? "") else {
            throw .invalid("A canceled subscription can only update its cancellation_details and metadata.")
        }
        let now = self.now
        if let cancel = form.string("cancel_at_period_end") {
            guard cancel == "true" || cancel == "false" else {
                throw .invalid("Invalid boolean: \(cancel)", param: "cancel_at_period_end")
            }
            update(id, emitting: "customer.subscription.updated") { sub in
                sub["cancel_at_period_end"] = .bool(cancel == "true")
                sub["canceled_at"] = cancel == "true" ? .int(now) : nil
                sub["cancel_at"] =
                    cancel == "true" ? sub["items"]?["data"]?.array?.first?["current_period_end"] ?? nil : nil
                sub["cancellation_details"]?["reason"] = cancel == "true" ? "cancellation_requested" : nil
            }
        }
        if form["metadata"] != nil {
            let metadata = form.metadata(form["metadata"])
            update(id, emitting: "customer.subscription.updated") { sub in
                if case .object(var fields) = sub["metadata"], case .object(let given) = metadata {
                    for (key, value) in given { fields[key] = value.string == "" ? nil : value }
                    sub["metadata"] = .object(fields)
                }
            }
        }
        if let pause = form["pause_collection"] {
            if pause.string == "" {
                update(id, emitting: "customer.subscription.resumed") { $0["pause_collection"] = nil }
            } else {
                let behavior = pause["behavior"]?.string ?? ""
                guard ["void", "keep_as_draft", "mark_uncollectible"].contains(behavior) else {
                    throw .invalid("Invalid pause_collection[behavior]", param: "pause_collection[behavior]")
                }
                update(id, emitting: "customer.subscription.paused") { sub in
                    sub["pause_collection"] = ["behavior": .string(behavior), "resumes_at": nil]
                }
            }
        }
        if let change = form.indexed("items").first, let newPrice = change["price"]?.string {
            try changePlan(id, to: newPrice, prorate: form.string("proration_behavior") != "none")
        }
        return objects[id] ?? subscription
    }

    private mutating func changePlan(_ id: String, to priceID: String, prorate: Bool) throws(StripeFailure) {
        let newPrice = try object(priceID, kind: "price")
        guard let sub = objects[id], let item = sub["items"]?["data"]?.array?.first,
            let oldPrice = item["price"]?["id"]?.string,
            let start = item["current_period_start"]?.int, let end = item["current_period_end"]?.int
        else { throw .invalid("The subscription has no item.") }
        guard newPrice["currency"] == sub["currency"] else {
            throw .invalid("The price's currency must be the subscription's.", param: "items[0][price]")
        }
        update(id, emitting: "customer.subscription.updated") { sub in
            var item = item
            item["price"] = newPrice
            item["plan"] = Self.plan(of: newPrice)
            sub["items"]?["data"] = [item]
        }
        guard prorate, end > now, end > start else { return }
        let remaining = end - now
        let span = end - start
        let credit = (objects[oldPrice]?["unit_amount"]?.int ?? 0) * remaining / span
        let charge = (newPrice["unit_amount"]?.int ?? 0) * remaining / span
        _ = bill(
            id, reason: "subscription_update",
            lines: [
                (amount: -credit, start: now, end: end, price: oldPrice, proration: true),
                (amount: charge, start: now, end: end, price: priceID, proration: true),
            ])
    }

    /// `DELETE /v1/subscriptions/{id}`: canceled now.
    mutating func cancelSubscription(_ id: String) throws(StripeFailure) -> JSONValue {
        let subscription = try object(id, kind: "subscription")
        guard subscription["status"]?.string != "canceled" else { throw .invalid("The subscription is canceled.") }
        end(id, reason: "cancellation_requested")
        return objects[id] ?? subscription
    }

    private mutating func end(_ id: String, reason: String) {
        let now = self.now
        retries[id] = nil
        update(id) { sub in
            sub["status"] = "canceled"
            sub["ended_at"] = .int(now)
            if sub["canceled_at"] == .null { sub["canceled_at"] = .int(now) }
            sub["cancellation_details"]?["reason"] = .string(reason)
        }
        if let sub = objects[id] { emit("customer.subscription.deleted", sub) }
    }

    // MARK: Refunds and disputes

    /// `POST /v1/refunds`: of a charge or payment intent, the whole rest unless `amount` says less.
    mutating func createRefund(_ form: FormParameters) throws(StripeFailure) -> JSONValue {
        var chargeID = form.string("charge")
        if chargeID == nil, let intent = form.string("payment_intent") {
            chargeID = try object(intent, kind: "payment_intent")["latest_charge"]?.string
        }
        guard let chargeID else { throw .invalid("Missing charge or payment_intent.", param: "charge") }
        let charge = try object(chargeID, kind: "charge")
        guard charge["status"]?.string == "succeeded" else { throw .invalid("The charge did not succeed.") }
        let amount = charge["amount"]?.int ?? 0
        let refunded = charge["amount_refunded"]?.int ?? 0
        var wanted = amount - refunded
        if let text = form.string("amount") {
            guard let given = Int64(text), given > 0 else {
                throw .invalid("Invalid integer: \(text)", param: "amount")
            }
            wanted = given
        }
        guard wanted > 0, wanted <= amount - refunded else {
            throw StripeFailure(
                status: 400, type: "invalid_request_error", code: "charge_already_refunded",
                message: "Refund amount is greater than the unrefunded amount on the charge.", param: "amount")
        }
        var refund: JSONValue = [
            "id": .string(newID("re_")), "object": "refund", "amount": .int(wanted), "charge": .string(chargeID),
            "payment_intent": charge["payment_intent"] ?? nil, "currency": charge["currency"] ?? nil,
            "created": .int(now), "status": "succeeded", "reason": JSONValue(form.string("reason")),
            "metadata": form.metadata(form["metadata"]), "balance_transaction": nil, "receipt_number": nil,
            "destination_details": ["type": "card", "card": ["type": "refund"]],
        ]
        refund["customer"] = charge["customer"] ?? nil
        refund.fill(Self.refundFields)
        insert(refund)
        emit("refund.created", refund)
        update(chargeID, emitting: "charge.refunded") { charge in
            charge["amount_refunded"] = .int(refunded + wanted)
            charge["refunded"] = .bool(refunded + wanted >= amount)
        }
        return refund
    }

    /// The cardholder's bank opens a dispute on a charge (stripe-sim's control API).
    mutating func openDispute(charge chargeID: String, reason: String) throws(StripeFailure) -> JSONValue {
        let charge = try object(chargeID, kind: "charge")
        guard charge["status"]?.string == "succeeded", charge["disputed"]?.bool != true else {
            throw .invalid("The charge cannot be disputed.")
        }
        let brand: JSONValue = charge["payment_method_details"]?["card"]?["brand"] ?? "visa"
        let dispute: JSONValue = [
            "id": .string(newID("dp_")), "object": "dispute", "amount": charge["amount"] ?? 0,
            "charge": .string(chargeID), "payment_intent": charge["payment_intent"] ?? nil,
            "currency": charge["currency"] ?? nil, "created": .int(now), "status": "needs_response",
            "reason": .string(reason), "is_charge_refundable": false, "livemode": false, "metadata": [:],
            "balance_transactions": [],
            "evidence_details": [
                "due_by": .int(now + 7 * 86_400), "enhanced_eligibility": [:], "has_evidence": false,
                "past_due": false, "submission_count": 0,
            ],
            "evidence": Self.emptyEvidence, "enhanced_eligibility_types": [],
            "payment_method_details": [
                "type": "card",
                "card": ["brand": brand, "case_type": "chargeback", "network": brand, "network_reason_code": nil],
            ],
        ]
        insert(dispute)
        update(chargeID) { $0["disputed"] = true }
        emit("charge.dispute.created", dispute)
        return dispute
    }

    /// The bank decides: `won` or `lost` (stripe-sim's control API).
    mutating func closeDispute(_ id: String, won: Bool) throws(StripeFailure) -> JSONValue {
        let dispute = try object(id, kind: "dispute")
        guard !["won", "lost"].contains(dispute["status"]?.string ?? "") else {
            throw .invalid("The dispute is closed.")
        }
        update(id, emitting: "charge.dispute.closed") { $0["status"] = won ? "won" : "lost" }
        return objects[id] ?? dispute
    }

    // MARK: Time

    /// Moves the clock to `target`, renewing every subscription whose period ends by then, in order: a new period
    /// invoiced and paid, a declined payment retried 3, 5 and 7 days later before the subscription is canceled, a
    /// subscription set to cancel at period end ended. Only the subscriptions of `clock`'s customers when a test
    /// clock is named (`StripeWorld+TestClocks`), and only those of customers on no test clock otherwise.
    mutating func advance(to target: Int64, clock: String? = nil) {
        while true {
            let due = dueAction(before: target, clock: clock)
            guard let (at, id, isRetry) = due else { break }
            now = clock == nil ? max(now, at) : at
            if isRetry { retryPayment(id) } else { renew(id) }
        }
        if clock == nil { now = max(now, target) }
    }

    private func dueAction(before target: Int64, clock: String?) -> (Int64, String, Bool)? {
        var best: (Int64, String, Bool)?
        for (id, retry) in retries where retry.at <= target && testClock(ofSubscription: id) == clock {
            if best == nil || retry.at < best!.0 { best = (retry.at, id, true) }
        }
        for (id, object) in objects where object["object"]?.string == "subscription" {
            guard ["active", "trialing"].contains(object["status"]?.string ?? ""), retries[id] == nil,
                testClock(ofSubscription: id) == clock,
                let end = object["items"]?["data"]?.array?.first?["current_period_end"]?.int, end <= target
            else { continue }
            if best == nil || end < best!.0 || (end == best!.0 && id < best!.1) { best = (end, id, false) }
        }
        return best
    }

    private mutating func renew(_ id: String) {
        guard let sub = objects[id], let item = sub["items"]?["data"]?.array?.first,
            let start = item["current_period_end"]?.int, let priceID = item["price"]?["id"]?.string
        else { return }
        if sub["cancel_at_period_end"]?.bool == true {
            end(id, reason: "cancellation_requested")
            return
        }
        let end = Self.periodEnd(from: start, recurring: item["price"]?["recurring"])
        let wasTrial = sub["status"]?.string == "trialing"
        update(id, emitting: "customer.subscription.updated") { sub in
            var item = item
            item["current_period_start"] = .int(start)
            item["current_period_end"] = .int(end)
            sub["items"]?["data"] = [item]
            if wasTrial { sub["status"] = "active" }
        }
        if let pause = sub["pause_collection"], pause != .null {
            // Collection paused: the period's invoice is voided, nothing is charged.
            return
        }
        let amount = objects[priceID]?["unit_amount"]?.int ?? 0
        let paid = bill(
            id, reason: "subscription_cycle",
            lines: [(amount: amount, start: start, end: end, price: priceID, proration: false)])
        if !paid {
            retries[id] = (at: now + 3 * 86_400, left: 3)
            update(id, emitting: "customer.subscription.updated") { $0["status"] = "past_due" }
        }
    }

    private mutating func retryPayment(_ id: String) {
        guard let retry = retries[id], let invoice = objects[id]?["latest_invoice"]?.string else {
            retries[id] = nil
            return
        }
        if pay(invoice) {
            retries[id] = nil
            update(id, emitting: "customer.subscription.updated") { $0["status"] = "active" }
            return
        }
        let left = retry.left - 1
        let now = self.now
        if left <= 0 {
            update(invoice, emitting: "invoice.marked_uncollectible") { invoice in
                invoice["status"] = "uncollectible"
                invoice["status_transitions"]?["marked_uncollectible_at"] = .int(now)
            }
            end(id, reason: "payment_failed")
            return
        }
        retries[id] = (at: now + 2 * 86_400, left: left)
    }
}
