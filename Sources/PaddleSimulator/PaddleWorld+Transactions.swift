/// Transactions: their items and totals (tax worked out by Paddle as merchant of record, Paddle's fee and the
/// seller's earnings once paid), payments, and the checkout that turns a paid transaction into a subscription.
extension PaddleWorld.State {
    /// Paddle's fee in the simulator: 5% plus 50 of the smallest unit, on each paid transaction.
    static let feePercent: Int64 = 5
    static let feeFixed: Int64 = 50

    mutating func createTransaction(_ body: RequestFields) throws(PaddleFailure) -> PaddleJSON {
        guard let items = try body.array("items", maxCount: 100), !items.isEmpty else {
            throw .invalidField("items", "must have at least one item")
        }
        var lines: [(price: PaddleJSON, quantity: Int64)] = []
        for (index, item) in items.enumerated() {
            let fields = RequestFields(item, path: "items[\(index)].")
            guard let priceID = try fields.string("price_id", maxLength: 64) else {
                throw .invalidField("items[\(index)].price_id", "is required (non-catalog prices are not simulated)")
            }
            let price = try object(priceID, prefix: "pri_")
            guard price["status"]?.string == "active" else {
                throw .invalidField("items[\(index)].price_id", "price is archived")
            }
            let minimum = price["quantity"]?["minimum"]?.int ?? 1
            let maximum = price["quantity"]?["maximum"]?.int ?? 100
            let quantity = try fields.int("quantity", in: 1...999_999_999) ?? 1
            guard (minimum...maximum).contains(quantity), quantity <= 10_000 else {
                throw .invalidField(
                    "items[\(index)].quantity", "must be between \(minimum) and \(min(maximum, 10_000))")
            }
            lines.append((price, quantity))
        }
        let currencies = Set(lines.compactMap { $0.price["unit_price"]?["currency_code"]?.string })
        let cycles = Set(lines.compactMap { $0.price["billing_cycle"] }.filter { !$0.isNull })
        guard currencies.count == 1, cycles.count <= 1 else {
            throw .invalidField("items", "items must share one currency and one billing cycle")
        }
        let requested = try body.oneOf("currency_code", Self.currencies)
        if let requested, requested != currencies.first {
            throw .invalidField("currency_code", "must match the prices")
        }
        var customerID = try body.string("customer_id", maxLength: 64)
        if let id = customerID { _ = try object(id, prefix: "ctm_") }
        if customerID?.isEmpty == true { customerID = nil }
        let status = try body.oneOf("status", ["draft", "ready"])
        let id = makeTransaction(
            lines: lines, customerID: customerID, subscriptionID: nil, origin: "api",
            status: status == "draft" || customerID == nil ? "draft" : "ready",
            customData: try body.customData() ?? .null, period: nil, trial: false)
        return objects[id] ?? .null
    }

    /// Makes a transaction, with `transaction.created` (and `transaction.ready` or `transaction.billed` for those
    /// statuses); `trial` bills recurring items at zero (a checkout that starts a trial).
    mutating func makeTransaction(
        lines: [(price: PaddleJSON, quantity: Int64)], customerID: String?, subscriptionID: String?, origin: String,
        status: String, customData: PaddleJSON, period: (Int64, Int64)?, trial: Bool
    ) -> String {
        let id = newID("txn_")
        let currency = lines.first?.price["unit_price"]?["currency_code"]?.string ?? "USD"
        let lineItems = lines.map { line -> PaddleJSON in
            let free = trial && !(line.price["trial_period"]?.isNull ?? true)
            return lineItem(price: line.price, quantity: line.quantity, free: free)
        }
        var transaction: PaddleJSON = [
            "id": .string(id), "status": .string(status), "customer_id": PaddleJSON(customerID), "address_id": nil,
            "business_id": nil, "custom_data": customData, "currency_code": .string(currency),
            "origin": .string(origin),
            "subscription_id": PaddleJSON(subscriptionID), "invoice_id": nil, "invoice_number": nil,
            "collection_mode": "automatic", "discount_id": nil, "billing_details": nil,
            "billing_period": period.map { Self.period($0.0, $0.1) } ?? .null,
            "items": .array(lines.map { ["price": $0.price, "quantity": .int($0.quantity), "proration": nil] }),
            "details": [
                "line_items": .array(lineItems), "payout_totals": nil, "adjusted_payout_totals": nil,
                "tax_rates_used": [], "totals": nil, "adjusted_totals": nil,
            ],
            "payments": [], "available_payment_methods": ["card"],
            "checkout": ["url": .string("\(baseURL)/checkout?_ptxn=\(id)")], "created_at": nowText,
            "updated_at": nowText, "billed_at": nil, "revised_at": nil,
        ]
        transaction["details"]?["totals"] = Self.totals(lineItems, currency: currency, paid: false)
        transaction["details"]?["tax_rates_used"] = Self.taxRatesUsed(lineItems, basisPoints: taxBasisPoints)
        let adjusted = Self.adjustedTotals(transaction, adjustments: [])
        transaction["details"]?["adjusted_totals"] = adjusted
        insert(transaction, kind: "transaction")
        emit("transaction.created", transaction)
        if status == "ready" { emit("transaction.ready", transaction) }
        if status == "billed" {
            let stamp = nowText
            update(id) { $0["billed_at"] = stamp }
            emit("transaction.billed", id: id)
        }
        return id
    }

