import AppStoreSimulator
import ArgumentParser
import Foundation
import Logging
import SubLedgerCore

/// `appstore-sim`: runs the App Store simulator; every behaviour lives in the AppStoreSimulator library.
@main
struct AppStoreSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appstore-sim",
        abstract: "A local, wire-compatible simulator of Apple's App Store servers for backend tests.",
        discussion: """
            Apple's endpoints (production at the root, sandbox under /sandbox):
              POST /verifyReceipt
              POST /sandbox/verifyReceipt
              GET  /inApps/v2/history/{transactionId}
              GET  /inApps/v1/history/{transactionId}
              GET  /inApps/v1/subscriptions/{transactionId}
              GET  /inApps/v1/transactions/{transactionId}
              GET  /inApps/v1/lookup/{orderId}
              GET  /inApps/v2/refund/lookup/{transactionId}
              POST /inApps/v1/notifications/history
              POST /inApps/v1/notifications/test
              GET  /inApps/v1/notifications/test/{testNotificationToken}
              PUT  /inApps/v1/subscriptions/extend/{originalTransactionId}
              POST /inApps/v1/subscriptions/extend/mass
              GET  /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}
              PUT  /inApps/v2/transactions/consumption/{transactionId}
              PUT  /inApps/v1/transactions/consumption/{transactionId}
              (sandbox: /sandbox/inApps/...; JWTs are checked as Apple checks them)

            Control API (JSON, snake_case; docs/reference/appstore-sim.md has bodies and curl examples):
              GET    /control/health
              GET    /control/root-certificate[?format=pem]
              GET    /control/apps
              POST   /control/apps
              GET    /control/apps/{bundle_id}
              PATCH  /control/apps/{bundle_id}
              POST   /control/apps/{bundle_id}/products
              GET    /control/apple-ids
              POST   /control/apple-ids
              GET    /control/apple-ids/{apple_id}/receipt?bundle_id=...
              POST   /control/purchases
              POST   /control/ask-to-buy/{request_id}/approve
              POST   /control/ask-to-buy/{request_id}/decline
              POST   /control/subscriptions/{id}/renew
              POST   /control/subscriptions/{id}/auto-renew
              POST   /control/subscriptions/{id}/billing-failure
              POST   /control/subscriptions/{id}/billing-recovery
              POST   /control/subscriptions/{id}/change-product
              POST   /control/transactions/{id}/refund
              POST   /control/transactions/{id}/refund-reversal
              POST   /control/transactions/{id}/finish
              POST   /control/transactions/{id}/family-share
              POST   /control/transactions/{id}/family-revoke
              GET    /control/transactions/{id}/signed
              GET    /control/clock
              POST   /control/clock/advance
              GET    /control/faults
              PUT    /control/faults/{verify_receipt|server_api}
              DELETE /control/faults/{verify_receipt|server_api}
              DELETE /control/faults
              GET    /control/notifications
              PATCH  /control/notifications/settings
              POST   /control/notifications/flush
              POST   /control/notifications/test
              POST   /control/transactions/{id}/consumption-request
              GET    /control/consumption
              GET    /control/rate-limits
              PUT    /control/rate-limits
              POST   /control/bulk-chains

            Clock: manual (default; time moves only via /control/clock/advance; calendar
            durations) or accelerated (time flows --acceleration times wall speed; sandbox
            durations: 1 week = 3 min, 1 month = 5 min, 1 year = 1 hour; grace and retry
            days count as minutes). Notification retries: 1, 12, 24, 48, 72 hours
            (simulated) after the first failed attempt. The same --seed gives the same ids
            and signing keys, so a root exported once keeps verifying.
            """
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free port).")
    var port = 8090

    @Option(help: "Seed for ids, keys and fault draws.")
    var seed: UInt64 = 1

    @Option(help: "Clock mode: manual or accelerated.")
    var clock: String = "manual"

    @Option(help: "How many times faster than wall time an accelerated clock runs.")
    var acceleration: Double = 1

    @Option(help: "Simulated start time: milliseconds since 1970 (default 2025-01-01T00:00:00Z when manual).")
    var startTime: Int64?

    @Option(help: "Where notifications are posted for apps without their own URL.")
    var notificationURL: String?

    @Option(help: "A JSON file with {\"apps\": [...], \"apple_ids\": [...]} in the control API's format.")
    var config: String?

    @Option(help: "Create an app with this bundle id (repeatable); products come from --product.")
    var app: [String] = []

    @Option(help: "Shared secret of apps created with --app.")
    var sharedSecret: String?

    @Option(
        help: """
            Product of every --app app (repeatable): PRODUCT_ID:TYPE[:GROUP[:DURATION[:LEVEL]]], \
            TYPE auto_renewable|non_renewing|consumable|non_consumable, DURATION P1W|P1M|P2M|P3M|P6M|P1Y.
            """)
    var product: [String] = []

    @Option(help: "Create an Apple ID with this name (repeatable; sandbox).")
    var appleID: [String] = []

    @Option(help: "Write the signing root certificate here (DER; PEM when the path ends in .pem).")
    var exportRoot: String?

    @Flag(help: "Exit after --export-root instead of serving.")
    var exitAfterExport = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String = "info"

    func run() async throws {
        if let exportRoot {
            let root = try AppStoreSimulator.rootCertificate(seed: seed)
            let data = exportRoot.hasSuffix(".pem") ? Data(root.pem.utf8) : Data(root.der)
            try data.write(to: URL(fileURLWithPath: exportRoot))
            print("appstore-sim: wrote the signing root (seed \(seed)) to \(exportRoot)")
            if exitAfterExport { return }
        }
        guard let mode = SimulatorClock.Mode(rawValue: clock) else {
            throw ValidationError("--clock must be manual or accelerated")
        }
        var apps: [AppDefinition] = []
        var appleIDs: [AppleIDDefinition] = []
        if let config {
            let catalog = try StartupCatalog.decode(try Data(contentsOf: URL(fileURLWithPath: config)))
            apps += catalog.apps ?? []
            appleIDs += catalog.appleIDs ?? []
        }
        let products = try product.map(Self.parseProduct)
        apps += app.map { AppDefinition(bundleID: $0, sharedSecret: sharedSecret, products: products) }
        appleIDs += appleID.map { AppleIDDefinition(appleID: $0) }

        var logger = Logger(label: "appstore-sim")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let configuration = AppStoreSimulator.Configuration(
            host: host, port: port, seed: seed, clockMode: mode,
            startTime: startTime.map(Instant.init(millisecondsSince1970:)), acceleration: acceleration,
            notificationURL: notificationURL, apps: apps, appleIDs: appleIDs)
        try await AppStoreSimulator.run(configuration, logger: logger) { simulator in
            print("appstore-sim listening on \(simulator.baseURL) (clock \(mode.rawValue), seed \(seed))")
            print("  verifyReceipt: \(simulator.productionVerifyReceiptURL)  \(simulator.sandboxVerifyReceiptURL)")
            print(
                "  Server API:    \(simulator.serverAPIBaseURL(.production))  \(simulator.serverAPIBaseURL(.sandbox))")
            print("  control:       \(simulator.baseURL)/control")
            for app in simulator.control.apps() {
                print("  app \(app.bundleID): shared secret \(app.sharedSecret), key id \(app.serverAPI.keyID)")
            }
        }
    }

    static func parseProduct(_ text: String) throws -> ProductDefinition {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, let type = ProductKind(rawValue: parts[1]) else {
            throw ValidationError("--product \(text): expected PRODUCT_ID:TYPE[:GROUP[:DURATION[:LEVEL]]]")
        }
        var duration: SubscriptionDuration?
        if parts.count > 3, !parts[3].isEmpty {
            guard let parsed = SubscriptionDuration(rawValue: parts[3]) else {
                throw ValidationError("--product \(text): unknown duration \(parts[3])")
            }
            duration = parsed
        }
        return ProductDefinition(
            productID: parts[0], type: type, subscriptionGroupID: parts.count > 2 && !parts[2].isEmpty ? parts[2] : nil,
            duration: duration, groupLevel: parts.count > 4 ? Int(parts[4]) : nil)
    }
}
