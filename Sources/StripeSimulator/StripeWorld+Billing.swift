import Foundation

/// Why an operation of the simulated Stripe was refused: Stripe's error object and status.
struct StripeFailure: Error, Sendable {
    var status: Int
    var type: String
    var code: String?
    var message: String
    var param: String?
    var declineCode: String?

    static func missing(_ kind: String, _ id: String, param: String = "id") -> StripeFailure {
        StripeFailure(
            status: 404, type: "invalid_request_error", code: "resource_missing",
            message: "No such \(kind): '\(id)'", param: param)
    }

    static func invalid(_ message: String, param: String? = nil) -> StripeFailure {
        StripeFailure(
            status: 400, type: "invalid_request_error", code: "parameter_invalid", message: message, param: param)
    }

    static func declined() -> StripeFailure {
        StripeFailure(
            status: 402, type: "card_error", code: "card_declined", message: "Your card was declined.",
            declineCode: "generic_decline")
    }

    var body: JSONValue {
        var error: JSONValue = ["type": .string(type), "message": .string(message)]
        if let code { error["code"] = .string(code) }
        if let param { error["param"] = .string(param) }
        if let declineCode { error["decline_code"] = .string(declineCode) }
        return ["error": error]
    }
}

extension StripeWorld.State {
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The end of a billing period starting at `start` for a price's `recurring`.
    static func periodEnd(from start: Int64, recurring: JSONValue?) -> Int64 {
        let count = Int(recurring?["interval_count"]?.int ?? 1)
        let date = Date(timeIntervalSince1970: TimeInterval(start))
        let component: Calendar.Component
        switch recurring?["interval"]?.string {
        case "day": component = .day
        case "week": return start + Int64(count) * 7 * 86_400
        case "year": component = .year
        default: component = .month
        }
        let end = calendar.date(byAdding: component, value: count, to: date) ?? date
        return Int64(end.timeIntervalSince1970)
    }

    func object(_ id: String, kind: String) throws(StripeFailure) -> JSONValue {
        guard let object = objects[id], object["object"]?.string == kind else { throw .missing(kind, id) }
        return object
    }

    // MARK: Customers, products, prices

    /// A new customer, on test clock `testClock` when one is named (the caller checked it exists).
    mutating func createCustomer(email: String?, metadata: JSONValue, testClock: String? = nil) -> JSONValue {
        var customer: JSONValue = [
            "id": .string(newID("cus_")), "object": "customer", "created": .int(now), "email": JSONValue(email),
            "metadata": metadata, "livemode": false, "balance": 0, "currency": nil, "default_source": nil,
            "delinquent": false, "description": nil, "name": nil, "phone": nil, "test_clock": JSONValue(testClock),
            "invoice_settings": [
                "custom_fields": nil, "default_payment_method": nil, "footer": nil, "rendering_options": nil,
            ],
            "invoice_prefix": .string(newInvoicePrefix()), "next_invoice_sequence": 1,
        ]
        customer.fill(Self.customerFields)
        insert(customer)
        emit("customer.created", customer)
        return customer
    }

    /// A customer's `invoice_prefix`: eight capital letters and digits, as Stripe makes one.
    mutating func newInvoicePrefix() -> String {
        let characters = Array("ABCDEF0123456789")
        return String((0..<8).map { _ in characters[Int(random.next() % UInt64(characters.count))] })
    }

