import AppStore
import AppStoreStore
import ArgumentParser
import Foundation
import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// `subledger subscriptions extend|extend-status`: Apple's renewal-date extensions, recorded in the ledger.
struct SubscriptionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscriptions",
        abstract: "Act on subscriptions through Apple: extend renewal dates.",
        subcommands: [Extend.self, ExtendStatus.self])

    struct Extend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Extend one subscription's renewal date, or every active subscriber's of a product.",
            discussion: """
                subledger subscriptions extend ORIGINAL_ID --days N --reason R
                subledger subscriptions extend --all-active --product P [--storefront USA ...] --days N --reason R

                Apple's limits are checked first: 1 to 90 days; at most two extensions of a subscription within
                365 days (counted from the ledger); only an active auto-renewable subscription. Reasons:
                undeclared, customer_satisfaction, other, service_issue_or_outage. A mass extension is polled
                until Apple completes it; if interrupted, resume with `subscriptions extend-status REQUEST_ID`.
                """)

        @Argument(help: "The original transaction id of the subscription to extend (not with --all-active).")
        var chainID: String?

        @Flag(help: "Extend every active subscriber of --product (Apple's mass extension).")
        var allActive = false

        @Option(help: "The subscription product whose active subscribers to extend (with --all-active).")
        var product: String?

        @Option(help: "Only subscribers of this storefront (ISO 3166-1 alpha-3, e.g. USA); repeatable.")
        var storefront: [String] = []

        @Option(help: "Days to add to the renewal date (1 to 90).")
        var days: Int

        @Option(help: "undeclared, customer_satisfaction, other or service_issue_or_outage.")
        var reason: String

        @Option(help: "The app's bundle id (needed when the catalog has several apps).")
        var app: String?

        @Option(help: "production or sandbox (one subscription: where the ledger holds it; mass: production).")
        var environment: String?

        @Option(
            name: .customLong("request-id"), help: "The request identifier (default: a new UUID); reuse it to retry.")
        var requestIdentifier: String?

        @Option(help: "Who asks, for the ledger's record (default: $USER).")
        var by: String?

        @Flag(help: "Mass extension: submit it and return without waiting for Apple to complete it.")
        var noWait = false

        @Option(help: "Mass extension: seconds between status polls (default 5).")
        var pollSeconds = 5.0

        @OptionGroup var apple: AppleOptions
        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            if allActive {
                guard chainID == nil else {
                    throw ValidationError("give either ORIGINAL_ID or --all-active, not both")
                }
                guard product != nil else { throw ValidationError("--all-active needs --product PRODUCT_ID") }
            } else {
                guard chainID != nil else {
                    throw ValidationError("give the ORIGINAL_ID of a subscription, or --all-active --product P")
                }
                guard product == nil, storefront.isEmpty else {
                    throw ValidationError("--product and --storefront go with --all-active")
                }
            }
            guard RenewalExtensionLimits.acceptsDays(days) else {
                throw ValidationError("--days must be 1 to 90 (Apple's limit per extension), not \(days)")
            }
            do {
                _ = try RenewalExtensions.reason(named: reason)
            } catch {
                throw ValidationError(error.message)
            }
            _ = try parseEnvironment(environment)
            guard pollSeconds > 0 else { throw ValidationError("--poll-seconds must be positive") }
        }

        func run() async throws {
            let reasonCode = try RenewalExtensions.reason(named: reason)
            let requestedBy = requester(by)
            let environment = try parseEnvironment(environment)
            try await withExtensions(apple: apple, database: database) { extensions in
                let app = try await extensions.app(bundleID: app)
                if let chainID {
                    let outcome = try await extensions.extend(
                        chainID: chainID, app: app, environment: environment, days: days,
                        reason: reasonCode, requestedBy: requestedBy, requestIdentifier: requestIdentifier)
                    let renews =
                        (outcome.record.effectiveDate ?? outcome.expiresAt).map { RFC3339.format($0) } ?? "unknown"
                    printOutput(
                        "\(outcome.repeated ? "already extended" : "extended") \(chainID) by "
                            + "\(outcome.record.days) days (\(reasonCode.name)): renews \(renews); "
                            + "request \(outcome.record.requestIdentifier)")
                    if !outcome.applied, !outcome.repeated {
                        printError("the ledger will apply the new expiry when Apple's RENEWAL_EXTENDED arrives")
                    }
                    return
                }
                let productID = product ?? ""
                let submitted = try await extensions.extendAllActive(
                    productID: productID, app: app, environment: environment ?? .production,
                    storefrontCountryCodes: storefront.isEmpty ? nil : storefront, days: days, reason: reasonCode,
                    requestedBy: requestedBy, requestIdentifier: requestIdentifier)
                printOutput(
                    "mass extension \(submitted.requestIdentifier) of \(productID) submitted: \(submitted.members) "
                        + "active subscriptions in the ledger")
                guard !noWait else {
                    printOutput(
                        "follow it with: subledger subscriptions extend-status \(submitted.requestIdentifier) --product \(productID)"
                    )
                    return
                }
                try await follow(extensions, submitted.requestIdentifier, productID, app, pollSeconds)
            }
        }
    }

    struct ExtendStatus: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "extend-status",
            abstract: "Poll a mass extension until Apple completes it, and apply its results to the ledger.")

        @Argument(help: "The mass extension's request identifier.")
        var requestIdentifier: String

        @Option(help: "The product the mass extension was for.")
        var product: String

        @Option(help: "The app's bundle id (needed when the catalog has several apps).")
        var app: String?

        @Flag(help: "Ask Apple once and print the status, without waiting for completion.")
        var noWait = false

        @Option(help: "Seconds between status polls (default 5).")
        var pollSeconds = 5.0

        @OptionGroup var apple: AppleOptions
        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard !requestIdentifier.isEmpty, requestIdentifier.count <= 128 else {
                throw ValidationError("a request identifier is 1 to 128 characters")
            }
            guard pollSeconds > 0 else { throw ValidationError("--poll-seconds must be positive") }
        }

        func run() async throws {
            try await withExtensions(apple: apple, database: database) { extensions in
                let app = try await extensions.app(bundleID: app)
                if noWait {
                    let record = try await extensions.refreshMassStatus(
                        requestIdentifier: requestIdentifier, productID: product, app: app)
                    printOutput(progressLine(record))
                    return
                }
                try await follow(extensions, requestIdentifier, product, app, pollSeconds)
            }
        }
    }
}

