import AppStore
import AppStoreClients
import AppStoreSimulator
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import SubLedgerCore

/// A running simulator with one app (`com.example.app`: monthly and yearly plans in group `pro`, coins,
/// a lifetime unlock), an HTTP client, and control calls made over real HTTP.
struct SimulatorFixture: Sendable {
    static let bundleID = "com.example.app"
    static let sharedSecret = "fixture-secret"

    let simulator: AppStoreSimulator
    let http: HTTPClient
    let app: AppDescription

    static let products: [ProductDefinition] = [
        ProductDefinition(
            productID: "pro.monthly", type: .autoRenewable, subscriptionGroupID: "pro", duration: .oneMonth,
            groupLevel: 2),
        ProductDefinition(
            productID: "pro.yearly", type: .autoRenewable, subscriptionGroupID: "pro", duration: .oneYear, groupLevel: 2
        ),
        ProductDefinition(
            productID: "premium.monthly", type: .autoRenewable, subscriptionGroupID: "pro", duration: .oneMonth,
            groupLevel: 1),
        ProductDefinition(productID: "coins", type: .consumable),
        ProductDefinition(productID: "lifetime", type: .nonConsumable),
    ]

    /// Runs `body` with a fresh simulator and always shuts everything down.
    static func with<Result: Sendable>(
        gracePeriodDays: Int = 0,
        notificationURL: String? = nil,
        notificationVersion: String? = nil,
        massExtensionCompletionDelay: Duration? = .seconds(2),
        _ body: (SimulatorFixture) async throws -> Result
    ) async throws -> Result {
        // A notification's attempt may take 30 s, where Apple's take 5: a test's receiver on a loaded machine can
        // answer late, and an attempt timed out is retried only on Apple's schedule, which the tests' clock never
        // reaches unless told to.
        let simulator = try await AppStoreSimulator.start(
            AppStoreSimulator.Configuration(
                seed: 42, notificationTimeout: .seconds(30), massExtensionCompletionDelay: massExtensionCompletionDelay)
        )
        let http = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        do {
            let fixture = SimulatorFixture(
                simulator: simulator, http: http,
                app: try await Self.createApp(
                    simulator: simulator, http: http, gracePeriodDays: gracePeriodDays,
                    notificationURL: notificationURL,
                    notificationVersion: notificationVersion))
            let result = try await body(fixture)
            try await http.shutdown()
            try await simulator.shutdown()
            return result
        } catch {
            try? await http.shutdown()
            try? await simulator.shutdown()
            throw error
        }
    }

    private static func createApp(
        simulator: AppStoreSimulator, http: HTTPClient, gracePeriodDays: Int, notificationURL: String?,
        notificationVersion: String?
    ) async throws -> AppDescription {
        let definition = AppDefinition(
            bundleID: bundleID, sharedSecret: sharedSecret, notificationURL: notificationURL,
            notificationVersion: notificationVersion, gracePeriodDays: gracePeriodDays, products: products)
        return try await ControlClient(baseURL: simulator.baseURL, http: http)
            .call("POST", "/control/apps", body: definition, as: AppDescription.self)
    }

    var controlClient: ControlClient { ControlClient(baseURL: simulator.baseURL, http: http) }

    // MARK: Control calls over HTTP

    func createAppleID(_ name: String, environment: StoreEnvironment = .sandbox) async throws -> AppleIDDescription {
        try await controlClient.call(
            "POST", "/control/apple-ids", body: AppleIDDefinition(appleID: name, environment: environment),
            as: AppleIDDescription.self)
    }

    func purchase(_ request: PurchaseRequest) async throws -> ActionResult {
        try await controlClient.call("POST", "/control/purchases", body: request, as: ActionResult.self)
    }

    func buy(_ appleID: String, _ productID: String, token: String? = nil) async throws -> ActionResult {
        try await purchase(
            PurchaseRequest(appleID: appleID, bundleID: Self.bundleID, productID: productID, appAccountToken: token))
    }

