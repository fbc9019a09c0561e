import ArgumentParser
import Foundation
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerUseCases

/// `subledger notifications`: Apple's server notifications.
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "Apple's server notifications.",
        subcommands: [Recover.self])

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
            var configuration = ServiceConfiguration()
            try database.apply(to: &configuration, environment: variables)
            try apple.apply(to: &configuration.apple, environment: variables)
            let logger = makeLogger("subledger.recovery", level: configuration.logLevel)
            let worker = "\(ProcessInfo.processInfo.hostName):\(getpid())"
            let recoveryConfiguration =
                try recovery.configuration(worker: worker, polling: false, environment: variables)
                ?? NotificationRecovery.Configuration(worker: worker)
            let report: RecoveryReport
            do {
                report = try await SubLedgerServer.recoverNotifications(
                    configuration: configuration, recovery: recoveryConfiguration, request: try request(),
                    logger: logger)
            } catch let error as RecoveryError {
                throw ValidationError(error.description)
            }
            printOutput("\(report)")
            if report.hasFailures { throw ExitCode(1) }
        }
    }
}