    /// The number of `customer`'s next finalized invoice (`{invoice_prefix}-0001`, …), its sequence moved on.
    mutating func takeInvoiceNumber(_ customer: String) -> String {
        let prefix = objects[customer]?["invoice_prefix"]?.string ?? "SIM"
        let sequence = objects[customer]?["next_invoice_sequence"]?.int ?? 1
        update(customer) { $0["next_invoice_sequence"] = .int(sequence + 1) }
        let digits = String(sequence)
        return prefix + "-" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    mutating func createProduct(name: String, id: String?, metadata: JSONValue) throws(StripeFailure) -> JSONValue {
        let productID = id ?? newID("prod_")
        guard objects[productID] == nil else { throw .invalid("Product already exists.", param: "id") }
        var product: JSONValue = [
            "id": .string(productID), "object": "product", "active": true, "created": .int(now), "name": .string(name),
            "metadata": metadata, "livemode": false, "description": nil, "default_price": nil, "updated": .int(now),
            "images": [], "marketing_features": [], "package_dimensions": nil, "shippable": nil, "tax_code": nil,
            "unit_label": nil, "url": nil, "statement_descriptor": nil,
        ]
        product.fill(Self.productFields)
        insert(product)
        emit("product.created", product)
        return product
    }

    mutating func createPrice(
        product: String, unitAmount: Int64, currency: String, recurring: JSONValue?, lookupKey: String?,
        metadata: JSONValue
    ) throws(StripeFailure) -> JSONValue {
        _ = try object(product, kind: "product")
        guard unitAmount >= 0, unitAmount <= 99_999_999 else {
            throw .invalid("Invalid integer: unit_amount", param: "unit_amount")
        }
        guard currency.utf8.count == 3, currency.utf8.allSatisfy({ (0x61...0x7A).contains($0) }) else {
            throw .invalid("Invalid currency: \(currency)", param: "currency")
        }
        var recurringValue: JSONValue = .null
        if let recurring {
            let interval = recurring["interval"]?.string ?? ""
            guard ["day", "week", "month", "year"].contains(interval) else {
                throw .invalid("Invalid recurring[interval]", param: "recurring[interval]")
            }
            let count = Int64(recurring["interval_count"]?.string ?? "1") ?? 0
            guard (1...12).contains(count) else {
                throw .invalid("Invalid recurring[interval_count]", param: "recurring[interval_count]")
            }
            recurringValue = [
                "interval": .string(interval), "interval_count": .int(count), "meter": nil,
                "usage_type": "licensed", "trial_period_days": nil,
            ]
        }
        let price: JSONValue = [
            "id": .string(newID("price_")), "object": "price", "active": true, "billing_scheme": "per_unit",
            "created": .int(now), "currency": .string(currency), "livemode": false, "lookup_key": JSONValue(lookupKey),
            "metadata": metadata, "nickname": nil, "product": .string(product), "recurring": recurringValue,
            "tax_behavior": "unspecified", "tiers_mode": nil, "transform_quantity": nil,
            "type": recurring == nil ? "one_time" : "recurring", "unit_amount": .int(unitAmount),
            "unit_amount_decimal": .string(String(unitAmount)), "custom_unit_amount": nil,
        ]
        insert(price)
        emit("price.created", price)
        return price
    }

    // MARK: Checkout

    mutating func createCheckoutSession(_ form: FormParameters, baseURL: String) throws(StripeFailure) -> JSONValue {
        guard let mode = form.string("mode"), ["subscription", "payment"].contains(mode) else {
            throw .invalid("Missing or invalid mode.", param: "mode")
        }
        let lines = form.indexed("line_items")
        guard lines.count == 1, let priceID = lines[0]["price"]?.string else {
            throw .invalid("Exactly one line item with a price is required.", param: "line_items")
        }
        let quantity = lines[0]["quantity"]?.string.map { Int64($0) } ?? 1
        guard let quantity, quantity == 1 else {
            throw .invalid("stripe-sim sells one unit per Checkout Session.", param: "line_items[0][quantity]")
        }
        let price = try object(priceID, kind: "price")
        let isRecurring = price["recurring"] != .null
        if mode == "subscription", !isRecurring {
            throw .invalid("A subscription needs a recurring price.", param: "line_items[0][price]")
        }
        if mode == "payment", isRecurring {
            throw .invalid(
                "You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or "
                    + "use only one-time prices.", param: "line_items[0][price]")
        }
        guard let successURL = form.string("success_url") else {
            throw .invalid("Missing required param: success_url.", param: "success_url")
        }
        if let customer = form.string("customer") { _ = try object(customer, kind: "customer") }
        let customerCreation = form.string("customer_creation")
        if let customerCreation {
            guard mode == "payment", ["always", "if_required"].contains(customerCreation) else {
                throw .invalid("`customer_creation` can only be used in `payment` mode.", param: "customer_creation")
            }
            guard form.string("customer") == nil else {
                throw .invalid("`customer_creation` cannot be used with `customer`.", param: "customer_creation")
            }
        }
        if mode == "payment", form["subscription_data"] != nil {
            throw .invalid("`subscription_data` can only be used in `subscription` mode.", param: "subscription_data")
        }
        if mode == "subscription", form["payment_intent_data"] != nil {
            throw .invalid("`payment_intent_data` can only be used in `payment` mode.", param: "payment_intent_data")
        }
        let trialDays = form.value("subscription_data", "trial_period_days")?.string.flatMap { Int64($0) }
        if let trialDays, !(1...730).contains(trialDays) {
            throw .invalid("Invalid trial_period_days.", param: "subscription_data[trial_period_days]")
        }
        let id = newID("cs_test_")
        // Stripe Tax computes the tax when the session is made; the first invoice of a subscription states its own.
        let taxed = taxing(price["unit_amount"]?.int ?? 0)
        var session: JSONValue = [
            "id": .string(id), "object": "checkout.session", "mode": .string(mode), "status": "open",
            "payment_status": "unpaid", "client_reference_id": JSONValue(form.string("client_reference_id")),
            "customer": JSONValue(form.string("customer")), "customer_email": JSONValue(form.string("customer_email")),
            "customer_creation": mode == "payment" ? .string(customerCreation ?? "if_required") : nil,
            "metadata": form.metadata(form["metadata"]), "subscription": nil, "payment_intent": nil,
            "invoice": nil, "url": .string(baseURL + "/c/pay/" + id), "success_url": .string(successURL),
            "cancel_url": JSONValue(form.string("cancel_url")), "created": .int(now),
            "expires_at": .int(now + 86_400), "amount_total": .int(taxed.total),
            "amount_subtotal": .int(taxed.subtotal), "currency": price["currency"] ?? nil, "livemode": false,
            "automatic_tax": automaticTaxField,
            "total_details": ["amount_discount": 0, "amount_shipping": 0, "amount_tax": .int(taxed.tax)],
            "locale": nil, "payment_method_types": ["card"],
            // Kept for completion; Stripe does not show these fields.
            "_price": .string(priceID),
            "_subscription_metadata": form.metadata(form.value("subscription_data", "metadata")),
            "_payment_intent_metadata": form.metadata(form.value("payment_intent_data", "metadata")),
            "_trial_period_days": JSONValue(trialDays),
        ]
        session["invoice_creation"] = mode == "payment" ? Self.noInvoiceCreation : nil
        session.fill(Self.checkoutSessionFields)
        insert(session)
        return session
    }

    /// The customer pays session `id` (the browser's part of Checkout), and `checkout.session.completed` is emitted.
    /// In subscription mode its customer, subscription, first invoice and payment are made; in payment mode a
    /// payment intent and its charge (a customer too when the session creates one). A declining card is refused and
    /// the session stays open.
    mutating func completeCheckoutSession(_ id: String) throws(StripeFailure) -> JSONValue {
        let session = try object(id, kind: "checkout.session")
        guard session["status"]?.string == "open" else { throw .invalid("The Checkout Session is not open.") }
        if session["mode"]?.string == "payment" { return try completePaymentSession(session) }
        var customer = session["customer"]?.string
        if customer == nil {
            customer = createCustomer(email: session["customer_email"]?.string, metadata: [:])["id"]?.string
        }
        guard let customer, let price = session["_price"]?.string else { throw .invalid("The session is incomplete.") }
        if decliningCards.contains(customer) { throw .declined() }
        let subscription = try startSubscription(
            customer: customer, price: price, metadata: session["_subscription_metadata"] ?? [:],
            trialDays: session["_trial_period_days"]?.int)
        let invoice = objects[subscription]?["latest_invoice"] ?? nil
        let details = customerDetails(session, customer: customer)
        update(id, emitting: "checkout.session.completed") { session in
            session["status"] = "complete"
            session["payment_status"] = "paid"
            session["customer"] = .string(customer)
            session["subscription"] = .string(subscription)
            session["invoice"] = invoice
            session["customer_details"] = details
        }
        return objects[id] ?? session
    }

    /// A payment-mode session paid: one charge of its one-time price, its payment intent carrying the session's
    /// `payment_intent_data[metadata]`. A customer is made only when the session asks (`customer_creation=always`),
    /// as Stripe makes none for a guest otherwise.
    private mutating func completePaymentSession(_ session: JSONValue) throws(StripeFailure) -> JSONValue {
        guard let id = session["id"]?.string, let priceID = session["_price"]?.string,
            let currency = session["currency"]?.string
        else { throw .invalid("The session is incomplete.") }
        var customer = session["customer"]?.string
        if let customer, decliningCards.contains(customer) { throw .declined() }
        if customer == nil, session["customer_creation"]?.string == "always" {
            customer = createCustomer(email: session["customer_email"]?.string, metadata: [:])["id"]?.string
        }
        let amount = session["amount_total"]?.int ?? objects[priceID]?["unit_amount"]?.int ?? 0
        let payment = collect(
            amount: amount, currency: currency, customer: customer,
            metadata: session["_payment_intent_metadata"] ?? [:])
        let details = customerDetails(session, customer: customer)
        update(id, emitting: "checkout.session.completed") { session in
            session["customer_details"] = details
            session["status"] = "complete"
            session["payment_status"] = "paid"
            session["customer"] = JSONValue(customer)
            session["payment_intent"] = .string(payment.intent)
        }
        return objects[id] ?? session
    }

    // MARK: Subscriptions

    /// A new subscription of `customer` to `price`: trialing with a free first invoice, or charged at once.
    mutating func startSubscription(customer: String, price priceID: String, metadata: JSONValue, trialDays: Int64?)
        throws(StripeFailure) -> String
    {
        let price = try object(priceID, kind: "price")
        guard price["recurring"] != .null else { throw .invalid("A subscription needs a recurring price.") }
        if trialDays == nil, decliningCards.contains(customer) { throw .declined() }
        let id = newID("sub_")
        let start = now
        let end = trialDays.map { start + $0 * 86_400 } ?? Self.periodEnd(from: start, recurring: price["recurring"])
        let item: JSONValue = [
            "id": .string(newID("si_")), "object": "subscription_item", "created": .int(now), "metadata": [:],
            "price": price, "quantity": 1, "subscription": .string(id), "current_period_start": .int(start),
            "current_period_end": .int(end), "discounts": [], "tax_rates": [], "billing_thresholds": nil,
            "plan": Self.plan(of: price),
        ]
        var subscription: JSONValue = [
            "id": .string(id), "object": "subscription", "customer": .string(customer),
            "status": trialDays == nil ? "incomplete" : "trialing", "metadata": metadata,
            "cancel_at_period_end": false, "cancel_at": nil, "canceled_at": nil, "ended_at": nil,
            "trial_start": trialDays == nil ? nil : .int(start), "trial_end": trialDays == nil ? nil : .int(end),
            "start_date": .int(start), "created": .int(now), "currency": price["currency"] ?? nil,
            "billing_cycle_anchor": .int(end), "collection_method": "charge_automatically", "livemode": false,
            "items": [
                "object": "list", "data": [item], "has_more": false, "total_count": 1,
                "url": .string("/v1/subscription_items?subscription=\(id)"),
            ],
            "latest_invoice": nil, "pause_collection": nil, "default_payment_method": nil,
            "cancellation_details": ["comment": nil, "feedback": nil, "reason": nil], "description": nil,
            "discounts": [], "application": nil, "schedule": nil, "days_until_due": nil,
        ]
        subscription["test_clock"] = objects[customer]?["test_clock"] ?? nil
        subscription["automatic_tax"] = [
            "enabled": .bool(automaticTax != nil), "disabled_reason": nil,
            "liability": automaticTax == nil ? nil : ["type": "self"],
        ]
        subscription.fill(Self.subscriptionFields)
        insert(subscription)
        // A customer's currency is that of the first thing billed to it.
        if objects[customer]?["currency"] == .null { update(customer) { $0["currency"] = price["currency"] ?? nil } }
        emit("customer.subscription.created", subscription)
        let amount = trialDays == nil ? (price["unit_amount"]?.int ?? 0) : 0
        let paid = bill(
            id, reason: "subscription_create",
            lines: [(amount: amount, start: start, end: end, price: priceID, proration: false)])
        guard paid else { throw .declined() }
        if trialDays == nil {
            update(id, emitting: "customer.subscription.updated") { $0["status"] = "active" }
        }
        return id
    }

    /// An invoice of `lines` for `subscription`, finalized and paid with the customer's card (nothing to pay is
    /// paid at once); `false` when the card declined (the invoice stays open).
    mutating func bill(
        _ subscription: String, reason: String,
        lines: [(amount: Int64, start: Int64, end: Int64, price: String, proration: Bool)]
    ) -> Bool {
        guard let sub = objects[subscription], let customer = sub["customer"]?.string,
            let currency = sub["currency"]?.string
        else { return false }
        let invoiceID = newID("in_")
        let item = sub["items"]?["data"]?.array?.first?["id"] ?? nil
        let taxed = taxing(max(0, lines.reduce(0) { $0 + $1.amount }))
        let total = taxed.total
        let lineValues: [JSONValue] = lines.map { line in
            [
                "id": .string(newID("il_")), "object": "line_item", "amount": .int(line.amount),
                "currency": .string(currency), "description": nil, "invoice": .string(invoiceID),
                "livemode": false, "metadata": [:], "quantity": 1, "quantity_decimal": "1",
                "subscription": .string(subscription), "subtotal": .int(line.amount),
                "period": ["start": .int(line.start), "end": .int(line.end)],
                "pricing": [
                    "type": "price_details",
                    "price_details": ["price": .string(line.price), "product": objects[line.price]?["product"] ?? nil],
                    "unit_amount_decimal": .string(String(line.amount)),
                ],
                "parent": [
                    "type": "subscription_item_details", "invoice_item_details": nil,
                    "subscription_item_details": [
                        "subscription": .string(subscription), "subscription_item": item,
                        "proration": .bool(line.proration), "invoice_item": nil,
                        "proration_details": ["credited_items": nil],
                    ],
                ],
                "discount_amounts": [], "discountable": true, "discounts": [], "taxes": [],
                "pretax_credit_amounts": [],
            ]
        }
        let buyer = objects[customer] ?? [:]
        var invoice: JSONValue = [
            "id": .string(invoiceID), "object": "invoice", "customer": .string(customer), "status": "draft",
            "subscription": .string(subscription), "webhooks_delivered_at": .int(now),
            "billing_reason": .string(reason), "amount_due": .int(total), "amount_paid": 0,
            "amount_remaining": .int(total), "total": .int(total), "subtotal": .int(taxed.subtotal),
            "subtotal_excluding_tax": .int(taxed.subtotal - (taxed.inclusive ? taxed.tax : 0)),
            "total_excluding_tax": .int(total - taxed.tax), "currency": .string(currency), "created": .int(now),
            "automatic_tax": automaticTaxField, "total_taxes": taxed.totalTaxes,
            "period_start": .int(lines.first?.start ?? now), "period_end": .int(lines.first?.end ?? now),
            "lines": [
                "object": "list", "data": .array(lineValues), "has_more": false,
                "url": .string("/v1/invoices/\(invoiceID)/lines"),
            ],
            "parent": [
                "type": "subscription_details", "quote_details": nil,
                "subscription_details": ["subscription": .string(subscription), "metadata": sub["metadata"] ?? [:]],
            ],
            "status_transitions": [
                "finalized_at": nil, "marked_uncollectible_at": nil, "paid_at": nil, "voided_at": nil,
            ],
            "attempt_count": 0, "attempted": false, "auto_advance": true,
            "collection_method": "charge_automatically", "livemode": false, "metadata": [:],
            "test_clock": objects[customer]?["test_clock"] ?? nil, "number": nil, "hosted_invoice_url": nil,
            "invoice_pdf": nil, "next_payment_attempt": nil,
            "account_country": "US", "account_name": "stripe-sim", "description": nil, "due_date": nil,
            "effective_at": nil, "ending_balance": nil, "starting_balance": 0, "receipt_number": nil,
        ]
        // The customer as it is when the invoice is made, as Stripe copies it.
        for field in ["email", "name", "phone", "address", "shipping", "tax_exempt"] {
            invoice["customer_" + field] = buyer[field] ?? nil
        }
        invoice.fill(Self.invoiceFields)
        insert(invoice)
        emit("invoice.created", invoice)
        let now = self.now
        let number = takeInvoiceNumber(customer)
        update(invoiceID, emitting: "invoice.finalized") { invoice in
            invoice["status"] = "open"
            invoice["status_transitions"]?["finalized_at"] = .int(now)
            invoice["effective_at"] = .int(now)
            invoice["number"] = .string(number)
            invoice["ending_balance"] = invoice["starting_balance"] ?? 0
        }
        update(subscription) { $0["latest_invoice"] = .string(invoiceID) }
        return pay(invoiceID)
    }

    /// Attempts `invoice`'s payment: a payment intent and its charge (with Stripe's fee in a balance transaction),
    /// the invoice payment, and the invoice paid; a declining card fails the attempt.
    mutating func pay(_ invoiceID: String) -> Bool {
        guard let invoice = objects[invoiceID], let customer = invoice["customer"]?.string,
            let currency = invoice["currency"]?.string
        else { return false }
        let amount = invoice["amount_remaining"]?.int ?? 0
        update(invoiceID) { invoice in
            invoice["attempt_count"] = .int((invoice["attempt_count"]?.int ?? 0) + 1)
            invoice["attempted"] = true
        }
        guard amount > 0 else {
            markPaid(invoiceID, amount: 0)
            return true
        }
        let collected = collect(amount: amount, currency: currency, customer: customer, metadata: [:])
        guard !collected.declined else {
            update(invoiceID, emitting: "invoice.payment_failed") { invoice in
                invoice["next_payment_attempt"] = nil
            }
            return false
        }
        let intentID = collected.intent
        let payment: JSONValue = [
            "id": .string(newID("inpay_")), "object": "invoice_payment", "invoice": .string(invoiceID),
            "amount_paid": .int(amount), "amount_requested": .int(amount), "currency": .string(currency),
            "status": "paid", "is_default": true, "created": .int(now), "livemode": false,
            "payment": ["type": "payment_intent", "payment_intent": .string(intentID)],
            "status_transitions": ["canceled_at": nil, "paid_at": .int(now)],
        ]
        insert(payment)
        emit("invoice_payment.paid", payment)
        markPaid(invoiceID, amount: amount)
        return true
    }

    /// A payment intent of `amount` and its charge with `customer`'s card (any card when there is no customer):
    /// succeeded, with Stripe's fee in a balance transaction, or failed when the card declines; the charge's and the
    /// payment intent's events emitted.
    mutating func collect(amount: Int64, currency: String, customer: String?, metadata: JSONValue) -> (
        intent: String, charge: String, declined: Bool
    ) {
        let intentID = newID("pi_")
        let chargeID = newID("ch_")
        let declined = customer.map { decliningCards.contains($0) } ?? false
        var balance: JSONValue = nil
        if !declined {
            let fee = Self.fee(amount, currency: currency)
            let transaction: JSONValue = [
                "id": .string(newID("txn_")), "object": "balance_transaction", "amount": .int(amount), "fee": .int(fee),
                "net": .int(amount - fee), "currency": .string(currency), "created": .int(now),
                "available_on": .int(now + 2 * 86_400), "source": .string(chargeID), "status": "pending",
                "type": "charge", "reporting_category": "charge", "description": nil, "exchange_rate": nil,
                "balance_type": "payments",
                "fee_details": [
                    [
                        "amount": .int(fee), "currency": .string(currency), "type": "stripe_fee",
                        "description": "Stripe processing fees", "application": nil,
                    ]
                ],
            ]
            insert(transaction)
            balance = transaction["id"] ?? nil
        }
        var intent: JSONValue = [
            "id": .string(intentID), "object": "payment_intent", "amount": .int(amount),
            "amount_received": .int(declined ? 0 : amount), "currency": .string(currency),
            "customer": JSONValue(customer), "status": declined ? "requires_payment_method" : "succeeded",
            "latest_charge": .string(chargeID), "created": .int(now), "livemode": false, "metadata": metadata,
            "payment_method_types": ["card"], "description": nil, "capture_method": "automatic",
            "last_payment_error": declined ? ["code": "card_declined", "decline_code": "generic_decline"] : nil,
            "client_secret": .string(intentID + "_secret_" + newID("")),
        ]
        intent.fill(Self.paymentIntentFields)
        insert(intent)
        emit("payment_intent.created", intent)
        var charge: JSONValue = [
            "id": .string(chargeID), "object": "charge", "amount": .int(amount),
            "amount_captured": .int(declined ? 0 : amount), "amount_refunded": 0, "refunded": false,
            "disputed": false, "captured": .bool(!declined), "paid": .bool(!declined),
            "status": declined ? "failed" : "succeeded", "currency": .string(currency), "customer": JSONValue(customer),
            "created": .int(now), "payment_intent": .string(intentID), "balance_transaction": balance,
            "failure_code": declined ? "card_declined" : nil,
            "failure_message": declined ? "Your card was declined." : nil,
            "outcome": [
                "type": declined ? "issuer_declined" : "authorized",
                "network_status": declined ? "declined_by_network" : "approved_by_network",
                "reason": declined ? "generic_decline" : nil, "risk_level": "normal", "seller_message": nil,
                "advice_code": nil, "network_advice_code": nil, "network_decline_code": nil,
            ],
            "livemode": false, "metadata": metadata, "description": nil, "receipt_url": nil, "payment_method": nil,
            "billing_details": Self.billingDetails(email: customer.flatMap { objects[$0]?["email"] } ?? nil),
            "payment_method_details": Self.cardDetails(declines: declined),
        ]
        charge.fill(Self.chargeFields)
        insert(charge)
        if declined {
            emit("charge.failed", charge)
            emit("payment_intent.payment_failed", intent)
        } else {
            emit("charge.succeeded", charge)
            emit("payment_intent.succeeded", intent)
        }
        return (intentID, chargeID, declined)
    }

    private mutating func markPaid(_ invoiceID: String, amount: Int64) {
        let now = self.now
        update(invoiceID, emitting: "invoice.paid") { invoice in
            invoice["status"] = "paid"
            invoice["amount_paid"] = .int(amount)
            invoice["amount_remaining"] = 0
            invoice["status_transitions"]?["paid_at"] = .int(now)
        }
        if let invoice = objects[invoiceID] { emit("invoice.payment_succeeded", invoice) }
    }

    /// Stripe's standard card fee: 2.9 % plus 30 minor units (30 yen and the like for zero-decimal currencies).
    static func fee(_ amount: Int64, currency: String) -> Int64 {
        (amount * 29 + 500) / 1000 + 30
    }

    // MARK: Tax

    /// `amount` (before tax, or tax included when the rate is inclusive) taxed at the automatic tax rate: the tax,
    /// the total the customer pays, and Stripe's `total_taxes` entry. Rounded half up to the minor unit.
    func taxing(_ amount: Int64) -> (
        subtotal: Int64, tax: Int64, total: Int64, inclusive: Bool, totalTaxes: JSONValue
    ) {
        guard let rate = automaticTax, rate.ratePPM > 0, amount > 0 else {
            return (amount, 0, amount, false, [])
        }
        let base: Int64 = rate.inclusive ? 1_000_000 + rate.ratePPM : 1_000_000
        let (high, low) = amount.multipliedFullWidth(by: rate.ratePPM)
        let (quotient, remainder) = base.dividingFullWidth((high, low))
        let tax = quotient + (remainder * 2 >= base ? 1 : 0)
        let total = rate.inclusive ? amount : amount + tax
        let entry: JSONValue = [
            "amount": .int(tax), "tax_behavior": .string(rate.inclusive ? "inclusive" : "exclusive"),
            "taxability_reason": "standard_rated", "taxable_amount": .int(rate.inclusive ? amount - tax : amount),
            "type": "tax_rate_details", "tax_rate_details": ["tax_rate": .string(rate.taxRateID)],
        ]
        return (amount, tax, total, rate.inclusive, [entry])
    }

    /// An invoice's or a session's `automatic_tax`: enabled and complete while a rate is set.
    var automaticTaxField: JSONValue {
        [
            "enabled": .bool(automaticTax != nil), "status": automaticTax == nil ? nil : "complete",
            "liability": automaticTax == nil ? nil : ["type": "self"], "disabled_reason": nil, "provider": nil,
        ]
    }
}
