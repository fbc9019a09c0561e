import AppStore
import AppStoreStore
import CatalogFile
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LedgerTestSupport
import Logging
import NIOCore
import PostgresLibPQ
import Prometheus
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Synchronization

@testable import SubLedgerHTTP

/// A manual clock for the service under test.
final class TestClock: Sendable {
    private let current: Mutex<Instant>
    init(_ start: Instant) { current = Mutex(start) }
    var now: Instant { current.withLock { $0 } }
    func set(_ instant: Instant) { current.withLock { $0 = instant } }
}

/// A migrated schema, two apps, an API key per app, a signing chain trusted as Apple's, a pinned clock, and
/// the service listening on a real loopback socket.
struct ServiceHarness: Sendable {
    static let appOne = "com.example.one"
    static let appTwo = "com.example.two"
    static let appleAppIDOne: Int64 = 1_111_111_111
    static let day: Int64 = 86_400_000
    static let start = Instant(millisecondsSince1970: 1_735_689_600_000)  // 2025-01-01

    static let catalogYAML = """
        apps:
          - bundle_id: com.example.one
            apple_app_id: 1111111111
            environments: [production, sandbox]
            shared_secret: one-secret
            products:
              - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: "g1", entitlements: [pro] }
              - { product_id: pro.yearly, type: auto_renewable, subscription_group_id: "g1", entitlements: [pro] }
              - { product_id: pro.committed, type: auto_renewable, subscription_group_id: "g2", entitlements: [pro] }
              - { product_id: coins.100, type: consumable, credits: 100 }
          - bundle_id: com.example.two
            apple_app_id: 2222222222
            environments: [production, sandbox]
            products:
              - { product_id: two.monthly, type: auto_renewable, subscription_group_id: "g2", entitlements: [pro] }
        """

    let pool: PostgresPool
    let store: LedgerStore
    /// The apps, their secrets opened with the service's keys.
    let catalog: CatalogStore
    let clock: TestClock
    let signer: JWSSigner
    let keyOne: String
    let keyTwo: String
    let keys: APIKeys
    /// The read replicas the service routes reads to, when the test asked for them (`ReadReplicaTests`).
    var readReplicas: ReadReplicas? = nil
    /// The entitlement reads answered on the event loops, unless the test sent them through the router.
    var eventLoopReads: EntitlementReadRoute? = nil
    /// A client of a second application on the same database (another `serve` process), when the test asked for one
    /// (`secondServer`): built exactly as the first, on its own loopback port.
    var secondClient: (any TestClientProtocol)? = nil

    static func day(_ number: Int) -> Instant { start.adding(milliseconds: Int64(number) * day) }

