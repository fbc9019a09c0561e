import AsyncHTTPClient
import BoundedHTTP
import Foundation
import Logging
import NIOHTTP1
import Stripe
import SubLedgerCore

/// A client of the Stripe API, authorized by an app's secret key.
///
/// Every call is bounded in time and size; Stripe's error object becomes a `StripeAPIError`. Reads are retried on
/// rate limits (429), Stripe's failures (5xx), timeouts and failed connections with `RetryPolicy`'s backoff;
/// creations send an `Idempotency-Key`, so a retried one cannot create twice.
public struct StripeAPI: Sendable {
    public struct Configuration: Sendable {
        public static let productionBaseURL = "https://api.stripe.com"

        /// The base URL (stripe-sim's in tests). Default: Stripe's.
        public var baseURL: String
        /// Time allowed per request (each attempt). Default: 30 seconds.
        public var timeout: Duration
        /// The largest answer accepted. Default: 4 MiB.
        public var maximumResponseBytes: Int
        /// How failed calls are retried. Default: `RetryPolicy()`.
        public var retry: RetryPolicy
        /// The most pages one list read fetches. Default: 100 (10,000 objects).
        public var maximumPages: Int

        public init(
            baseURL: String = Self.productionBaseURL, timeout: Duration = .seconds(30),
            maximumResponseBytes: Int = 4 * 1024 * 1024, retry: RetryPolicy = RetryPolicy(), maximumPages: Int = 100
        ) {
            self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            self.timeout = timeout
            self.maximumResponseBytes = maximumResponseBytes
            self.retry = retry
            self.maximumPages = max(1, maximumPages)
        }
    }

    /// The Stripe API version SubLedger reads (the shapes of `Stripe`'s types), sent with every request.
    public static let apiVersion = "2025-03-31.basil"

    public let configuration: Configuration
    private let exchange: HTTPExchange
    private let secretKey: String
    private let random: @Sendable () -> Double
    private let sleep: @Sendable (Duration) async throws -> Void

