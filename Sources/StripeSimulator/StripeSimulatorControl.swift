import Foundation
import SubLedgerCore

/// What happens outside Stripe's API: a customer paying a Checkout Session, a card starting to decline, a bank
/// opening and deciding a dispute, time passing, and faults. Every change's webhooks are delivered before the call
/// returns (failed ones are retried when time passes).
public struct StripeSimulatorControl: Sendable {
    let world: StripeWorld
    let deliver: @Sendable () async -> Void

    /// A control operation refused, with Stripe's error code and message.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public var status: Int
        public var code: String?
        public var message: String
        public var description: String { "\(status) \(code ?? "-"): \(message)" }
    }

    private func perform<T>(_ operation: (inout StripeWorld.State) throws(StripeFailure) -> T) async throws -> T {
        let result: Result<T, StripeFailure> = world.state.withLock { state in
            do throws(StripeFailure) {
                return .success(try operation(&state))
            } catch {
                return .failure(error)
            }
        }
        await deliver()
        switch result {
        case .success(let value): return value
        case .failure(let failure): throw Refusal(status: failure.status, code: failure.code, message: failure.message)
        }
    }

    /// The simulated time.
    public var now: Instant { Instant(millisecondsSince1970: world.state.withLock { $0.now } * 1000) }

    public func createProduct(name: String, id: String? = nil) async throws -> String {
        try await perform { state throws(StripeFailure) in
            try state.createProduct(name: name, id: id, metadata: [:])["id"]?.string ?? ""
        }
    }

    /// A price of `product`, recurring every `interval` (`day`, `week`, `month`, `year`) unless `nil`.
    public func createPrice(product: String, unitAmount: Int64, currency: String = "usd", interval: String? = "month")
        async throws -> String
    {
        try await perform { state throws(StripeFailure) in
            try state.createPrice(
                product: product, unitAmount: unitAmount, currency: currency,
                recurring: interval.map { ["interval": .string($0), "interval_count": "1"] }, lookupKey: nil,
                metadata: [:])["id"]?.string ?? ""
        }
    }

    public func createCustomer(email: String? = nil) async throws -> String {
        try await perform { state in state.createCustomer(email: email, metadata: [:])["id"]?.string ?? "" }
    }

    /// A subscription of `customer` to `price` made outside any Checkout Session (as an app's backend makes one
    /// with `POST /v1/subscriptions`), charged at once; its id.
    public func createSubscription(customer: String, price: String, metadata: [String: String] = [:]) async throws
        -> String
    {
        try await perform { state throws(StripeFailure) in
            _ = try state.object(customer, kind: "customer")
            return try state.startSubscription(
                customer: customer, price: price, metadata: .object(metadata.mapValues(JSONValue.string)),
                trialDays: nil)
        }
    }

    /// The customer pays Checkout Session `id`; what it created: the subscription (subscription mode) or the payment
    /// intent (payment mode).
    @discardableResult
    public func completeCheckout(_ id: String) async throws -> String {
        try await perform { state throws(StripeFailure) in
            let session = try state.completeCheckoutSession(id)
            return session["subscription"]?.string ?? session["payment_intent"]?.string ?? ""
        }
    }

    /// Whether `customer`'s card declines from now on.
    public func setCardDeclines(_ customer: String, _ declines: Bool) async {
        _ = try? await perform { state in
            if declines { state.decliningCards.insert(customer) } else { state.decliningCards.remove(customer) }
        }
    }

    /// The charge that paid `subscription`'s latest invoice.
    public func latestCharge(ofSubscription subscription: String) -> String? {
        world.state.withLock { state in
            guard let invoice = state.objects[subscription]?["latest_invoice"]?.string else { return nil }
            let payment = state.objects.values.first {
                $0["object"]?.string == "invoice_payment" && $0["invoice"]?.string == invoice
                    && $0["status"]?.string == "paid"
            }
            guard let intent = payment?["payment"]?["payment_intent"]?.string else { return nil }
            return state.objects[intent]?["latest_charge"]?.string
        }
    }

    /// The latest charge of payment intent `paymentIntent` (a one-time payment's charge).
    public func latestCharge(ofPaymentIntent paymentIntent: String) -> String? {
        world.state.withLock { $0.objects[paymentIntent]?["latest_charge"]?.string }
    }

    /// A refund of `charge` (the whole rest unless `amount`), as the Dashboard would make it.
    @discardableResult
    public func refund(charge: String, amount: Int64? = nil) async throws -> String {
        let query = "charge=\(charge)" + (amount.map { "&amount=\($0)" } ?? "")
        return try await perform { state throws(StripeFailure) in
            try state.createRefund(FormParameters(query)!)["id"]?.string ?? ""
        }
    }

    /// The cardholder's bank opens a dispute on `charge`.
    public func openDispute(charge: String, reason: String = "fraudulent") async throws -> String {
        try await perform { state throws(StripeFailure) in
            try state.openDispute(charge: charge, reason: reason)["id"]?.string ?? ""
        }
    }

    /// The bank decides dispute `id`.
    public func closeDispute(_ id: String, won: Bool) async throws {
        _ = try await perform { state throws(StripeFailure) in try state.closeDispute(id, won: won) }
    }

    /// Updates subscription `id` as `POST /v1/subscriptions/{id}` with `parameters` (form-encoded) would.
    public func updateSubscription(_ id: String, _ parameters: String) async throws {
        guard let form = FormParameters(parameters) else { throw Refusal(status: 400, code: nil, message: "bad form") }
        _ = try await perform { state throws(StripeFailure) in try state.updateSubscription(id, form) }
    }

    /// Stripe Tax's rate from now on, in parts per million of the taxable amount (190_000: 19 %), included in prices
    /// or added to them; `nil` or 0: no tax. Sessions and invoices made later state it.
    public func setAutomaticTax(ratePPM: Int64?, inclusive: Bool) async {
        _ = try? await perform { state in
            guard let ratePPM, ratePPM > 0 else {
                state.automaticTax = nil
                return
            }
            let id = state.automaticTax?.taxRateID ?? state.newID("txr_")
            state.automaticTax = .init(ratePPM: min(ratePPM, 1_000_000), inclusive: inclusive, taxRateID: id)
        }
    }

    /// A new Stripe test clock frozen at `frozenTime` (seconds since 1970); its id (`clock_…`).
    public func createTestClock(frozenTime: Int64) async throws -> String {
        try await perform { state throws(StripeFailure) in
            try state.createTestClock(FormParameters("frozen_time=\(frozenTime)")!)["id"]?.string ?? ""
        }
    }

    /// A new customer on test clock `clock`; its id.
    public func createCustomer(testClock clock: String) async throws -> String {
        try await perform { state throws(StripeFailure) in
            _ = try state.object(clock, kind: StripeWorld.State.testClockKind)
            return state.createCustomer(email: nil, metadata: [:], testClock: clock)["id"]?.string ?? ""
        }
    }

    /// Advances test clock `clock` to `frozenTime`, renewing its customers' subscriptions, then delivers what is owed.
    public func advanceTestClock(_ clock: String, to frozenTime: Int64) async throws {
        _ = try await perform { state throws(StripeFailure) in
            try state.advanceTestClock(clock, FormParameters("frozen_time=\(frozenTime)")!)
        }
    }

    /// Moves the clock on by `seconds`, renewing what falls due, then delivers what is owed (retries included).
    public func advance(seconds: Int64) async {
        _ = try? await perform { state in state.advance(to: state.now + max(0, seconds)) }
    }

    /// The next `statuses.count` API requests answer these statuses (500: `api_error`, 429: `rate_limit_error`).
    public func failNextRequests(_ statuses: [Int]) {
        world.state.withLock { $0.faults.apiFailures += statuses }
    }

    /// The next `count` webhook deliveries are dropped: never sent (the events stay listed).
    public func dropNextWebhooks(_ count: Int) {
        world.state.withLock { $0.faults.dropWebhooks += count }
    }

    /// The next `count` webhook deliveries are sent twice.
    public func duplicateNextWebhooks(_ count: Int) {
        world.state.withLock { $0.faults.duplicateWebhooks += count }
    }

    /// A webhook endpoint at `url` listening to every event, signed with `secret`.
    public func addWebhookEndpoint(url: String, secret: String) {
        world.state.withLock { _ = $0.addEndpoint(url: url, events: ["*"], secret: secret, revealSecret: false) }
    }

    /// Points the endpoint made at start (or the first) at `url`, as Stripe's `POST /v1/webhook_endpoints/{id}` with
    /// `url` does: every delivery due from now on, a retry of an earlier event included, goes there.
    public func pointWebhookEndpoint(url: String) {
        world.state.withLock { state in
            guard let index = state.endpoints.indices.first else { return }
            state.endpoints[index].url = url
            state.update(state.endpoints[index].id) { $0["url"] = .string(url) }
        }
    }

    /// Rolls the signing secret of the endpoint made at start (or the first): both are signed with for `overlap`.
    public func rollWebhookSecret(overlap: Int64 = 86_400) async throws -> String {
        try await perform { state throws(StripeFailure) in
            guard let id = state.endpoints.first?.id else { throw .missing("webhook endpoint", "-") }
            return try state.rollSecret(id, overlap: overlap)
        }
    }

    /// Every delivery attempt record: the event's type, attempts, and whether it was delivered or dropped.
    public func deliveries() -> [(type: String, attempts: Int, delivered: Bool, dropped: Bool)] {
        world.state.withLock { state in
            state.deliveries.map { delivery in
                (
                    state.objects[delivery.eventID]?["type"]?.string ?? "", delivery.attempts, delivery.delivered,
                    delivery.dropped
                )
            }
        }
    }

    /// The object `id` as the API shows it, as JSON.
    public func object(_ id: String) -> Data? {
        world.state.withLock { $0.objects[id] }.map { APIResponder.rendered($0).data }
    }
}