    func action(_ path: String, body: some Encodable = [String: String]()) async throws -> ActionResult {
        try await controlClient.call("POST", path, body: body, as: ActionResult.self)
    }

    func advance(hours: Int64 = 0, days: Int64 = 0) async throws -> ClockDescription {
        try await controlClient.call(
            "POST", "/control/clock/advance", body: ClockAdvanceRequest(hours: hours, days: days),
            as: ClockDescription.self)
    }

    // MARK: SubLedger's AppStore clients

    func verifyReceiptClient(secret: String = SimulatorFixture.sharedSecret, excludeOld: Bool = false)
        -> VerifyReceiptClient
    {
        VerifyReceiptClient(
            httpClient: http,
            configuration: .init(
                sharedSecret: secret, productionURL: simulator.productionVerifyReceiptURL,
                sandboxURL: simulator.sandboxVerifyReceiptURL, excludeOldTransactions: excludeOld, timeout: .seconds(20)
            )
        )
    }

    func verifier(_ environment: StoreEnvironment = .sandbox, roots: [TrustedRoot]? = nil) throws
        -> SignedDataVerifier
    {
        try SignedDataVerifier(
            configuration: .init(
                bundleID: Self.bundleID, appAppleID: app.appAppleID, environment: environment,
                signature: .init(roots: roots ?? [simulator.trustedRoot])))
    }

    func serverAPIClient(
        _ environment: StoreEnvironment = .sandbox, now: @escaping @Sendable () -> Instant = { Instant.systemNow() }
    ) throws
        -> AppStoreServerAPIClient
    {
        AppStoreServerAPIClient(
            httpClient: http,
            configuration: .init(
                environment: environment, baseURL: simulator.serverAPIBaseURL(environment), timeout: .seconds(20)),
            tokenIssuer: try ServerAPITokenIssuer(
                issuerID: app.serverAPI.issuerID, keyID: app.serverAPI.keyID, bundleID: Self.bundleID,
                privateKeyPEM: app.serverAPI.privateKeyPEM ?? "", now: now),
            verifier: try verifier(environment))
    }

    /// POSTs a raw verifyReceipt body and returns status and text.
    func rawVerifyReceipt(_ body: String, sandbox: Bool = true) async throws -> (Int, String) {
        var request = HTTPClientRequest(
            url: sandbox ? simulator.sandboxVerifyReceiptURL : simulator.productionVerifyReceiptURL)
        request.method = .POST
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await http.execute(request, timeout: .seconds(20))
        let bytes = try await response.body.collect(upTo: 1 << 24)
        return (Int(response.status.code), String(buffer: bytes))
    }
}

/// Calls `/control` routes with JSON bodies, as a team's test suite over HTTP would.
struct ControlClient: Sendable {
    let baseURL: String
    let http: HTTPClient

    struct Failure: Error, CustomStringConvertible {
        var status: Int
        var body: String
        var description: String { "control call failed (\(status)): \(body)" }
    }

    func call<Output: Decodable>(_ method: String, _ path: String, body: some Encodable, as type: Output.Type)
        async throws
        -> Output
    {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .RAW(value: method)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try ControlJSON.encoder.encode(body)))
        let response = try await http.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 24)
        guard response.status.code == 200 else {
            throw Failure(status: Int(response.status.code), body: String(buffer: bytes))
        }
        return try ControlJSON.decoder.decode(Output.self, from: Data(buffer: bytes))
    }
}

extension VerifyReceiptOutcome {
    /// The verified receipt, or a thrown description of the outcome.
    func verified() throws -> VerifiedReceipt {
        guard case .valid(let receipt) = self else { throw UnexpectedOutcome(description: "\(self)") }
        return receipt
    }
}

struct UnexpectedOutcome: Error, CustomStringConvertible {
    var description: String
}