    public init(
        httpClient: HTTPClient, secretKey: String, configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "subledger.stripe.api"),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.configuration = configuration
        self.exchange = HTTPExchange(
            client: httpClient, logger: logger, maximumBytes: configuration.maximumResponseBytes)
        self.secretKey = secretKey
        self.random = random
        self.sleep = sleep
    }

    // MARK: Reads

    public func subscription(_ id: String) async throws(StripeAPIError) -> StripeSubscription {
        try await get(StripeSubscription.self, "/v1/subscriptions/" + Self.checked(id))
    }

    public func invoice(_ id: String) async throws(StripeAPIError) -> StripeInvoice {
        try await get(StripeInvoice.self, "/v1/invoices/" + Self.checked(id))
    }

    /// Every invoice of `subscription`, newest first, each with its payments (`expand[]=data.payments`).
    public func invoices(subscription: String) async throws(StripeAPIError) -> [StripeInvoice] {
        try await all(
            StripeInvoice.self, "/v1/invoices",
            [("subscription", try Self.checked(subscription)), ("expand[]", "data.payments")])
    }

    /// Every charge of `customer`, newest first, each with its balance transaction (`expand[]=data.balance_transaction`:
    /// Stripe's fee, in the same read).
    public func charges(customer: String) async throws(StripeAPIError) -> [StripeCharge] {
        try await all(
            StripeCharge.self, "/v1/charges",
            [("customer", try Self.checked(customer)), ("expand[]", "data.balance_transaction")])
    }

    /// The payments of `invoice`.
    public func invoicePayments(invoice: String) async throws(StripeAPIError) -> [StripeInvoicePayment] {
        try await all(StripeInvoicePayment.self, "/v1/invoice_payments", [("invoice", try Self.checked(invoice))])
    }

    /// The invoice payments made by `paymentIntent` (how a charge, refund or dispute leads to its invoice).
    public func invoicePayments(paymentIntent: String) async throws(StripeAPIError) -> [StripeInvoicePayment] {
        try await all(
            StripeInvoicePayment.self, "/v1/invoice_payments",
            [("payment[type]", "payment_intent"), ("payment[payment_intent]", try Self.checked(paymentIntent))])
    }

    public func paymentIntent(_ id: String) async throws(StripeAPIError) -> StripePaymentIntent {
        try await get(StripePaymentIntent.self, "/v1/payment_intents/" + Self.checked(id))
    }

    /// One charge with its balance transaction expanded (Stripe's fee).
    public func charge(_ id: String) async throws(StripeAPIError) -> StripeCharge {
        try await get(StripeCharge.self, "/v1/charges/" + Self.checked(id), [("expand[]", "balance_transaction")])
    }

    public func refunds(charge: String) async throws(StripeAPIError) -> [StripeRefund] {
        try await all(StripeRefund.self, "/v1/refunds", [("charge", try Self.checked(charge))])
    }

    public func disputes(charge: String) async throws(StripeAPIError) -> [StripeDispute] {
        try await all(StripeDispute.self, "/v1/disputes", [("charge", try Self.checked(charge))])
    }

    public func balanceTransaction(_ id: String) async throws(StripeAPIError) -> StripeBalanceTransaction {
        try await get(StripeBalanceTransaction.self, "/v1/balance_transactions/" + Self.checked(id))
    }

    /// One page of events: with `endingBefore` (an event id), the events just after it, which is how a reader walks
    /// forward from its cursor; without, the newest. Newest first, each with its JSON as Stripe sent it.
    public func events(endingBefore: String? = nil, limit: Int = 100) async throws(StripeAPIError) -> StripeEventPage {
        var query = [("limit", String(max(1, min(limit, 100))))]
        if let endingBefore { query.append(("ending_before", try Self.checked(endingBefore))) }
        let answer = try await getAnswer("/v1/events", query)
        do {
            let list = try JSONDecoder().decode(StripeList<StripeEvent>.self, from: answer.body)
            let root = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            let objects = root?["data"] as? [Any] ?? []
            guard objects.count == list.data.count else { throw StripeAPIError(.malformedResponse) }
            let bodies = try objects.map { try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]) }
            return StripeEventPage(events: Array(zip(list.data, bodies)), hasMore: list.hasMore)
        } catch {
            throw StripeAPIError(.malformedResponse, httpStatus: answer.status)
        }
    }

    /// The subscription and each of its paid invoices with the charge that paid it, its refunds and disputes.
    ///
    /// A constant number of list reads whatever the subscription's age: the subscription, its invoices with their
    /// payments expanded, and its customer's charges (each paged by 100); then, only for a charge that states a refund
    /// or a dispute, its refunds or disputes. An invoice whose payments were not included, or whose charge is not
    /// the customer's list, is read on its own.
    public func reading(ofSubscription id: String) async throws(StripeAPIError) -> StripeSubscriptionReading {
        let subscription = try await self.subscription(id)
        let invoices = try await invoices(subscription: id).reversed().filter { $0.status == "paid" }
        var chargesByIntent: [String: StripeCharge] = [:]
        if let customer = subscription.customer?.id, invoices.contains(where: { $0.amountPaid > 0 }) {
            // Oldest first, so a payment intent's later charge (a retry after a decline) is the one kept.
            for charge in try await charges(customer: customer).reversed() where charge.status != "failed" {
                if let intent = charge.paymentIntent?.id { chargesByIntent[intent] = charge }
            }
        }
        var paid: [StripeSubscriptionReading.PaidInvoice] = []
        for invoice in invoices {
            var entry = StripeSubscriptionReading.PaidInvoice(invoice: invoice)
            if invoice.amountPaid > 0, let charge = try await charge(paying: invoice, known: chargesByIntent) {
                entry.charge = charge
                if charge.amountRefunded > 0 { entry.refunds = try await refunds(charge: charge.id) }
                if charge.disputed { entry.disputes = try await disputes(charge: charge.id) }
            }
            paid.append(entry)
        }
        return StripeSubscriptionReading(subscription: subscription, invoices: paid)
    }

    /// The charge that paid `invoice`: its paid invoice payment's payment intent's charge, from `known` (the
    /// customer's charges by payment intent) when there, else read.
    func charge(paying invoice: StripeInvoice, known: [String: StripeCharge]) async throws(StripeAPIError)
        -> StripeCharge?
    {
        var payments = invoice.payments?.data ?? []
        if payments.isEmpty || invoice.payments?.hasMore == true {
            payments = try await invoicePayments(invoice: invoice.id)
        }
        guard let payment = payments.first(where: { $0.status == "paid" })?.payment else { return nil }
        if let charge = payment.charge { return try await self.charge(charge.id) }
        guard let intent = payment.paymentIntent?.id else { return nil }
        if let charge = known[intent] { return charge }
        guard let latest = try await paymentIntent(intent).latestCharge else { return nil }
        return try await charge(latest.id)
    }

    /// A one-time purchase: the payment intent, its latest charge with the balance transaction expanded (Stripe's
    /// fee), the Checkout Session that made it (its tax), and, only when the charge states a refund or a dispute,
    /// its refunds or disputes.
    public func reading(ofPaymentIntent id: String) async throws(StripeAPIError) -> StripePaymentReading {
        let intent = try await paymentIntent(id)
        var reading = StripePaymentReading(paymentIntent: intent)
        guard let latest = intent.latestCharge else { return reading }
        let charge = try await charge(latest.id)
        reading.charge = charge
        reading.session = try await checkoutSessions(paymentIntent: intent.id).first
        if charge.amountRefunded > 0 { reading.refunds = try await refunds(charge: charge.id) }
        if charge.disputed { reading.disputes = try await disputes(charge: charge.id) }
        return reading
    }

    /// The subscription a payment intent paid an invoice of, if it paid one.
    public func subscription(paidBy paymentIntent: String) async throws(StripeAPIError) -> String? {
        guard let invoice = try await invoicePayments(paymentIntent: paymentIntent).first?.invoice.id else {
            return nil
        }
        return try await self.invoice(invoice).subscriptionID
    }

    public func price(_ id: String) async throws(StripeAPIError) -> StripePrice {
        try await get(StripePrice.self, "/v1/prices/" + Self.checked(id))
    }

    /// The Checkout Sessions that made `paymentIntent` (one, for a payment-mode session's purchase).
    public func checkoutSessions(paymentIntent: String) async throws(StripeAPIError) -> [StripeCheckoutSession] {
        try await all(
            StripeCheckoutSession.self, "/v1/checkout/sessions", [("payment_intent", try Self.checked(paymentIntent))])
    }

    public func checkoutSession(_ id: String) async throws(StripeAPIError) -> StripeCheckoutSession {
        try await get(StripeCheckoutSession.self, "/v1/checkout/sessions/" + Self.checked(id))
    }

    // MARK: Writes

    /// Creates a Checkout Session in subscription mode for one unit of `price`: `clientReferenceID` names the
    /// order on the session, and `metadata` is set on both the session and the subscription it creates. Sent with
    /// `idempotencyKey`, so retrying it (after a timeout, or a second request for the same order) returns the same
    /// session instead of a second one.
    public func createSubscriptionCheckout(
        price: String, clientReferenceID: String, metadata: [(String, String)], successURL: String,
        cancelURL: String?, customer: String?, trialPeriodDays: Int?, idempotencyKey: String
    ) async throws(StripeAPIError) -> StripeCheckoutSession {
        var form: [(String, String)] = [
            ("mode", "subscription"), ("line_items[0][price]", try Self.checked(price)),
            ("line_items[0][quantity]", "1"), ("client_reference_id", clientReferenceID),
            ("success_url", successURL),
        ]
        if let cancelURL { form.append(("cancel_url", cancelURL)) }
        if let customer { form.append(("customer", try Self.checked(customer))) }
        if let trialPeriodDays { form.append(("subscription_data[trial_period_days]", String(trialPeriodDays))) }
        for (key, value) in metadata {
            form.append(("metadata[\(key)]", value))
            form.append(("subscription_data[metadata][\(key)]", value))
        }
        return try await post(
            StripeCheckoutSession.self, "/v1/checkout/sessions", form: form, idempotencyKey: idempotencyKey)
    }

    /// Creates a Checkout Session in payment mode for one unit of the one-time `price`: `clientReferenceID` names the
    /// order on the session, and `metadata` is set on both the session and the payment intent it creates. Without a
    /// `customer`, the session makes one (`customer_creation=always`), so every purchase names a customer support can
    /// look it up by. Sent with `idempotencyKey`, as `createSubscriptionCheckout` is.
    public func createPaymentCheckout(
        price: String, clientReferenceID: String, metadata: [(String, String)], successURL: String,
        cancelURL: String?, customer: String?, idempotencyKey: String
    ) async throws(StripeAPIError) -> StripeCheckoutSession {
        var form: [(String, String)] = [
            ("mode", "payment"), ("line_items[0][price]", try Self.checked(price)),
            ("line_items[0][quantity]", "1"), ("client_reference_id", clientReferenceID),
            ("success_url", successURL),
        ]
        if let cancelURL { form.append(("cancel_url", cancelURL)) }
        if let customer {
            form.append(("customer", try Self.checked(customer)))
        } else {
            form.append(("customer_creation", "always"))
        }
        for (key, value) in metadata {
            form.append(("metadata[\(key)]", value))
            form.append(("payment_intent_data[metadata][\(key)]", value))
        }
        return try await post(
            StripeCheckoutSession.self, "/v1/checkout/sessions", form: form, idempotencyKey: idempotencyKey)
    }

    // MARK: Plumbing

    /// `id` when it is usable in a path: 1 to 255 characters of `A-Z a-z 0-9 _`.
    static func checked(_ id: String) throws(StripeAPIError) -> String {
        guard (1...255).contains(id.utf8.count),
            id.utf8.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F
            })
        else { throw StripeAPIError(.invalidRequest, message: "not a Stripe object id") }
        return id
    }

    private func all<Element: Decodable & Sendable>(
        _ type: Element.Type, _ path: String, _ query: [(String, String)]
    ) async throws(StripeAPIError) -> [Element] where Element: StripeIdentified {
        var items: [Element] = []
        var startingAfter: String?
        for _ in 0..<configuration.maximumPages {
            var pageQuery = query + [("limit", "100")]
            if let startingAfter { pageQuery.append(("starting_after", startingAfter)) }
            let page = try await get(StripeList<Element>.self, path, pageQuery)
            items += page.data
            guard page.hasMore, let last = page.data.last?.id, last != startingAfter else { break }
            startingAfter = last
        }
        return items
    }

    private func get<Response: Decodable>(
        _ type: Response.Type, _ path: String, _ query: [(String, String)] = []
    ) async throws(StripeAPIError) -> Response {
        let answer = try await getAnswer(path, query)
        do {
            return try JSONDecoder().decode(Response.self, from: answer.body)
        } catch {
            throw StripeAPIError(.malformedResponse, httpStatus: answer.status)
        }
    }

    /// A creation: retried like a read, safely, because the same `Idempotency-Key` makes Stripe answer a retry
    /// with the first attempt's result.
    private func post<Response: Decodable>(
        _ type: Response.Type, _ path: String, form: [(String, String)], idempotencyKey: String
    ) async throws(StripeAPIError) -> Response {
        let url = configuration.baseURL + path
        let body = Data(FormEncoding.encode(form).utf8)
        var attempt = 0
        while true {
            do throws(StripeAPIError) {
                let answer = try await sendOnce(.POST, url: url, body: body, idempotencyKey: idempotencyKey)
                do {
                    return try JSONDecoder().decode(Response.self, from: answer.body)
                } catch {
                    throw StripeAPIError(.malformedResponse, httpStatus: answer.status)
                }
            } catch {
                attempt += 1
                guard error.isRetryable, attempt < configuration.retry.maximumAttempts else { throw error }
                try await wait(afterAttempt: attempt, error)
            }
        }
    }

    private func wait(afterAttempt attempt: Int, _ error: StripeAPIError) async throws(StripeAPIError) {
        let delay = configuration.retry.delay(
            afterAttempt: attempt - 1, random: random(), retryAfterSeconds: error.retryAfterSeconds)
        do {
            try await sleep(delay)
        } catch {
            throw StripeAPIError(error is CancellationError ? .timeout : .connectionError)
        }
    }

    private func getAnswer(_ path: String, _ query: [(String, String)]) async throws(StripeAPIError)
        -> HTTPExchange.Answer
    {
        var url = configuration.baseURL + path
        if !query.isEmpty { url += "?" + FormEncoding.encode(query) }
        var attempt = 0
        while true {
            do throws(StripeAPIError) {
                return try await sendOnce(.GET, url: url)
            } catch {
                attempt += 1
                guard error.isRetryable, attempt < configuration.retry.maximumAttempts else { throw error }
                try await wait(afterAttempt: attempt, error)
            }
        }
    }

    private func sendOnce(_ method: HTTPMethod, url: String, body: Data? = nil, idempotencyKey: String? = nil)
        async throws(StripeAPIError) -> HTTPExchange.Answer
    {
        var headers = [
            ("Authorization", "Bearer " + secretKey), ("Stripe-Version", Self.apiVersion),
            ("Accept", "application/json"), ("User-Agent", "SubLedger"),
        ]
        if let idempotencyKey { headers.append(("Idempotency-Key", idempotencyKey)) }
        let answer: HTTPExchange.Answer
        do {
            answer = try await exchange.perform(
                method, url: url, headers: headers,
                body: body, contentType: "application/x-www-form-urlencoded", timeout: configuration.timeout)
        } catch {
            exchange.logger.debug("Stripe API request failed", metadata: ["failure": "\(error)"])
            throw StripeAPIError(error == .timeout ? .timeout : .connectionError)
        }
        guard (200..<300).contains(answer.status) else {
            throw StripeAPIError.api(
                status: answer.status, body: try? JSONDecoder().decode(StripeErrorBody.self, from: answer.body),
                retryAfterSeconds: answer.headers.first(name: "Retry-After").flatMap {
                    Int64($0.trimmingCharacters(in: .whitespaces))
                })
        }
        return answer
    }
}

/// One page of the events list: each event with its JSON, newest first.
public struct StripeEventPage: Sendable {
    public var events: [(event: StripeEvent, body: Data)]
    public var hasMore: Bool
}

/// A Stripe object with an id (what a list's cursor names).
public protocol StripeIdentified {
    var id: String { get }
}

extension StripeInvoice: StripeIdentified {}
extension StripeCharge: StripeIdentified {}
extension StripeCheckoutSession: StripeIdentified {}
extension StripeInvoicePayment: StripeIdentified {}
extension StripeRefund: StripeIdentified {}
extension StripeDispute: StripeIdentified {}
