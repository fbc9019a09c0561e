// The README walkthrough, a Stripe and a Google Play purchase through the Swift client that swift-openapi-generator
// generates from openapi.yaml (this target's build plugin; openapi.yaml here is a link to the repository's).
//
// Run by scripts/client-test with the environment's addresses in SUBLEDGER_URL, APPSTORE_SIM_URL, PLAY_SIM_URL,
// STRIPE_SIM_URL, SUBLEDGER_API_KEY and STRIPE_PRICE. Every call to SubLedger goes through the generated `Client` and
// its types: an answer with another status than the one expected, or one that does not decode, throws. Only the
// simulators' control routes, which stand for the customer's phone or browser, are called with plain HTTP.
import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

let environment = ProcessInfo.processInfo.environment
func setting(_ name: String) -> String {
    guard let value = environment[name], !value.isEmpty else { fail("\(name) is not set") }
    return value
}
let prefix = "swift"  // the accounts and Apple IDs of this run; the Python client's start with "py"
let apple = setting("APPSTORE_SIM_URL")
let google = setting("PLAY_SIM_URL")
let stripe = setting("STRIPE_SIM_URL")
let package = "com.example.subledger.android"

func fail(_ what: String) -> Never {
    FileHandle.standardError.write(Data("client-test (swift): FAILED: \(what)\n".utf8))
    exit(1)
}

func expect(_ condition: Bool, _ what: String) {
    guard condition else { fail(what) }
    print("swift: ok: \(what)")
}

/// The app key on every request, as the document's bearer security scheme says (the generator leaves
/// authentication to a middleware).
struct BearerAuthentication: ClientMiddleware {
    let token: String
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}

/// A simulator's control route (the customer's phone or browser), not SubLedger's API.
func control(_ base: String, _ path: String, _ body: [String: Any] = [:]) async throws -> [String: Any] {
    var request = URLRequest(url: URL(string: base + path)!, timeoutInterval: 30)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = try JSONSerialization.data(withJSONObject: body)
    let (data, response) = try await URLSession.shared.data(for: request)
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard (200..<300).contains(status), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { fail("POST \(base)\(path) answered \(status): \(String(decoding: data, as: UTF8.self))") }
    return object
}

func string(_ object: [String: Any], _ key: String) -> String {
    guard let value = object[key] as? String else { fail("no string \(key) in \(object)") }
    return value
}

// SubLedger writes times in RFC 3339 with milliseconds ("2026-11-28T11:26:30.000Z"): the runtime's default
// transcoder (.iso8601) reads no fractional seconds.
let client = Client(
    serverURL: URL(string: setting("SUBLEDGER_URL"))!,
    configuration: Configuration(dateTranscoder: .iso8601WithFractionalSeconds),
    transport: URLSessionTransport(),
    middlewares: [BearerAuthentication(token: setting("SUBLEDGER_API_KEY"))]
)

func entitlements(_ account: String, at: Date? = nil) async throws -> [Components.Schemas.Entitlement] {
    let at = at.map { $0.formatted(.iso8601) }
    return try await client.getEntitlements(path: .init(accountId: account), query: .init(at: at)).ok.body.json
        .entitlements
}

func subscriptions(_ account: String) async throws -> [Components.Schemas.Subscription] {
    try await client.getSubscriptions(path: .init(accountId: account)).ok.body.json.subscriptions
}

func transactions(_ account: String) async throws -> [Components.Schemas.Transaction] {
    try await client.getTransactions(path: .init(accountId: account)).ok.body.json.transactions
}

/// Asks `probe` once a second until it answers something (webhooks arrive on their own).
func eventually<T>(_ what: String, seconds: Int = 30, _ probe: () async throws -> T?) async throws -> T {
    for _ in 0..<seconds {
        if let value = try await probe() { return value }
        try await Task.sleep(for: .seconds(1))
    }
    fail("\(what) within \(seconds)s")
}

