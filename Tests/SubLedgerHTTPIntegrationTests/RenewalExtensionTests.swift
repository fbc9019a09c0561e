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

/// Renewal-date extensions end to end: SubLedger's `RenewalExtensions` against appstore-sim (in-process) and
/// a real PostgreSQL, with the simulator's notifications delivered to the running service.
@Suite(.serialized) struct RenewalExtensionTests {
    typealias E = EndToEndHarness
    static let day: Int64 = 86_400_000

    /// The app's Server API key (the simulator's) in the catalog, and the extensions service on Apple = sim.
    static func extensions(_ e: E) async throws -> (RenewalExtensions, StoredApp) {
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
                verifyReceiptSandboxURL: e.sim.sandboxVerifyReceiptURL, trustAppleRoot: false, timeout: .seconds(20),
                serverAPIProductionURL: e.sim.serverAPIBaseURL(.production),
                serverAPISandboxURL: e.sim.serverAPIBaseURL(.sandbox)),
            additionalRoots: [e.sim.trustedRoot], logger: TestDatabase.logger)
        let now: @Sendable () -> Instant = { Instant(millisecondsSince1970: e.control.clock().now) }
        let ingestion = Ingestion(
            store: e.service.store, catalog: e.service.catalog, apple: gateway, logger: TestDatabase.logger, now: now)
        let extensions = RenewalExtensions(
            store: e.service.store, catalog: e.service.catalog, apple: gateway, ingestion: ingestion,
            logger: TestDatabase.logger, now: now)
        return (extensions, try #require(try await e.service.catalog.app(bundleID: E.bundleID)))
    }

    /// A new subscriber of pro.monthly, claimed by `account` through its signed transaction.
    static func subscribe(_ e: E, _ account: String) async throws -> String {
        let bought = try await e.control.purchase(
            PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
        let submitted = try await e.client.call(
            .post, "/v1/transactions", key: e.key,
            json: ["account_id": account, "signed_transaction": try #require(bought.signedTransaction)])
        #expect(submitted.json.entitlementIDs == ["pro"])
        return try #require(bought.originalTransactionID)
    }

    static func expiry(_ e: E, _ original: String, _ app: StoredApp) async throws -> Instant {
        let chain = try await e.service.store.chain(
            ChainKey(environment: .production, chainID: original), app: app)
        return try #require(chain?.header.latestExpiry)
    }

    /// The entitlement ids `account` holds at `instant`.
    static func entitlements(_ e: E, _ account: String, at instant: Instant) async throws -> [String] {
        let at = RFC3339.format(instant)
        return try await e.client.call(.get, "/v1/accounts/\(account)/entitlements?at=\(at)", key: e.key).json
            .entitlementIDs
    }

    /// The code of the refusal `body` throws, if it throws one.
    static func refusal(_ body: () async throws -> Void) async -> RenewalExtensionError.Code? {
        do {
            try await body()
            return nil
        } catch let error as RenewalExtensionError {
            return error.code
        } catch {
            Issue.record("not a RenewalExtensionError: \(error)")
            return nil
        }
    }

    static func count(_ e: E, _ sql: PostgresQuery) async throws -> Int64 {
        try await e.service.pool.query(sql).single().decode(Int64.self, at: 0)
    }

    /// Waits until every notification of `type` the simulator made has been delivered (and applied). The
    /// simulator may be delivering it from a background task (an extension's answer), so a flush can find it in
    /// flight; the wait allows 30 s for that delivery on a machine busy with the whole suite.
    static func waitForDelivery(_ e: E, of type: String, count: Int) async throws {
        for _ in 0..<600 {
            let matching = e.control.notifications().filter { $0.notificationType == type }
            if matching.count >= count, matching.allSatisfy(\.delivered) { return }
            await e.deliverNotifications()
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the \(type) notifications were not delivered")
    }

    @Test func aMassExtensionMovesEveryActiveSubscribersExpiryAndEntitlementButNotAnExpiredOnes() async throws {
        try await E.run { e in
            let (extensions, app) = try await Self.extensions(e)
            let lapsed = try await Self.subscribe(e, "carol")
            _ = try await e.control.setAutoRenew(lapsed, enabled: false)
            _ = await e.control.advanceClock(.init(days: 40))
            let alice = try await Self.subscribe(e, "alice")
            let bob = try await Self.subscribe(e, "bob")
            let before = [
                alice: try await Self.expiry(e, alice, app), bob: try await Self.expiry(e, bob, app),
                lapsed: try await Self.expiry(e, lapsed, app),
            ]
            let dayAfter = before[alice]!.adding(milliseconds: Self.day)
            #expect(try await Self.entitlements(e, "alice", at: dayAfter) == [])

            let submitted = try await extensions.extendAllActive(
                productID: "pro.monthly", app: app, days: 10, reason: .serviceIssueOrOutage, requestedBy: "ops")
            #expect(submitted.status == .submitted)
            #expect(submitted.members == 2)
            let polls = Counter()
            let done = try await extensions.waitForMassCompletion(
                requestIdentifier: submitted.requestIdentifier, productID: "pro.monthly", app: app,
                interval: .milliseconds(100)
            ) { _ in polls.increment() }
            #expect(polls.value >= 2)  // Apple completes it later: the status was polled while it was pending
            #expect(done.status == .complete)
            #expect(done.succeededCount == 2)
            #expect(done.failedCount == 0)

            for original in [alice, bob] {
                #expect(
                    try await Self.expiry(e, original, app) == before[original]!.adding(milliseconds: 10 * Self.day))
                let records = try await RenewalExtensionStore(pool: e.service.pool).extensions(
                    of: ChainKey(environment: .production, chainID: original), appID: app.appID)
                #expect(records.map(\.status) == [.succeeded])
                #expect(records.first?.mass == true)
            }
            #expect(try await Self.expiry(e, lapsed, app) == before[lapsed]!)
            #expect(try await Self.entitlements(e, "alice", at: dayAfter) == ["pro"])
            #expect(try await Self.entitlements(e, "bob", at: dayAfter) == ["pro"])
            #expect(try await Self.entitlements(e, "carol", at: dayAfter) == [])

            // Apple's RENEWAL_EXTENDED (one per subscriber) and the SUMMARY arrive too: no double effect.
            let entries = try await Self.count(e, "SELECT count(*) FROM ledger_entries")
            try await Self.waitForDelivery(e, of: "RENEWAL_EXTENDED", count: 2)
            try await Self.waitForDelivery(e, of: "RENEWAL_EXTENSION", count: 1)
            #expect(try await Self.count(e, "SELECT count(*) FROM ledger_entries") == entries)
            #expect(try await Self.expiry(e, alice, app) == before[alice]!.adding(milliseconds: 10 * Self.day))

            // Resuming a finished request changes nothing.
            let resumed = try await extensions.refreshMassStatus(
                requestIdentifier: submitted.requestIdentifier, productID: "pro.monthly", app: app)
            #expect(resumed == done)

            // The mass extension counts toward Apple's two per 365 days: one more single, then no more.
            _ = try await extensions.extend(
                chainID: alice, app: app, days: 1, reason: .other, requestedBy: "support")
            #expect(
                await Self.refusal {
                    _ = try await extensions.extend(
                        chainID: alice, app: app, days: 1, reason: .other, requestedBy: "support")
                } == .extensionLimitReached)
        }
    }

    /// A subscriber Apple cannot extend (two extensions in the past 365 days already) counts as failed: Apple
    /// sends `RENEWAL_EXTENSION` / `FAILURE` for that subscription, which SubLedger stores and applies without
    /// effect, and the member is settled as refused.
    @Test func aMassExtensionsFailedSubscriberIsToldAndChangesNothing() async throws {
        try await E.run { e in
            let (extensions, app) = try await Self.extensions(e)
            let alice = try await Self.subscribe(e, "alice")
            let bob = try await Self.subscribe(e, "bob")
            for _ in 0..<2 {
                _ = try await extensions.extend(
                    chainID: alice, app: app, days: 1, reason: .other, requestedBy: "support")
            }
            try await Self.waitForDelivery(e, of: "RENEWAL_EXTENDED", count: 2)
            let aliceBefore = try await Self.expiry(e, alice, app)
            let entries = try await Self.count(e, "SELECT count(*) FROM ledger_entries WHERE account_id = 'alice'")

            let submitted = try await extensions.extendAllActive(
                productID: "pro.monthly", app: app, days: 10, reason: .serviceIssueOrOutage, requestedBy: "ops")
            let done = try await extensions.waitForMassCompletion(
                requestIdentifier: submitted.requestIdentifier, productID: "pro.monthly", app: app,
                interval: .milliseconds(100)
            ) { _ in }
            #expect(done.succeededCount == 1)
            #expect(done.failedCount == 1)
            try await Self.waitForDelivery(e, of: "RENEWAL_EXTENSION", count: 2)
            let failures = e.control.notifications().filter {
                $0.notificationType == "RENEWAL_EXTENSION" && $0.subtype == "FAILURE"
            }
            #expect(failures.count == 1)
            #expect(failures.first?.originalTransactionID == alice)
            #expect(
                try await Self.count(
                    e, "SELECT count(*) FROM notifications WHERE notification_type = 'RENEWAL_EXTENSION'") == 2)
            #expect(try await Self.expiry(e, alice, app) == aliceBefore)
            #expect(
                try await Self.count(e, "SELECT count(*) FROM ledger_entries WHERE account_id = 'alice'") == entries)
            let records = try await RenewalExtensionStore(pool: e.service.pool).extensions(
                of: ChainKey(environment: .production, chainID: bob), appID: app.appID)
            #expect(records.map(\.status) == [.succeeded])
        }
    }

    @Test func aSingleExtensionMovesOneAndAThirdWithinAYearIsRefusedBeforeCallingApple() async throws {
        try await E.run { e in
            let (extensions, app) = try await Self.extensions(e)
            let alice = try await Self.subscribe(e, "alice")
            let bob = try await Self.subscribe(e, "bob")
            let aliceBefore = try await Self.expiry(e, alice, app)
            let bobBefore = try await Self.expiry(e, bob, app)

            let first = try await extensions.extend(
                chainID: alice, app: app, days: 5, reason: .customerSatisfaction, requestedBy: "support")
            #expect(first.applied)
            #expect(first.record.status == .succeeded)
            #expect(first.record.effectiveDate == aliceBefore.adding(milliseconds: 5 * Self.day))
            #expect(first.expiresAt == first.record.effectiveDate)
            #expect(try await Self.expiry(e, bob, app) == bobBefore)
            #expect(try await Self.entitlements(e, "alice", at: aliceBefore.adding(milliseconds: Self.day)) == ["pro"])
            #expect(try await Self.entitlements(e, "bob", at: bobBefore.adding(milliseconds: Self.day)) == [])

            // Retrying the same request identifier neither calls Apple nor extends again.
            let retried = try await extensions.extend(
                chainID: alice, app: app, days: 5, reason: .customerSatisfaction, requestedBy: "support",
                requestIdentifier: first.record.requestIdentifier)
            #expect(retried.repeated)
            #expect(try await Self.expiry(e, alice, app) == aliceBefore.adding(milliseconds: 5 * Self.day))

            _ = try await extensions.extend(
                chainID: alice, app: app, days: 3, reason: .other, requestedBy: "support")
            let extendedTwice = aliceBefore.adding(milliseconds: 8 * Self.day)
            #expect(try await Self.expiry(e, alice, app) == extendedTwice)
            try await Self.waitForDelivery(e, of: "RENEWAL_EXTENDED", count: 2)

            #expect(
                await Self.refusal {
                    _ = try await extensions.extend(
                        chainID: alice, app: app, days: 1, reason: .other, requestedBy: "support")
                } == .extensionLimitReached)
            // Refused before Apple was called: Apple made no third extension, the ledger recorded none.
            #expect(e.control.notifications().filter { $0.notificationType == "RENEWAL_EXTENDED" }.count == 2)
            #expect(try await Self.expiry(e, alice, app) == extendedTwice)
            #expect(try await Self.count(e, "SELECT count(*) FROM renewal_extensions") == 2)
        }
    }

    @Test func daysOutsideOneToNinetyABadReasonAndIneligibleChainsAreRefusedWithClearErrors() async throws {
        try await E.run { e in
            let (extensions, app) = try await Self.extensions(e)
            let alice = try await Self.subscribe(e, "alice")
            for days in [0, 91] {
                #expect(
                    await Self.refusal {
                        _ = try await extensions.extend(
                            chainID: alice, app: app, days: days, reason: .other, requestedBy: "t")
                    } == .invalidDays)
                #expect(
                    await Self.refusal {
                        _ = try await extensions.extendAllActive(
                            productID: "pro.monthly", app: app, days: days, reason: .other, requestedBy: "t")
                    } == .invalidDays)
            }
            do {
                _ = try RenewalExtensions.reason(named: "outage")
                Issue.record("an unknown reason was accepted")
            } catch let error as RenewalExtensionError {
                #expect(error.code == .invalidReason)
                #expect(error.message.contains("service_issue_or_outage"))
            }
            #expect(try RenewalExtensions.reason(named: "service_issue_or_outage") == .serviceIssueOrOutage)
            #expect(try RenewalExtensions.reason(named: "Customer-Satisfaction") == .customerSatisfaction)

            #expect(
                await Self.refusal {
                    _ = try await extensions.extend(
                        chainID: "2999999999", app: app, days: 5, reason: .other, requestedBy: "t")
                } == .unknownSubscription)
            #expect(
                await Self.refusal {
                    _ = try await extensions.extendAllActive(
                        productID: "pro.monthly", app: app, storefrontCountryCodes: ["US"], days: 5, reason: .other,
                        requestedBy: "t")
                } == .invalidStorefront)
            #expect(
                await Self.refusal {
                    _ = try await extensions.extendAllActive(
                        productID: "coins.100", app: app, days: 5, reason: .other, requestedBy: "t")
                } == .notAutoRenewable)
            #expect(
                await Self.refusal {
                    _ = try await extensions.refreshMassStatus(
                        requestIdentifier: "nope", productID: "pro.monthly", app: app)
                } == .unknownRequest)
            _ = try await e.control.setAutoRenew(alice, enabled: false)
            _ = await e.control.advanceClock(.init(days: 40))
            try await Self.waitForDelivery(e, of: "EXPIRED", count: 1)
            #expect(
                await Self.refusal {
                    _ = try await extensions.extend(
                        chainID: alice, app: app, days: 5, reason: .other, requestedBy: "t")
                } == .notActive)
            #expect(try await Self.count(e, "SELECT count(*) FROM renewal_extensions") == 0)
            #expect(try await Self.count(e, "SELECT count(*) FROM renewal_extension_requests") == 0)
        }
    }

    @Test func aReplayedRenewalExtendedChangesNothing() async throws {
        try await E.run { e in
            let (extensions, app) = try await Self.extensions(e)
            let alice = try await Self.subscribe(e, "alice")
            let before = try await Self.expiry(e, alice, app)
            _ = try await extensions.extend(
                chainID: alice, app: app, days: 7, reason: .serviceIssueOrOutage, requestedBy: "ops")
            try await Self.waitForDelivery(e, of: "RENEWAL_EXTENDED", count: 1)
            let chainKey = ChainKey(environment: .production, chainID: alice)
            let snapshot = try await e.service.store.chain(chainKey, app: app)
            let entries = try await Self.count(e, "SELECT count(*) FROM ledger_entries")
            let changes = try await Self.count(e, "SELECT count(*) FROM chain_state_changes")
            let notification = try #require(
                e.control.notifications().first { $0.notificationType == "RENEWAL_EXTENDED" })

            let replay = try await e.client.call(
                .post, "/v1/notifications/appstore", key: nil, json: ["signedPayload": notification.signedPayload])
            #expect(replay.status == .ok)
            #expect(try await e.service.store.chain(chainKey, app: app) == snapshot)
            #expect(try await Self.count(e, "SELECT count(*) FROM ledger_entries") == entries)
            #expect(try await Self.count(e, "SELECT count(*) FROM chain_state_changes") == changes)
            #expect(try await Self.expiry(e, alice, app) == before.adding(milliseconds: 7 * Self.day))
            #expect(
                try await Self.count(
                    e, "SELECT count(*) FROM notifications WHERE notification_type = 'RENEWAL_EXTENDED'")
                    == 1)
        }
    }
}

/// Counts progress callbacks.
private final class Counter: Sendable {
    private let storage = Mutex(0)
    func increment() { storage.withLock { $0 += 1 } }
    var value: Int { storage.withLock { $0 } }
}
