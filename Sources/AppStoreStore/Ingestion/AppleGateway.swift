import AppStore
import AppStoreClients
import AsyncHTTPClient
import Foundation
import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases
import Synchronization

/// SubLedger's way to Apple: verifyReceipt clients and signed-data verifiers per app and environment, on one
/// HTTP client sized by the configuration, one circuit breaker and one set of trusted roots.
public final class AppleGateway: Sendable {
    let configuration: AppleConfiguration
    let roots: [TrustedRoot]
    let httpClient: HTTPClient
    let logger: Logger
    /// Refuses calls at once while Apple keeps failing (see `AppleCircuitBreaker`).
    public let breaker: AppleCircuitBreaker
    /// Bounds the calls to Apple made at once; a call beyond waits for a free one (see `AppleCallSlots`).
    public let callSlots: AppleCallSlots
    private let verifiers = Mutex<[String: SignedDataVerifier]>([:])
    private let serverAPIClients = Mutex<[String: AppStoreServerAPIClient]>([:])

    /// Reads the configured roots (plus `additionalRoots`, for callers that hold certificates in memory);
    /// fails with the file and reason when one cannot be read.
    /// `httpClient` defaults to a process-wide client with `configuration`'s connection limit and connect
    /// timeout (AsyncHTTPClient's shared one keeps 8 connections per host, too few under load).
    public init(
        configuration: AppleConfiguration, additionalRoots: [TrustedRoot] = [], httpClient: HTTPClient? = nil,
        logger: Logger
    ) throws {
        var roots: [TrustedRoot] = additionalRoots
        if configuration.trustAppleRoot { roots.append(try TrustedRoot.appleRootCAG3()) }
        for path in configuration.extraRootPaths {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError("cannot read the trusted root \(path)")
            }
            do {
                roots.append(try TrustedRoot(derOrPEM: bytes, strictRFC5280: false))
            } catch {
                throw ConfigurationError("\(path) is not a DER or PEM certificate: \(error)")
            }
        }
        guard !roots.isEmpty else { throw ConfigurationError("no trusted roots for Apple's signed data") }
        self.configuration = configuration
        self.roots = roots
        self.httpClient =
            httpClient
            ?? AppleHTTPClients.client(
                maximumConnections: configuration.maximumConnections, connectTimeout: configuration.connectTimeout)
        self.logger = logger
        self.breaker = AppleCircuitBreaker(
            failureThreshold: configuration.circuitBreakerThreshold, cooldown: configuration.circuitBreakerCooldown)
        self.callSlots = AppleCallSlots(limit: configuration.maximumConnections, wait: configuration.callSlotWait)
    }

    /// A verifyReceipt client for `app`, with its shared secret, asking `firstEnvironment` first (the
    /// receipt's known environment; production when unknown, as Apple recommends).
    func verifyReceiptClient(for app: StoredApp, firstEnvironment: StoreEnvironment? = nil) -> VerifyReceiptClient {
        VerifyReceiptClient(
            httpClient: httpClient,
            configuration: .init(
                sharedSecret: app.sharedSecret ?? "",
                productionURL: configuration.verifyReceiptProductionURL,
                sandboxURL: configuration.verifyReceiptSandboxURL,
                firstEnvironment: firstEnvironment == .sandbox ? .sandbox : .production,
                timeout: configuration.timeout),
            logger: logger)
    }

    /// The signed-data verifier of `app` in `environment` (cached: it keeps the verified-chain cache).
    func verifier(for app: StoredApp, environment: StoreEnvironment) throws(AppleGatewayError) -> SignedDataVerifier {
        let key = "\(app.bundleID)|\(environment.rawValue)|\(app.definition.appAppleID.map(String.init) ?? "")"
        if let cached = verifiers.withLock({ $0[key] }) { return cached }
        guard app.definition.environments.contains(environment) else {
            throw AppleGatewayError.environmentNotAllowed(environment, bundleID: app.bundleID)
        }
        let verifier: SignedDataVerifier
        do {
            verifier = try SignedDataVerifier(
                configuration: .init(
                    bundleID: app.bundleID, appAppleID: app.definition.appAppleID, environment: environment,
                    signature: .init(roots: roots)))
        } catch {
            throw AppleGatewayError.appMisconfigured(
                bundleID: app.bundleID, environment: environment, reason: "\(error)")
        }
        verifiers.withLock { $0[key] = verifier }
        return verifier
    }

    /// Refuses at once while the circuit breaker is open (Apple keeps failing), with the breaker's wait.
    func admitCall() throws(AppleGatewayError) {
        if let wait = breaker.refusal() {
            throw AppleGatewayError.circuitOpen(retryAfter: wait)
        }
    }

    /// The App Store Server API client of `app` in `environment`, or `nil` when the app has no credentials.
    func serverAPIClient(for app: StoredApp, environment: StoreEnvironment) throws -> AppStoreServerAPIClient? {
        guard let credentials = app.serverAPI else { return nil }
        let key = "\(app.bundleID)|\(environment.rawValue)|\(credentials.keyID)"
        if let cached = serverAPIClients.withLock({ $0[key] }) { return cached }
        let issuer: ServerAPITokenIssuer
        do {
            issuer = try ServerAPITokenIssuer(
                issuerID: credentials.issuerID, keyID: credentials.keyID, bundleID: app.bundleID,
                privateKeyPEM: credentials.privateKeyPEM)
        } catch {
            throw ConfigurationError("the Server API key of \(app.bundleID) is unusable: \(error)")
        }
        let baseURL =
            environment == .production ? configuration.serverAPIProductionURL : configuration.serverAPISandboxURL
        let client = AppStoreServerAPIClient(
            httpClient: httpClient,
            configuration: .init(environment: environment, baseURL: baseURL, timeout: configuration.timeout),
            tokenIssuer: issuer, verifier: try verifier(for: app, environment: environment), logger: logger)
        serverAPIClients.withLock { $0[key] = client }
        return client
    }

    /// A token parsed once, with the bundle id and environment its payload claims, read before verification
    /// to pick the verifier (the verifier then checks both). The parsed `jws` goes to the verifier as is, so
    /// the token is split, base64-decoded and scanned only here. `nil` when the token is not a compact JWS
    /// (the claims are `nil` when its payload names no app or environment).
    static func claimedJWS(_ token: String) -> ClaimedJWS? {
        guard let jws = try? CompactJWS(token) else { return nil }
        return ClaimedJWS(jws: jws)
    }

    /// `claimedJWS(_:)` for a notification's `signedPayload`: the payload is decoded once, here, with its
    /// claims (`UnverifiedNotificationV2`), and that decoded payload is what the verifier checks, so the
    /// payload is not decoded a second time after verification. A payload that does not decode so is
    /// claimed as `claimedJWS` claims it, and the verifier then decodes it itself (and refuses it).
    static func claimedNotification(_ token: String) -> ClaimedJWS? {
        guard let jws = try? CompactJWS(token) else { return nil }
        guard let notification = try? UnverifiedNotificationV2(jws) else { return ClaimedJWS(jws: jws) }
        return ClaimedJWS(notification: notification)
    }

    /// A parsed JWS and what its (not yet verified) payload says it is for.
    struct ClaimedJWS {
        /// The parsed token, its header's `crit` not checked yet: every verifier checks it first.
        var jws: CompactJWS
        var bundleID: String?
        var environment: StoreEnvironment?
        /// The notification decoded with its claims, when the token came through `claimedNotification(_:)`.
        var notification: UnverifiedNotificationV2?

        init(notification: UnverifiedNotificationV2) {
            self.jws = notification.jws
            self.notification = notification
            bundleID = notification.claimedBundleID
            environment = notification.claimedEnvironment.flatMap(StoreEnvironment.init(appleSpelling:))
        }

        init(jws: CompactJWS) {
            // A pass over the payload of its own (JSONDecoder scans it all), but into a few optional strings
            // only; the verifier's typed decode after verification is the only other. (Notifications, the
            // hot path, avoid the second through `claimedNotification`.)
            self.jws = jws
            guard let claims = PayloadClaims.read(jws.payload) else { return }
            bundleID = claims.bundleID
            environment = claims.environment.flatMap(StoreEnvironment.init(appleSpelling:))
        }
    }
}

/// The HTTP clients toward Apple, one per connection limit and connect timeout, kept for the life of the
/// process (like AsyncHTTPClient's shared client, they are never shut down).
enum AppleHTTPClients {
    private struct Key: Hashable {
        var maximumConnections: Int
        var connectTimeout: Duration
    }

    private static let clients = Mutex<[Key: HTTPClient]>([:])

    static func client(maximumConnections: Int, connectTimeout: Duration) -> HTTPClient {
        let key = Key(maximumConnections: max(1, maximumConnections), connectTimeout: connectTimeout)
        return clients.withLock { clients in
            if let client = clients[key] { return client }
            var configuration = HTTPClient.Configuration.singletonConfiguration
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = key.maximumConnections
            configuration.timeout.connect = .nanoseconds(
                Int64(connectTimeout.components.seconds) * 1_000_000_000
                    + connectTimeout.components.attoseconds / 1_000_000_000)
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[key] = client
            return client
        }
    }
}
