import AsyncHTTPClient
import Foundation
import GooglePlay
import GooglePlaySimulator
import HTTPTestSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import SubLedgerCore
import Synchronization

/// A running simulator with one package (`com.example.app`: subscription `pro` with base plans `monthly` (offer
/// `intro`) and `yearly`, subscription `premium`, consumable `coins`, non-consumable `lifetime`), a push receiver,
/// an HTTP client, and Google's side spoken over real HTTP with the GooglePlay module's types.
struct PlayFixture: Sendable {
    static let packageName = "com.example.app"

    let simulator: GooglePlaySimulator
    let receiver: StubHTTPServer
    let http: HTTPClient
    /// The status the receiver answers pushes with (200 unless a test changes it).
    let receiverStatus: ReceiverStatus

    static let package = PackageDefinition(
        packageName: packageName,
        subscriptions: [
            SubscriptionDefinition(
                productId: "pro",
                basePlans: [
                    BasePlanDefinition(
                        basePlanId: "monthly", billingPeriod: .oneMonth,
                        offers: [
                            OfferDefinition(offerId: "intro", offerTags: ["launch"]),
                            OfferDefinition(offerId: "trial", freeTrialDays: 7),
                        ]),
                    BasePlanDefinition(basePlanId: "yearly", billingPeriod: .oneYear, priceMicros: 99_990_000),
                ]),
            SubscriptionDefinition(
                productId: "premium",
                basePlans: [
                    BasePlanDefinition(basePlanId: "monthly", billingPeriod: .oneMonth, priceMicros: 19_990_000)
                ]
            ),
        ],
        products: [
            OneTimeProductDefinition(productId: "coins", consumable: true),
            OneTimeProductDefinition(productId: "lifetime", priceMicros: 49_990_000),
        ])

    /// The push endpoint's path on the receiver; the push URL is the default audience.
    static let pushPath = "/rtdn"

    /// Runs `body` with a fresh simulator and receiver, and always shuts everything down.
    static func with<Result: Sendable>(_ body: (PlayFixture) async throws -> Result) async throws -> Result {
        let status = ReceiverStatus()
        let receiver = try await StubHTTPServer.start { request in
            if let callback = status.onPush.withLock({ $0 }) { await callback(request) }
            return .empty(status: status.value.withLock { $0 })
        }
        let http = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let simulator: GooglePlaySimulator
        do {
            simulator = try await GooglePlaySimulator.start(
                .init(seed: 7, pushURL: receiver.baseURL + pushPath, packages: [package]))
        } catch {
            try? await http.shutdown()
            await receiver.shutdown()
            throw error
        }
        let fixture = PlayFixture(simulator: simulator, receiver: receiver, http: http, receiverStatus: status)
        do {
            let result = try await body(fixture)
            try await fixture.close()
            return result
        } catch {
            try? await fixture.close()
            throw error
        }
    }

    private func close() async throws {
        try await http.shutdown()
        try await simulator.shutdown()
        await receiver.shutdown()
    }

    // MARK: HTTP

    struct Answer: Sendable {
        var status: Int
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }

