import AppStore
import AppStoreSimulator
import AppStoreStore
import CatalogFile
import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Synchronization
import Testing

/// Every App Store Server API call goes through the gateway's circuit breaker: while it is open nothing is sent,
/// and a retryable failure of any caller counts toward opening it.
@Suite(.serialized) struct AppleServerAPIBreakerTests {
    final class CallCount: Sendable {
        let count = Mutex(0)
    }

    typealias E = EndToEndHarness
    typealias R = RenewalExtensionTests

    static func gateway(threshold: Int) throws -> AppleGateway {
        try AppleGateway(
            configuration: AppleConfiguration(
                circuitBreakerThreshold: threshold, circuitBreakerCooldown: .seconds(600)),
            logger: TestDatabase.logger)
    }

    @Test func anOpenBreakerRefusesAServerAPICallWithoutMakingIt() async throws {
        let gateway = try Self.gateway(threshold: 2)
        let calls = CallCount()
        @Sendable func failing() async throws(AppStoreServerAPIError) -> Int {
            calls.count.withLock { $0 += 1 }
            throw AppStoreServerAPIError(.serverError, httpStatus: 503)
        }
        for _ in 0..<2 {
            do {
                _ = try await gateway.callServerAPI(.consumptionInformation, failing)
                Issue.record("a failing call returned")
            } catch {
                guard case .apple(let error) = error else { throw error }
                #expect(error.code == .serverError)
            }
        }
        #expect(gateway.breaker.isOpen)
        do {
            _ = try await gateway.callServerAPI(.extendRenewalDate, failing)
            Issue.record("the open breaker let a call through")
        } catch {
            guard case .notCalled = error else { throw error }
        }
        #expect(calls.count.withLock { $0 } == 2)
    }

    @Test func anAnswerEvenARefusalClosesTheCount() async throws {
        let gateway = try Self.gateway(threshold: 2)
        @Sendable func unavailable() async throws(AppStoreServerAPIError) -> Int {
            throw AppStoreServerAPIError(.timeout)
        }
        @Sendable func refused() async throws(AppStoreServerAPIError) -> Int {
            throw AppStoreServerAPIError(.transactionIDNotFound, apiErrorCode: 4_040_010, httpStatus: 404)
        }
        _ = try? await gateway.callServerAPI(.massExtensionStatus, unavailable)
        _ = try? await gateway.callServerAPI(.massExtensionStatus, refused)
        _ = try? await gateway.callServerAPI(.massExtensionStatus, unavailable)
        #expect(!gateway.breaker.isOpen)
        #expect(
            try await gateway.callServerAPI(.massExtensionStatus) { () async throws(AppStoreServerAPIError) in 7 } == 7)
    }

    /// A renewal extension while Apple is held off by the breaker: refused as `apple_unavailable`, nothing sent
    /// (the expiry does not move), and the same request goes through once Apple answers again.
    @Test func aRenewalExtensionWaitsForTheBreaker() async throws {
        try await E.run { e in
            let simApp = try e.control.app(E.bundleID)
            let pem = try #require(simApp.serverAPI.privateKeyPEM)
            let (catalog, _) = try CatalogFile.read(ServiceHarness.catalogYAML)
            try await e.service.catalog.applyCatalog(
                catalog,
                secrets: [
                    E.bundleID: AppSecrets(
                        serverAPI: .init(
                            issuerID: simApp.serverAPI.issuerID, keyID: simApp.serverAPI.keyID, privateKeyPEM: pem))
                ])
            let gateway = try AppleGateway(
                configuration: AppleConfiguration(
                    verifyReceiptProductionURL: e.sim.productionVerifyReceiptURL,
                    verifyReceiptSandboxURL: e.sim.sandboxVerifyReceiptURL, trustAppleRoot: false,
                    timeout: .seconds(20), circuitBreakerThreshold: 1, circuitBreakerCooldown: .seconds(600),
                    serverAPIProductionURL: e.sim.serverAPIBaseURL(.production),
                    serverAPISandboxURL: e.sim.serverAPIBaseURL(.sandbox)),
                additionalRoots: [e.sim.trustedRoot], logger: TestDatabase.logger)
            let now: @Sendable () -> Instant = { Instant(millisecondsSince1970: e.control.clock().now) }
            let ingestion = Ingestion(
                store: e.service.store, catalog: e.service.catalog, apple: gateway, logger: TestDatabase.logger,
                now: now)
            let extensions = RenewalExtensions(
                store: e.service.store, catalog: e.service.catalog, apple: gateway, ingestion: ingestion,
                logger: TestDatabase.logger, now: now)
            let app = try #require(try await e.service.catalog.app(bundleID: E.bundleID))
            let original = try await R.subscribe(e, "dora")
            let before = try await R.expiry(e, original, app)

            gateway.breaker.recordFailure()
            #expect(gateway.breaker.isOpen)
            let code = await R.refusal {
                _ = try await extensions.extend(
                    chainID: original, app: app, days: 5, reason: .serviceIssueOrOutage,
                    requestedBy: "ops", requestIdentifier: "breaker-test")
            }
            #expect(code == .appleUnavailable)
            #expect(try await R.expiry(e, original, app) == before)

            gateway.breaker.recordSuccess()
            let outcome = try await extensions.extend(
                chainID: original, app: app, days: 5, reason: .serviceIssueOrOutage,
                requestedBy: "ops", requestIdentifier: "breaker-test")
            #expect(outcome.expiresAt == before.adding(milliseconds: 5 * R.day))
        }
    }
}