    /// Runs `body` against a fresh service. `apple` configures verifyReceipt's URLs (default: nothing listens).
    static func run(
        apple: AppleConfiguration = AppleConfiguration(
            verifyReceiptProductionURL: "http://127.0.0.1:9/verifyReceipt",
            verifyReceiptSandboxURL: "http://127.0.0.1:9/sandbox/verifyReceipt", trustAppleRoot: false,
            timeout: .seconds(2)),
        additionalRoots: [TrustedRoot] = [],
        now: (@Sendable () -> Instant)? = nil,
        readReplicas: ReadReplicaConfiguration? = nil,
        distributed: Bool = TestDatabase.isCitus,
        entitlementReadsOnEventLoops: Bool = true,
        requestTimeout: Duration = .seconds(600),
        maxConnections: Int = 8,
        acquireTimeout: Duration = TestDatabase.defaultAcquireTimeout,
        metricsRegistry: PrometheusCollectorRegistry? = nil,
        logger: Logger = TestDatabase.logger,
        secondServer: Bool = false,
        stores: [any StoreRegistration] = [],
        _ body: @Sendable (ServiceHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        // With a standby, the test measures replay lag: it has the cluster to itself.
        try await TestDatabase.withSchema(
            maxConnections: maxConnections, acquireTimeout: acquireTimeout, template: .ledger,
            exclusive: readReplicas != nil, distributed: distributed
        ) {
            _, _, pool in
            let migrator = try Migrator.bundled(logger: TestDatabase.logger)
            try await migrator.migrate(pool)
            // Secrets at rest: the catalog's shared secret is sealed with this key, which the service is given too.
            let secretKeys = try SecretKeyring(keys: [SecretKey.generate()])
            let store = LedgerStore(pool: pool)
            let catalog = CatalogStore(pool: pool, secretKeys: secretKeys)
            let (definitions, secrets) = try CatalogFile.read(catalogYAML)
            try await catalog.applyCatalog(definitions, secrets: secrets)
            let keys = APIKeys(store: APIKeyStore(pool: pool))
            let keyOne = try await keys.create(bundleID: appOne, name: "one").secret
            let keyTwo = try await keys.create(bundleID: appTwo, name: "two").secret
            let chain = try SigningChain.generate(
                notValidBefore: Instant(millisecondsSince1970: 1_600_000_000_000),
                notValidAfter: Instant(millisecondsSince1970: 2_000_000_000_000))
            let clock = TestClock(start)
            let gateway = try AppleGateway(
                configuration: apple, additionalRoots: [chain.trustedRoot] + additionalRoots,
                logger: TestDatabase.logger)
            var dependencies = ServiceDependencies(
                pool: pool, migrator: migrator, apple: gateway, now: now ?? { clock.now })
            // Stores beside the App Store, when the test registers them (their routes are mounted from these).
            if !stores.isEmpty { dependencies.stores = StoreRegistry(apple: gateway, stores) }
            if var replicas = readReplicas {
                // The standby's connections read the test's database too.
                if let database = TestDatabase.currentDatabase {
                    replicas.url = TestDatabase.replacingDatabase(of: replicas.url, with: database)
                }
                dependencies.readReplicas = try ReadReplicas(
                    configuration: replicas, primary: store, logger: TestDatabase.logger)
            }
            var configuration = ServiceConfiguration(host: "127.0.0.1", port: 0)
            // A test's client connection idles while the test drives Apple, the poller or the database, for longer
            // than production's 30 s when many tests share the machine.
            configuration.idleTimeout = .seconds(600)
            // Likewise for a request's arrival (`RequestTimeoutAnswer`); its own test sets a short one.
            configuration.requestTimeout = requestTimeout
            configuration.secretKeys = secretKeys
            let made = Mutex<EntitlementReadRoute?>(nil)
            let (serviceConfiguration, built) = (configuration, dependencies)
            /// The service's application; the harness's event-loop route is the first one's.
            @Sendable func application(first: Bool) -> some ApplicationProtocol {
                buildApplication(
                    configuration: serviceConfiguration, dependencies: built, logger: logger,
                    entitlementReads: entitlementReadsOnEventLoops ? .onEventLoops : .throughRouter,
                    metricsRegistry: metricsRegistry,
                    madeEventLoopRoute: { route in if first { made.withLock { $0 = route } } })
            }
            let app = application(first: true)
            let harness = ServiceHarness(
                pool: pool, store: store, catalog: catalog, clock: clock, signer: JWSSigner(chain: chain),
                keyOne: keyOne, keyTwo: keyTwo,
                keys: keys, readReplicas: dependencies.readReplicas, eventLoopReads: made.withLock { $0 })
            try await app.test(.live) { client in
                guard secondServer else { return try await body(harness, client) }
                // Two `serve` processes on one database: the second application, built the same way.
                try await application(first: false).test(.live) { second in
                    var both = harness
                    both.secondClient = second
                    try await body(both, client)
                }
            }
        }
    }

    /// A StoreKit 2 signed transaction of app one.
    func signedTransaction(
        id: String, original: String? = nil, product: String = "pro.monthly", purchasedOnDay from: Int,
        expiresOnDay to: Int?, token: String? = nil, revokedOnDay: Int? = nil, signedOnDay: Int? = nil,
        environment: String = "Production"
    ) throws -> String {
        try signer.sign(
            JWSTransactionDecodedPayload(
                originalTransactionID: original ?? id, transactionID: id, webOrderLineItemID: "w\(id)",
                bundleID: Self.appOne, productID: product, subscriptionGroupIdentifier: to == nil ? nil : "g1",
                purchaseDate: Self.day(from).millisecondsSince1970,
                originalPurchaseDate: Self.day(from).millisecondsSince1970,
                expiresDate: to.map { Self.day($0).millisecondsSince1970 }, quantity: 1,
                rawType: to == nil ? "Consumable" : "Auto-Renewable Subscription",
                appAccountToken: token,
                rawInAppOwnershipType: "PURCHASED",
                signedDate: Self.day(signedOnDay ?? from).millisecondsSince1970,
                rawRevocationReason: revokedOnDay.map { _ in 0 },
                revocationDate: revokedOnDay.map { Self.day($0).millisecondsSince1970 },
                rawEnvironment: environment))
    }

    /// A V2 notification body of app one carrying `transaction` (and optional renewal info).
    func notificationBody(
        type: String, subtype: String? = nil, uuid: String = UUID().uuidString.lowercased(), transaction: String?,
        renewal: String? = nil, onDay day: Int
    ) throws -> ByteBuffer {
        let payload = ResponseBodyV2DecodedPayload(
            rawNotificationType: type, rawSubtype: subtype, notificationUUID: uuid,
            data: NotificationData(
                rawEnvironment: "Production", appAppleID: Self.appleAppIDOne, bundleID: Self.appOne, bundleVersion: "1",
                signedTransactionInfo: transaction, signedRenewalInfo: renewal, rawStatus: 1),
            version: "2.0", signedDate: Self.day(day).millisecondsSince1970)
        let body = try JSONEncoder().encode(["signedPayload": try signer.sign(payload)])
        return ByteBuffer(bytes: body)
    }

    /// Signed renewal info of app one's chain `original`.
    func signedRenewal(original: String, willAutoRenew: Bool, onDay day: Int) throws -> String {
        try signer.sign(
            JWSRenewalInfoDecodedPayload(
                originalTransactionID: original, autoRenewProductID: "pro.monthly", productID: "pro.monthly",
                rawAutoRenewStatus: willAutoRenew ? 1 : 0, isInBillingRetryPeriod: false,
                signedDate: Self.day(day).millisecondsSince1970, rawEnvironment: "Production"))
    }
}

extension ServiceHarness {
    /// Runs the report projector until the queue is empty (what `subledger poll` does in the background): the
    /// reports' aggregates then include every input applied so far.
    func projectReports() async throws {
        _ = try await ReportProjector(pool: pool).projectAll()
    }
}

extension TestClientProtocol {
    /// Sends a JSON body (or none) with an API key, and returns the status and the parsed JSON body.
    func call(
        _ method: HTTPRequest.Method, _ uri: String, key: String?, json: [String: String]? = nil, raw: ByteBuffer? = nil
    ) async throws -> (status: HTTPResponse.Status, json: [String: Any], headers: HTTPFields) {
        let (headers, body) = try JSONCall.request(key: key, json: json, raw: raw)
        let response = try await executeRequest(uri: uri, method: method, headers: headers, body: body)
        return (response.status, JSONCall.parse(response.body), response.headers)
    }
}

extension TestClient {
    /// A client of the live server `framework` reached that waits up to `timeout` for each answer, where the test
    /// framework's own gives up after 20 s: for requests that queue behind each other by design (purchases through
    /// PgBouncer's two server connections), so that a slow machine is not read as a failure.
    static func patient(reaching framework: some TestClientProtocol, timeout: Duration = .seconds(300)) throws
        -> TestClient
    {
        guard let port = framework.port else { throw TestClient.Error.connectionNotOpen }
        let client = TestClient(host: "localhost", port: port, configuration: .init(timeout: timeout))
        client.connect()
        return client
    }

