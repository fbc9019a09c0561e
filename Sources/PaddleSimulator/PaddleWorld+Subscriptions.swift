/// Subscriptions: started by a paid checkout, renewed on the clock with a transaction per period, past due when a
/// renewal's payment fails (retried, then canceled), paused and resumed, canceled now or at the period's end.
extension PaddleWorld.State {
    /// A past-due renewal is retried every three days, four times, before the subscription is canceled.
    static let retryInterval: Int64 = 3 * 86_400
    static let maximumRetries = 4

    static func interval(_ duration: PaddleJSON?) -> (PaddleCalendar.Interval, Int64) {
        (
            PaddleCalendar.Interval(rawValue: duration?["interval"]?.string ?? "") ?? .month,
            duration?["frequency"]?.int ?? 1
        )
    }

    static func end(of start: Int64, _ duration: PaddleJSON?) -> Int64 {
        let (interval, frequency) = interval(duration)
        return PaddleCalendar.adding(interval, frequency, to: start) ?? PaddleCalendar.latest
    }

    mutating func startSubscription(
        transactionID: String, customerID: String, lines: [(PaddleJSON, Int64)], cycle: PaddleJSON, trial: PaddleJSON?
    ) -> String {
        let id = newID("sub_")
        let trialing = trial != nil
        let end = Self.end(of: now, trialing ? trial : cycle)
        let period = Self.period(now, end)
        let items: [PaddleJSON] = lines.map { price, quantity in
            let product = objects[price["product_id"]?.string ?? ""] ?? .null
            let itemTrial = !(price["trial_period"]?.isNull ?? true)
            return [
                "status": .string(trialing && itemTrial ? "trialing" : "active"), "quantity": .int(quantity),
                "recurring": true, "created_at": nowText, "updated_at": nowText,
                "previously_billed_at": trialing ? nil : nowText,
                "next_billed_at": .string(PaddleCalendar.format(end)),
                "trial_dates": trialing && itemTrial ? period : nil, "price": price, "product": product,
            ]
        }
        let transaction = objects[transactionID] ?? .null
        let subscription: PaddleJSON = [
            "id": .string(id), "status": trialing ? "trialing" : "active", "customer_id": .string(customerID),
            "address_id": nil, "business_id": nil, "currency_code": transaction["currency_code"] ?? "USD",
            "created_at": nowText, "updated_at": nowText, "started_at": nowText,
            "first_billed_at": trialing ? nil : nowText, "next_billed_at": .string(PaddleCalendar.format(end)),
            "paused_at": nil, "canceled_at": nil, "discount": nil, "collection_mode": "automatic",
            "billing_details": nil, "current_billing_period": period, "billing_cycle": cycle,
            "scheduled_change": nil, "items": .array(items), "custom_data": transaction["custom_data"] ?? nil,
            "management_urls": [
                "update_payment_method": .string("\(baseURL)/subscriptions/\(id)/update-payment-method"),
                "cancel": .string("\(baseURL)/subscriptions/\(id)/cancel"),
            ],
            "import_meta": nil, "consent_requirements": [],
        ]
        insert(subscription, kind: "subscription")
        update(transactionID) { transaction in
            transaction["subscription_id"] = .string(id)
            transaction["billing_period"] = period
        }
        var created = subscription
        created["transaction_id"] = .string(transactionID)
        emit("subscription.created", created)
        emit(trialing ? "subscription.trialing" : "subscription.activated", subscription)
        emit("transaction.updated", id: transactionID)
        return id
    }

    /// The next moment something happens on its own, or nil: a scheduled change, a renewal, a retry of a past-due
    /// payment, Paddle approving a refund.
    func nextDue() -> Int64? {
        var due: [Int64] = Array(refundApprovals.values) + dunning.values.map(\.nextRetryAt)
        for id in idsByKind["subscription"] ?? [] {
            guard let subscription = objects[id] else { continue }
            if let change = subscription["scheduled_change"]?["effective_at"]?.string.flatMap(PaddleCalendar.parse) {
                due.append(change)
            }
            if ["active", "trialing"].contains(subscription["status"]?.string ?? ""),
                let next = subscription["next_billed_at"]?.string.flatMap(PaddleCalendar.parse)
            {
                due.append(next)
            }
        }
        return due.min()
    }

    /// Moves the clock to `target`, doing in order everything due on the way (at most 100,000 steps).
    mutating func advance(to target: Int64) {
        var steps = 0
        while steps < 100_000, let due = nextDue(), due <= target {
            steps += 1
            now = max(now, due)
            runDue()
        }
        now = max(now, target)
    }