/// Polls a mass extension to completion with one progress line (rewritten in place on a terminal).
private func follow(
    _ extensions: RenewalExtensions, _ requestIdentifier: String, _ productID: String, _ app: StoredApp,
    _ pollSeconds: Double
) async throws {
    let terminal = isatty(STDOUT_FILENO) == 1
    let clock = ContinuousClock()
    let started = clock.now
    let done = try await extensions.waitForMassCompletion(
        requestIdentifier: requestIdentifier, productID: productID, app: app,
        interval: .milliseconds(Int64(pollSeconds * 1000))
    ) { record in
        let line = progressLine(record) + " (\(started.duration(to: clock.now).components.seconds) s)"
        if terminal {
            printOutput("\r\u{1B}[2K" + line, terminator: record.status == .complete ? "\n" : "")
            fflush(nil)
        } else {
            printOutput(line)
        }
    }
    if done.status == .refused {
        throw RenewalExtensionError(.appleRefused, done.appleError ?? "Apple refused the request")
    }
}

private func progressLine(_ record: MassExtensionRecord) -> String {
    switch record.status {
    case .requested, .submitted:
        return "mass extension \(record.requestIdentifier): Apple is processing \(record.productID)…"
    case .refused:
        return "mass extension \(record.requestIdentifier): refused by Apple (\(record.appleError ?? "no detail"))"
    case .complete:
        return "mass extension \(record.requestIdentifier): complete at "
            + "\(record.completeDate.map { RFC3339.format($0) } ?? "?"): \(record.succeededCount ?? 0) extended, "
            + "\(record.failedCount ?? 0) not extended by Apple; the ledger's \(record.members) active subscriptions "
            + "refreshed"
    }
}

/// Opens the database and Apple's clients, and runs `body` with the extensions service.
private func withExtensions(
    apple: AppleOptions, database: DatabaseOptions, _ body: (RenewalExtensions) async throws -> Void
) async throws {
    var configuration = ServiceConfiguration()
    try apple.apply(to: &configuration.apple, environment: CommandContext.current.environment)
    let service = configuration
    try await withStores(database) { stores in
        let logger = makeLogger("subledger.subscriptions", level: .warning)
        let gateway = try AppleGateway(configuration: service.apple, logger: logger)
        let ingestion = Ingestion(
            store: stores.ledger, catalog: stores.catalog, apple: gateway, logger: logger,
            now: { Instant.systemNow() })
        try await body(
            RenewalExtensions(
                store: stores.ledger, catalog: stores.catalog, apple: gateway, ingestion: ingestion, logger: logger,
                now: { Instant.systemNow() }))
    }
}

private func parseEnvironment(_ name: String?) throws -> StoreEnvironment? {
    guard let name else { return nil }
    switch name.lowercased() {
    case "production": return .production
    case "sandbox": return .sandbox
    default: throw ValidationError("--environment must be production or sandbox, not \(name)")
    }
}

private func requester(_ given: String?) -> String {
    if let given, !given.isEmpty { return given }
    return CommandContext.current.environment["USER"].flatMap { $0.isEmpty ? nil : $0 } ?? "cli"
}
