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

/// The end-to-end harness with SubLedger holding the simulator's App Store Server API key, and recoveries
/// built the way `subledger poll` builds them (each its own gateway: a process of its own).
extension EndToEndHarness {
    static let subscribers = ["alice", "bob", "carol", "dave"]

    /// Gives SubLedger's app the simulator's Server API credentials (recovery skips an app without them).
    func giveServerAPICredentials() async throws {
        let simApp = try control.app(Self.bundleID)
        guard let pem = simApp.serverAPI.privateKeyPEM else { throw RecoveryHarnessError.noKey }
        let (catalog, _) = try CatalogFile.read(ServiceHarness.catalogYAML)
        try await service.catalog.applyCatalog(
            catalog,
            secrets: [
                Self.bundleID: AppSecrets(
                    serverAPI: .init(
                        issuerID: simApp.serverAPI.issuerID, keyID: simApp.serverAPI.keyID, privateKeyPEM: pem))
            ])
    }

    /// A gateway to the simulator as a fresh process would make it (its own breaker and call slots).
    func freshGateway() throws -> AppleGateway {
        try sim.appleGateway()
    }

    /// A recovery as a fresh process would make it: its own gateway, store and cursor handle, on the simulator's clock.
    func recovery(
        worker: String = "recovery-test", configure: (inout NotificationRecovery.Configuration) -> Void = { _ in }
    )
        throws -> NotificationRecovery
    {
        let gateway = try freshGateway()
        let control = self.control
        let now: @Sendable () -> Instant = { Instant(millisecondsSince1970: control.clock().now) }
        let store = LedgerStore(pool: service.pool)
        let catalog = CatalogStore(pool: service.pool, secretKeys: service.catalog.secretKeys)
        var configuration = NotificationRecovery.Configuration(worker: worker)
        configuration.window = .seconds(30 * 86_400)
        configuration.retryBase = .milliseconds(10)
        configure(&configuration)
        return NotificationRecovery(
            configuration: configuration, cursors: NotificationHistoryCursors(pool: service.pool), catalog: catalog,
            ingestion: Ingestion(store: store, catalog: catalog, apple: gateway, logger: TestDatabase.logger, now: now),
            logger: TestDatabase.logger, now: now)
    }

    /// Four production subscribers buy pro.monthly on day 0 and submit their receipts; an hour passes.
    /// Returns each account's original transaction id.
    func subscribeEveryone() async throws -> [String: String] {
        var originals: [String: String] = [:]
        for account in Self.subscribers {
            let bought = try await control.purchase(
                PurchaseRequest(appleID: try appleID(), bundleID: Self.bundleID, productID: "pro.monthly"))
            _ = try await submitReceipt(bought.receiptData, account: account)
            originals[account] = bought.originalTransactionID
        }
        _ = await control.advanceClock(.init(hours: 1))
        return originals
    }

    /// Three simulated days around the first renewal (days 29 to 32): everyone renews, bob's renewal is
    /// refunded, carol turns auto-renew off. With `drop`, every notification of those days is dropped.
    /// Then dave turns auto-renew off (delivered), and four more days pass: beyond Apple's retries.
    func threeDaysAroundTheRenewal(_ originals: [String: String], drop: Bool) async throws {
        _ = await control.advanceClock(.init(days: 29))
        if drop { _ = await control.updateNotificationSettings(.init(drop: true)) }
        _ = await control.advanceClock(.init(days: 1))
        _ = try await control.setAutoRenew(try Self.require(originals["carol"]), enabled: false)
        _ = await control.advanceClock(.init(days: 1))
        let bobsRenewal = control.notifications().last {
            $0.originalTransactionID == originals["bob"] && $0.notificationType == "DID_RENEW"
        }
        _ = try await control.refund(try Self.require(bobsRenewal?.transactionID))
        _ = await control.advanceClock(.init(days: 1))
        if drop { _ = await control.updateNotificationSettings(.init(drop: false)) }
        _ = try await control.setAutoRenew(try Self.require(originals["dave"]), enabled: false)
        _ = await control.advanceClock(.init(days: 4))
    }

    /// Every subscriber's entitlements now, as canonical JSON, and the ledger's entries counted by kind.
    func outcome() async throws -> RecoveryOutcome {
        var entitlements: [String: String] = [:]
        for account in Self.subscribers {
            let json = try await self.entitlements(account)
            let data = try JSONSerialization.data(withJSONObject: json["entitlements"] ?? [], options: [.sortedKeys])
            entitlements[account] = String(decoding: data, as: UTF8.self)
        }
        var entries: [String: Int64] = [:]
        for row in try await service.pool.query("SELECT kind, count(*) FROM ledger_entries GROUP BY kind") {
            entries[try row.decode(String.self, at: 0)] = try row.decode(Int64.self, at: 1)
        }
        return RecoveryOutcome(entitlements: entitlements, entriesByKind: entries)
    }

    /// Notifications stored by SubLedger, and how many of them are applied.
    func storedNotifications() async throws -> (stored: Int64, applied: Int64) {
        let row = try await service.pool.query(
            "SELECT count(*), count(*) FILTER (WHERE status = 'applied') FROM notifications"
        ).single()
        return (try row.decode(Int64.self, at: 0), try row.decode(Int64.self, at: 1))
    }

    /// The notifications the simulator dropped.
    var dropped: [DroppedNotification] {
        control.notifications().filter { $0.dropped == true }.map {
            DroppedNotification(notificationType: $0.notificationType, attempts: $0.attempts.count)
        }
    }

    static func require<T>(_ value: T?) throws -> T {
        guard let value else { throw RecoveryHarnessError.missing }
        return value
    }
}

/// What a scenario ended with.
struct RecoveryOutcome: Hashable, Sendable {
    /// Account → its entitlements as canonical JSON.
    var entitlements: [String: String]
    /// Ledger entry kind → count.
    var entriesByKind: [String: Int64]
}

/// A notification the simulator's drop fault dropped.
struct DroppedNotification: Hashable, Sendable {
    var notificationType: String
    /// Delivery attempts (none, for a dropped one).
    var attempts: Int
}

enum RecoveryHarnessError: Error {
    case noKey
    case missing
}

extension RecoveryReport {
    /// The units of the end-to-end app (app two has no Server API credentials: always skipped).
    var ours: [Unit] { units.filter { $0.bundleID == EndToEndHarness.bundleID } }
}