    /// Does what is due now: refund approvals, scheduled changes (before renewals at the same moment, so a
    /// cancellation at the period's end is not billed), renewals, retries.
    mutating func runDue() {
        for (id, at) in refundApprovals.sorted(by: { $0.key < $1.key }) where at <= now {
            refundApprovals[id] = nil
            try? decideRefund(id, approve: true)
        }
        for id in idsByKind["subscription"] ?? [] {
            guard let subscription = objects[id] else { continue }
            if let change = subscription["scheduled_change"], !change.isNull,
                let at = change["effective_at"]?.string.flatMap(PaddleCalendar.parse), at <= now
            {
                applyScheduledChange(id, action: change["action"]?.string ?? "", resumeAt: change["resume_at"])
                continue
            }
            if ["active", "trialing"].contains(subscription["status"]?.string ?? ""),
                let next = subscription["next_billed_at"]?.string.flatMap(PaddleCalendar.parse), next <= now
            {
                renew(id, from: next)
            }
        }
        for (id, entry) in dunning.sorted(by: { $0.key < $1.key }) where entry.nextRetryAt <= now {
            retry(id, entry)
        }
    }

    mutating func applyScheduledChange(_ id: String, action: String, resumeAt: PaddleJSON?) {
        switch action {
        case "cancel": cancelNow(id)
        case "pause": pauseNow(id, resumeAt: resumeAt.flatMap { $0.string.flatMap(PaddleCalendar.parse) })
        default: resumeNow(id)
        }
    }

    /// A renewal: a transaction for the period starting at `start`, charged at once.
    mutating func renew(_ id: String, from start: Int64) {
        guard let subscription = objects[id] else { return }
        let cycle = subscription["billing_cycle"]
        let end = Self.end(of: start, cycle)
        let lines = (subscription["items"]?.array ?? []).map { ($0["price"] ?? .null, $0["quantity"]?.int ?? 1) }
        let transactionID = makeTransaction(
            lines: lines, customerID: subscription["customer_id"]?.string, subscriptionID: id,
            origin: "subscription_recurring", status: "billed", customData: subscription["custom_data"] ?? .null,
            period: (start, end), trial: false)
        let wasTrialing = subscription["status"]?.string == "trialing"
        update(id) { subscription in
            subscription["current_billing_period"] = Self.period(start, end)
            subscription["next_billed_at"] = .string(PaddleCalendar.format(end))
            subscription["items"] = .array(
                (subscription["items"]?.array ?? []).map { item in
                    var item = item
                    item["status"] = "active"
                    item["previously_billed_at"] = .string(PaddleCalendar.format(start))
                    item["next_billed_at"] = .string(PaddleCalendar.format(end))
                    return item
                })
        }
        if attemptPayment(transactionID) {
            completeTransaction(transactionID)
            let stamp = nowText
            update(id) { subscription in
                subscription["status"] = "active"
                if subscription["first_billed_at"]?.isNull ?? true { subscription["first_billed_at"] = stamp }
            }
            emit(wasTrialing ? "subscription.activated" : "subscription.updated", id: id)
        } else {
            update(transactionID) { $0["status"] = "past_due" }
            emit("transaction.past_due", id: transactionID)
            update(id) { $0["status"] = "past_due" }
            dunning[id] = .init(transactionID: transactionID, attempts: 1, nextRetryAt: now + Self.retryInterval)
            emit("subscription.past_due", id: id)
        }
    }

    mutating func retry(_ id: String, _ entry: PaddleWorld.Dunning) {
        if attemptPayment(entry.transactionID) {
            dunning[id] = nil
            completeTransaction(entry.transactionID)
            update(id) { $0["status"] = "active" }
            emit("subscription.updated", id: id)
        } else if entry.attempts >= Self.maximumRetries {
            cancelNow(id)  // cancels the unpaid transaction too
        } else {
            dunning[id] = .init(
                transactionID: entry.transactionID, attempts: entry.attempts + 1, nextRetryAt: now + Self.retryInterval)
        }
    }

    mutating func cancelNow(_ id: String) {
        if let entry = dunning.removeValue(forKey: id) {
            update(entry.transactionID) { $0["status"] = "canceled" }
            emit("transaction.canceled", id: entry.transactionID)
        }
        let stamp = nowText
        update(id) { subscription in
            subscription["status"] = "canceled"
            subscription["canceled_at"] = stamp
            subscription["scheduled_change"] = .null
            subscription["current_billing_period"] = .null
            subscription["next_billed_at"] = .null
            subscription["items"] = .array(
                (subscription["items"]?.array ?? []).map { item in
                    var item = item
                    item["status"] = "inactive"
                    item["next_billed_at"] = .null
                    return item
                })
        }
        emit("subscription.canceled", id: id)
    }

    mutating func pauseNow(_ id: String, resumeAt: Int64?) {
        let stamp = nowText
        update(id) { subscription in
            subscription["status"] = "paused"
            subscription["paused_at"] = stamp
            subscription["current_billing_period"] = .null
            subscription["next_billed_at"] = .null
            subscription["scheduled_change"] =
                resumeAt.map {
                    [
                        "action": "resume", "effective_at": .string(PaddleCalendar.format($0)),
                        "resume_at": .string(PaddleCalendar.format($0)),
                    ]
                } ?? .null
        }
        emit("subscription.paused", id: id)
    }

    /// A resume starts a new billing period now, charged at once (Paddle's `on_resume: start_new_billing_period`).
    mutating func resumeNow(_ id: String) {
        update(id) { subscription in
            subscription["status"] = "active"
            subscription["paused_at"] = .null
            subscription["scheduled_change"] = .null
        }
        emit("subscription.resumed", id: id)
        renew(id, from: now)
    }

