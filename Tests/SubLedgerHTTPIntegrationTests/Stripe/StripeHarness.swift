import AppStoreStore
import CatalogFile
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresLibPQ
import StripeClients
import StripeStore
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases

/// A live server and PostgreSQL for the Stripe tests: one app selling on the App Store and through Stripe, with its
/// Stripe secrets sealed, its Stripe API at `stripeURL`.
struct StripeHarness: Sendable {
    static let bundleID = "com.example.web"
    static let secretKey = "sk_test_subledger_harness_key"
    static let webhookSecret = "whsec_subledger_harness_secret"
    static let product = "prod_webpro"

    static let catalogYAML = """
        apps:
          - bundle_id: com.example.web
            apple_app_id: 1111111111
            environments: [production, sandbox]
            stripe:
              secret_key: sk_test_subledger_harness_key
              webhook_secret: whsec_subledger_harness_secret
            products:
              - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: "ios", entitlements: [pro] }
              - { product_id: prod_webpro, type: auto_renewable, subscription_group_id: "web", group_level: 2, entitlements: [pro], store: stripe }
              - { product_id: prod_webmax, type: auto_renewable, subscription_group_id: "web", group_level: 1, entitlements: [pro, max], store: stripe }
              - { product_id: prod_lifetime, type: non_consumable, entitlements: [lifetime], store: stripe }
              - { product_id: prod_gems, type: consumable, credits: 100, store: stripe }
              - { product_id: prod_pass, type: non_renewing, duration_days: 30, entitlements: [pass], store: stripe }
        """

    let pool: PostgresPool
    let key: String
    let client: any TestClientProtocol
    let catalog: CatalogStore
    let gateway: StripeGateway
    let port: StripePort
    let now: @Sendable () -> Instant
    /// The second server's client, when the run asked for one (`secondServer`).
    var secondClient: (any TestClientProtocol)? = nil

    /// Posts `body` to `/v1/notifications/stripe` with `signature` as its `Stripe-Signature`.
    func deliver(_ body: Data, signature: String?) async throws -> (
        status: HTTPResponse.Status, json: [String: Any], headers: HTTPFields
    ) {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let signature { headers[HTTPField.Name("Stripe-Signature")!] = signature }
        let response = try await client.executeRequest(
            uri: "/v1/notifications/stripe", method: .post, headers: headers, body: ByteBuffer(bytes: body))
        return (response.status, JSONCall.parse(response.body), response.headers)
    }

    func call(_ method: HTTPRequest.Method, _ uri: String, json: [String: String]) async throws -> (
        status: HTTPResponse.Status, json: [String: Any]
    ) {
        let answer = try await client.call(method, uri, key: key, json: json)
        return (answer.status, answer.json)
    }

    func entitlements(_ account: String) async throws -> [String] {
        let answer = try await client.call(.get, "/v1/accounts/\(account)/entitlements", key: key)
        let list = answer.json["entitlements"] as? [[String: Any]] ?? []
        return list.compactMap { $0["entitlement_id"] as? String }.sorted()
    }

    /// `account`'s consumable credits.
    func credits(_ account: String) async throws -> Int64? {
        let answer = try await client.call(.get, "/v1/accounts/\(account)/entitlements", key: key)
        return (answer.json["credits"] as? NSNumber)?.int64Value
    }

    /// The stored Stripe events, as `type status attempts`, in arrival order.
    func storedEvents() async throws -> [String] {
        try await pool.query(
            """
            SELECT notification_type || ' ' || status || ' ' || attempts FROM notifications
            WHERE version = 'stripe_event' ORDER BY notification_row_id
            """
        ).map { try $0.decode(String.self, at: 0) }
    }

    /// Runs `body` beside a live server whose Stripe API is `stripeURL` (each call given `stripeTimeout`: a port
    /// nothing listens on is tried again until then), on the clock `now`.
    /// `catalog` and `secrets` replace the harness's catalog file and add to its secrets; `apple` is the gateway to
    /// Apple (by default one to a port nothing listens on). With `secondServer` a second application on the same
    /// database (as a second `serve` process) answers on its own port (`secondClient`).
    static func run(
        stripeURL: String, stripeTimeout: Duration = .seconds(10),
        now: @escaping @Sendable () -> Instant = { Instant.systemNow() }, catalog catalogText: String = catalogYAML,
        secrets extraSecrets: AppSecrets? = nil, apple appleGateway: AppleGateway? = nil, secondServer: Bool = false,
        _ body: @Sendable (StripeHarness) async throws -> Void
    ) async throws {
        try await TestDatabase.withSchema(maxConnections: 8, template: .ledger) { _, _, pool in
            let migrator = try Migrator.bundled(logger: TestDatabase.logger)
            try await migrator.migrate(pool)
            let secretKeys = try SecretKeyring(keys: [SecretKey.generate()])
            let catalog = CatalogStore(pool: pool, secretKeys: secretKeys)
            let (definitions, fileSecrets) = try CatalogFile.read(catalogText, sections: [StripeSecrets.catalogSection])
            var secrets = fileSecrets
            if let extraSecrets {
                var merged = secrets[bundleID] ?? AppSecrets()
                merged.serverAPI = extraSecrets.serverAPI ?? merged.serverAPI
                secrets[bundleID] = merged
            }
            try await catalog.applyCatalog(definitions, secrets: secrets)
            let key = try await APIKeys(store: APIKeyStore(pool: pool)).create(bundleID: bundleID, name: "web").secret
            let gateway = StripeGateway(
                httpClient: .shared,
                configuration: .init(
                    baseURL: stripeURL, timeout: stripeTimeout,
                    retry: .init(maximumAttempts: 2, initialDelay: .milliseconds(10))),
                logger: TestDatabase.logger)
            let apple =
                try appleGateway
                ?? AppleGateway(
                    configuration: AppleConfiguration(
                        verifyReceiptProductionURL: "http://127.0.0.1:9/verifyReceipt",
                        verifyReceiptSandboxURL: "http://127.0.0.1:9/sandbox/verifyReceipt", trustAppleRoot: true,
                        timeout: .seconds(2)),
                    logger: TestDatabase.logger)
            var dependencies = ServiceDependencies(pool: pool, migrator: migrator, apple: apple, now: now)
            dependencies.stores = StoreRegistry(apple: apple, [StripeRegistration(gateway: gateway)])
            var configuration = ServiceConfiguration(host: "127.0.0.1", port: 0)
            configuration.idleTimeout = .seconds(600)
            configuration.secretKeys = secretKeys
            let (serviceConfiguration, built) = (configuration, dependencies)
            @Sendable func application() -> some ApplicationProtocol {
                buildApplication(configuration: serviceConfiguration, dependencies: built, logger: TestDatabase.logger)
            }
            let app = application()
            let port = StripePort(
                store: LedgerStore(pool: pool), gateway: gateway, catalog: catalog, logger: TestDatabase.logger,
                now: now)
            try await app.test(.live) { client in
                let harness = StripeHarness(
                    pool: pool, key: key, client: client, catalog: catalog, gateway: gateway, port: port, now: now)
                guard secondServer else { return try await body(harness) }
                try await application().test(.live) { second in
                    var both = harness
                    both.secondClient = second
                    try await body(both)
                }
            }
        }
    }
}