    static func period(_ start: Int64, _ end: Int64) -> PaddleJSON {
        ["starts_at": .string(PaddleCalendar.format(start)), "ends_at": .string(PaddleCalendar.format(end))]
    }

    /// One line: the unit's and the line's subtotal, tax and total. A price whose `tax_mode` is `internal` includes
    /// the tax in its amount; any other adds it.
    mutating func lineItem(price: PaddleJSON, quantity: Int64, free: Bool) -> PaddleJSON {
        let unit = free ? 0 : Money.value(price["unit_price"]?["amount"])
        let inclusive = price["tax_mode"]?.string == "internal"
        func split(_ amount: Int64) -> PaddleJSON {
            let tax =
                inclusive
                ? amount - Money.share(amount, 10_000, 10_000 + taxBasisPoints)
                : Money.share(amount, taxBasisPoints, 10_000)
            let subtotal = inclusive ? amount - tax : amount
            return [
                "subtotal": Money.text(subtotal), "discount": "0", "tax": Money.text(tax),
                "total": Money.text(subtotal + tax),
            ]
        }
        let product = objects[price["product_id"]?.string ?? ""] ?? .null
        return [
            "id": .string(newID("txnitm_")), "price_id": price["id"] ?? nil, "quantity": .int(quantity),
            "proration": nil, "tax_rate": .string(Money.rate(taxBasisPoints)), "unit_totals": split(unit),
            "totals": split(unit * quantity), "product": product,
        ]
    }

    static func totals(_ lineItems: [PaddleJSON], currency: String, paid: Bool) -> PaddleJSON {
        var subtotal: Int64 = 0
        var tax: Int64 = 0
        for line in lineItems {
            subtotal += Money.value(line["totals"]?["subtotal"])
            tax += Money.value(line["totals"]?["tax"])
        }
        let total = subtotal + tax
        let fee = paid && total > 0 ? min(total - tax, Money.share(total, Self.feePercent, 100) + Self.feeFixed) : 0
        return [
            "subtotal": Money.text(subtotal), "discount": "0", "tax": Money.text(tax), "total": Money.text(total),
            "credit": "0", "credit_to_balance": "0", "balance": Money.text(paid ? 0 : total),
            "grand_total": Money.text(total), "grand_total_tax": Money.text(tax),
            "fee": paid ? Money.text(fee) : .null, "earnings": paid ? Money.text(total - tax - fee) : .null,
            "currency_code": .string(currency),
        ]
    }

    static func taxRatesUsed(_ lineItems: [PaddleJSON], basisPoints taxBasisPoints: Int64) -> PaddleJSON {
        var totals: [String: Int64] = ["subtotal": 0, "tax": 0, "total": 0]
        for line in lineItems {
            for key in totals.keys { totals[key, default: 0] += Money.value(line["totals"]?[key]) }
        }
        return [
            [
                "tax_rate": .string(Money.rate(taxBasisPoints)),
                "totals": [
                    "subtotal": Money.text(totals["subtotal"] ?? 0), "discount": "0",
                    "tax": Money.text(totals["tax"] ?? 0), "total": Money.text(totals["total"] ?? 0),
                ],
            ]
        ]
    }