    // MARK: - The subscription operations of the API

    mutating func subscriptionToChange(_ id: String) throws(PaddleFailure) -> PaddleJSON {
        let subscription = try object(id, prefix: "sub_")
        if subscription["status"]?.string == "canceled" { throw .subscriptionCanceled }
        return subscription
    }

    mutating func pause(_ id: String, _ body: RequestFields) throws(PaddleFailure) -> PaddleJSON {
        let subscription = try subscriptionToChange(id)
        let effective =
            try body.oneOf("effective_from", ["next_billing_period", "immediately"]) ?? "next_billing_period"
        var resumeAt: Int64?
        if let text = try body.string("resume_at", maxLength: 40) {
            guard let at = PaddleCalendar.parse(text), at > now else {
                throw .invalidField("resume_at", "must be an RFC 3339 date in the future")
            }
            resumeAt = at
        }
        guard ["active", "trialing", "past_due"].contains(subscription["status"]?.string ?? "") else {
            throw .invalidField("subscription_id", "the subscription is already paused")
        }
        guard subscription["scheduled_change"]?.isNull ?? true else { throw .subscriptionPendingChanges }
        let periodEnd = subscription["current_billing_period"]?["ends_at"]?.string.flatMap(PaddleCalendar.parse)
        if effective == "immediately" || periodEnd == nil {
            pauseNow(id, resumeAt: resumeAt)
        } else if let periodEnd {
            if let resumeAt, resumeAt <= periodEnd {
                throw .invalidField("resume_at", "must be after the pause takes effect")
            }
            update(id) { subscription in
                subscription["scheduled_change"] = [
                    "action": "pause", "effective_at": .string(PaddleCalendar.format(periodEnd)),
                    "resume_at": resumeAt.map { .string(PaddleCalendar.format($0)) } ?? .null,
                ]
            }
            emit("subscription.updated", id: id)
        }
        return objects[id] ?? .null
    }

    mutating func resume(_ id: String, _ body: RequestFields) throws(PaddleFailure) -> PaddleJSON {
        let subscription = try subscriptionToChange(id)
        guard subscription["status"]?.string == "paused" else { throw .subscriptionMustBePaused }
        let effective = try body.string("effective_from", maxLength: 40) ?? "immediately"
        if effective == "immediately" {
            resumeNow(id)
        } else {
            guard let at = PaddleCalendar.parse(effective), at > now else {
                throw .invalidField("effective_from", "must be immediately or an RFC 3339 date in the future")
            }
            update(id) { subscription in
                subscription["scheduled_change"] = [
                    "action": "resume", "effective_at": .string(PaddleCalendar.format(at)),
                    "resume_at": .string(PaddleCalendar.format(at)),
                ]
            }
            emit("subscription.updated", id: id)
        }
        return objects[id] ?? .null
    }

    mutating func cancel(_ id: String, _ body: RequestFields) throws(PaddleFailure) -> PaddleJSON {
        let subscription = try subscriptionToChange(id)
        let effective =
            try body.oneOf("effective_from", ["next_billing_period", "immediately"]) ?? "next_billing_period"
        let periodEnd = subscription["current_billing_period"]?["ends_at"]?.string.flatMap(PaddleCalendar.parse)
        if effective == "immediately" || periodEnd == nil || subscription["status"]?.string == "past_due" {
            cancelNow(id)
        } else if let periodEnd {
            guard subscription["scheduled_change"]?.isNull ?? true else { throw .subscriptionPendingChanges }
            update(id) { subscription in
                subscription["scheduled_change"] = [
                    "action": "cancel", "effective_at": .string(PaddleCalendar.format(periodEnd)), "resume_at": nil,
                ]
            }
            emit("subscription.updated", id: id)
        }
        return objects[id] ?? .null
    }

    /// `POST /subscriptions/{id}/activate`: a trialing subscription is billed now and its periods start now.
    mutating func activate(_ id: String) throws(PaddleFailure) -> PaddleJSON {
        let subscription = try subscriptionToChange(id)
        guard subscription["status"]?.string == "trialing" else {
            throw PaddleFailure(
                status: 400, code: "subscription_not_trialing", detail: "only trialing subscriptions can be activated")
        }
        renew(id, from: now)
        return objects[id] ?? .null
    }

    /// `PATCH /subscriptions/{id}`: `scheduled_change: null` removes a scheduled change; `custom_data` replaces it.
    mutating func updateSubscription(_ id: String, _ body: RequestFields) throws(PaddleFailure) -> PaddleJSON {
        _ = try subscriptionToChange(id)
        for key in body.values.keys where !["scheduled_change", "custom_data"].contains(key) {
            throw .invalidField(key, "changing this field is not simulated")
        }
        if let change = body.values["scheduled_change"], !change.isNull {
            throw .invalidField("scheduled_change", "can only be set to null")
        }
        let customData = try body.customData()
        update(id) { subscription in
            if body.has("scheduled_change") { subscription["scheduled_change"] = nil }
            if let customData { subscription["custom_data"] = customData }
        }
        emit("subscription.updated", id: id)
        return objects[id] ?? .null
    }
}