/// The README's first purchase (a receipt), then start.md's reads and its refund, and a StoreKit 2 purchase.
func appStore() async throws {
    var account = "\(prefix)-ada"
    var appleID = "\(prefix)-ada@example.com"
    _ = try await control(apple, "/control/apple-ids", ["apple_id": appleID])
    let order = try await client.createOrder(body: .json(.init(accountId: account, productId: "pro.monthly")))
        .created.body.json
    expect(
        order.accountId == account && order.state == .pending && order.orderId == order.appAccountToken,
        "POST /v1/orders: a pending order, its app_account_token its id"
    )
    let token = order.appAccountToken
    let buy = try await control(
        apple,
        "/control/purchases",
        [
            "apple_id": appleID, "bundle_id": "com.example.app", "product_id": "pro.monthly",
            "app_account_token": token, "application_username": token,
        ]
    )
    let submission = try await client.submitReceipt(
        body: .json(.init(accountId: account, receiptData: string(buy, "receipt_data"), orderId: token))
    ).ok.body.json
    expect(
        submission.accountId == account && submission.transactions.map(\.result) == [.applied],
        "POST /v1/receipts: the purchase applied"
    )
    let now = try await entitlements(account)
    expect(
        now.map(\.entitlementId) == ["pro"] && now[0].productId == "pro.monthly" && now[0].state == .active
            && now[0].store == nil && now[0].expiresAt != nil && now[0].willAutoRenew == true,
        "GET /v1/accounts/\(account)/entitlements: pro, active, from the App Store, with its expiry"
    )
    let later = try await entitlements(account, at: Date().addingTimeInterval(40 * 86400))
    expect(later.isEmpty, "GET entitlements?at= in 40 days: none")
    let chains = try await subscriptions(account)
    expect(
        chains.map(\.originalTransactionId) == [string(buy, "original_transaction_id")] && chains[0].state == .active,
        "GET subscriptions: the chain, active"
    )
    let credited = try await transactions(account)
    expect(credited.map(\.transactionId) == [string(buy, "transaction_id")], "GET transactions: the purchase")

    _ = try await control(apple, "/control/transactions/\(string(buy, "transaction_id"))/refund", ["reason": 0])
    _ = try await eventually("the refund revoking pro") { try await entitlements(account).isEmpty ? true : nil }
    expect(
        try await subscriptions(account)[0].state == .revoked,
        "after Apple's refund: no entitlement, the chain revoked"
    )
    expect(
        try await transactions(account)[0].revocationDate != nil,
        "the refunded transaction's revocation_date"
    )

    // StoreKit 2: a signed transaction, bought without an order (an offer code redeemed outside the app).
    account = "\(prefix)-bob"
    appleID = "\(prefix)-bob@example.com"
    _ = try await control(apple, "/control/apple-ids", ["apple_id": appleID])
    let code = try await control(
        apple,
        "/control/purchases",
        [
            "apple_id": appleID, "bundle_id": "com.example.app", "product_id": "pro.monthly",
            "offer": ["kind": "offer_code", "identifier": "WELCOME"],
        ]
    )
    let signed = try await client.submitSignedTransaction(
        body: .json(.init(accountId: account, signedTransaction: string(code, "signed_transaction")))
    ).ok.body.json
    expect(
        signed.transactions.map(\.result) == [.applied] && signed.entitlements.map(\.entitlementId) == ["pro"],
        "POST /v1/transactions: a StoreKit 2 purchase applied, pro in the answer"
    )

    // A refusal decodes as the error shape.
    let refusal = try await client.createOrder(body: .json(.init(accountId: account, productId: "no.such.product")))
        .unprocessableContent.body.json
    expect(refusal.error.code == "unknown_product", "POST /v1/orders for an unknown product: 422 unknown_product")
}

/// A web purchase: SubLedger's Checkout Session, paid in stripe-sim, credited from Stripe's webhooks, and the session
/// submitted as the app server would on the customer's return.
func stripePurchase() async throws {
    let account = "\(prefix)-dana"
    let checkout = try await client.createStripeCheckout(
        body: .json(
            .init(
                accountId: account,
                productId: "prod_pro_web",
                price: setting("STRIPE_PRICE"),
                successUrl: "https://example.com/paid"
            )
        )
    ).created.body.json
    expect(
        checkout.accountId == account && checkout.checkoutSessionId.hasPrefix("cs_") && checkout.mode == .subscription,
        "POST /v1/checkout/stripe: a subscription Checkout Session"
    )
    let paid = try await control(stripe, "/control/checkout/sessions/\(checkout.checkoutSessionId)/complete")
    let subscription = string(paid, "subscription")
    expect(subscription.hasPrefix("sub_"), "stripe-sim: the session paid")
    let found = try await eventually("a Stripe entitlement after the webhooks") {
        let found = try await entitlements(account)
        return found.isEmpty ? nil : found
    }
    expect(
        found.map(\.entitlementId) == ["pro"] && found[0].store == .stripe && found[0].state == .active
            && found[0].originalTransactionId == subscription,
        "GET entitlements: pro from Stripe, its chain the subscription"
    )
    let submitted = try await client.submitStripeCheckout(
        body: .json(.init(accountId: account, checkoutSessionId: checkout.checkoutSessionId))
    ).ok.body.json
    expect(
        submitted.transactions.map(\.result) == [.applied]
            && submitted.transactions.map(\.originalTransactionId) == [subscription],
        "POST /v1/purchases/stripe: the paid session applied"
    )
    let credited = try await transactions(account)
    expect(credited.map(\.source) == [.stripeApi], "GET transactions: the paid invoice, from Stripe's API")
}

/// A Google Play purchase: an order passed as the obfuscated account id, the token posted to SubLedger.
func googlePlayPurchase() async throws {
    let account = "\(prefix)-carol"
    let order = try await client.createOrder(body: .json(.init(accountId: account, productId: "pro"))).created.body
        .json
    let buy = try await control(
        google,
        "/control/purchases",
        [
            "package_name": package, "product_id": "pro", "base_plan_id": "monthly",
            "obfuscated_external_account_id": order.appAccountToken,
        ]
    )
    let submission = try await client.submitGooglePlayPurchase(
        body: .json(
            .init(
                accountId: account,
                packageName: package,
                productId: "pro",
                purchaseToken: string(buy, "purchase_token"),
                orderId: string(buy, "order_id")
            )
        )
    ).ok.body.json
    expect(submission.transactions.map(\.result) == [.applied], "POST /v1/purchases/google: applied")
    let found = try await entitlements(account)
    expect(
        found.map(\.entitlementId) == ["pro"] && found[0].store == .googlePlay && found[0].state == .active,
        "GET entitlements: pro from Google Play, active"
    )
    let chains = try await subscriptions(account)
    expect(
        chains.map(\.productId) == ["pro"] && chains[0].willAutoRenew == true,
        "GET subscriptions: the Google Play subscription, renewing"
    )
}

do {
    let ready = try await client.healthReady().ok.body.json
    expect(ready.status == .ok, "GET /health/ready")
    try await appStore()
    try await stripePurchase()
    try await googlePlayPurchase()
    print("swift: passed")
} catch {
    fail("\(error)")
}