    /// The totals less every approved adjustment (refunds, credits, chargebacks).
    static func adjustedTotals(_ transaction: PaddleJSON, adjustments: [PaddleJSON]) -> PaddleJSON {
        let totals = transaction["details"]?["totals"] ?? .null
        var subtotal = Money.value(totals["subtotal"])
        var tax = Money.value(totals["tax"])
        var fee = Money.value(totals["fee"])
        for adjustment in adjustments where adjustment["status"]?.string == "approved" {
            subtotal -= Money.value(adjustment["totals"]?["subtotal"])
            tax -= Money.value(adjustment["totals"]?["tax"])
            fee -= Money.value(adjustment["totals"]?["fee"])
        }
        let paid = !(totals["fee"]?.isNull ?? true)
        return [
            "subtotal": Money.text(subtotal), "tax": Money.text(tax), "total": Money.text(subtotal + tax),
            "grand_total": Money.text(subtotal + tax), "grand_total_tax": Money.text(tax),
            "fee": paid ? Money.text(fee) : .null, "earnings": paid ? Money.text(subtotal - fee) : .null,
            "retained_fee": "0", "currency_code": totals["currency_code"] ?? "USD",
        ]
    }

    /// Charges the customer's card for the transaction: a payment attempt, captured or declined (the control
    /// route's `decline`). A capture makes the transaction `paid`, with Paddle's fee and the earnings.
    mutating func attemptPayment(_ id: String) -> Bool {
        guard let transaction = objects[id] else { return false }
        let customerID = transaction["customer_id"]?.string ?? ""
        let declined = decliningCustomers.contains(customerID)
        let amount = transaction["details"]?["totals"]?["grand_total"] ?? "0"
        let attempt: PaddleJSON = [
            "payment_attempt_id": .string(newUUID()), "stored_payment_method_id": .string(newUUID()),
            "payment_method_id": .string(newID("paymtd_")), "amount": amount,
            "status": declined ? "error" : "captured", "error_code": declined ? "declined" : nil,
            "method_details": [
                "type": "card",
                "card": [
                    "type": "visa", "last4": declined ? "0002" : "4242", "expiry_month": 12, "expiry_year": 2030,
                    "cardholder_name": "Sim Customer",
                ],
            ],
            "created_at": nowText, "captured_at": declined ? nil : nowText,
        ]
        update(id) { transaction in
            transaction["payments"] = .array([attempt] + (transaction["payments"]?.array ?? []))
        }
        if declined {
            emit("transaction.payment_failed", id: id)
            return false
        }
        let lineItems = transaction["details"]?["line_items"]?.array ?? []
        let currency = transaction["currency_code"]?.string ?? "USD"
        let stamp = nowText
        let paidTotals = Self.totals(lineItems, currency: currency, paid: true)
        var payout = payoutTotals(paidTotals, currency: currency, retained: 0)
        payout["fee_rate"] = .string(Money.rate(Self.feePercent * 100))
        for key in ["discount", "credit", "credit_to_balance", "balance"] { payout[key] = "0" }
        payout["grand_total"] = payout["total"]
        payout["grand_total_tax"] = payout["tax"]
        update(id) { transaction in
            transaction["status"] = "paid"
            transaction["details"]?["totals"] = paidTotals
            let adjusted = Self.adjustedTotals(transaction, adjustments: [])
            transaction["details"]?["adjusted_totals"] = adjusted
            transaction["details"]?["payout_totals"] = payout
            if transaction["billed_at"]?.isNull ?? true { transaction["billed_at"] = stamp }
        }
        emit("transaction.paid", id: id)
        return true
    }

    /// `totals` (a transaction's or an adjustment's, in `currency`) in the seller's payout currency at the
    /// configured rate, as Paddle states `payout_totals`: the same in the sale's currency when no payout currency
    /// is set or no rate is known for it. `retained` is the part of the fee Paddle keeps (an adjustment's).
    func payoutTotals(_ totals: PaddleJSON, currency: String, retained: Int64) -> PaddleJSON {
        var target = currency
        var rate: Int64 = 1_000_000
        if let payout = payoutCurrency, payout != currency, let known = payoutRates[currency] {
            target = payout
            rate = known
        }
        func converted(_ amount: Int64) -> Int64 {
            let exponent = { (code: String) -> Int in ["JPY", "KRW", "VND"].contains(code) ? 0 : 2 }
            let up = max(0, exponent(target) - exponent(currency))
            let down = max(0, exponent(currency) - exponent(target))
            var numerator = rate
            var denominator: Int64 = 1_000_000
            for _ in 0..<up { numerator *= 10 }
            for _ in 0..<down { denominator *= 10 }
            return Money.share(amount, numerator, denominator)
        }
        let subtotal = converted(Money.value(totals["subtotal"]))
        let tax = converted(Money.value(totals["tax"]))
        let fee = converted(Money.value(totals["fee"]))
        let kept = converted(retained)
        return [
            "subtotal": Money.text(subtotal), "tax": Money.text(tax), "total": Money.text(subtotal + tax),
            "fee": Money.text(fee), "earnings": Money.text(subtotal - (fee - kept)), "retained_fee": Money.text(kept),
            "exchange_rate": .string(Money.decimal(rate, places: 6)), "currency_code": .string(target),
        ]
    }