    /// `TestClientProtocol.call` on this client.
    func call(
        _ method: HTTPRequest.Method, _ uri: String, key: String?, json: [String: String]? = nil, raw: ByteBuffer? = nil
    ) async throws -> (status: HTTPResponse.Status, json: [String: Any], headers: HTTPFields) {
        var (headers, body) = try JSONCall.request(key: key, json: json, raw: raw)
        headers[.connection] = "keep-alive"
        let response = try await execute(
            TestClient.Request(uri, method: method, authority: "localhost", headers: headers, body: body))
        return (response.head.status, JSONCall.parse(response.body ?? ByteBuffer()), response.head.headerFields)
    }
}

/// What `call` sends (a JSON body, or `raw`, with the API key) and how it reads the answer.
enum JSONCall {
    static func request(key: String?, json: [String: String]?, raw: ByteBuffer?) throws -> (HTTPFields, ByteBuffer?) {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let key { headers[.authorization] = "Bearer \(key)" }
        return (headers, try raw ?? json.map { ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: $0)) })
    }

    static func parse(_ body: ByteBuffer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }
}

extension Dictionary where Key == String, Value == Any {
    /// `json["error"]["code"]`.
    var errorCode: String? { (self["error"] as? [String: Any])?["code"] as? String }
    /// `json["error"]["message"]`.
    var errorMessage: String? { (self["error"] as? [String: Any])?["message"] as? String }
    /// The entitlement ids of an entitlements or submission answer.
    var entitlementIDs: [String] {
        (self["entitlements"] as? [[String: Any]] ?? []).compactMap { $0["entitlement_id"] as? String }
    }
    /// `expires_at` of the first entitlement.
    var firstExpiry: String? { (self["entitlements"] as? [[String: Any]])?.first?["expires_at"] as? String }
    /// transaction id → result of a submission answer.
    var results: [String: String] {
        var results: [String: String] = [:]
        for item in self["transactions"] as? [[String: Any]] ?? [] {
            if let id = item["transaction_id"] as? String, let result = item["result"] as? String {
                results[id] = result
            }
        }
        return results
    }
}