        func decode<Value: Decodable>(_ type: Value.Type, control: Bool = false) throws -> Value {
            try (control ? ControlJSON.decoder : JSONDecoder()).decode(Value.self, from: body)
        }
    }

    func send(
        _ method: HTTPMethod, _ url: String, body: Data? = nil, headers: [(String, String)] = []
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await http.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 4 * 1024 * 1024)
        return Answer(status: Int(response.status.code), body: Data(buffer: bytes))
    }

    // MARK: Control API over HTTP

    func control(_ method: HTTPMethod, _ path: String, _ body: some Encodable) async throws -> Answer {
        try await send(method, simulator.baseURL + path, body: try ControlJSON.encoder.encode(body))
    }

    func controlAction(_ path: String, _ body: some Encodable = [String: String]()) async throws
        -> PurchaseDescription
    {
        let answer = try await control(.POST, path, body)
        guard answer.status == 200 else { throw FixtureError("\(path) answered \(answer.status): \(answer.text)") }
        return try answer.decode(PurchaseDescription.self, control: true)
    }

    func buy(
        _ productId: String, basePlanId: String? = nil, offerId: String? = nil, account: String? = "account-1",
        test: Bool? = nil
    ) async throws -> PurchaseDescription {
        try await controlAction(
            "/control/purchases",
            PurchaseRequest(
                packageName: Self.packageName, productId: productId, basePlanId: basePlanId, offerId: offerId,
                obfuscatedExternalAccountId: account, test: test))
    }

    func advance(days: Int64 = 0, hours: Int64 = 0) async throws {
        let answer = try await control(.POST, "/control/clock/advance", ClockAdvanceRequest(hours: hours, days: days))
        guard answer.status == 200 else { throw FixtureError("advance answered \(answer.status)") }
    }

    // MARK: Google's side

    /// The service account as a client receives it: the key file the simulator exports.
    func serviceAccount() async throws -> ServiceAccountKey {
        try ServiceAccountKey(jsonData: try await send(.GET, simulator.baseURL + "/control/service-account").body)
    }

    /// An access token from the token endpoint for the exported service account's assertion.
    func accessToken() async throws -> String {
        let key = try await serviceAccount()
        let form = OAuthTokenExchange.formBody(assertion: try key.assertion(now: WallClock.now()))
        let answer = try await send(
            .POST, key.tokenURI, body: Data(form.utf8),
            headers: [("Content-Type", "application/x-www-form-urlencoded")])
        guard answer.status == 200 else {
            throw FixtureError("token endpoint answered \(answer.status): \(answer.text)")
        }
        return try answer.decode(OAuthTokenResponse.self).accessToken
    }

    /// Calls a Developer API route with a fresh access token.
    func call(_ route: AndroidPublisherRoute, query: String = "", body: some Encodable = EmptyContext()) async throws
        -> Answer
    {
        let token = try await accessToken()
        return try await send(
            route.method == "GET" ? .GET : .POST, simulator.developerAPIBaseURL + route.path + query,
            body: route.method == "GET" ? nil : try JSONEncoder().encode(body),
            headers: [("Authorization", "Bearer " + token)])
    }

    func subscription(_ token: String) async throws -> SubscriptionPurchaseV2 {
        let answer = try await call(.getSubscriptionV2(packageName: Self.packageName, token: token))
        guard answer.status == 200 else { throw FixtureError("subscriptionsv2.get answered \(answer.status)") }
        return try answer.decode(SubscriptionPurchaseV2.self)
    }

    func acknowledge(_ purchase: PurchaseDescription) async throws {
        let answer = try await call(
            .acknowledgeSubscription(
                packageName: Self.packageName, subscriptionId: purchase.productId, token: purchase.purchaseToken))
        guard answer.status == 200 else { throw FixtureError("acknowledge answered \(answer.status): \(answer.text)") }
    }

    // MARK: Pushes

    /// Every push received, decoded with the GooglePlay module, with its Authorization header.
    func pushes() throws -> [(notification: DeveloperNotification, authorization: String?)] {
        try receiver.requests.filter { $0.path == Self.pushPath }.map {
            (try DeveloperNotificationDecoder.decode(pushBody: $0.body).notification, $0.header("authorization"))
        }
    }

    /// The subscription notification types pushed for `token`, in order.
    func pushedTypes(_ token: String) throws -> [SubscriptionNotificationType] {
        try pushes().compactMap { push in
            push.notification.subscriptionNotification.flatMap { $0.purchaseToken == token ? $0.notificationType : nil }
        }
    }

    /// The verifier SubLedger would configure: the simulator's JWKS, fetched as a receiver would.
    func pushVerifier(audience: String? = nil) async throws -> PubSubPushTokenVerifier {
        let jwks = try JSONWebKeySet(jsonData: try await send(.GET, simulator.jwksURL).body)
        return PubSubPushTokenVerifier(
            configuration: .init(
                audience: audience ?? receiver.baseURL + Self.pushPath,
                serviceAccountEmail: simulator.configuration.pushServiceAccountEmail),
            keys: jwks)
    }
}

/// The receiver's answer status, and what it does before answering, shared with its handler.
final class ReceiverStatus: Sendable {
    let value = Mutex(200)
    let onPush = Mutex<(@Sendable (StubRequest) async -> Void)?>(nil)
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
