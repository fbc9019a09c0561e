import AppStoreStore
import ArgumentParser
import Foundation
import SubLedgerComposition
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerUseCases

/// `subledger notifications`: Apple's server notifications.
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "Apple's server notifications.",
        subcommands: [Recover.self, Test.self])

    /// `subledger notifications recover [--since T] [--app BUNDLE] [--environment E]`.
    struct Recover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "recover",
            abstract: "Fetch notifications SubLedger missed from Apple's notification history and apply them.",
            discussion: """
                Asks Apple's Get Notification History for every app with App Store Server API credentials (or \
                the one named), from where the history is known complete (less the margin) to now, and feeds \
                each notification through the normal ingestion: one that had arrived changes nothing. The \
                cursor moves only over windows fetched and applied entirely. `subledger poll` runs the same \
                recovery every hour. Apple keeps 180 days of history.
                """)

        @Option(
            help:
                "Fetch from this RFC 3339 time (e.g. 2026-11-01T00:00:00Z) instead of from the cursor; within the last 180 days."
        )
        var since: String?

        @Option(name: .customLong("app"), help: "Only this app (bundle id).")
        var bundleID: String?

        @Option(help: "Only this environment: Production or Sandbox.")
        var environment: String?

        @OptionGroup var recovery: RecoveryOptions
        @OptionGroup var apple: AppleOptions
        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            do {
                _ = try request()
            } catch {
                throw ValidationError(error.description)
            }
        }

        func request() throws(RecoveryError) -> RecoveryRequest {
            try RecoveryRequest.parse(
                since: since, bundleID: bundleID, environment: environment, now: Instant.systemNow())
        }

        func run() async throws {
            let variables = CommandContext.current.environment
            let configuration = try serviceConfiguration(database, apple)
            let logger = makeLogger("subledger.recovery", level: configuration.logLevel)
            let worker = "\(ProcessInfo.processInfo.hostName):\(getpid())"
            let recoveryConfiguration =
                try recovery.configuration(worker: worker, polling: false, environment: variables)
                ?? NotificationRecovery.Configuration(worker: worker)
            let report: RecoveryReport
            do {
                report = try await NotificationRecovery.recover(
                    configuration: configuration, recovery: recoveryConfiguration, request: try request(),
                    logger: logger)
            } catch let error as RecoveryError {
                throw ValidationError(error.description)
            }
            printOutput("\(report)")
            if report.hasFailures { throw ExitCode(1) }
        }
    }

    /// `subledger notifications test --app BUNDLE [--environment E] [--wait SECONDS]`.
    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Ask Apple for a test notification and check that it reaches SubLedger.",
            discussion: """
                Calls Apple's Request a Test Notification for the app (App Store Server API credentials \
                needed), so Apple sends a TEST notification to the URL set in App Store Connect for the \
                environment; then checks, once a second, Apple's delivery attempts (Get Test Notification \
                Status) and whether the notification arrived in this database and how SubLedger handled it, \
                until it has or --wait runs out. Prints both ends and a verdict; exits 0 only when SubLedger \
                received and verified the notification. Without --environment, each environment the app's \
                catalog entry lists is tested in turn.
                """)

        @Option(name: .customLong("app"), help: "The app (bundle id).")
        var bundleID: String

        @Option(help: "Production or Sandbox (default: each environment the app's catalog entry lists).")
        var environment: String?

        @Option(help: "How long to wait for the notification, in seconds (1 to 600; default 60).")
        var wait: Int = 60

        @OptionGroup var apple: AppleOptions
        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard (1...600).contains(wait) else { throw ValidationError("--wait must be between 1 and 600 seconds") }
            _ = try environments(default: [])
        }

        /// The environments named, or `catalog`'s.
        func environments(default catalog: [StoreEnvironment]) throws -> [StoreEnvironment] {
            guard let environment else { return catalog.filter { $0 == .production || $0 == .sandbox } }
            switch environment.lowercased() {
            case "production": return [.production]
            case "sandbox": return [.sandbox]
            default: throw ValidationError("--environment must be Production or Sandbox")
            }
        }

        func run() async throws {
            let configuration = try serviceConfiguration(database, apple)
            let logger = makeLogger("subledger.notifications.test", level: configuration.logLevel)
            let apple = try AppleGateway(configuration: configuration.apple, logger: logger)
            let reports: [NotificationTestReport] = try await withStores(
                database, label: "subledger.notifications.test"
            ) { stores in
                guard let app = try await stores.catalog.app(bundleID: bundleID) else {
                    throw ValidationError("no app with bundle id \(bundleID) in the catalog")
                }
                let test = NotificationTest(store: stores.ledger, catalog: stores.catalog, apple: apple)
                var reports: [NotificationTestReport] = []
                for environment in try environments(default: app.definition.environments) {
                    do throws(NotificationTestError) {
                        reports.append(
                            try await test.run(
                                bundleID: bundleID, environment: environment, checks: wait, interval: .seconds(1)))
                    } catch {
                        throw ValidationError(error.description)
                    }
                }
                return reports
            }
            guard !reports.isEmpty else {
                throw ValidationError("\(bundleID) lists neither Production nor Sandbox among its environments")
            }
            printOutput(reports.map(\.description).joined(separator: "\n"))
            if !reports.allSatisfy(\.verdict.isSuccess) { throw ExitCode(1) }
        }
    }
}