    mutating func completeTransaction(_ id: String) {
        let invoiceNumber = "SIM-\(10_000 + (idsByKind["transaction"]?.firstIndex(of: id) ?? 0))"
        update(id) { transaction in
            transaction["status"] = "completed"
            transaction["invoice_number"] = .string(invoiceNumber)
        }
        emit("transaction.completed", id: id)
    }

    /// The customer pays a transaction at checkout (`/control/transactions/{id}/checkout`): a customer is attached
    /// (given, or found or made by email), the card is charged, and recurring items start a subscription.
    /// Answers the transaction and the subscription ids; a declined card leaves the transaction `ready`.
    mutating func completeCheckout(_ id: String, customerID: String?, email: String?) throws(PaddleFailure) -> (
        transaction: String, subscription: String?
    ) {
        let transaction = try object(id, prefix: "txn_")
        guard ["draft", "ready"].contains(transaction["status"]?.string ?? "") else {
            throw .badRequest(
                "transaction \(id) is \(transaction["status"]?.string ?? "") and cannot be paid at checkout")
        }
        var customer = transaction["customer_id"]?.string ?? customerID
        if let customerID { _ = try object(customerID, prefix: "ctm_") }
        if customer == nil {
            let address = email ?? "customer-\(counter)@example.com"
            if let found = idsByKind["customer"]?.first(where: { objects[$0]?["email"]?.string == address }) {
                customer = found
            } else {
                customer = try createCustomer(RequestFields(["email": .string(address)]))["id"]?.string
            }
        }
        if transaction["customer_id"]?.isNull ?? true {
            update(id) { $0["customer_id"] = PaddleJSON(customer) }
            emit("transaction.updated", id: id)
        }
        if transaction["status"]?.string == "draft" {
            update(id) { $0["status"] = "ready" }
            emit("transaction.ready", id: id)
        }
        let lines = (transaction["items"]?.array ?? []).map { ($0["price"] ?? .null, $0["quantity"]?.int ?? 1) }
        let recurring = lines.filter { !($0.0["billing_cycle"]?.isNull ?? true) }
        let trial = recurring.first { !($0.0["trial_period"]?.isNull ?? true) }?.0["trial_period"]
        if trial != nil {
            // A trial's checkout charges nothing for the recurring items: totals made again at zero.
            let currency = transaction["currency_code"]?.string ?? "USD"
            let lineItems = lines.map { line -> PaddleJSON in
                lineItem(price: line.0, quantity: line.1, free: !(line.0["trial_period"]?.isNull ?? true))
            }
            let basisPoints = taxBasisPoints
            update(id) { transaction in
                transaction["details"]?["line_items"] = .array(lineItems)
                transaction["details"]?["totals"] = Self.totals(lineItems, currency: currency, paid: false)
                transaction["details"]?["tax_rates_used"] = Self.taxRatesUsed(lineItems, basisPoints: basisPoints)
                let adjusted = Self.adjustedTotals(transaction, adjustments: [])
                transaction["details"]?["adjusted_totals"] = adjusted
            }
        }
        guard attemptPayment(id) else {
            throw PaddleFailure(
                status: 402, code: "transaction_payment_declined", detail: "the customer's card was declined")
        }
        var subscriptionID: String?
        if let cycle = recurring.first?.0["billing_cycle"] {
            subscriptionID = startSubscription(
                transactionID: id, customerID: customer ?? "", lines: recurring, cycle: cycle, trial: trial)
        }
        completeTransaction(id)
        return (id, subscriptionID)
    }
}
